#include "cborvec.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/fs.h"
#include "support.h"

void ss_test_cbor_file(ss_buf *out, const char *name)
{
	ss_buf path = SS_BUF_INIT, rel = SS_BUF_INIT;
	ss_error err;

	ss_buf_printf(&rel, "vectors/%s", name);
	ss_test_data(&path, rel.ptr);
	ss_buf_clear(out);
	if (ss_fs_read_file(out, path.ptr, 0, &err) < 0)
		fail_msg("%s", err.message);
	ss_buf_release(&path);
	ss_buf_release(&rel);
}

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	fail_msg("bad hex digit '%c'", c);
	return 0;
}

void ss_test_cbor_unhex(ss_buf *out, const char *hex)
{
	size_t n = strlen(hex);

	ss_buf_clear(out);
	assert_int_equal(n % 2, 0);
	for (size_t i = 0; i < n; i += 2)
		ss_buf_putc(out, (char)(digit(hex[i]) << 4 | digit(hex[i + 1])));
}

void ss_test_cbor_unbase64(ss_buf *out, const char *b64)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;

	ss_buf_clear(out);
	for (const char *p = b64; *p && *p != '='; p++) {
		const char *d = strchr(a, *p);
		assert_non_null(d);
		acc = (acc << 6) | (unsigned)(d - a);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			ss_buf_putc(out, (char)(acc >> bits));
			acc &= (1u << bits) - 1;
		}
	}
}

static void put_varint(ss_buf *b, size_t v)
{
	while (v >= 0x80) {
		ss_buf_putc(b, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	ss_buf_putc(b, (char)v);
}

void ss_test_car_start(ss_buf *car)
{
	/* {"roots": [], "version": 1} */
	static const char header[] = "\xa2\x65roots\x80\x67version\x01";

	ss_buf_clear(car);
	put_varint(car, sizeof(header) - 1);
	ss_buf_put(car, header, sizeof(header) - 1);
}

int ss_test_car_put(void *car, const ss_cid *cid, const unsigned char *data, size_t len,
                    ss_error *err)
{
	unsigned char bin[SS_CID_BINSZ];

	ss_cid_to_bytes(bin, cid);
	put_varint(car, sizeof(bin) + len);
	ss_buf_put(car, bin, sizeof(bin));
	ss_buf_put(car, data, len);
	return 0;
}
