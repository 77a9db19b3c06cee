/*
 * skill_md.c: SKILL.md as written comes back byte for byte through a record (its JSON text and
 * its DAG-CBOR block), and a record whose carried frontmatter no longer says its values gets
 * the canonical form (ss_skill_md, core/skill/skill.h; docs/RECORD-FORMAT.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>

#include "core/atproto/cbor.h"
#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "core/util/fs.h"
#include "support/support.h"

#define WHEN "2026-01-01T00:00:00Z"

/* The skill dirname's SKILL.md (NUL-terminated) reads as, with no error. */
static ss_skill *read_md(const char *dirname, const char *md)
{
	ss_report *r = ss_report_new();
	ss_skill_reader *reader = ss_skill_reader_new(dirname, r);
	ss_skill *s = NULL;

	ss_skill_reader_add(reader, SS_SKILL_MD, md, strlen(md), false);
	if (ss_skill_reader_finish(reader, &s) < 0)
		fail_msg("%s does not read", dirname);
	ss_report_free(r);
	return s;
}

static void encode(const ss_skill *s, ss_buf *json)
{
	ss_error ignored;

	ss_buf_clear(json);
	assert_int_equal(ss_record_encode(s, WHEN, WHEN, NULL, json, &ignored), 0);
}

/* The record's skill: from its JSON text, or (block) from its DAG-CBOR block. */
static ss_skill *decode(const char *json, const char *rkey, bool block)
{
	ss_report *r = ss_report_new();
	ss_record_value v = {json, strlen(json), NULL, 0};
	ss_buf cbor = SS_BUF_INIT;
	ss_skill *s = NULL;
	ss_error ignored;
	json_t *j = json_loads(json, 0, NULL);

	assert_non_null(j);
	if (block) {
		assert_int_equal(ss_cbor_encode(j, &cbor, &ignored), 0);
		v.cbor = (const unsigned char *)cbor.ptr;
		v.cbor_len = cbor.len;
	}
	if (ss_record_decode_value(&v, rkey, &s, NULL, r) < 0)
		fail_msg("record of %s does not decode: %s", rkey, json);
	json_decref(j);
	ss_buf_release(&cbor);
	ss_report_free(r);
	return s;
}

static void md_is(const ss_skill *s, const char *want)
{
	ss_buf md = SS_BUF_INIT;

	ss_skill_md(s, &md);
	if (md.len != strlen(want) || memcmp(md.ptr, want, md.len))
		fail_msg("SKILL.md of %s:\n%s\nnot:\n%s", s->name, md.ptr, want);
	ss_buf_release(&md);
}

/* A SKILL.md read, sent as a record and read back (either form) is byte for byte itself. */
static void comes_back(const char *name, const char *md)
{
	ss_skill *s = read_md(name, md), *back;
	ss_buf json = SS_BUF_INIT;

	assert_non_null(s->frontmatter_text);
	assert_memory_equal(s->frontmatter_text, md, s->frontmatter_text_len);
	md_is(s, md);
	encode(s, &json);
	for (int block = 0; block < 2; block++) {
		back = decode(json.ptr, name, block);
		assert_true(block || ss_skill_equal(s, back)); /* a block sorts the keys */
		md_is(back, md);
		ss_skill_free(back);
	}
	ss_skill_free(s);
	ss_buf_release(&json);
}

