/*
 * cbor_json.c: a DAG-CBOR value written straight as JSON text in the ATProto JSON form (see
 * core/atproto/cbor.h: ss_cbor_to_json), for records read from a repository's blocks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/util/base64.h"

static void put_string(ss_buf *out, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF"; /* as jansson writes them */
	size_t run = 0;

	ss_buf_putc(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		const char *esc = NULL;
		char u[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		ss_buf_put(out, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		default:
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = '\0';
			esc = u;
		}
		ss_buf_puts(out, esc);
	}
	ss_buf_put(out, s + run, len - run);
	ss_buf_putc(out, '"');
}

/* 0 written, 1 not: a value only ss_cbor_decode takes or refuses (it says why). */
static int write_value(ss_cbor_reader *r, int depth, ss_buf *out, ss_error *err)
{
	ss_cbor_item it, key, prev, type;

	if (depth > SS_CBOR_MAX_DEPTH || ss_cbor_read(r, &it, err) < 0)
		return 1;
	switch (it.type) {
	case SS_CBOR_INT:
		ss_buf_printf(out, "%" PRId64, it.i);
		return 0;
	case SS_CBOR_TEXT:
		put_string(out, it.ptr, it.len);
		return 0;
	case SS_CBOR_BYTES:
		ss_buf_puts(out, "{\"$bytes\":\"");
		ss_base64_encode(out, it.ptr, it.len, SS_BASE64_STD, false);
		ss_buf_puts(out, "\"}");
		return 0;
	case SS_CBOR_LINK: {
		char s[SS_CID_STRSZ];

		ss_cid_fmt(s, &it.cid);
		ss_buf_printf(out, "{\"$link\":\"%s\"}", s);
		return 0;
	}
	case SS_CBOR_ARRAY:
		ss_buf_putc(out, '[');
		for (size_t i = 0; i < it.len; i++) {
			if (i)
				ss_buf_putc(out, ',');
			if (write_value(r, depth + 1, out, err))
				return 1;
		}
		ss_buf_putc(out, ']');
		return 0;
	case SS_CBOR_MAP:
		ss_buf_putc(out, '{');
		for (size_t i = 0; i < it.len; i++) {
			if (ss_cbor_read_key(r, &key, i ? &prev : NULL, err) < 0)
				return 1;
			/* "$type" has the data model's rules (a blob's shape): the general path */
			if (key.len == 5 && !memcmp(key.ptr, "$type", 5) && depth > 0)
				return 1;
			if (i)
				ss_buf_putc(out, ',');
			put_string(out, key.ptr, key.len);
			ss_buf_putc(out, ':');
			if (key.len == 5 && !memcmp(key.ptr, "$type", 5)) {
				const unsigned char *at = r->p;

				if (ss_cbor_read(r, &type, err) < 0 || type.type != SS_CBOR_TEXT ||
				    type.len == 0 ||
				    (type.len == 4 && !memcmp(type.ptr, "blob", 4)))
					return 1;
				r->p = at;
			}
			if (write_value(r, depth + 1, out, err))
				return 1;
			prev = key;
		}
		ss_buf_putc(out, '}');
		return 0;
	case SS_CBOR_FALSE:
		ss_buf_puts(out, "false");
		return 0;
	case SS_CBOR_TRUE:
		ss_buf_puts(out, "true");
		return 0;
	case SS_CBOR_NULL:
		ss_buf_puts(out, "null");
		return 0;
	}
	return 1;
}

int ss_cbor_to_json(const void *data, size_t len, ss_buf *out)
{
	ss_cbor_reader r;
	ss_error ignored;
	size_t start = out->len;

	ss_cbor_reader_init(&r, data, len);
	if (write_value(&r, 0, out, &ignored) || r.p != r.end) {
		out->len = start;
		if (out->ptr)
			out->ptr[start] = '\0';
		return 1;
	}
	return 0;
}
