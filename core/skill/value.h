/*
 * value.h: a small tree of frontmatter values (the YAML keys a skill keeps beyond its own
 * fields, and the record's "frontmatter" object).
 *
 * Rules: a value is null, a boolean, a 64-bit integer, a string (UTF-8 bytes with a length),
 * a list, or a map whose keys are strings kept in insertion order (never sorted, never
 * deduplicated here: readers check duplicates). There are no floats: the PDS refuses them, so
 * a YAML scalar that looks like one stays a string. A parent owns its children; getters return
 * borrowed pointers that live as long as the tree.
 */
#ifndef SS_VALUE_H
#define SS_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ss_value_type {
	SS_VALUE_NULL,
	SS_VALUE_BOOL,
	SS_VALUE_INT,
	SS_VALUE_STRING,
	SS_VALUE_LIST,
	SS_VALUE_MAP,
} ss_value_type;

typedef struct ss_value ss_value;

ss_value *ss_value_new_null(void);
ss_value *ss_value_new_bool(bool b);
ss_value *ss_value_new_int(int64_t i);
/* The integers a record may hold: the PDS stores only those a double holds exactly,
 * |i| <= 2^53 - 1 (JavaScript's safe integers). */
#define SS_VALUE_INT_MAX 9007199254740991LL
/* Copies len bytes of s (they may hold any bytes; a NUL is added after them). */
ss_value *ss_value_new_string(const char *s, size_t len);
ss_value *ss_value_new_list(void);
ss_value *ss_value_new_map(void);
void ss_value_free(ss_value *v);
ss_value *ss_value_clone(const ss_value *v);

/* Appends item to a list (takes ownership). */
void ss_value_list_append(ss_value *list, ss_value *item);
/* Appends key -> item to a map (takes ownership of item, copies key). */
void ss_value_map_append(ss_value *map, const char *key, ss_value *item);
/* The value under key in a map, or NULL. */
const ss_value *ss_value_map_get(const ss_value *map, const char *key);
/* Removes key from a map and hands its value to the caller (NULL when absent). */
ss_value *ss_value_map_take(ss_value *map, const char *key);

ss_value_type ss_value_type_of(const ss_value *v);
bool ss_value_bool(const ss_value *v);
int64_t ss_value_int(const ss_value *v);
/* A string's bytes (NUL-terminated) and, if len is not NULL, their length. */
const char *ss_value_string(const ss_value *v, size_t *len);
/* The number of items of a list or map (0 for scalars). */
size_t ss_value_count(const ss_value *v);
/* Item i of a list or map; for a map, key_out (if not NULL) gets its key. */
const ss_value *ss_value_at(const ss_value *v, size_t i, const char **key_out);

/* Deep equality: same types, same bytes, same order of map keys. */
bool ss_value_equal(const ss_value *a, const ss_value *b);
/* A short name for a type ("string", "list", ...), for messages. */
const char *ss_value_type_name(ss_value_type t);

#endif