static void test_skill_md__frontmatter_comes_back_as_written(void **state)
{
	comes_back("crlf-skill", "---\r\nname: crlf-skill\r\ndescription: Uses CRLF.\r\n"
	                         "license: MIT\r\n---\r\n# Body\r\n\r\nLine two.\r\n");
	comes_back("crlf-head", "---\r\nname: crlf-head\r\ndescription: CRLF head.\r\n---\r\n"
	                        "# LF body\n");
	comes_back(
	    "bom-skill",
	    "\xEF\xBB\xBF---\nname: bom-skill\ndescription: Starts with a BOM.\n---\nbody\n");
	comes_back("commented", "---\n# Who reads this skill\nname: commented  # the directory\n"
	                        "description: Has comments. # why not\nmetadata:\n"
	                        "  # inside a map\n  author: me\n---\nbody\n");
	comes_back("folded",
	           "---\nname: folded\ndescription: >\n  A folded description\n"
	           "  over two lines.\nlicense: |\n  MIT\n  see LICENSE\n---\n# Folded\n");
	comes_back("flow", "---\nname: flow\ndescription: Flow lists and maps.\n"
	                   "x-info: {author: \"me\", tags: [pdf, forms]}\n"
	                   "x-list: [1, two, true, ~]\n---\n");
	comes_back("reordered", "---   \nlicense: Apache-2.0\ndescription: 'Reordered, quoted.'\n"
	                        "metadata:\n    version: \"1.0\"\n    author: someone\n"
	                        "name: \"reordered\"\n---\t\nbody without newline");
	comes_back("fence-last", "---\nname: fence-last\ndescription: Ends at the fence.\n---");
	comes_back("manual", "---\nname: manual\ndescription: Only by name.\n"
	                     "disable-model-invocation: True\n---\n");
	comes_back("lenient", "---\nname: lenient\ndescription: Use when: the user asks\n---\nx\n");
}

/* The skills tests/cmd/roundtrip.sh sends come back the same way. */
static void test_skill_md__roundtrip_skills_come_back(void **state)
{
	ss_buf base = SS_BUF_INIT, file = SS_BUF_INIT, md = SS_BUF_INIT;
	struct dirent *de;
	size_t n = 0;
	ss_error err;
	DIR *d;

	ss_test_data(&base, "skills/roundtrip");
	assert_non_null(d = opendir(base.ptr));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue; /* README.md */
		ss_buf_clear(&file);
		ss_buf_printf(&file, "%s/%s/%s", base.ptr, de->d_name, SS_SKILL_MD);
		ss_buf_clear(&md);
		assert_int_equal(ss_fs_read_file(&md, file.ptr, 0, &err), 0);
		comes_back(de->d_name, md.ptr);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
	ss_buf_release(&base);
	ss_buf_release(&file);
	ss_buf_release(&md);
}

/* The record of comes_back's "reordered" skill, changed by edit before it is read. */
typedef void (*edit_fn)(json_t *rec);

static const char reordered[] = "---\nlicense: Apache-2.0\ndescription: 'Reordered, quoted.'\n"
                                "metadata:\n    author: someone\n    version: \"1.0\"\n"
                                "name: \"reordered\"\nx-version: '7'\n---\nbody\n";

/* What the skill is written as: the carried text is still there, yet not used. (Keys in the
 * order DAG-CBOR gives them, so that the canonical form is the same from either form.) */
static void gets_canonical(edit_fn edit, const char *want)
{
	ss_skill *s = read_md("reordered", reordered), *back;
	ss_buf json = SS_BUF_INIT;
	json_t *rec;
	char *text;

	encode(s, &json);
	rec = json_loads(json.ptr, 0, NULL);
	edit(rec);
	text = json_dumps(rec, JSON_COMPACT);
	for (int block = 0; block < 2; block++) {
		back = decode(text, "reordered", block);
		assert_non_null(back->frontmatter_text);
		md_is(back, want);
		ss_skill_free(back);
	}
	free(text);
	json_decref(rec);
	ss_skill_free(s);
	ss_buf_release(&json);
}

static void set_text(json_t *rec, const char *text)
{
	json_object_set_new(rec, SS_FIELD_FRONTMATTER_TEXT, json_string(text));
}

static json_t *metadata(json_t *rec)
{
	return json_object_get(json_object_get(rec, "frontmatter"), "metadata");
}

