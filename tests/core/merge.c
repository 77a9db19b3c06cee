#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/commit.h"
#include "core/fs.h"
#include "core/merge.h"
#include "core/repo.h"
#include "core/worktree.h"
#include "support/gitrepo.h"
#include "support/support.h"

static const char *const base_files[] = {
    "alpha/SKILL.md",
    "line 1\nline 2\nline 3\n",
    "beta/SKILL.md",
    "beta\n",
    "README.md",
    "readme\n",
    NULL,
};

/* main and the tracking ref at one commit of base_files, checked out. */
static ss_repo *cloned(char **dir, ss_oid *commit)
{
	ss_repo *repo = ss_test_repo_new(dir);
	ss_oid tree = ss_test_tree(repo, base_files);
	ss_error err;

	*commit = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	if (ss_worktree_checkout(repo, commit, &err) < 0)
		fail_msg("%s", err.message);
	return repo;
}

/* A tracking commit on parent with the given files. */
static ss_oid theirs(ss_repo *repo, const ss_oid *parent, const char *const *files)
{
	ss_oid tree = ss_test_tree(repo, files);
	return ss_test_commit(repo, SS_REPO_TRACKING_REF, &tree, parent, "fetch");
}

static ss_oid head(ss_repo *repo)
{
	ss_oid h;
	ss_error err;

	if (ss_commit_read_ref(repo, "HEAD", &h, &err) < 0)
		fail_msg("%s", err.message);
	return h;
}

static void assert_file(const char *dir, const char *rel, const char *want)
{
	char *text = ss_test_read(dir, rel);
	assert_string_equal(text, want);
	free(text);
}

static void assert_porcelain(const char *dir, const char *want)
{
	ss_buf out = SS_BUF_INIT;
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, want);
	ss_buf_release(&out);
}

