#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/git/render.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/util/buf.h"
#include "support/gitrepo.h"
#include "support/support.h"

#define TIMES "\"createdAt\":\"2026-01-01T00:00:00Z\",\"updatedAt\":\"2026-11-29T23:00:00-02:00\""

static void render(ss_repo *repo, const char *rkey, const char *json, ss_render *out)
{
	ss_record_value v = {json, strlen(json), NULL, 0};
	ss_error err;

	if (ss_render_record(repo, rkey, &v, out, &err) < 0)
		fail_msg("%s", err.message);
}

static void test_render__valid_record_becomes_a_subtree(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_render r;
	ss_buf body = SS_BUF_INIT;
	ss_oid blob;
	unsigned mode = 0;
	ss_error err;

	render(
	    repo, "pdf",
	    "{\"name\":\"pdf\",\"description\":\"Fill PDF forms\",\"instructions\":\"Step 1.\\n\","
	    "\"files\":[{\"path\":\"scripts/run.sh\",\"content\":\"echo hi\\n\","
	    "\"executable\":true}],\"note\":\"first\"," TIMES "}",
	    &r);
	assert_true(r.valid);
	assert_null(r.reason);
	assert_string_equal(r.note, "first");
	assert_string_equal(r.created_at, "2026-01-01T00:00:00Z");
	assert_string_equal(r.updated_at, "2026-11-29T23:00:00-02:00");
	assert_int_equal(r.updated_us, INT64_C(1796000400000000)); /* 2026-11-30T01:00:00Z */
	assert_int_equal(ss_tree_read_file(repo, &r.tree, "scripts/run.sh", &body, &err), 0);
	assert_string_equal(body.ptr, "echo hi\n");
	assert_int_equal(ss_tree_lookup(repo, &r.tree, "scripts/run.sh", &blob, &mode, &err), 0);
	assert_int_equal(mode, SS_MODE_EXEC);
	ss_buf_clear(&body);
	assert_int_equal(ss_tree_read_file(repo, &r.tree, "SKILL.md", &body, &err), 0);
	assert_non_null(strstr(body.ptr, "name: pdf"));
	assert_non_null(strstr(body.ptr, "Step 1.\n"));
	ss_render_release(&r);
	ss_buf_release(&body);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_render__same_record_same_subtree(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *json =
	    "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\"," TIMES "}";
	ss_render r1, r2;

	render(repo, "a", json, &r1);
	render(repo, "a", json, &r2);
	assert_true(r1.valid && r2.valid);
	assert_true(ss_oid_equal(&r1.tree, &r2.tree));
	ss_render_release(&r1);
	ss_render_release(&r2);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_render__hostile_records_are_refused_with_a_reason(void **state)
{
	static const struct {
		const char *rkey, *json, *reason;
	} cases[] = {
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\"../x\",\"content\":\"y\"}]," TIMES "}",
	     "'..'"},
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\"/etc/x\",\"content\":\"y\"}]," TIMES "}",
	     "absolute"},
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\"x/.Git/hooks\",\"content\":\"y\"}]," TIMES "}",
	     ".git"},
	    {"a", "{\"name\":\"b\",\"description\":\"d\",\"instructions\":\"x\"," TIMES "}",
	     "record key"},
	    {"a", "{\"name\":\"a\",\"description\":7,\"instructions\":\"x\"," TIMES "}",
	     "description"},
	    {"a", "not json at all", ""},
	    /* names libgit2's tree builder refuses (NTFS and HFS+ aliases of .git): an invalid
	     * record, never a failure of the fetch */
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\"git~1/config\",\"content\":\"y\"}]," TIMES "}",
	     "reads as '.git'"},
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\".git /config\",\"content\":\"y\"}]," TIMES "}",
	     "reads as '.git'"},
	    {"a",
	     "{\"name\":\"a\",\"description\":\"d\",\"instructions\":\"x\",\"files\":[{\"path\":"
	     "\"d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
	     "f\",\"content\":\"y\"}]," TIMES "}",
	     "more than 32 components"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir;
		ss_repo *repo = ss_test_repo_new(&dir);
		ss_render r;

		render(repo, cases[i].rkey, cases[i].json, &r);
		assert_false(r.valid);
		assert_non_null(r.reason);
		if (!strstr(r.reason, cases[i].reason))
			fail_msg("case %zu: '%s' does not say '%s'", i, r.reason, cases[i].reason);
		assert_null(r.created_at);
		ss_render_release(&r);
		ss_repo_free(repo);
		ss_test_tmpdir_free(dir);
	}
}

int test_render_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render__valid_record_becomes_a_subtree),
	    cmocka_unit_test(test_render__same_record_same_subtree),
	    cmocka_unit_test(test_render__hostile_records_are_refused_with_a_reason),
	};
	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
