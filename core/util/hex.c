/* hex.c: bytes as lowercase hexadecimal and back (see core/util/hex.h). */
#include "core/util/hex.h"

void ss_hex_encode(char *out, const void *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = in;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int ss_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
