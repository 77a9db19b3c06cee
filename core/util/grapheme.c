/* grapheme.c: grapheme clusters through ICU's character break iterator over UTF-8 text. */
#include "core/util/grapheme.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>

#include "core/util/utf8.h"

typedef struct walk {
	UBreakIterator *bi;
	UText *ut;
} walk;

static void walk_close(walk *w)
{
	if (w->bi)
		ubrk_close(w->bi);
	if (w->ut)
		utext_close(w->ut);
}

static int walk_open(walk *w, const char *s, size_t len, ss_error *err)
{
	UErrorCode status = U_ZERO_ERROR;

	memset(w, 0, sizeof(*w));
	if (!ss_utf8_valid(s, len))
		return ss_error_set(err, SS_EINVALID, "text is not valid UTF-8");
	if (len > INT32_MAX)
		return ss_error_set(err, SS_ETOOBIG, "text of %zu bytes is too long to count", len);
	w->ut = utext_openUTF8(NULL, s, (int64_t)len, &status);
	if (U_SUCCESS(status))
		w->bi = ubrk_open(UBRK_CHARACTER, "", NULL, 0, &status);
	if (U_SUCCESS(status))
		ubrk_setUText(w->bi, w->ut, &status);
	if (U_FAILURE(status)) {
		walk_close(w);
		return ss_error_set(err, SS_ERROR, "cannot count graphemes: %s",
		                    u_errorName(status));
	}
	ubrk_first(w->bi);
	return 0;
}

int ss_grapheme_breaks(const char *s, size_t len, size_t *offs, size_t max, size_t *n,
                       ss_error *err)
{
	walk w;
	size_t count = 0;
	int32_t at;

	if (walk_open(&w, s, len, err) < 0)
		return -1;
	while ((at = ubrk_next(w.bi)) != UBRK_DONE) {
		if (count < max)
			offs[count] = (size_t)at;
		count++;
	}
	walk_close(&w);
	*n = count;
	return 0;
}

int ss_grapheme_count(const char *s, size_t len, size_t *out, ss_error *err)
{
	return ss_grapheme_breaks(s, len, NULL, 0, out, err);
}

/* The end of the longest prefix within max_bytes and max_graphemes (SIZE_MAX: no limit). */
static int prefix_end(const char *s, size_t len, size_t max_bytes, size_t max_graphemes,
                      size_t *end, ss_error *err)
{
	walk w;
	size_t count = 0, best = 0;
	int32_t at;

	if (walk_open(&w, s, len, err) < 0)
		return -1;
	while ((at = ubrk_next(w.bi)) != UBRK_DONE) {
		if ((size_t)at > max_bytes || ++count > max_graphemes)
			break;
		best = (size_t)at;
	}
	walk_close(&w);
	*end = best;
	return 0;
}

static bool within(size_t bytes, size_t graphemes, size_t max_bytes, size_t max_graphemes)
{
	return (!max_bytes || bytes <= max_bytes) && (!max_graphemes || graphemes <= max_graphemes);
}

int ss_grapheme_fit(ss_buf *out, const char *s, size_t len, size_t max_bytes, size_t max_graphemes,
                    const char *ellipsis, bool *cut, ss_error *err)
{
	size_t graphemes, elen = strlen(ellipsis), end, start = out->len, room_b, room_g, total;

	if (cut)
		*cut = false;
	if (ss_grapheme_count(s, len, &graphemes, err) < 0)
		return -1;
	if (within(len, graphemes, max_bytes, max_graphemes))
		return ss_buf_put(out, s, len) < 0 ? ss_error_set(err, SS_ETOOBIG, "text too long")
		                                   : 0;
	if (cut)
		*cut = true;
	if ((max_bytes && elen >= max_bytes) || max_graphemes == 1)
		elen = 0; /* no room for the ellipsis */
	room_b = max_bytes ? max_bytes - elen : SIZE_MAX;
	room_g = max_graphemes ? max_graphemes - (elen ? 1 : 0) : SIZE_MAX;
	for (;;) {
		if (prefix_end(s, len, room_b, room_g, &end, err) < 0)
			return -1;
		ss_buf_truncate(out, start);
		if (ss_buf_put(out, s, end) < 0 || ss_buf_put(out, ellipsis, elen) < 0)
			return ss_error_set(err, SS_ETOOBIG, "text too long");
		if (ss_grapheme_count(out->ptr + start, out->len - start, &total, err) < 0)
			return -1;
		/* Checked, not assumed: the ellipsis can only join the prefix's last cluster (after
		 * a prepended mark), which lowers the count; should the whole still be over, the
		 * prefix backs off one more boundary. */
		if (within(out->len - start, total, max_bytes, max_graphemes) || !end)
			return 0;
		room_b = end - 1;
	}
}

void ss_grapheme_unicode_version(char out[16])
{
	UVersionInfo v;

	u_getUnicodeVersion(v);
	snprintf(out, 16, "%u.%u", (unsigned)v[0], (unsigned)v[1]);
}
