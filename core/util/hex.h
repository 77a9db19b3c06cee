/*
 * hex.h: bytes as lowercase hexadecimal and back, one digit at a time: git's object ids, the
 * SHA-256 digests the MCP server and the gate's kept facts name, the %XX of a URI.
 */
#ifndef SS_HEX_H
#define SS_HEX_H

#include <stddef.h>

/* Writes the 2 * n lowercase hex digits of in[0, n) and a NUL to out (2 * n + 1 bytes). */
void ss_hex_encode(char *out, const void *in, size_t n);

/* The value of one hex digit (either case), or -1 when c is none. */
int ss_hex_digit(char c);

#endif
