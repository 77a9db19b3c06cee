#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/utf8.h"

static void check(const char *in, size_t len, ss_escape_style style, const char *want)
{
	ss_buf b = SS_BUF_INIT;

	ss_utf8_escape(&b, in, len, style);
	assert_string_equal(b.ptr, want);
	ss_buf_release(&b);
}

static void test_utf8__escape_text_keeps_one_line(void **state)
{
	const char *forged = "mem.test\033[31m\nremoved good by auth.test";

	check(forged, strlen(forged), SS_ESCAPE_TEXT,
	      "mem.test\\x1b[31m\\x0aremoved good by auth.test");
	/* carriage return, DEL, C1 CSI (U+009B), right-to-left override, invalid bytes */
	check("a\rb\177c", 5, SS_ESCAPE_TEXT, "a\\x0db\\x7fc");
	check("\xc2\x9b"
	      "2J",
	      4, SS_ESCAPE_TEXT, "\\xc2\\x9b2J");
	check("x\xe2\x80\xaey", 5, SS_ESCAPE_TEXT, "x\\xe2\\x80\\xaey");
	check("\xff\xc3", 2, SS_ESCAPE_TEXT, "\\xff\\xc3");
	/* what is safe stays: tab, text in any script, a backslash */
	check("caf\xc3\xa9\t\xe6\x97\xa5 \\n", 12, SS_ESCAPE_TEXT, "caf\xc3\xa9\t\xe6\x97\xa5 \\n");
	check("a\0b", 3, SS_ESCAPE_TEXT, "a\\x00b");
}

static void test_utf8__escape_xml_is_character_data(void **state)
{
	const char *in = "<a href=\"x\">&'\n\t\033]\xe2\x80\xae\xff";

	check(in, strlen(in), SS_ESCAPE_XML,
	      "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&#10;&#9;\\x1b]\\xe2\\x80\\xae\\xff");
	check("caf\xc3\xa9", 5, SS_ESCAPE_XML, "caf\xc3\xa9");
}

static void test_utf8__escape_json_is_valid_json(void **state)
{
	check("say \"hi\"\\\n\t\033[0m", 15, SS_ESCAPE_JSON, "say \\\"hi\\\"\\\\\\n\\t\\u001b[0m");
	check("\xc2\x9b\xe2\x80\xae\xef\xbb\xbf", 8, SS_ESCAPE_JSON, "\\u009b\\u202e\\ufeff");
	check("bad\xff\xfe!", 6, SS_ESCAPE_JSON, "bad\\ufffd\\ufffd!");
	check("caf\xc3\xa9\x7f", 6, SS_ESCAPE_JSON, "caf\xc3\xa9\\u007f");
	/* a tag character (U+E0041, invisible "A"): unsafe, and past U+FFFF a surrogate pair */
	check("a\xf3\xa0\x81\x81"
	      "b",
	      6, SS_ESCAPE_JSON, "a\\udb40\\udc41b");
	check("a\xf3\xa0\x81\x81"
	      "b",
	      6, SS_ESCAPE_TEXT, "a\\xf3\\xa0\\x81\\x81b");
	check("\xf0\x9f\x98\x80", 4, SS_ESCAPE_JSON, "\xf0\x9f\x98\x80");
}

static void test_utf8__escape_line_first_line_cut(void **state)
{
	ss_buf b = SS_BUF_INIT;

	ss_utf8_escape_line(&b, "short note", 0);
	assert_string_equal(b.ptr, "short note");
	ss_buf_clear(&b);
	ss_utf8_escape_line(&b, "first\033]0;x\nsecond line", 0);
	assert_string_equal(b.ptr, "first\\x1b]0;x ...");
	ss_buf_clear(&b);
	/* cut on a character boundary: "é" is two bytes */
	ss_utf8_escape_line(&b, "ab\xc3\xa9z", 3);
	assert_string_equal(b.ptr, "ab ...");
	ss_buf_release(&b);
}

/* Every byte is checked wherever it falls: in the ASCII runs read eight at a time, after them
 * and at the end; NUL is a character. */
static void test_utf8__valid_checks_every_position(void **state)
{
	static const char *const bad[] = {
	    "\xc3(", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\x80", "\xff"};
	char s[64];

	(void)state;
	assert_true(ss_utf8_valid("", 0));
	assert_true(ss_utf8_valid("abcdefgh\0ijklmnop\xe2\x82\xacq\xf0\x9f\x98\x80", 26));
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
		for (size_t at = 0; at <= 20; at++) {
			size_t n = strlen(bad[b]);

			memset(s, 'a', sizeof(s));
			memcpy(s + at, bad[b], n);
			assert_false(ss_utf8_valid(s, at + n));
			assert_false(ss_utf8_valid(s, at + n + 9));
			/* a sequence cut by the end */
			if (n > 1)
				assert_false(ss_utf8_valid(s, at + n - 1));
		}
}

static void trimmed(const char *in, const char *want)
{
	size_t start, end;

	ss_utf8_trim(in, strlen(in), &start, &end);
	assert_int_equal(end - start, strlen(want));
	assert_memory_equal(in + start, want, end - start);
}

/* Python's str.strip(), which the reference implementation's to-prompt applies. */
static void test_utf8__trim_strips_what_python_strips(void **state)
{
	trimmed("Fills PDF forms.\n", "Fills PDF forms.");
	trimmed(" \t\r\n a b \n", "a b");
	trimmed("\xc2\xa0\xe3\x80\x80x\xe2\x80\xa8\x1f", "x"); /* NBSP, U+3000, U+2028, U+001F */
	trimmed("\xe2\x80\x8bx", "\xe2\x80\x8bx");             /* U+200B is not space */
	trimmed("\xff ", "\xff");
	trimmed(" \n ", "");
	trimmed("", "");
}

int test_utf8_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_utf8__escape_text_keeps_one_line),
	    cmocka_unit_test(test_utf8__escape_xml_is_character_data),
	    cmocka_unit_test(test_utf8__escape_json_is_valid_json),
	    cmocka_unit_test(test_utf8__escape_line_first_line_cut),
	    cmocka_unit_test(test_utf8__valid_checks_every_position),
	    cmocka_unit_test(test_utf8__trim_strips_what_python_strips),
	};
	return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
