/* skillmd.c: SKILL.md parsing and writing (core/skill/skillmd.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/skill/skillmd.h"

static ss_value *parse_ok(const char *text, size_t *body_off, ss_report *r)
{
	ss_value *fm = NULL;

	assert_int_equal(ss_skillmd_parse(text, strlen(text), "x/SKILL.md", &fm, body_off, r), 0);
	assert_non_null(fm);
	return fm;
}

static const char *str(const ss_value *map, const char *key)
{
	const ss_value *v = ss_value_map_get(map, key);
	assert_non_null(v);
	assert_int_equal(ss_value_type_of(v), SS_VALUE_STRING);
	return ss_value_string(v, NULL);
}

/* The one error message a bad SKILL.md gives. */
static void parse_fails(const char *text, const char *message)
{
	ss_report *r = ss_report_new();
	ss_value *fm = NULL;
	size_t off = 0;
	ss_buf line = SS_BUF_INIT;

	assert_int_equal(ss_skillmd_parse(text, strlen(text), "x/SKILL.md", &fm, &off, r),
	                 SS_EINVALID);
	assert_null(fm);
	assert_int_equal(ss_report_count(r), 1);
	ss_report_format(ss_report_at(r, 0), &line);
	assert_string_equal(line.ptr, message);
	ss_buf_release(&line);
	ss_report_free(r);
}

static void test_skillmd__split_and_body_offset(void **state)
{
	const char *text = "---\nname: a\ndescription: \"x --- y\"\n---\nbody\n---\nmore";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_string_equal(text + off, "body\n---\nmore");
	assert_string_equal(str(fm, "description"), "x --- y");
	assert_int_equal(ss_report_count(r), 0);
	ss_value_free(fm);
	ss_report_free(r);
}

static void test_skillmd__closing_line_may_have_spaces_and_cr(void **state)
{
	const char *text = "\xEF\xBB\xBF---  \r\nname: a\r\n---\t\r\n\r\nbody\r\n";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_string_equal(str(fm, "name"), "a");
	assert_string_equal(text + off, "\r\nbody\r\n");
	ss_value_free(fm);
	ss_report_free(r);
}

static void test_skillmd__closing_marker_without_newline(void **state)
{
	const char *text = "---\nname: a\n---";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_int_equal(off, strlen(text));
	ss_value_free(fm);
	ss_report_free(r);
}

static void test_skillmd__strict_errors(void **state)
{
	parse_fails("", "x/SKILL.md: frontmatter missing (the file must start with a '---' line)");
	parse_fails("--- x\nname: a\n---\n",
	            "x/SKILL.md: frontmatter missing (the file must start with a '---' line)");
	parse_fails("---\nname: a\n",
	            "x/SKILL.md: frontmatter not closed (no '---' line after it)");
	parse_fails("---\njust text\n---\n", "x/SKILL.md: frontmatter is not a mapping of keys");
	parse_fails("---\n? [a, b]\n: c\n---\n", "x/SKILL.md: keys must be plain strings (line 2)");
	parse_fails("---\na: 1\nb:\n  c: 1\n  c: 2\n---\n",
	            "x/SKILL.md: b: duplicate key 'c' (line 5)");
	parse_fails("---\na: &x 1\nb: *x\n---\n",
	            "x/SKILL.md: b: aliases are not supported (line 3)");
	parse_fails("---\na: [[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]\n---\n",
	            "x/SKILL.md: a: nested too deeply (line 2)");
	parse_fails("---\na:\n\tb: 1\n---\n",
	            "x/SKILL.md: invalid YAML in frontmatter (line 3: found character that cannot "
	            "start any token (while scanning for the next token))");
}

static void test_skillmd__lenient_reading_warns(void **state)
{
	const char *text =
	    "---\nname: a\ndescription: Use when: asked: twice  \nmetadata:\n  k: v\n"
	    "---\nbody";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_string_equal(str(fm, "description"), "Use when: asked: twice");
	assert_string_equal(str(ss_value_map_get(fm, "metadata"), "k"), "v");
	assert_int_equal(ss_report_warnings(r), 1);
	assert_int_equal(ss_report_errors(r), 0);
	ss_value_free(fm);
	ss_report_free(r);
}

static void test_skillmd__scalars_resolve_like_yaml_core(void **state)
{
	const char *text = "---\na: true\nb: False\nc: ~\nd:\ne: 12\nf: -3\ng: 1.5\nh: 0x1F\n"
	                   "i: '12'\nj: !!str 12\nk: 99999999999999999999\nl: yes\n"
	                   "m: 9007199254740991\nn: 9007199254740992\no: -9007199254740992\n---\n";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_true(ss_value_bool(ss_value_map_get(fm, "a")));
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "b")), SS_VALUE_BOOL);
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "c")), SS_VALUE_NULL);
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "d")), SS_VALUE_NULL);
	assert_int_equal(ss_value_int(ss_value_map_get(fm, "e")), 12);
	assert_int_equal(ss_value_int(ss_value_map_get(fm, "f")), -3);
	assert_string_equal(str(fm, "g"), "1.5");
	assert_string_equal(str(fm, "h"), "0x1F");
	assert_string_equal(str(fm, "i"), "12");
	assert_string_equal(str(fm, "j"), "12");
	assert_string_equal(str(fm, "k"), "99999999999999999999");
	assert_string_equal(str(fm, "l"), "yes");
	/* beyond 2^53 - 1 the PDS stores no integer: text, like a float */
	assert_int_equal(ss_value_int(ss_value_map_get(fm, "m")), 9007199254740991LL);
	assert_string_equal(str(fm, "n"), "9007199254740992");
	assert_string_equal(str(fm, "o"), "-9007199254740992");
	ss_value_free(fm);
	ss_report_free(r);
}

