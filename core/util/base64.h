/*
 * base64.h: the one base64 codec (RFC 4648), both alphabets.
 *
 * SS_BASE64_STD is `+/` (JSON `{"$bytes"}`, HTTP signatures), SS_BASE64_URL is `-_` (JWTs).
 * Decoding is strict: only the alphabet's characters (no whitespace, no mixing of the two
 * alphabets), no bits left over in the last character, and for STD padding either absent or
 * exactly right; URL takes no padding (JWTs are unpadded, RFC 7515). Whatever is decoded is
 * appended to out, so that out's cap (ss_buf.max) bounds what a server can make us hold.
 */
#ifndef SS_BASE64_H
#define SS_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

typedef enum { SS_BASE64_STD, SS_BASE64_URL } ss_base64_alphabet;

/* Appends the encoding of len bytes at data to out, '='-padded when pad; returns 0, or out's
 * SS_ETOOBIG (core/util/buf.h) with out as it was. */
int ss_base64_encode(ss_buf *out, const void *data, size_t len, ss_base64_alphabet alphabet,
                     bool pad);

/* Appends the bytes that the len characters at s encode to out; SS_EINVALID when s is not
 * valid in alphabet (rules above), SS_ETOOBIG past out's cap. */
int ss_base64_decode(ss_buf *out, const char *s, size_t len, ss_base64_alphabet alphabet,
                     ss_error *err);

#endif
