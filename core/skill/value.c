#include "core/skill/value.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

struct ss_value {
	ss_value_type type;
	bool b;
	int64_t i;
	char *s;
	size_t len;       /* string bytes, or number of items */
	size_t alloc;     /* items allocated */
	char **keys;      /* map keys, parallel to items */
	ss_value **items; /* list or map items */
};

static ss_value *new_value(ss_value_type type)
{
	ss_value *v = ss_xcalloc(1, sizeof(*v));
	v->type = type;
	return v;
}

ss_value *ss_value_new_null(void)
{
	return new_value(SS_VALUE_NULL);
}

ss_value *ss_value_new_bool(bool b)
{
	ss_value *v = new_value(SS_VALUE_BOOL);
	v->b = b;
	return v;
}

ss_value *ss_value_new_int(int64_t i)
{
	ss_value *v = new_value(SS_VALUE_INT);
	v->i = i;
	return v;
}

ss_value *ss_value_new_string(const char *s, size_t len)
{
	ss_value *v = new_value(SS_VALUE_STRING);
	v->s = ss_xmemdup(s, len);
	v->len = len;
	return v;
}

ss_value *ss_value_new_list(void)
{
	return new_value(SS_VALUE_LIST);
}

ss_value *ss_value_new_map(void)
{
	return new_value(SS_VALUE_MAP);
}

void ss_value_free(ss_value *v)
{
	if (!v)
		return;
	if (v->type == SS_VALUE_LIST || v->type == SS_VALUE_MAP) {
		for (size_t i = 0; i < v->len; i++) {
			ss_value_free(v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	free(v->s);
	free(v);
}

ss_value *ss_value_clone(const ss_value *v)
{
	ss_value *c;

	switch (v->type) {
	case SS_VALUE_NULL:
		return ss_value_new_null();
	case SS_VALUE_BOOL:
		return ss_value_new_bool(v->b);
	case SS_VALUE_INT:
		return ss_value_new_int(v->i);
	case SS_VALUE_STRING:
		return ss_value_new_string(v->s, v->len);
	case SS_VALUE_LIST:
		c = ss_value_new_list();
		for (size_t i = 0; i < v->len; i++)
			ss_value_list_append(c, ss_value_clone(v->items[i]));
		return c;
	case SS_VALUE_MAP:
		c = ss_value_new_map();
		for (size_t i = 0; i < v->len; i++)
			ss_value_map_append(c, v->keys[i], ss_value_clone(v->items[i]));
		return c;
	}
	return ss_value_new_null();
}

static void grow(ss_value *v)
{
	size_t alloc = v->alloc;

	ss_xgrow((void **)&v->items, sizeof(*v->items), v->len + 1, &alloc);
	if (v->type == SS_VALUE_MAP) {
		size_t kalloc = v->alloc;
		ss_xgrow((void **)&v->keys, sizeof(*v->keys), v->len + 1, &kalloc);
	}
	v->alloc = alloc;
}

void ss_value_list_append(ss_value *list, ss_value *item)
{
	grow(list);
	list->items[list->len++] = item;
}

void ss_value_map_append(ss_value *map, const char *key, ss_value *item)
{
	grow(map);
	map->keys[map->len] = ss_xstrdup(key);
	map->items[map->len++] = item;
}

static size_t find_key(const ss_value *map, const char *key)
{
	if (!map || map->type != SS_VALUE_MAP)
		return (size_t)-1;
	for (size_t i = 0; i < map->len; i++)
		if (!strcmp(map->keys[i], key))
			return i;
	return (size_t)-1;
}

const ss_value *ss_value_map_get(const ss_value *map, const char *key)
{
	size_t i = find_key(map, key);
	return i == (size_t)-1 ? NULL : map->items[i];
}

ss_value *ss_value_map_take(ss_value *map, const char *key)
{
	size_t i = find_key(map, key);
	ss_value *item;

	if (i == (size_t)-1)
		return NULL;
	item = map->items[i];
	free(map->keys[i]);
	memmove(&map->items[i], &map->items[i + 1], (map->len - i - 1) * sizeof(*map->items));
	memmove(&map->keys[i], &map->keys[i + 1], (map->len - i - 1) * sizeof(*map->keys));
	map->len--;
	return item;
}

ss_value_type ss_value_type_of(const ss_value *v)
{
	return v->type;
}

bool ss_value_bool(const ss_value *v)
{
	return v->type == SS_VALUE_BOOL && v->b;
}

int64_t ss_value_int(const ss_value *v)
{
	return v->type == SS_VALUE_INT ? v->i : 0;
}

const char *ss_value_string(const ss_value *v, size_t *len)
{
	if (v->type != SS_VALUE_STRING) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = v->len;
	return v->s;
}

size_t ss_value_count(const ss_value *v)
{
	return v->type == SS_VALUE_LIST || v->type == SS_VALUE_MAP ? v->len : 0;
}

const ss_value *ss_value_at(const ss_value *v, size_t i, const char **key_out)
{
	if (i >= ss_value_count(v))
		return NULL;
	if (key_out)
		*key_out = v->type == SS_VALUE_MAP ? v->keys[i] : NULL;
	return v->items[i];
}

bool ss_value_equal(const ss_value *a, const ss_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case SS_VALUE_NULL:
		return true;
	case SS_VALUE_BOOL:
		return a->b == b->b;
	case SS_VALUE_INT:
		return a->i == b->i;
	case SS_VALUE_STRING:
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	case SS_VALUE_LIST:
	case SS_VALUE_MAP:
		if (a->len != b->len)
			return false;
		for (size_t i = 0; i < a->len; i++) {
			if (a->type == SS_VALUE_MAP && strcmp(a->keys[i], b->keys[i]))
				return false;
			if (!ss_value_equal(a->items[i], b->items[i]))
				return false;
		}
		return true;
	}
	return false;
}

const char *ss_value_type_name(ss_value_type t)
{
	static const char *const names[] = {"null", "boolean", "integer", "string", "list", "map"};
	return (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : "value";
}
