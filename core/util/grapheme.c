/*
 * grapheme.c: grapheme clusters through ICU's character break iterator over UTF-8 text. ICU
 * is loaded when first needed (the card's limits), not linked: libicuuc, its 30 MB of data and
 * the C++ runtime it brings cost each start of skillsync ~1.5 ms, for the commands that never
 * count a grapheme. ICU renames its functions by version (ubrk_open is ubrk_open_72): the names
 * looked up are the ones its headers give.
 */
#include "core/util/grapheme.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/uvernum.h>

#include "core/util/platform.h"
#include "core/util/utf8.h"

#define ICU_FUNCTIONS(X)                                                                           \
	X(ubrk_open)                                                                               \
	X(ubrk_close)                                                                              \
	X(ubrk_setUText)                                                                           \
	X(ubrk_first)                                                                              \
	X(ubrk_next)                                                                               \
	X(utext_openUTF8)                                                                          \
	X(utext_close)                                                                             \
	X(u_errorName)                                                                             \
	X(u_getUnicodeVersion)

#define STR(x)          #x
#define XSTR(x)         STR(x)
#define ICU_FIELD(name) __typeof__(name) *name;
static struct {
	ICU_FUNCTIONS(ICU_FIELD)
} icu;
#undef ICU_FIELD
static pthread_once_t icu_once = PTHREAD_ONCE_INIT;
static char icu_failure[256]; /* why ICU could not be loaded, "" when it was */

static void icu_load(void)
{
#define ICU_NAME(name) XSTR(name),
	static const char *const names[] = {ICU_FUNCTIONS(ICU_NAME)};
#undef ICU_NAME
	void *fns[sizeof(names) / sizeof(names[0])];
	size_t i = 0;

	if (ss_platform_dl_load("libicuuc.so." XSTR(U_ICU_VERSION_MAJOR_NUM), names,
	                        sizeof(names) / sizeof(names[0]), fns, icu_failure,
	                        sizeof(icu_failure)) < 0)
		return;
		/* POSIX's way to a function's address from dlsym's void *: copied as bytes */
#define ICU_SET(name) memcpy(&icu.name, &fns[i++], sizeof(void *));
	ICU_FUNCTIONS(ICU_SET)
#undef ICU_SET
}

static int icu_ready(ss_error *err)
{
	pthread_once(&icu_once, icu_load);
	return icu_failure[0] ? ss_error_set(err, SS_ERROR, "%s", icu_failure) : 0;
}

typedef struct walk {
	UBreakIterator *bi;
	UText *ut;
} walk;

static void walk_close(walk *w)
{
	if (w->bi)
		icu.ubrk_close(w->bi);
	if (w->ut)
		icu.utext_close(w->ut);
}

static int walk_open(walk *w, const char *s, size_t len, ss_error *err)
{
	UErrorCode status = U_ZERO_ERROR;

	memset(w, 0, sizeof(*w));
	if (icu_ready(err) < 0)
		return -1;
	if (!ss_utf8_valid(s, len))
		return ss_error_set(err, SS_EINVALID, "text is not valid UTF-8");
	if (len > INT32_MAX)
		return ss_error_set(err, SS_ETOOBIG, "text of %zu bytes is too long to count", len);
	w->ut = icu.utext_openUTF8(NULL, s, (int64_t)len, &status);
	if (U_SUCCESS(status))
		w->bi = icu.ubrk_open(UBRK_CHARACTER, "", NULL, 0, &status);
	if (U_SUCCESS(status))
		icu.ubrk_setUText(w->bi, w->ut, &status);
	if (U_FAILURE(status)) {
		walk_close(w);
		return ss_error_set(err, SS_ERROR, "cannot count graphemes: %s",
		                    icu.u_errorName(status));
	}
	icu.ubrk_first(w->bi);
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
	while ((at = icu.ubrk_next(w.bi)) != UBRK_DONE) {
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
	while ((at = icu.ubrk_next(w.bi)) != UBRK_DONE) {
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
	ss_error ignored;

	if (icu_ready(&ignored) < 0) {
		snprintf(out, 16, "unknown");
		return;
	}
	icu.u_getUnicodeVersion(v);
	snprintf(out, 16, "%u.%u", (unsigned)v[0], (unsigned)v[1]);
}