static void new_description(json_t *rec)
{
	json_object_set_new(rec, "description", json_string("Changed elsewhere."));
}
static void new_author(json_t *rec)
{
	json_object_set_new(metadata(rec), "author", json_string("someone else"));
}
static void version_as_integer(json_t *rec)
{
	json_object_set_new(json_object_get(rec, "frontmatter"), "x-version", json_integer(7));
}
static void no_license(json_t *rec)
{
	json_object_del(json_object_get(rec, "frontmatter"), "license");
}
static void one_key_more(json_t *rec)
{
	json_object_set_new(json_object_get(rec, "frontmatter"), "compatibility",
	                    json_string("Needs git."));
}
static void model_invocation(json_t *rec)
{
	json_object_set_new(rec, SS_FIELD_DISABLE_MODEL_INVOCATION, json_true());
}
static void text_of_another_name(json_t *rec)
{
	set_text(rec, "---\nname: other\ndescription: 'Reordered, quoted.'\nlicense: Apache-2.0\n"
	              "metadata: {version: \"1.0\", author: someone}\nx-version: '7'\n---\n");
}
static void text_not_closed(json_t *rec)
{
	set_text(rec, "---\nname: reordered\ndescription: 'Reordered, quoted.'\n");
}
static void text_without_line_break(json_t *rec)
{
	set_text(rec, "---\nlicense: Apache-2.0\ndescription: 'Reordered, quoted.'\n"
	              "metadata:\n    author: someone\n    version: \"1.0\"\n"
	              "name: \"reordered\"\nx-version: '7'\n---");
}
static void text_not_yaml(json_t *rec)
{
	set_text(rec, "---\n[unclosed\n---\n");
}

static void test_skill_md__changed_values_get_the_canonical_form(void **state)
{
	static const char *const tail = "license: Apache-2.0\nmetadata:\n  author: someone\n"
	                                "  version: \"1.0\"\nx-version: \"7\"\n---\nbody\n";
	static const struct {
		edit_fn edit;
		const char *head, *tail;
	} cases[] = {
	    {new_description, "name: reordered\ndescription: Changed elsewhere.\n", NULL},
	    {new_author, "name: reordered\ndescription: Reordered, quoted.\n",
	     "license: Apache-2.0\nmetadata:\n  author: someone else\n  version: \"1.0\"\n"
	     "x-version: \"7\"\n---\nbody\n"},
	    {version_as_integer, "name: reordered\ndescription: Reordered, quoted.\n",
	     "license: Apache-2.0\nmetadata:\n  author: someone\n  version: \"1.0\"\n"
	     "x-version: 7\n---\nbody\n"},
	    {no_license, "name: reordered\ndescription: Reordered, quoted.\n",
	     "metadata:\n  author: someone\n  version: \"1.0\"\nx-version: \"7\"\n---\nbody\n"},
	    {one_key_more, "name: reordered\ndescription: Reordered, quoted.\n",
	     "license: Apache-2.0\nmetadata:\n  author: someone\n  version: \"1.0\"\n"
	     "x-version: \"7\"\ncompatibility: Needs git.\n---\nbody\n"},
	    {model_invocation,
	     "name: reordered\ndescription: Reordered, quoted.\ndisable-model-invocation: true\n",
	     NULL},
	    {text_of_another_name, "name: reordered\ndescription: Reordered, quoted.\n", NULL},
	    {text_not_closed, "name: reordered\ndescription: Reordered, quoted.\n", NULL},
	    {text_without_line_break, "name: reordered\ndescription: Reordered, quoted.\n", NULL},
	    {text_not_yaml, "name: reordered\ndescription: Reordered, quoted.\n", NULL},
	};
	ss_buf want = SS_BUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_buf_clear(&want);
		ss_buf_printf(&want, "---\n%s%s", cases[i].head,
		              cases[i].tail ? cases[i].tail : tail);
		gets_canonical(cases[i].edit, want.ptr);
	}
	ss_buf_release(&want);
}

/* A record of another client (or of skillsync before the field) is written as it was. */
static void test_skill_md__record_without_the_text_is_written_as_before(void **state)
{
	ss_skill *s = decode("{\"name\":\"old\",\"description\":\"From before.\",\"instructions\":"
	                     "\"body\\r\\n\",\"frontmatter\":{\"x-old\":{\"b\":[1],\"a\":\"x\"}},"
	                     "\"createdAt\":\"" WHEN "\",\"updatedAt\":\"" WHEN "\"}",
	                     "old", false);

	assert_null(s->frontmatter_text);
	md_is(s, "---\nname: old\ndescription: From before.\nx-old:\n  b:\n    - 1\n  a: x\n"
	         "---\nbody\r\n");
	ss_skill_free(s);
}