static void test_merge__fast_forward_keeps_unrelated_edits(void **state)
{
	char *dir;
	ss_oid c0;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md",
	                       "line 1\nLINE 2\nline 3\n",
	                       "gamma/SKILL.md",
	                       "gamma\n",
	                       "README.md",
	                       "readme\n",
	                       NULL};
	ss_oid t = theirs(repo, &c0, files), h;
	ss_merge_result r;
	ss_error err;

	ss_test_write(dir, "README.md", "my uncommitted readme\n");
	assert_int_equal(ss_merge_commit(repo, &t, "pull", &r, &err), 0);
	assert_int_equal(r.kind, SS_MERGE_FAST_FORWARD);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &t));
	assert_true(ss_oid_equal(&r.head, &t));
	assert_file(dir, "alpha/SKILL.md", "line 1\nLINE 2\nline 3\n");
	assert_file(dir, "gamma/SKILL.md", "gamma\n");
	assert_file(dir, "README.md", "my uncommitted readme\n");
	/* beta is gone from theirs' tree; the README edit stays as a local change */
	assert_false(ss_test_exists(dir, "beta"));
	assert_porcelain(dir, " M README.md\n");
	assert_false(ss_merge_interrupted(repo)); /* a finished merge leaves no journal */
	ss_merge_result_release(&r);
	/* again: up to date */
	assert_int_equal(ss_merge_commit(repo, &t, "pull", &r, &err), 0);
	assert_int_equal(r.kind, SS_MERGE_UP_TO_DATE);
	assert_false(ss_test_exists(dir, ".git/skillsync/merge"));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_merge__refuses_to_overwrite_uncommitted_changes(void **state)
{
	char *dir;
	ss_oid c0;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md", "theirs\n",       "beta/SKILL.md",
	                       "beta\n",         "gamma/SKILL.md", "gamma\n",
	                       "README.md",      "readme\n",       NULL};
	ss_oid t = theirs(repo, &c0, files), h;
	ss_merge_result r;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "my edit\n");
	SS_ASSERT_FAILS(ss_merge_commit(repo, &t, "pull", &r, &err), err, SS_EEXISTS);
	assert_non_null(strstr(err.message, "'alpha/SKILL.md'"));
	assert_int_equal(r.npaths, 1);
	assert_string_equal(r.paths[0], "alpha/SKILL.md");
	ss_merge_result_release(&r);
	/* nothing touched */
	h = head(repo);
	assert_true(ss_oid_equal(&h, &c0));
	assert_file(dir, "alpha/SKILL.md", "my edit\n");
	assert_false(ss_test_exists(dir, "gamma"));
	assert_false(ss_test_exists(dir, ".git/skillsync/merge"));
	assert_false(ss_merge_in_progress(repo));
	assert_porcelain(dir, " M alpha/SKILL.md\n");

	/* the same with a three-way merge (main moved too) */
	ss_test_write(dir, "beta/SKILL.md", "beta on main\n");
	{
		const char *b[] = {"beta"};
		ss_oid c1;
		assert_int_equal(ss_commit_stage(repo, b, 1, &err), 0);
		assert_int_equal(ss_commit_staged(repo, "beta", &c1, &err), 0);
		SS_ASSERT_FAILS(ss_merge_commit(repo, &t, "pull", &r, &err), err, SS_EEXISTS);
		h = head(repo);
		assert_true(ss_oid_equal(&h, &c1));
		ss_merge_result_release(&r);
	}
	assert_file(dir, "alpha/SKILL.md", "my edit\n");
	assert_false(ss_test_exists(dir, "gamma"));
	assert_false(ss_merge_in_progress(repo));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_merge__clean_three_way(void **state)
{
	char *dir;
	ss_oid c0, c1;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md", "line 1\nline 2\nline 3 theirs\n", "beta/SKILL.md",
	                       "beta\n", NULL};
	const char *b[] = {"beta"};
	ss_oid t = theirs(repo, &c0, files), h;
	ss_merge_result r;
	ss_buf out = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "line 1 mine\nline 2\nline 3\n");
	ss_test_write(dir, "beta/SKILL.md", "beta mine\n");
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "mine", &c1, &err), 0);
	(void)b;
	assert_int_equal(ss_merge_commit(repo, &t, "Merge space", &r, &err), 0);
	assert_int_equal(r.kind, SS_MERGE_MERGED);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &r.head));
	assert_file(dir, "alpha/SKILL.md", "line 1 mine\nline 2\nline 3 theirs\n");
	assert_file(dir, "beta/SKILL.md", "beta mine\n");
	/* README was deleted by theirs: the merge deletes it too */
	assert_false(ss_test_exists(dir, "README.md"));
	assert_porcelain(dir, "");
	assert_int_equal(ss_test_git(dir, &out, "log -1 --format='%p %s'"), 0);
	assert_int_equal(out.len, 7 + 1 + 7 + 1 + strlen("Merge space") + 1);
	assert_int_equal(ss_test_git(dir, NULL, "fsck --strict 2>/dev/null"), 0);
	ss_buf_release(&out);
	ss_merge_result_release(&r);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_merge__conflict_leaves_markers_then_commit_concludes(void **state)
{
	char *dir, *text;
	ss_oid c0, c1, c2;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md",
	                       "line 1\nline 2 theirs\nline 3\n",
	                       "beta/SKILL.md",
	                       "beta theirs\n",
	                       "README.md",
	                       "readme\n",
	                       NULL};
	const char *alpha[] = {"alpha"};
	ss_oid t = theirs(repo, &c0, files), h;
	ss_merge_result r;
	ss_status st = {0};
	ss_buf out = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "line 1\nline 2 mine\nline 3\n");
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "mine", &c1, &err), 0);
	SS_ASSERT_FAILS(ss_merge_commit(repo, &t, "Merge space", &r, &err), err, SS_EMERGE);
	assert_int_equal(r.kind, SS_MERGE_CONFLICTED);
	assert_int_equal(r.npaths, 1);
	assert_string_equal(r.paths[0], "alpha/SKILL.md");
	assert_non_null(strstr(err.message, "'alpha/SKILL.md'"));
	ss_merge_result_release(&r);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &c1));
	text = ss_test_read(dir, "alpha/SKILL.md");
	assert_non_null(strstr(text, "<<<<<<< "));
	assert_non_null(strstr(text, "line 2 mine\n=======\nline 2 theirs\n>>>>>>> "));
	free(text);
	assert_file(dir, "beta/SKILL.md", "beta theirs\n");
	assert_true(ss_test_exists(dir, ".git/MERGE_HEAD"));
	assert_int_equal(ss_merge_message(repo, &out, &err), 0);
	assert_string_equal(out.ptr, "Merge space\n\nConflicts:\n\talpha/SKILL.md\n");
	ss_buf_clear(&out);
	assert_true(ss_merge_in_progress(repo));
	assert_int_equal(ss_test_git(dir, &out, "diff --name-only --diff-filter=U"), 0);
	assert_string_equal(out.ptr, "alpha/SKILL.md\n");

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_true(st.merging);
	assert_int_equal(st.count, 2);
	assert_string_equal(st.entries[0].name, "alpha");
	assert_true(st.entries[0].conflicted);
	assert_int_equal(st.entries[0].nconflicts, 1);
	assert_string_equal(st.entries[0].conflicts[0].path, "alpha/SKILL.md");
	assert_int_equal(st.entries[0].conflicts[0].kind, SS_CONFLICT_BOTH_MODIFIED);
	assert_string_equal(st.entries[1].name, "beta");
	assert_false(st.entries[1].conflicted);
	assert_int_equal(st.entries[1].nconflicts, 0);
	assert_int_equal(st.entries[1].staged, SS_STATUS_MODIFIED);
	ss_status_release(&st);

	/* a second merge is refused while this one waits */
	SS_ASSERT_FAILS(ss_merge_commit(repo, &t, "again", &r, &err), err, SS_EINVALID);
	/* committing with the conflict unresolved is refused */
	SS_ASSERT_FAILS(ss_commit_staged(repo, "too early", &c2, &err), err, SS_EMERGE);
	assert_non_null(strstr(err.message, "'alpha/SKILL.md'"));

	ss_test_write(dir, "alpha/SKILL.md", "line 1\nline 2 both\nline 3\n");
	assert_int_equal(ss_commit_stage(repo, alpha, 1, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "Merge space", &c2, &err), 0);
	assert_false(ss_merge_in_progress(repo));
	assert_false(ss_test_exists(dir, ".git/MERGE_HEAD"));
	assert_porcelain(dir, "");
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "rev-list --parents -n1 HEAD | wc -w"), 0);
	assert_string_equal(out.ptr, "3\n");
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_merge__status_names_each_conflict_and_what_each_side_did(void **state)
{
	char *dir;
	ss_oid c0, c1;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md",
	                       "line 1\nline 2 theirs\nline 3\n",
	                       "beta/SKILL.md",
	                       "beta theirs\n",
	                       "gamma/SKILL.md",
	                       "gamma theirs\n",
	                       "README.md",
	                       "readme\n",
	                       NULL};
	ss_oid t = theirs(repo, &c0, files);
	ss_merge_result r;
	ss_status st = {0};
	ss_buf out = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "line 1\nline 2 mine\nline 3\n");
	ss_test_write(dir, "gamma/SKILL.md", "gamma mine\n");
	assert_int_equal(ss_test_git(dir, &out, "rm -q beta/SKILL.md"), 0);
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "mine", &c1, &err), 0);
	SS_ASSERT_FAILS(ss_merge_commit(repo, &t, "Merge space", &r, &err), err, SS_EMERGE);
	assert_int_equal(r.npaths, 3);
	ss_merge_result_release(&r);

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_true(st.merging);
	assert_int_equal(st.count, 3);
	for (size_t i = 0; i < st.count; i++) {
		assert_true(st.entries[i].conflicted);
		assert_int_equal(st.entries[i].nconflicts, 1);
	}
	assert_string_equal(st.entries[0].conflicts[0].path, "alpha/SKILL.md");
	assert_int_equal(st.entries[0].conflicts[0].kind, SS_CONFLICT_BOTH_MODIFIED);
	assert_string_equal(st.entries[1].conflicts[0].path, "beta/SKILL.md");
	assert_int_equal(st.entries[1].conflicts[0].kind, SS_CONFLICT_DELETED_HERE);
	assert_string_equal(ss_conflict_kind_name(st.entries[1].conflicts[0].kind), "deleted here");
	assert_string_equal(st.entries[2].conflicts[0].path, "gamma/SKILL.md");
	assert_int_equal(st.entries[2].conflicts[0].kind, SS_CONFLICT_BOTH_ADDED);
	ss_status_release(&st);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void write_journal(const char *dir, const char *kind, const ss_oid *a, const ss_oid *b)
{
	char ha[SS_OID_HEXSZ + 1], hb[SS_OID_HEXSZ + 1];
	ss_buf text = SS_BUF_INIT;

	ss_oid_fmt(ha, a);
	ss_oid_fmt(hb, b);
	ss_buf_printf(&text, "old %s\n%s %s\n", ha, kind, hb);
	ss_test_write(dir, ".git/skillsync/merge", text.ptr);
	ss_buf_release(&text);
}

