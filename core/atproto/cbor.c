#include "core/atproto/cbor.h"

#include <string.h>

#include "core/util/base64.h"
#include "core/util/utf8.h"

void ss_cbor_reader_init(ss_cbor_reader *r, const void *data, size_t len)
{
	r->start = data;
	r->p = data;
	r->end = r->start + len;
}

static int bad(ss_cbor_reader *r, const unsigned char *at, ss_error *err, const char *what)
{
	return ss_error_set(err, SS_EINVALID, "invalid DAG-CBOR at byte %zu: %s",
	                    (size_t)(at - r->start), what);
}

/* Reads a head: its major type and argument, refusing what is not shortest or not definite.
 * Major type 7 comes back with the additional information in *arg, unread. */
static int read_head(ss_cbor_reader *r, int *major, uint64_t *arg, ss_error *err)
{
	const unsigned char *at = r->p;
	int ai, n;
	uint64_t v = 0;

	if (r->p >= r->end)
		return bad(r, at, err, "cut short");
	*major = *r->p >> 5;
	ai = *r->p & 31;
	r->p++;
	if (*major == 7) {
		*arg = (uint64_t)ai;
		return 0;
	}
	if (ai < 24) {
		*arg = (uint64_t)ai;
		return 0;
	}
	if (ai == 31)
		return bad(r, at, err, "indefinite length");
	if (ai > 27)
		return bad(r, at, err, "reserved additional information");
	n = 1 << (ai - 24);
	if (r->end - r->p < n)
		return bad(r, at, err, "cut short");
	for (int i = 0; i < n; i++)
		v = (v << 8) | *r->p++;
	if ((ai == 24 && v < 24) || (ai == 25 && v <= 0xff) || (ai == 26 && v <= 0xffff) ||
	    (ai == 27 && v <= 0xffffffffu))
		return bad(r, at, err, "integer or length not in its shortest form");
	*arg = v;
	return 0;
}

int ss_cbor_read(ss_cbor_reader *r, ss_cbor_item *it, ss_error *err)
{
	const unsigned char *at = r->p;
	size_t left;
	uint64_t arg = 0;
	int major = 0;

	if (read_head(r, &major, &arg, err) < 0)
		return -1;
	left = (size_t)(r->end - r->p);
	memset(it, 0, sizeof(*it));
	switch (major) {
	case 0:
	case 1:
		if (arg > INT64_MAX)
			return bad(r, at, err, "integer beyond 64-bit signed range");
		it->type = SS_CBOR_INT;
		it->i = major == 0 ? (int64_t)arg : -1 - (int64_t)arg;
		return 0;
	case 2:
	case 3:
		if (arg > left)
			return bad(r, at, err, "string longer than the input");
		it->type = major == 2 ? SS_CBOR_BYTES : SS_CBOR_TEXT;
		it->ptr = r->p;
		it->len = (size_t)arg;
		r->p += arg;
		if (major == 3 && !ss_utf8_valid((const char *)it->ptr, it->len))
			return bad(r, at, err, "text is not valid UTF-8");
		return 0;
	case 4:
	case 5:
		/* Every item takes at least a byte: a count beyond the input is refused before
		 * anyone allocates for it. */
		if (arg > left || (major == 5 && arg > left / 2))
			return bad(r, at, err, "more items than the input holds");
		it->type = major == 4 ? SS_CBOR_ARRAY : SS_CBOR_MAP;
		it->len = (size_t)arg;
		return 0;
	case 6: {
		ss_cbor_item b;
		size_t used;

		if (arg != 42)
			return bad(r, at, err, "tag other than 42 (CID)");
		if (read_head(r, &major, &arg, err) < 0)
			return -1;
		if (major != 2)
			return bad(r, at, err, "tag 42 on something other than bytes");
		if (arg > (size_t)(r->end - r->p))
			return bad(r, at, err, "string longer than the input");
		b.ptr = r->p;
		b.len = (size_t)arg;
		r->p += arg;
		if (b.len < 1 || b.ptr[0] != 0x00)
			return bad(r, at, err, "CID without its 0x00 prefix");
		if (ss_cid_from_bytes(&it->cid, b.ptr + 1, b.len - 1, &used, err) < 0 ||
		    used != b.len - 1)
			return bad(r, at, err, "malformed CID link");
		it->type = SS_CBOR_LINK;
		return 0;
	}
	default:
		switch (arg) {
		case 20:
			it->type = SS_CBOR_FALSE;
			return 0;
		case 21:
			it->type = SS_CBOR_TRUE;
			return 0;
		case 22:
			it->type = SS_CBOR_NULL;
			return 0;
		case 23:
			return bad(r, at, err, "undefined");
		case 25:
		case 26:
		case 27:
			return bad(r, at, err, "float");
		case 31:
			return bad(r, at, err, "break outside an indefinite length");
		default:
			return bad(r, at, err, "simple value other than false, true or null");
		}
	}
}

