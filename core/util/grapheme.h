/*
 * grapheme.h: Unicode extended grapheme clusters (UAX #29), the "graphemes" of the lexicons'
 * maxGraphemes limits, through ICU's character break iterator (the only module that includes
 * ICU). Combining marks, emoji ZWJ sequences, flags and Hangul syllables each count once.
 *
 * Rules: text must be valid UTF-8 (else SS_EINVALID); boundaries are byte offsets; the
 * Unicode version is ICU's (ICU 72: Unicode 15.0), held to that version's
 * GraphemeBreakTest.txt in tests/core/grapheme.c.
 */
#ifndef SS_GRAPHEME_H
#define SS_GRAPHEME_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* The number of grapheme clusters in len bytes of s. */
int ss_grapheme_count(const char *s, size_t len, size_t *out, ss_error *err);

/*
 * The byte offsets of every boundary after the start of s, in order (the last is len): up to
 * max of them into offs, their number into *n (may be more than max). For the tests.
 */
int ss_grapheme_breaks(const char *s, size_t len, size_t *offs, size_t max, size_t *n,
                       ss_error *err);

/*
 * Appends s to out, fitted to at most max_bytes bytes and max_graphemes graphemes (0: no limit
 * of that kind): whole when it fits, else its longest prefix ending on a grapheme boundary
 * followed by ellipsis (e.g. "\u2026"; "" for none), the whole within both limits. *cut (may
 * be NULL) says whether anything was left out.
 */
int ss_grapheme_fit(ss_buf *out, const char *s, size_t len, size_t max_bytes, size_t max_graphemes,
                    const char *ellipsis, bool *cut, ss_error *err);

/* ICU's Unicode version, e.g. "15.0" (at most 15 characters). */
void ss_grapheme_unicode_version(char out[16]);

#endif
