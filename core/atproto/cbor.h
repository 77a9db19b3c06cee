/*
 * cbor.h: strict DAG-CBOR, the encoding of ATProto records, MST nodes, commits and CAR headers.
 *
 * Two levels. ss_cbor_read is a pull reader over bytes held by the caller: one item at a time,
 * strings borrowed from the input (no copy), for structures of a known shape (MST nodes, CAR
 * headers). ss_cbor_decode / ss_cbor_encode convert a whole value to and from jansson in the
 * ATProto JSON form: a CID link is {"$link": "<cid>"}, bytes are {"$bytes": "<base64, standard
 * alphabet, unpadded>"}.
 *
 * The rules (docs/DEPENDENCIES.md says why our own decoder): the reader refuses, as SS_EINVALID
 * with the byte offset, anything DAG-CBOR or ATProto's data model forbids: indefinite lengths,
 * integers and lengths not in their shortest form, integers outside int64, tags other than 42
 * (a CID: a byte string 0x00 <binary CID>, core/atproto/cid.h), floats of any width (ATProto
 * forbids them in records, and no repository structure has one), undefined and every simple value
 * but false, true and null, text that is not valid UTF-8, and any length beyond the input. Maps
 * must have text keys, sorted length first then bytewise, without duplicates; a map key "$link"
 * or "$bytes" is refused (it would read back as a link or bytes in the JSON form). Nesting is
 * capped at SS_CBOR_MAX_DEPTH, and ss_cbor_decode refuses trailing bytes. Both ss_cbor_decode
 * and ss_cbor_encode hold maps to ATProto's data model: a "$type" is a non-empty string, a blob
 * ("$type": "blob") has its ref link, mimeType and integer size.
 *
 * The encoder writes the one canonical form: shortest heads, map keys sorted, so that encoding
 * a decoded value gives the same bytes and a record's JSON gives the bytes its CID names.
 */
#ifndef SS_CBOR_H
#define SS_CBOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/atproto/cid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_CBOR_MAX_DEPTH 64

typedef enum ss_cbor_type {
	SS_CBOR_INT,
	SS_CBOR_BYTES,
	SS_CBOR_TEXT,
	SS_CBOR_ARRAY,
	SS_CBOR_MAP,
	SS_CBOR_LINK,
	SS_CBOR_FALSE,
	SS_CBOR_TRUE,
	SS_CBOR_NULL,
} ss_cbor_type;

typedef struct ss_cbor_item {
	ss_cbor_type type;
	int64_t i;                /* SS_CBOR_INT */
	const unsigned char *ptr; /* SS_CBOR_BYTES, SS_CBOR_TEXT: borrowed from the input */
	size_t len;               /* BYTES, TEXT: their bytes; ARRAY: items; MAP: pairs */
	ss_cid cid;               /* SS_CBOR_LINK */
} ss_cbor_item;

typedef struct ss_cbor_reader {
	const unsigned char *start, *p, *end;
} ss_cbor_reader;

void ss_cbor_reader_init(ss_cbor_reader *r, const void *data, size_t len);
/*
 * Reads the next item's head (and a string's or link's whole content). An array's or map's items
 * follow: the caller reads them (a map's as key, value, key, value...). Map key order is the
 * caller's to check, with ss_cbor_key_less.
 */
int ss_cbor_read(ss_cbor_reader *r, ss_cbor_item *it, ss_error *err);
/* Skips one whole value (with its items), checking every DAG-CBOR rule ss_cbor_decode does
 * (not the data model's "$type" rules). */
int ss_cbor_skip(ss_cbor_reader *r, ss_error *err);
/* Whether key a sorts strictly before key b in DAG-CBOR's order (length first, then bytes). */
bool ss_cbor_key_less(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen);

/* Decodes exactly len bytes holding one value into *out (json_decref it). */
int ss_cbor_decode(const void *data, size_t len, json_t **out, ss_error *err);
/*
 * Appends the JSON text of the value in exactly len bytes to out, in the same JSON form as
 * ss_cbor_decode (keys in their order, strings escaped as JSON needs, nothing else), without a
 * jansson tree: a record read from a repository's block goes on as text. 0 done; 1 nothing
 * appended: the value breaks a rule, or has a shape only ss_cbor_decode checks (a "$type" below
 * the top, a blob), so the caller takes ss_cbor_decode, which decides and says why.
 */
int ss_cbor_to_json(const void *data, size_t len, ss_buf *out);
/*
 * Appends the canonical DAG-CBOR of value (the JSON form) to out. Refused as SS_EINVALID: a real
 * number that is not an integer of at most 2^53 in magnitude (123.0 is written as 123), a "$link"
 * or "$bytes" object with other keys or a malformed value, a "$type" that is not a non-empty
 * string, a blob ("$type": "blob") without its ref link, mimeType and integer size.
 */
int ss_cbor_encode(const json_t *value, ss_buf *out, ss_error *err);

/* The lower level that the repository readers and the record codec share. */

/* Reads a map key: text, strictly after prev (NULL for the first key), not "$link" or
 * "$bytes". */
int ss_cbor_read_key(ss_cbor_reader *r, ss_cbor_item *key, const ss_cbor_item *prev, ss_error *err);

/* ATProto's data model on a map with "$type": a non-empty string, and a blob's fields (a ref
 * link, a mimeType, an integer size). Both directions check it, so that what decodes encodes. */
int ss_cbor_check_type(const json_t *v, ss_error *err);

/* Writers of canonical items: a head (shortest form) and a CID link (tag 42). */
int ss_cbor_put_head(ss_buf *out, int major, uint64_t arg);
int ss_cbor_put_link(ss_buf *out, const ss_cid *cid);

#endif
