#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/fs.h"
#include "core/util/grapheme.h"
#include "core/util/utf8.h"
#include "support/support.h"

/* The test file is Unicode 15.0's; ICU must implement the same version. */
static void test_grapheme__unicode_version_matches_the_test_file(void **state)
{
	char v[16];
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	ss_error err;

	ss_grapheme_unicode_version(v);
	assert_string_equal(v, "15.0");
	ss_test_data(&path, "unicode/GraphemeBreakTest.txt");
	assert_int_equal(ss_fs_read_file(&text, path.ptr, 1 << 20, &err), 0);
	assert_non_null(strstr(text.ptr, "# GraphemeBreakTest-15.0.0.txt"));
	ss_buf_release(&path);
	ss_buf_release(&text);
}

static void put_cp(ss_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80)
		u[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else if (cp < 0x10000)
		u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	else
		u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	ss_buf_put(b, u, n);
}

/*
 * One line of GraphemeBreakTest.txt: "÷ 0020 × 0308 ÷ # comment": code points with ÷ (a
 * break) or × (none) between them. Fills text and the expected boundaries; returns the
 * number of boundaries, 0 for a line without a test.
 */
static size_t parse_line(char *line, ss_buf *text, size_t *want, size_t max)
{
	size_t n = 0;
	char *p = line, *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	ss_buf_clear(text);
	while (*p) {
		if (!strncmp(p, "\xc3\xb7", 2)) { /* ÷ */
			if (text->len) {
				assert_true(n < max);
				want[n++] = text->len;
			}
			p += 2;
		} else if (!strncmp(p, "\xc3\x97", 2)) { /* × */
			p += 2;
		} else if (*p == ' ' || *p == '\t') {
			p++;
		} else {
			char *end;
			unsigned long cp = strtoul(p, &end, 16);

			assert_true(end != p);
			/* Lone surrogates cannot be UTF-8: the file has none. */
			assert_false(cp >= 0xd800 && cp <= 0xdfff);
			put_cp(text, (uint32_t)cp);
			p = end;
		}
	}
	return n;
}

/* Every test line of Unicode 15.0's GraphemeBreakTest.txt gives exactly its boundaries. */
static void test_grapheme__every_line_of_graphemebreaktest(void **state)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT, one = SS_BUF_INIT;
	ss_error err;
	char *save = NULL, *line;
	size_t lines = 0, failures = 0;

	ss_test_data(&path, "unicode/GraphemeBreakTest.txt");
	assert_int_equal(ss_fs_read_file(&text, path.ptr, 1 << 20, &err), 0);
	for (line = strtok_r(text.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t want[64], got[64], nwant, ngot, count;

		nwant = parse_line(line, &one, want, 64);
		if (!nwant)
			continue;
		lines++;
		assert_int_equal(ss_grapheme_breaks(one.ptr, one.len, got, 64, &ngot, &err), 0);
		assert_int_equal(ss_grapheme_count(one.ptr, one.len, &count, &err), 0);
		assert_int_equal(count, ngot);
		if (ngot != nwant || memcmp(got, want, nwant * sizeof(want[0]))) {
			fprintf(stderr, "grapheme: line %zu gives other boundaries\n", lines);
			failures++;
		}
	}
	assert_int_equal(lines, 602); /* the file's test lines: none skipped */
	assert_int_equal(failures, 0);
	ss_buf_release(&path);
	ss_buf_release(&text);
	ss_buf_release(&one);
}

static size_t count(const char *s)
{
	size_t n = 0;
	ss_error err;

	assert_int_equal(ss_grapheme_count(s, strlen(s), &n, &err), 0);
	return n;
}

static void test_grapheme__clusters_count_once(void **state)
{
	ss_error err;
	size_t n;

	assert_int_equal(count(""), 0);
	assert_int_equal(count("abc"), 3);
	assert_int_equal(count("e\xcc\x81"), 1);                        /* e + combining acute */
	assert_int_equal(count("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7"), 1); /* flag: FR */
	/* family: man ZWJ woman ZWJ girl */
	assert_int_equal(
	    count("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91"
	          "\xa7"),
	    1);
	assert_int_equal(count("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8"), 1); /* Hangul L V T */
	assert_int_equal(count("\xe6\xbc\xa2\xe5\xad\x97"), 2);             /* CJK: two */
	assert_int_equal(count("\r\n"), 1);
	SS_ASSERT_FAILS(ss_grapheme_count("a\xff", 2, &n, &err), err, SS_EINVALID);
}

static void fit(const char *s, size_t max_bytes, size_t max_graphemes, const char *want,
                bool want_cut)
{
	ss_buf b = SS_BUF_INIT;
	ss_error err;
	bool cut;

	assert_int_equal(
	    ss_grapheme_fit(&b, s, strlen(s), max_bytes, max_graphemes, "\xe2\x80\xa6", &cut, &err),
	    0);
	assert_string_equal(b.ptr, want);
	assert_int_equal(cut, want_cut);
	ss_buf_release(&b);
}

#define ELLIPSIS "\xe2\x80\xa6"
#define E_ACUTE  "e\xcc\x81"                                    /* one grapheme, three bytes */
#define FAMILY   "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9" /* one grapheme, 11 bytes */

static void test_grapheme__fit_cuts_on_a_boundary(void **state)
{
	fit("hello", 5, 5, "hello", false);
	fit("hello", 0, 0, "hello", false);
	fit("hello world", 8, 0, "hello" ELLIPSIS, true);
	fit("hello world", 0, 6, "hello" ELLIPSIS, true);
	/* bytes: the combining mark never parts from its letter */
	fit("ab" E_ACUTE E_ACUTE "c", 9, 0, "ab" E_ACUTE E_ACUTE "c", false);
	fit("ab" E_ACUTE E_ACUTE "c", 8, 0, "ab" E_ACUTE ELLIPSIS, true);
	fit("ab" E_ACUTE E_ACUTE "c", 7, 0, "ab" ELLIPSIS, true);
	/* graphemes: four graphemes fit exactly in 4 */
	fit("ab" E_ACUTE E_ACUTE, 0, 4, "ab" E_ACUTE E_ACUTE, false);
	fit("ab" E_ACUTE E_ACUTE, 0, 3, "ab" ELLIPSIS, true);
	/* a ZWJ sequence is whole or gone */
	fit("x" FAMILY "yzwv", 14, 0, "x" ELLIPSIS, true);
	fit("x" FAMILY "yzwv", 15, 0, "x" FAMILY ELLIPSIS, true);
	/* CJK: three bytes a grapheme; both limits at once */
	fit("\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97", 9, 3,
	    "\xe6\xbc\xa2\xe5\xad\x97" ELLIPSIS, true);
	/* no room for the ellipsis */
	fit("abc", 2, 0, "ab", true);
	fit("abc", 0, 1, "a", true);
}

int test_grapheme_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grapheme__unicode_version_matches_the_test_file),
	    cmocka_unit_test(test_grapheme__every_line_of_graphemebreaktest),
	    cmocka_unit_test(test_grapheme__clusters_count_once),
	    cmocka_unit_test(test_grapheme__fit_cuts_on_a_boundary),
	};
	return cmocka_run_group_tests_name("grapheme", tests, NULL, NULL);
}