/* The text in a record: last after frontmatter; at most SS_MAX_FRONTMATTER_TEXT bytes, a
 * string (both are checked by the decoder); a longer head of a local SKILL.md is not carried. */
static void test_skill_md__the_field_and_its_limit(void **state)
{
	ss_skill *s = read_md("flow", "---\nname: flow\ndescription: d\nx: [1]\n---\nb");
	ss_buf json = SS_BUF_INIT, md = SS_BUF_INIT, line = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *back = NULL;
	json_t *rec;
	char *text;

	encode(s, &json);
	assert_string_equal(json.ptr,
	                    "{\"$type\":\"garden.engram.skill\",\"name\":\"flow\",\"description\":"
	                    "\"d\",\"instructions\":\"b\",\"frontmatter\":{\"x\":[1]},"
	                    "\"frontmatterText\":\"---\\nname: flow\\ndescription: d\\nx: [1]\\n"
	                    "---\\n\",\"createdAt\":\"" WHEN "\",\"updatedAt\":\"" WHEN "\"}");
	rec = json_loads(json.ptr, 0, NULL);
	ss_buf_puts(&md, "---\nname: flow\ndescription: d\nx: [1]\n");
	while (md.len < SS_MAX_FRONTMATTER_TEXT - 4)
		ss_buf_puts(&md, "# padding\n");
	ss_buf_truncate(&md, SS_MAX_FRONTMATTER_TEXT - 4);
	ss_buf_puts(&md, "---\n");
	set_text(rec, md.ptr);
	text = json_dumps(rec, JSON_COMPACT);
	back = decode(text, "flow", false);
	assert_int_equal(back->frontmatter_text_len, SS_MAX_FRONTMATTER_TEXT);
	ss_skill_free(back);
	free(text);

	ss_buf_puts(&md, "#");
	set_text(rec, md.ptr);
	text = json_dumps(rec, JSON_COMPACT);
	assert_int_equal(ss_record_decode(text, strlen(text), "flow", &back, NULL, r), SS_EINVALID);
	ss_report_format(ss_report_at(r, 0), &line);
	assert_string_equal(line.ptr, "flow/SKILL.md: frontmatterText: longer than 65536 bytes "
	                              "(65537)");
	free(text);

	json_object_set_new(rec, SS_FIELD_FRONTMATTER_TEXT, json_integer(1));
	text = json_dumps(rec, JSON_COMPACT);
	ss_buf_clear(&line);
	ss_report_free(r);
	r = ss_report_new();
	assert_int_equal(ss_record_decode(text, strlen(text), "flow", &back, NULL, r), SS_EINVALID);
	ss_report_format(ss_report_at(r, 0), &line);
	assert_string_equal(line.ptr, "flow/SKILL.md: frontmatterText: must be a string");
	free(text);

	ss_skill_free(s);
	ss_buf_truncate(&md, SS_MAX_FRONTMATTER_TEXT - 4);
	ss_buf_puts(&md, "#\n---\nb");
	s = read_md("flow", md.ptr);
	assert_null(s->frontmatter_text);
	md_is(s, "---\nname: flow\ndescription: d\nx:\n  - 1\n---\nb");
	json_decref(rec);
	ss_skill_free(s);
	ss_report_free(r);
	ss_buf_release(&json);
	ss_buf_release(&md);
	ss_buf_release(&line);
}

int test_skill_md_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skill_md__frontmatter_comes_back_as_written),
	    cmocka_unit_test(test_skill_md__roundtrip_skills_come_back),
	    cmocka_unit_test(test_skill_md__changed_values_get_the_canonical_form),
	    cmocka_unit_test(test_skill_md__record_without_the_text_is_written_as_before),
	    cmocka_unit_test(test_skill_md__the_field_and_its_limit),
	};
	return cmocka_run_group_tests_name("core/skill_md", tests, NULL, NULL);
}
