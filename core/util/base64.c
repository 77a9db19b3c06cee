#include "core/util/base64.h"

#include <stdint.h>

static const char std_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int ss_base64_encode(ss_buf *out, const void *data, size_t len, ss_base64_alphabet alphabet,
                     bool pad)
{
	const char *chars = alphabet == SS_BASE64_URL ? url_chars : std_chars;
	const unsigned char *p = data;
	size_t start = out->len;
	char quad[4];
	int rc;

	for (size_t i = 0; i < len; i += 3) {
		size_t n = len - i < 3 ? len - i : 3;
		uint32_t v = (uint32_t)p[i] << 16;

		if (n > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (n > 2)
			v |= p[i + 2];
		quad[0] = chars[(v >> 18) & 63];
		quad[1] = chars[(v >> 12) & 63];
		quad[2] = n > 1 ? chars[(v >> 6) & 63] : '=';
		quad[3] = n > 2 ? chars[v & 63] : '=';
		rc = ss_buf_put(out, quad, pad ? 4 : n + 1);
		if (rc < 0) {
			ss_buf_truncate(out, start);
			return rc;
		}
	}
	return 0;
}

/* The value of c in alphabet, or -1. */
static int char_value(char c, ss_base64_alphabet alphabet)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (alphabet == SS_BASE64_STD)
		return c == '+' ? 62 : c == '/' ? 63 : -1;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

int ss_base64_decode(ss_buf *out, const char *s, size_t len, ss_base64_alphabet alphabet,
                     ss_error *err)
{
	size_t start = out->len, body = len;
	uint32_t acc = 0;
	int bits = 0;

	/* Padding: only for STD, only to complete the last quad. */
	if (alphabet == SS_BASE64_STD && len % 4 == 0 && len > 0) {
		if (s[len - 1] == '=')
			body--;
		if (s[len - 2] == '=')
			body--;
	}
	if (body % 4 == 1)
		goto invalid;
	for (size_t i = 0; i < body; i++) {
		int v = char_value(s[i], alphabet);
		int rc;

		if (v < 0)
			goto invalid;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			rc = ss_buf_putc(out, (char)((acc >> bits) & 0xff));
			if (rc < 0) {
				ss_buf_truncate(out, start);
				return ss_error_set(err, rc, "base64 value too long");
			}
		}
	}
	/* The bits that do not make a byte must be zero: one encoding per value. */
	if (acc & ((1u << bits) - 1))
		goto invalid;
	return 0;
invalid:
	ss_buf_truncate(out, start);
	return ss_error_set(err, SS_EINVALID, "not valid base64%s",
	                    alphabet == SS_BASE64_URL ? "url" : "");
}
