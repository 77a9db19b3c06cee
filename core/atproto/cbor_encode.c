/* The canonical DAG-CBOR of a value in ATProto's JSON form (core/atproto/cbor.h). */
#include "core/atproto/cbor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/base64.h"
#include "core/util/mem.h"

int ss_cbor_put_head(ss_buf *out, int major, uint64_t arg)
{
	unsigned char h[9];
	size_t n;

	if (arg < 24) {
		h[0] = (unsigned char)(major << 5 | (int)arg);
		n = 1;
	} else {
		int ai = arg <= 0xff ? 24 : arg <= 0xffff ? 25 : arg <= 0xffffffffu ? 26 : 27;
		size_t w = (size_t)1 << (ai - 24);
		h[0] = (unsigned char)(major << 5 | ai);
		for (size_t i = 0; i < w; i++)
			h[1 + i] = (unsigned char)(arg >> (8 * (w - 1 - i)));
		n = 1 + w;
	}
	return ss_buf_put(out, h, n);
}

static int put_int(ss_buf *out, int64_t i)
{
	return i >= 0 ? ss_cbor_put_head(out, 0, (uint64_t)i)
	              : ss_cbor_put_head(out, 1, (uint64_t)(-1 - i));
}

static int put_string(ss_buf *out, int major, const char *s, size_t len)
{
	if (ss_cbor_put_head(out, major, len) < 0)
		return -1;
	return ss_buf_put(out, s, len);
}

typedef struct key {
	const char *s;
	size_t len;
	const json_t *v;
} key;

static int key_cmp(const void *a, const void *b)
{
	const key *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->s, y->s, x->len);
}

static int encode_value(const json_t *v, int depth, ss_buf *out, ss_error *err);

static int encode_link(const json_t *v, ss_buf *out, ss_error *err)
{
	const json_t *s = json_object_get(v, "$link");
	ss_cid cid;

	if (json_object_size(v) != 1 || !json_is_string(s))
		return ss_error_set(err, SS_EINVALID, "invalid $link: not one CID string");
	if (ss_cid_parse(&cid, json_string_value(s), json_string_length(s), err) < 0)
		return ss_error_prefix(err, "invalid $link");
	return ss_cbor_put_link(out, &cid);
}

int ss_cbor_put_link(ss_buf *out, const ss_cid *cid)
{
	unsigned char bin[1 + SS_CID_BINSZ];

	bin[0] = 0x00; /* the multibase prefix of binary CIDs in DAG-CBOR */
	ss_cid_to_bytes(bin + 1, cid);
	if (ss_cbor_put_head(out, 6, 42) < 0)
		return -1;
	return put_string(out, 2, (const char *)bin, sizeof(bin));
}

static int encode_bytes(const json_t *v, ss_buf *out, ss_error *err)
{
	const json_t *s = json_object_get(v, "$bytes");
	ss_buf raw = SS_BUF_INIT;
	int ret = -1;

	if (json_object_size(v) != 1 || !json_is_string(s)) {
		ss_error_set(err, SS_EINVALID, "invalid $bytes: not one base64 string");
		goto out;
	}
	if (ss_base64_decode(&raw, json_string_value(s), json_string_length(s), SS_BASE64_STD,
	                     err) < 0) {
		ss_error_prefix(err, "invalid $bytes");
		goto out;
	}
	ret = put_string(out, 2, raw.ptr, raw.len);
out:
	ss_buf_release(&raw);
	return ret;
}

int ss_cbor_check_type(const json_t *v, ss_error *err)
{
	const json_t *t = json_object_get(v, "$type"), *ref;

	if (!t)
		return 0;
	if (!json_is_string(t) || json_string_length(t) == 0)
		return ss_error_set(err, SS_EINVALID, "invalid $type: not a non-empty string");
	if (strcmp(json_string_value(t), "blob") != 0)
		return 0;
	ref = json_object_get(v, "ref");
	if (!json_is_object(ref) || !json_object_get(ref, "$link") ||
	    !json_is_string(json_object_get(v, "mimeType")) ||
	    !json_is_integer(json_object_get(v, "size")))
		return ss_error_set(
		    err, SS_EINVALID,
		    "invalid blob: needs a ref link, a mimeType and an integer size");
	return 0;
}

static int encode_map(const json_t *v, int depth, ss_buf *out, ss_error *err)
{
	size_t n = json_object_size(v), i = 0;
	key *keys;
	void *it;
	int ret = -1;

	if (json_object_get(v, "$link"))
		return encode_link(v, out, err);
	if (json_object_get(v, "$bytes"))
		return encode_bytes(v, out, err);
	if (ss_cbor_check_type(v, err) < 0)
		return -1;
	keys = ss_xcalloc(n, sizeof(*keys));
	for (it = json_object_iter((json_t *)(uintptr_t)v); it && i < n;
	     it = json_object_iter_next((json_t *)(uintptr_t)v, it), i++) {
		keys[i].s = json_object_iter_key(it);
		keys[i].len = json_object_iter_key_len(it);
		keys[i].v = json_object_iter_value(it);
	}
	qsort(keys, i, sizeof(*keys), key_cmp);
	if (ss_cbor_put_head(out, 5, i) < 0)
		goto out;
	for (size_t k = 0; k < i; k++)
		if (put_string(out, 3, keys[k].s, keys[k].len) < 0 ||
		    encode_value(keys[k].v, depth + 1, out, err) < 0)
			goto out;
	ret = 0;
out:
	free(keys);
	return ret;
}

static int encode_value(const json_t *v, int depth, ss_buf *out, ss_error *err)
{
	double d;

	if (depth > SS_CBOR_MAX_DEPTH)
		return ss_error_set(err, SS_EINVALID, "value nested too deep");
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return encode_map(v, depth, out, err);
	case JSON_ARRAY:
		if (ss_cbor_put_head(out, 4, json_array_size(v)) < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(v); i++)
			if (encode_value(json_array_get(v, i), depth + 1, out, err) < 0)
				return -1;
		return 0;
	case JSON_STRING:
		return put_string(out, 3, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return put_int(out, json_integer_value(v));
	case JSON_REAL:
		/* JSON has one number type: 123.0 is the integer 123, as the reference has it. */
		d = json_real_value(v);
		if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) ||
		    (double)(int64_t)d != d)
			return ss_error_set(err, SS_EINVALID,
			                    "float %g: ATProto data has no floats", d);
		return put_int(out, (int64_t)d);
	case JSON_TRUE:
		return ss_buf_putc(out, (char)0xf5);
	case JSON_FALSE:
		return ss_buf_putc(out, (char)0xf4);
	case JSON_NULL:
		return ss_buf_putc(out, (char)0xf6);
	}
	return ss_error_set(err, SS_EINVALID, "value of unknown type");
}

int ss_cbor_encode(const json_t *value, ss_buf *out, ss_error *err)
{
	size_t start = out->len;
	ss_error_clear(err);
	if (encode_value(value, 0, out, err) < 0) {
		ss_buf_truncate(out, start);
		if (err->code == SS_OK)
			return ss_error_set(err, SS_ETOOBIG, "DAG-CBOR value over %zu bytes",
			                    out->max);
		return -1;
	}
	return 0;
}