/* Strings that plain style would change: each must come back as the same string. */
static void test_skillmd__emitted_strings_read_back_exactly(void **state)
{
	static const char *const tricky[] = {
	    "",
	    " lead",
	    "trail ",
	    "a: b",
	    "a #b",
	    "#x",
	    "- x",
	    "-x",
	    "? x",
	    ": x",
	    "true",
	    "False",
	    "null",
	    "~",
	    "yes",
	    "No",
	    "on",
	    "12",
	    "1.5",
	    "-3",
	    ".inf",
	    "0x10",
	    "'q'",
	    "\"d\"",
	    "[a]",
	    "{a}",
	    "*x",
	    "&x",
	    "!x",
	    "|",
	    ">",
	    "%x",
	    "@x",
	    "`x",
	    "a\nb",
	    "a\tb",
	    "tail:",
	    "\xC2\x85next",
	    "\xE2\x80\xA8sep",
	    "\357\273\277bom", /* a BOM (octal: a hex escape would swallow the b) */
	    "back\\slash",
	    "ünï ✓",
	    "---",
	    "...",
	    "a,b",
	    "=",
	    "<<",
	    "plain text, fine",
	};
	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		ss_value *map = ss_value_new_map(), *back = NULL;
		ss_report *r = ss_report_new();
		ss_buf out = SS_BUF_INIT;
		size_t off;

		ss_value_map_append(map, tricky[i],
		                    ss_value_new_string(tricky[i], strlen(tricky[i])));
		ss_skillmd_emit(map, NULL, "B", 1, &out);
		if (ss_skillmd_parse(out.ptr, out.len, "x/SKILL.md", &back, &off, r) != 0)
			fail_msg("cannot read back %s", out.ptr);
		if (!ss_value_equal(map, back) || ss_report_count(r))
			fail_msg("'%s' came back different from:\n%s", tricky[i], out.ptr);
		assert_string_equal(out.ptr + off, "B");
		ss_value_free(map);
		ss_value_free(back);
		ss_report_free(r);
		ss_buf_release(&out);
	}
}

static void test_skillmd__emit_is_block_yaml_in_order(void **state)
{
	ss_value *map = ss_value_new_map(), *list = ss_value_new_list(), *sub = ss_value_new_map();
	ss_buf out = SS_BUF_INIT;

	ss_value_map_append(map, "name", ss_value_new_string("pdf", 3));
	ss_value_map_append(sub, "k", ss_value_new_string("v: w", 4));
	ss_value_list_append(list, ss_value_new_int(1));
	ss_value_list_append(list, sub);
	ss_value_list_append(list, ss_value_new_list());
	ss_value_map_append(map, "list", list);
	ss_value_map_append(map, "flag", ss_value_new_bool(false));
	ss_value_map_append(map, "none", ss_value_new_null());
	ss_skillmd_emit(map, NULL, "body\n", 5, &out);
	assert_string_equal(out.ptr, "---\n"
	                             "name: pdf\n"
	                             "list:\n"
	                             "  - 1\n"
	                             "  -\n"
	                             "    k: \"v: w\"\n"
	                             "  - []\n"
	                             "flag: false\n"
	                             "none: null\n"
	                             "---\n"
	                             "body\n");
	ss_value_free(map);
	ss_buf_release(&out);
}

/* name and description are text whatever a plain scalar looks like (the reference validator
 * reads every scalar as text); the same scalars elsewhere keep their YAML types. */
static void test_skillmd__name_and_description_are_text(void **state)
{
	const char *text = "---\nname: 123\ndescription: true\nx: 123\nmeta:\n  name: null\n---\n";
	ss_report *r = ss_report_new();
	size_t off;
	ss_value *fm = parse_ok(text, &off, r);

	assert_string_equal(str(fm, "name"), "123");
	assert_string_equal(str(fm, "description"), "true");
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "x")), SS_VALUE_INT);
	assert_int_equal(ss_value_type_of(ss_value_map_get(ss_value_map_get(fm, "meta"), "name")),
	                 SS_VALUE_NULL);
	ss_value_free(fm);
	fm = parse_ok("---\nname:\ndescription: ~\n---\n", &off, r);
	assert_string_equal(str(fm, "name"), "");
	assert_string_equal(str(fm, "description"), "~");
	assert_int_equal(ss_report_count(r), 0);
	ss_value_free(fm);
	ss_report_free(r);
}

int test_skillmd_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skillmd__split_and_body_offset),
	    cmocka_unit_test(test_skillmd__closing_line_may_have_spaces_and_cr),
	    cmocka_unit_test(test_skillmd__closing_marker_without_newline),
	    cmocka_unit_test(test_skillmd__strict_errors),
	    cmocka_unit_test(test_skillmd__lenient_reading_warns),
	    cmocka_unit_test(test_skillmd__scalars_resolve_like_yaml_core),
	    cmocka_unit_test(test_skillmd__name_and_description_are_text),
	    cmocka_unit_test(test_skillmd__emitted_strings_read_back_exactly),
	    cmocka_unit_test(test_skillmd__emit_is_block_yaml_in_order),
	};
	return cmocka_run_group_tests_name("core/skillmd", tests, NULL, NULL);
}
