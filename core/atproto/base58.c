#include "core/atproto/base58.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

static const char alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

int ss_base58_encode(ss_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t zeros = 0, size, n = 0;
	uint8_t *digits;
	int rc = 0;

	while (zeros < len && p[zeros] == 0)
		zeros++;
	/* log(256) / log(58) < 1.37: digits needed for the rest. */
	size = (len - zeros) * 138 / 100 + 1;
	digits = ss_xcalloc(size, 1);
	for (size_t i = zeros; i < len; i++) {
		unsigned int carry = p[i];

		for (size_t j = 0; j < n || carry; j++) {
			carry += (unsigned int)digits[j] * 256;
			digits[j] = (uint8_t)(carry % 58);
			carry /= 58;
			if (j >= n)
				n = j + 1;
		}
	}
	for (size_t i = 0; i < zeros && rc == 0; i++)
		rc = ss_buf_putc(out, '1');
	for (size_t i = n; i > 0 && rc == 0; i--)
		rc = ss_buf_putc(out, alphabet[digits[i - 1]]);
	free(digits);
	return rc;
}

static int digit(char c)
{
	const char *at = c ? strchr(alphabet, c) : NULL;

	return at ? (int)(at - alphabet) : -1;
}

int ss_base58_decode(ss_buf *out, const char *s, size_t len, ss_error *err)
{
	size_t start = out->len, zeros = 0, size, n = 0;
	uint8_t *bytes;
	int rc = 0;

	if (len == 0)
		return ss_error_set(err, SS_EINVALID, "empty base58 value");
	if (len > SS_BASE58_MAX)
		return ss_error_set(err, SS_ETOOBIG, "base58 value over %d characters",
		                    SS_BASE58_MAX);
	while (zeros < len && s[zeros] == '1')
		zeros++;
	/* log(58) / log(256) < 0.733 */
	size = (len - zeros) * 733 / 1000 + 1;
	bytes = ss_xcalloc(size, 1);
	for (size_t i = zeros; i < len; i++) {
		int v = digit(s[i]);
		unsigned int carry;

		if (v < 0) {
			free(bytes);
			return ss_error_set(err, SS_EINVALID, "not valid base58");
		}
		carry = (unsigned int)v;
		for (size_t j = 0; j < n || carry; j++) {
			carry += (unsigned int)bytes[j] * 58;
			bytes[j] = (uint8_t)(carry & 0xff);
			carry >>= 8;
			if (j >= n)
				n = j + 1;
		}
	}
	for (size_t i = 0; i < zeros && rc == 0; i++)
		rc = ss_buf_putc(out, 0);
	for (size_t i = n; i > 0 && rc == 0; i--)
		rc = ss_buf_putc(out, (char)bytes[i - 1]);
	free(bytes);
	if (rc < 0) {
		ss_buf_truncate(out, start);
		return ss_error_set(err, rc, "base58 value too long");
	}
	return 0;
}
