#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/agent/card.h"
#include "core/skill/value.h"
#include "core/util/grapheme.h"
#include "core/util/utf8.h"
#include "support/support.h"

#define T0       "2026-11-30T12:00:00.000Z"
#define E_ACUTE  "e\xcc\x81"                                    /* 1 grapheme, 3 bytes */
#define FAMILY   "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9" /* 1 grapheme, 11 bytes */
#define CJK      "\xe6\xbc\xa2"                                 /* 1 grapheme, 3 bytes */
#define ELLIPSIS "\xe2\x80\xa6"

static char *repeat(const char *s, size_t n)
{
	ss_buf b = SS_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		ss_buf_puts(&b, s);
	return ss_buf_detach(&b, NULL);
}

static ss_card *card_with(const char *name, const char *description, ss_error *err, int *rc)
{
	ss_card_settings s = {name, description, NULL, "https://agent.example/", NULL, NULL};
	ss_card *c = NULL;

	*rc = ss_card_new(&c, &s, T0, T0, err);
	return c;
}

/* The compiled-in lexicon is the lexicon file's value. */
static void test_card__lexicon_is_the_file(void **state)
{
	json_t *file = ss_test_json("lexicons/site.filae.agent.card.json");
	json_t *built = json_loads(ss_card_lexicon, 0, NULL);

	assert_non_null(built);
	assert_true(json_equal(file, built));
	json_decref(file);
	json_decref(built);
}

/* The name's limits are bytes AND graphemes; what the person gives is refused, not cut. */
static void test_card__settings_limits_in_bytes_and_graphemes(void **state)
{
	struct {
		const char *piece;
		size_t n;
		bool name_ok, desc_ok;
	} cases[] = {
	    {"a", 50, true, true},          /* 50 bytes, 50 graphemes */
	    {"a", 51, false, true},         /* 51 graphemes: over 50 for a name */
	    {E_ACUTE, 33, true, true},      /* 99 bytes, 33 graphemes */
	    {E_ACUTE, 34, false, true},     /* 102 bytes: over 100 though 34 graphemes */
	    {FAMILY, 9, true, true},        /* 99 bytes, 9 graphemes */
	    {CJK, 34, false, true},         /* 102 bytes */
	    {"a", 500, false, true},        /* description: 500 graphemes */
	    {"a", 501, false, false},       /* 501 graphemes */
	    {"\xc3\xa9", 500, false, true}, /* 1000 bytes, 500 graphemes */
	    {E_ACUTE, 334, false, false},   /* 1002 bytes */
	    {FAMILY, 90, false, true},      /* 990 bytes, 90 graphemes */
	};
	ss_error err;
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = repeat(cases[i].piece, cases[i].n);
		ss_card *c = card_with(text, NULL, &err, &rc);

		assert_int_equal(rc == 0, cases[i].name_ok);
		if (rc < 0) {
			assert_int_equal(err.code, SS_EINVALID);
			assert_non_null(strstr(err.message, "--name"));
		}
		ss_card_free(c);
		c = card_with("agent", text, &err, &rc);
		assert_int_equal(rc == 0, cases[i].desc_ok);
		ss_card_free(c);
		free(text);
	}
	{
		ss_card_settings s = {"a", NULL, "1.0.0-0123456789abcd", NULL, NULL, NULL}; /* 20 */
		ss_card *c = NULL;

		assert_int_equal(ss_card_new(&c, &s, T0, T0, &err), 0);
		ss_card_free(c);
		s.version = "1.0.0-0123456789abcde"; /* 21 bytes */
		SS_ASSERT_FAILS(ss_card_new(&c, &s, T0, T0, &err), err, SS_EINVALID);
		s.version = NULL;
		s.url = "not a url";
		SS_ASSERT_FAILS(ss_card_new(&c, &s, T0, T0, &err), err, SS_EINVALID);
	}
}

static json_t *record_of(const ss_card *c)
{
	ss_buf b = SS_BUF_INIT;
	ss_error err;
	json_t *j;

	assert_int_equal(ss_card_record_json(c, &b, &err), 0);
	j = json_loads(b.ptr, 0, NULL);
	assert_non_null(j);
	ss_buf_release(&b);
	return j;
}

static void assert_valid(const ss_card *c)
{
	ss_buf b = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_error err;

	assert_int_equal(ss_card_record_json(c, &b, &err), 0);
	assert_int_equal(ss_card_check(b.ptr, b.len, r, &err), 0);
	ss_report_free(r);
	ss_buf_release(&b);
}

