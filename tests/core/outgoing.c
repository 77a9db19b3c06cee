#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/outgoing.h"
#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/state/state.h"
#include "core/state/state_record.h"
#include "support/gitrepo.h"
#include "support/support.h"

#define ME  "did:plc:me"
#define BOB "did:plc:bob"

static void skill_md(ss_buf *b, const char *name, const char *body)
{
	ss_buf_clear(b);
	ss_buf_printf(b, "---\nname: %s\ndescription: The %s skill\n---\n%s", name, name, body);
}

static void put_skill(ss_repo *repo, ss_tree_top *top, const char *name, const char *body,
                      const char *extra)
{
	ss_tree_builder *tb = NULL;
	ss_buf md = SS_BUF_INIT;
	ss_error err;
	ss_oid tree;

	skill_md(&md, name, body);
	assert_int_equal(ss_tree_builder_new(&tb, repo), 0);
	assert_int_equal(ss_tree_builder_add(tb, "SKILL.md", md.ptr, md.len, false, &err), 0);
	if (extra)
		assert_int_equal(ss_tree_builder_add(tb, extra, "echo hi\n", 8, true, &err), 0);
	assert_int_equal(ss_tree_builder_write(tb, &tree, &err), 0);
	assert_int_equal(ss_tree_top_set(top, name, &tree, SS_MODE_TREE, &err), 0);
	ss_tree_builder_free(tb);
	ss_buf_release(&md);
}

static void commit_top(ss_repo *repo, ss_tree_top *top, const ss_oid *parent, const char *msg,
                       ss_oid *out)
{
	ss_commit_opts co;
	ss_oid tree;
	ss_error err;

	memset(&co, 0, sizeof(co));
	assert_int_equal(ss_tree_top_write(top, &tree, &err), 0);
	assert_int_equal(ss_commit_create(repo, &co, &tree, parent, parent ? 1 : 0, msg, out, &err),
	                 0);
}

static void put_record(ss_state *st, const char *did, const char *rkey, const char *cid)
{
	ss_state_record r;
	ss_error err;

	memset(&r, 0, sizeof(r));
	r.did = did;
	r.rkey = rkey;
	r.cid = cid;
	r.created_at = "2026-01-01T00:00:00.000Z";
	r.updated_at = "2026-01-01T00:00:00.000Z";
	r.updated_us = 1;
	r.valid = true;
	r.tree = "0000000000000000000000000000000000000001";
	assert_int_equal(ss_state_record_put(st, &r, &err), 0);
}

static const ss_outgoing_item *item(const ss_outgoing *o, const char *name)
{
	for (size_t i = 0; i < ss_outgoing_count(o); i++)
		if (!strcmp(ss_outgoing_get(o, i)->write->name, name))
			return ss_outgoing_get(o, i);
	return NULL;
}

