/*
 * utf8.h: the UTF-8 checks the lexicon's limits need (lengths count bytes, text must be valid
 * UTF-8). Strict: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
#ifndef SS_UTF8_H
#define SS_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at s (n > 0 bytes left) into *cp; returns its length, 0 if invalid. */
size_t ss_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
bool ss_utf8_valid(const char *s, size_t len);
/* The number of code points in valid UTF-8 s. */
size_t ss_utf8_count(const char *s, size_t len);
/* The longest prefix of s of at most max bytes that ends on a character boundary. */
size_t ss_utf8_cut(const char *s, size_t len, size_t max);

#endif