/* A skill's description is cut to 500 bytes on a grapheme boundary, with an ellipsis. */
static void test_card__skill_description_cut_on_a_grapheme(void **state)
{
	char *desc = repeat(E_ACUTE, 200); /* 600 bytes */
	ss_error err;
	int rc;
	ss_card *c = card_with("agent", NULL, &err, &rc);
	json_t *r;
	const char *got;
	size_t len, n;

	assert_int_equal(rc, 0);
	assert_int_equal(ss_card_add_skill(c, "combining", desc, NULL, &err), 0);
	r = record_of(c);
	got = json_string_value(
	    json_object_get(json_array_get(json_object_get(r, "skills"), 0), "description"));
	len = strlen(got);
	assert_true(len <= 500);
	assert_int_equal(len, 165 * 3 + 3); /* 165 whole clusters, then the ellipsis */
	assert_memory_equal(got + len - 3, ELLIPSIS, 3);
	assert_memory_equal(got, desc, len - 3);
	assert_int_equal(ss_grapheme_count(got, len, &n, &err), 0);
	assert_int_equal(n, 166);
	assert_int_equal(ss_card_cut_count(c), 1);
	assert_valid(c);
	json_decref(r);
	ss_card_free(c);
	free(desc);
}

/* More than 50 skills: the first 50 in, the others left out with the reason. */
static void test_card__at_most_50_skills(void **state)
{
	ss_error err;
	int rc;
	ss_card *c = card_with("agent", NULL, &err, &rc);
	char name[32];
	const char *left, *why;

	for (int i = 0; i < 55; i++) {
		snprintf(name, sizeof(name), "skill-%02d", i);
		assert_int_equal(ss_card_add_skill(c, name, "Does a thing.", NULL, &err), 0);
	}
	assert_int_equal(ss_card_skill_count(c), 50);
	assert_int_equal(ss_card_left_out_count(c), 5);
	ss_card_left_out(c, 0, &left, &why);
	assert_string_equal(left, "skill-50");
	assert_string_equal(why, "the card holds at most 50 skills");
	assert_valid(c);
	ss_card_free(c);
}

static ss_value *metadata(ss_value *tags, ss_value *examples)
{
	ss_value *fm = ss_value_new_map(), *md = ss_value_new_map();

	if (tags)
		ss_value_map_append(md, "tags", tags);
	if (examples)
		ss_value_map_append(md, "examples", examples);
	ss_value_map_append(fm, "metadata", md);
	return fm;
}

/* Tags and examples from metadata, within the nested limits (10 x 50 bytes, 5 x 200). */
static void test_card__tags_and_examples_from_metadata(void **state)
{
	ss_error err;
	int rc;
	ss_card *c = card_with("agent", NULL, &err, &rc);
	char *long_tag = repeat(CJK, 20); /* 60 bytes */
	ss_buf tags = SS_BUF_INIT;
	ss_value *list = ss_value_new_list(), *fm;
	json_t *r, *s0, *s1;

	ss_buf_printf(&tags, " pdf, forms ,,%s", long_tag);
	for (int i = 0; i < 7; i++)
		ss_value_list_append(list, ss_value_new_string("Fill the form", 13));
	fm = metadata(ss_value_new_string(tags.ptr, tags.len), list);
	assert_int_equal(ss_card_add_skill(c, "a", "A.", fm, &err), 0);
	ss_value_free(fm);
	fm = metadata(NULL, ss_value_new_string("one\ntwo\n", 8));
	assert_int_equal(ss_card_add_skill(c, "b", "B.", fm, &err), 0);
	ss_value_free(fm);
	r = record_of(c);
	s0 = json_array_get(json_object_get(r, "skills"), 0);
	s1 = json_array_get(json_object_get(r, "skills"), 1);
	assert_int_equal(json_array_size(json_object_get(s0, "tags")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(s0, "tags"), 1)),
	                    "forms");
	assert_true(strlen(json_string_value(json_array_get(json_object_get(s0, "tags"), 2))) <=
	            50);
	assert_int_equal(json_array_size(json_object_get(s0, "examples")), 5);
	assert_int_equal(json_array_size(json_object_get(s1, "examples")), 2);
	assert_null(json_object_get(s1, "tags"));
	assert_valid(c);
	json_decref(r);
	ss_card_free(c);
	ss_buf_release(&tags);
	free(long_tag);
}

static void check_fails(const char *json, const char *want)
{
	ss_report *r = ss_report_new();
	ss_error err;
	ss_buf all = SS_BUF_INIT;

	assert_int_equal(ss_card_check(json, strlen(json), r, &err), SS_EINVALID);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		ss_report_format(ss_report_at(r, i), &all);
		ss_buf_putc(&all, '\n');
	}
	if (!strstr(all.ptr, want))
		fail_msg("want '%s' in:\n%s", want, all.ptr);
	ss_report_free(r);
	ss_buf_release(&all);
}