bool ss_cbor_key_less(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
	if (alen != blen)
		return alen < blen;
	return memcmp(a, b, alen) < 0;
}

/* Reads a map key: text, after prev (NULL for the first), not "$link" or "$bytes". */
int ss_cbor_read_key(ss_cbor_reader *r, ss_cbor_item *key, const ss_cbor_item *prev, ss_error *err)
{
	const unsigned char *at = r->p;

	if (ss_cbor_read(r, key, err) < 0)
		return -1;
	if (key->type != SS_CBOR_TEXT)
		return bad(r, at, err, "map key is not text");
	if (prev && !ss_cbor_key_less(prev->ptr, prev->len, key->ptr, key->len))
		return bad(r, at, err, "map keys duplicated or out of order");
	if ((key->len == 5 && !memcmp(key->ptr, "$link", 5)) ||
	    (key->len == 6 && !memcmp(key->ptr, "$bytes", 6)))
		return bad(r, at, err, "map key $link or $bytes");
	return 0;
}

static int skip_value(ss_cbor_reader *r, int depth, ss_error *err)
{
	ss_cbor_item it, key, prev;

	if (depth > SS_CBOR_MAX_DEPTH)
		return bad(r, r->p, err, "nested too deep");
	if (ss_cbor_read(r, &it, err) < 0)
		return -1;
	for (size_t i = 0; i < it.len && it.type == SS_CBOR_ARRAY; i++)
		if (skip_value(r, depth + 1, err) < 0)
			return -1;
	for (size_t i = 0; i < it.len && it.type == SS_CBOR_MAP; i++) {
		if (ss_cbor_read_key(r, &key, i ? &prev : NULL, err) < 0 ||
		    skip_value(r, depth + 1, err) < 0)
			return -1;
		prev = key;
	}
	return 0;
}

int ss_cbor_skip(ss_cbor_reader *r, ss_error *err)
{
	return skip_value(r, 0, err);
}

static json_t *wrap(const char *key, json_t *v)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, key, v);
	return o;
}

static int decode_value(ss_cbor_reader *r, int depth, json_t **out, ss_error *err)
{
	ss_cbor_item it, key, prev;
	json_t *v = NULL, *child;

	if (depth > SS_CBOR_MAX_DEPTH)
		return bad(r, r->p, err, "nested too deep");
	if (ss_cbor_read(r, &it, err) < 0)
		return -1;
	switch (it.type) {
	case SS_CBOR_INT:
		v = json_integer(it.i);
		break;
	case SS_CBOR_TEXT:
		v = json_stringn_nocheck((const char *)it.ptr, it.len);
		break;
	case SS_CBOR_BYTES: {
		ss_buf b64 = SS_BUF_INIT;

		ss_base64_encode(&b64, it.ptr, it.len, SS_BASE64_STD, false);
		v = wrap("$bytes", json_stringn_nocheck(b64.ptr, b64.len));
		ss_buf_release(&b64);
		break;
	}
	case SS_CBOR_LINK: {
		char s[SS_CID_STRSZ];

		ss_cid_fmt(s, &it.cid);
		v = wrap("$link", json_string_nocheck(s));
		break;
	}
	case SS_CBOR_ARRAY:
		v = json_array();
		for (size_t i = 0; i < it.len; i++) {
			if (decode_value(r, depth + 1, &child, err) < 0)
				goto fail;
			json_array_append_new(v, child);
		}
		break;
	case SS_CBOR_MAP:
		v = json_object();
		for (size_t i = 0; i < it.len; i++) {
			if (ss_cbor_read_key(r, &key, i ? &prev : NULL, err) < 0 ||
			    decode_value(r, depth + 1, &child, err) < 0)
				goto fail;
			json_object_setn_new_nocheck(v, (const char *)key.ptr, key.len, child);
			prev = key;
		}
		if (ss_cbor_check_type(v, err) < 0) {
			ss_error_prefix(err, "invalid record data at byte %zu",
			                (size_t)(r->p - r->start));
			goto fail;
		}
		break;
	case SS_CBOR_FALSE:
		v = json_false();
		break;
	case SS_CBOR_TRUE:
		v = json_true();
		break;
	case SS_CBOR_NULL:
		v = json_null();
		break;
	}
	*out = v;
	return 0;
fail:
	json_decref(v);
	return -1;
}

int ss_cbor_decode(const void *data, size_t len, json_t **out, ss_error *err)
{
	ss_cbor_reader r;
	json_t *v;

	ss_cbor_reader_init(&r, data, len);
	if (decode_value(&r, 0, &v, err) < 0)
		return -1;
	if (r.p != r.end) {
		json_decref(v);
		return bad(&r, r.p, err, "trailing bytes after the value");
	}
	*out = v;
	return 0;
}