static void test_merge__recover_finishes_a_killed_fast_forward(void **state)
{
	char *dir;
	ss_oid c0;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {
	    "alpha/SKILL.md", "new alpha\n", "beta/SKILL.md", "beta\n", "gamma/SKILL.md",
	    "gamma\n",        NULL};
	ss_oid t = theirs(repo, &c0, files), h;
	bool recovered;
	ss_error err;

	assert_int_equal(ss_merge_recover(repo, &recovered, &err), 0);
	assert_false(recovered);
	assert_false(ss_merge_interrupted(repo));
	/* killed midway through the checkout: journal written, one file updated, ref not */
	write_journal(dir, "new", &c0, &t);
	ss_test_write(dir, "alpha/SKILL.md", "new alpha\n");
	ss_test_write(dir, "beta/SKILL.md", "an edit elsewhere is kept\n");
	assert_true(ss_merge_interrupted(repo));
	assert_int_equal(ss_merge_recover(repo, &recovered, &err), 0);
	assert_true(recovered);
	assert_false(ss_merge_interrupted(repo));
	h = head(repo);
	assert_true(ss_oid_equal(&h, &t));
	assert_file(dir, "gamma/SKILL.md", "gamma\n");
	assert_false(ss_test_exists(dir, ".git/skillsync/merge"));
	assert_false(ss_test_exists(dir, "README.md"));
	assert_porcelain(dir, " M beta/SKILL.md\n");
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_merge__recover_undoes_a_killed_conflicting_merge(void **state)
{
	char *dir;
	ss_oid c0, c1;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {
	    "alpha/SKILL.md", "theirs\n", "beta/SKILL.md", "beta theirs\n", "README.md",
	    "readme\n",       NULL};
	ss_oid t = theirs(repo, &c0, files), h;
	bool recovered;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "mine\n");
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "mine", &c1, &err), 0);
	/* killed inside git_merge: state files and one file written, index not yet */
	write_journal(dir, "conflict", &c1, &t);
	ss_test_write(dir, "beta/SKILL.md", "beta theirs\n");
	{
		char hex[SS_OID_HEXSZ + 1];
		ss_buf line = SS_BUF_INIT;
		ss_oid_fmt(hex, &t);
		ss_buf_printf(&line, "%s\n", hex);
		ss_test_write(dir, ".git/MERGE_HEAD", line.ptr);
		ss_buf_release(&line);
	}
	assert_true(ss_merge_interrupted(repo));
	assert_int_equal(ss_merge_recover(repo, &recovered, &err), 0);
	assert_true(recovered);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &c1));
	assert_file(dir, "beta/SKILL.md", "beta\n");
	assert_file(dir, "alpha/SKILL.md", "mine\n");
	assert_false(ss_merge_in_progress(repo));
	assert_porcelain(dir, "");
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_merge_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge__fast_forward_keeps_unrelated_edits),
	    cmocka_unit_test(test_merge__refuses_to_overwrite_uncommitted_changes),
	    cmocka_unit_test(test_merge__clean_three_way),
	    cmocka_unit_test(test_merge__conflict_leaves_markers_then_commit_concludes),
	    cmocka_unit_test(test_merge__status_names_each_conflict_and_what_each_side_did),
	    cmocka_unit_test(test_merge__recover_finishes_a_killed_fast_forward),
	    cmocka_unit_test(test_merge__recover_undoes_a_killed_conflicting_merge),
	};
	return cmocka_run_group_tests_name("core/merge", tests, NULL, NULL);
}