#define HEAD "{\"$type\":\"site.filae.agent.card\",\"version\":\"1\",\"createdAt\":\"" T0 "\","

/* A card from the network is checked at every depth, graphemes included. */
static void test_card__check_every_nested_limit(void **state)
{
	char *name51 = repeat(CJK, 33); /* 99 bytes, 33 graphemes: fine */
	char *g51 = repeat("a", 51);
	ss_buf j = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_error err;

	ss_buf_printf(&j, HEAD "\"name\":\"%s\",\"description\":\"d\"}", name51);
	assert_int_equal(ss_card_check(j.ptr, j.len, r, &err), 0);
	ss_buf_clear(&j);
	ss_buf_printf(&j, HEAD "\"name\":\"%s\",\"description\":\"d\"}", g51);
	check_fails(j.ptr, "card: name: longer than 50 graphemes (51)");
	check_fails(HEAD "\"name\":\"n\"}", "'description' is missing");
	check_fails("{\"$type\":\"x\",\"name\":\"n\",\"description\":\"d\",\"version\":\"1\","
	            "\"createdAt\":\"" T0 "\"}",
	            "$type: not 'site.filae.agent.card'");
	check_fails(HEAD "\"name\":\"n\",\"description\":\"d\",\"skills\":[{\"id\":\"a\","
	                 "\"name\":\"a\",\"description\":\"d\",\"tags\":[\"1\",\"2\",\"3\",\"4\","
	                 "\"5\",\"6\",\"7\",\"8\",\"9\",\"10\",\"11\"]}]}",
	            "skills[0].tags: more than 10 items (11)");
	check_fails(HEAD "\"name\":\"n\",\"description\":\"d\",\"skills\":[{\"id\":\"a\","
	                 "\"name\":\"a\"}]}",
	            "skills[0]: 'description' is missing");
	check_fails(HEAD "\"name\":\"n\",\"description\":\"d\",\"capabilities\":{\"streaming\":1}}",
	            "capabilities.streaming: not a boolean");
	check_fails(HEAD "\"name\":\"n\",\"description\":\"d\",\"url\":\"javascript alert\"}",
	            "url: not an absolute URI");
	check_fails(HEAD "\"name\":\"n\",\"description\":\"d\",\"artifacts\":{\"other\":[{\"name\":"
	                 "\"x\"}]}}",
	            "artifacts.other[0]: 'url' is missing");
	check_fails("{\"name\":1,\"name\":2}", "not JSON");
	ss_report_free(r);
	ss_buf_release(&j);
	free(name51);
	free(g51);
}

/* The A2A card has the specification's required fields, and escapes hostile text. */
static void test_card__a2a_required_fields(void **state)
{
	ss_error err;
	int rc;
	ss_card *c = card_with("agent", NULL, &err, &rc), *noref;
	ss_card_settings s = {"x", NULL, NULL, NULL, NULL, NULL};
	ss_buf b = SS_BUF_INIT;
	json_t *a, *sk;
	static const char *const required[] = {
	    "name",         "description",       "supportedInterfaces", "version",
	    "capabilities", "defaultInputModes", "defaultOutputModes",  "skills"};

	assert_int_equal(ss_card_add_skill(c, "pdf", "Forms \033[31m.", NULL, &err), 0);
	assert_int_equal(ss_card_a2a(c, &b, &err), 0);
	assert_null(strchr(b.ptr, '\033'));
	a = json_loads(b.ptr, 0, NULL);
	assert_non_null(a);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		assert_non_null(json_object_get(a, required[i]));
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(a, "supportedInterfaces"), 0), "protocolVersion")),
	    SS_CARD_A2A_VERSION);
	sk = json_array_get(json_object_get(a, "skills"), 0);
	assert_true(json_is_array(json_object_get(sk, "tags")));
	assert_string_equal(json_string_value(json_object_get(sk, "description")),
	                    "Forms \033[31m.");
	json_decref(a);
	assert_int_equal(ss_card_new(&noref, &s, T0, NULL, &err), 0);
	SS_ASSERT_FAILS(ss_card_a2a(noref, &b, &err), err, SS_EINVALID);
	ss_card_free(noref);
	ss_card_free(c);
	ss_buf_release(&b);
}

int test_card_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_card__lexicon_is_the_file),
	    cmocka_unit_test(test_card__settings_limits_in_bytes_and_graphemes),
	    cmocka_unit_test(test_card__skill_description_cut_on_a_grapheme),
	    cmocka_unit_test(test_card__at_most_50_skills),
	    cmocka_unit_test(test_card__tags_and_examples_from_metadata),
	    cmocka_unit_test(test_card__check_every_nested_limit),
	    cmocka_unit_test(test_card__a2a_required_fields),
	};
	return cmocka_run_group_tests_name("card", tests, NULL, NULL);
}