static void test_outgoing__plan_notes_and_records(void **state)
{
	char *dir = NULL;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_state *st = NULL;
	ss_tree_top *top = NULL;
	ss_oid tracking, head, blob;
	ss_outgoing *o = NULL;
	const ss_outgoing_item *it;
	ss_state_view_entry v = {"bobs", BOB, "cid-bobs",
	                         "0000000000000000000000000000000000000001"};
	ss_error err;

	assert_int_equal(ss_state_open(&st, ss_repo_gitdir(repo), &err), 0);
	assert_int_equal(ss_state_config_set(st, "me", ME, &err), 0);
	put_record(st, ME, "mine", "cid-mine");
	put_record(st, ME, "gone", "cid-gone");
	put_record(st, BOB, "bobs", "cid-bobs");
	assert_int_equal(ss_state_view_put(st, &v, &err), 0);

	/* the view */
	assert_int_equal(ss_tree_top_new(&top, repo, NULL, false, &err), 0);
	put_skill(repo, top, "mine", "# Mine\n## Step 3\nold line\n", NULL);
	put_skill(repo, top, "bobs", "# Bob\ntext\n", NULL);
	put_skill(repo, top, "gone", "# Gone\n", NULL);
	put_skill(repo, top, "same", "# Same\n", NULL);
	commit_top(repo, top, NULL, "fetch", &tracking);
	/* HEAD: mine edited, bobs edited, gone deleted, new added, a README */
	put_skill(repo, top, "mine", "# Mine\n## Step 3\nnew line\nmore\n", "scripts/check.sh");
	put_skill(repo, top, "bobs", "# Bob\ntext\nmine now\n", NULL);
	put_skill(repo, top, "fresh", "# Fresh\n", NULL);
	assert_int_equal(ss_tree_top_remove(top, "gone", &err), 0);
	assert_int_equal(ss_tree_blob_write(repo, "hello\n", 6, &blob, &err), 0);
	assert_int_equal(ss_tree_top_set(top, "README.md", &blob, SS_MODE_FILE, &err), 0);
	commit_top(repo, top, &tracking, "Fix step 3", &head);

	assert_int_equal(ss_outgoing_new(&o, repo, st, ME, &tracking, &head, INT64_C(1796078220000),
	                                 SS_OUTGOING_RECORDS, &err),
	                 0);
	assert_int_equal(ss_outgoing_count(o), 4);
	assert_int_equal(ss_outgoing_outside_count(o), 1);
	assert_string_equal(ss_outgoing_outside(o, 0), "README.md");
	assert_null(item(o, "same"));

	it = item(o, "mine");
	assert_int_equal(it->write->op, SS_WRITE_UPDATE);
	assert_string_equal(it->write->swap_cid, "cid-mine");
	assert_string_equal(it->note, "Fix step 3\n\nSKILL.md: section 'Step 3' rewritten "
	                              "(+2 -1 lines); added scripts/check.sh");
	assert_non_null(strstr(it->record, "\"updatedAt\":\"2026-11-30T22:37:00.000Z\""));
	assert_non_null(strstr(it->record, "\"createdAt\":\"2026-01-01T00:00:00.000Z\""));

	it = item(o, "bobs");
	assert_int_equal(it->write->op, SS_WRITE_CREATE);
	assert_string_equal(it->write->based_on, BOB);
	assert_non_null(strstr(it->note, "my own version of " BOB "'s"));

	it = item(o, "fresh");
	assert_int_equal(it->write->op, SS_WRITE_CREATE);
	assert_non_null(strstr(it->note, "new skill: SKILL.md"));
	assert_non_null(strstr(it->record, "\"createdAt\":\"2026-11-30T22:37:00.000Z\""));

	it = item(o, "gone");
	assert_int_equal(it->write->op, SS_WRITE_DELETE);
	assert_string_equal(it->write->swap_cid, "cid-gone");
	assert_null(it->record);

	ss_outgoing_free(o);
	ss_tree_top_free(top);
	ss_state_free(st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A skill whose SKILL.md says nothing of its name but the name line, plus notes.md. */
static void put_plain(ss_repo *repo, ss_tree_top *top, const char *name, const char *desc,
                      const char *notes)
{
	ss_tree_builder *tb = NULL;
	ss_buf md = SS_BUF_INIT;
	ss_error err;
	ss_oid tree;

	ss_buf_printf(&md, "---\nname: %s\ndescription: %s\n---\n# %s\n", name, desc, desc);
	assert_int_equal(ss_tree_builder_new(&tb, repo), 0);
	assert_int_equal(ss_tree_builder_add(tb, "SKILL.md", md.ptr, md.len, false, &err), 0);
	assert_int_equal(ss_tree_builder_add(tb, "notes.md", notes, strlen(notes), false, &err), 0);
	assert_int_equal(ss_tree_builder_write(tb, &tree, &err), 0);
	assert_int_equal(ss_tree_top_set(top, name, &tree, SS_MODE_TREE, &err), 0);
	ss_tree_builder_free(tb);
	ss_buf_release(&md);
}

static void test_outgoing__renames_and_subjects_over_commits(void **state)
{
	char *dir = NULL;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_state *st = NULL;
	ss_tree_top *top = NULL;
	ss_oid tracking, c1, c2, head;
	ss_outgoing *o = NULL;
	const ss_outgoing_item *it;
	ss_error err;

	assert_int_equal(ss_state_open(&st, ss_repo_gitdir(repo), &err), 0);
	assert_int_equal(ss_state_config_set(st, "me", ME, &err), 0);
	put_record(st, ME, "a1", "cid-a1");
	put_record(st, ME, "a2", "cid-a2");
	put_record(st, ME, "b", "cid-b");
	put_record(st, ME, "c", "cid-c");
	assert_int_equal(ss_tree_top_new(&top, repo, NULL, false, &err), 0);
	put_plain(repo, top, "a1", "First", "one\n");
	put_plain(repo, top, "a2", "Second", "two\n");
	put_plain(repo, top, "b", "Bee", "b\n");
	put_plain(repo, top, "c", "Sea", "c\n");
	commit_top(repo, top, NULL, "fetch", &tracking);
	/* x1 continues a2 and x2 continues a1 (crossed, so a1 is compared twice) */
	assert_int_equal(ss_tree_top_remove(top, "a1", &err), 0);
	assert_int_equal(ss_tree_top_remove(top, "a2", &err), 0);
	put_plain(repo, top, "x1", "Second", "two\n");
	put_plain(repo, top, "x2", "First", "one\n");
	commit_top(repo, top, &tracking, "Rename a1 and a2", &c1);
	put_plain(repo, top, "b", "Bee", "b, edited\n");
	commit_top(repo, top, &c1, "Edit b", &c2);
	put_plain(repo, top, "b", "Bee", "b, edited again\n");
	put_plain(repo, top, "c", "Sea", "c, edited\n");
	commit_top(repo, top, &c2, "Edit b and c", &head);

	assert_int_equal(ss_outgoing_new(&o, repo, st, ME, &tracking, &head, INT64_C(1796078220000),
	                                 SS_OUTGOING_NOTES, &err),
	                 0);
	it = item(o, "x1");
	assert_non_null(it);
	assert_string_equal(it->write->renamed_from, "a2");
	assert_string_equal(it->note, "Rename a1 and a2\n\nrenamed from 'a2'; SKILL.md: name "
	                              "rewritten (+1 -1 lines)");
	it = item(o, "x2");
	assert_non_null(it);
	assert_string_equal(it->write->renamed_from, "a1");
	it = item(o, "b");
	assert_non_null(it);
	assert_string_equal(
	    it->note, "Edit b\nEdit b and c\n\nnotes.md: the opening rewritten (+1 -1 lines)");
	it = item(o, "c");
	assert_non_null(it);
	assert_string_equal(it->note,
	                    "Edit b and c\n\nnotes.md: the opening rewritten (+1 -1 lines)");

	ss_outgoing_free(o);
	ss_tree_top_free(top);
	ss_state_free(st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The error lines of a refused skill's report, one a line. */
static void refusal_lines(const ss_outgoing_refusal *rf, ss_buf *out)
{
	ss_buf_clear(out);
	for (size_t i = 0; i < ss_report_count(rf->report); i++) {
		if (ss_report_at(rf->report, i)->severity != SS_SEV_ERROR)
			continue;
		ss_report_format(ss_report_at(rf->report, i), out);
		ss_buf_putc(out, '\n');
	}
}

/* Every skill that breaks a rule is listed with all its problems; the plan is still made. */
static void test_outgoing__check_lists_every_refused_skill(void **state)
{
	char *dir = NULL;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_state *st = NULL;
	ss_tree_top *top = NULL;
	ss_oid tracking, head;
	ss_outgoing *o = NULL;
	ss_buf lines = SS_BUF_INIT;
	ss_error err;
	const unsigned modes[] = {SS_OUTGOING_CHECK, SS_OUTGOING_RECORDS};

	assert_int_equal(ss_state_open(&st, ss_repo_gitdir(repo), &err), 0);
	assert_int_equal(ss_state_config_set(st, "me", ME, &err), 0);
	assert_int_equal(ss_tree_top_new(&top, repo, NULL, false, &err), 0);
	put_skill(repo, top, "kept", "# Kept\n", NULL);
	commit_top(repo, top, NULL, "fetch", &tracking);
	put_plain(repo, top, "good", "Good", "g\n");
	put_plain(repo, top, "bad-one", "\"\"", "b\n"); /* description empty */
	/* a list, and a compatibility that is one (a file that is not UTF-8 is a blob now) */
	put_plain(repo, top, "bad-two", "[a, b]\ncompatibility: [x]", "\x01\xff\n");
	commit_top(repo, top, &tracking, "Add three", &head);

	for (size_t m = 0; m < 2; m++) {
		assert_int_equal(ss_outgoing_new(&o, repo, st, ME, &tracking, &head,
		                                 INT64_C(1796078220000), modes[m], &err),
		                 0);
		assert_int_equal(ss_outgoing_count(o), 3);
		assert_int_equal(ss_outgoing_refused_count(o), 2);
		assert_string_equal(ss_outgoing_refused(o, 0)->name, "bad-one");
		refusal_lines(ss_outgoing_refused(o, 0), &lines);
		assert_string_equal(lines.ptr,
		                    "bad-one/SKILL.md: description: must not be empty\n");
		assert_string_equal(ss_outgoing_refused(o, 1)->name, "bad-two");
		refusal_lines(ss_outgoing_refused(o, 1), &lines);
		assert_string_equal(
		    lines.ptr, "bad-two/SKILL.md: description: must be a string, not list\n"
		               "bad-two/SKILL.md: compatibility: must be a string, not list\n");
		assert_non_null(item(o, "good"));
		assert_null(ss_outgoing_refused(o, 2));
		ss_outgoing_free(o);
	}
	/* without the check (diff --pushed), no skill is read */
	assert_int_equal(ss_outgoing_new(&o, repo, st, ME, &tracking, &head, INT64_C(1796078220000),
	                                 SS_OUTGOING_NOTES, &err),
	                 0);
	assert_int_equal(ss_outgoing_refused_count(o), 0);

	ss_outgoing_free(o);
	ss_buf_release(&lines);
	ss_tree_top_free(top);
	ss_state_free(st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_outgoing_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outgoing__plan_notes_and_records),
	    cmocka_unit_test(test_outgoing__renames_and_subjects_over_commits),
	    cmocka_unit_test(test_outgoing__check_lists_every_refused_skill),
	};
	return cmocka_run_group_tests_name("outgoing", tests, NULL, NULL);
}
