#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "core/commit.h"
#include "core/fs.h"
#include "core/repo.h"
#include "core/worktree.h"
#include "support/gitrepo.h"
#include "support/support.h"

static const char *const base_files[] = {
    "alpha/SKILL.md",
    "alpha 1\nalpha 2\n",
    "alpha/scripts/run.sh*",
    "#!/bin/sh\n",
    "beta/SKILL.md",
    "beta\n",
    "gamma/SKILL.md",
    "gamma\n",
    "README.md",
    "readme\n",
    NULL,
};

/* A repository whose main holds base_files, checked out. */
static ss_repo *cloned(char **dir, ss_oid *commit)
{
	ss_repo *repo = ss_test_repo_new(dir);
	ss_oid tree = ss_test_tree(repo, base_files), zero;
	ss_error err;

	ss_oid_clear(&zero);
	*commit = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	if (ss_worktree_checkout(repo, commit, &err) < 0)
		fail_msg("%s", err.message);
	return repo;
}

static void test_worktree__checkout_writes_files_and_is_clean(void **state)
{
	char *dir, *text;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	ss_buf out = SS_BUF_INIT;
	struct stat st;

	text = ss_test_read(dir, "alpha/SKILL.md");
	assert_string_equal(text, "alpha 1\nalpha 2\n");
	free(text);
	ss_buf_printf(&out, "%s/alpha/scripts/run.sh", dir);
	assert_int_equal(stat(out.ptr, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	assert_int_equal(ss_test_git(dir, NULL, "fsck --strict 2>/dev/null"), 0);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__checkout_never_overwrites(void **state)
{
	char *dir, *text;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid tree = ss_test_tree(repo, base_files), c;
	ss_error err;

	ss_test_write(dir, "beta/SKILL.md", "mine, not committed\n");
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_EEXISTS);
	assert_non_null(strstr(err.message, "'beta/SKILL.md'"));
	text = ss_test_read(dir, "beta/SKILL.md");
	assert_string_equal(text, "mine, not committed\n");
	free(text);
	assert_false(ss_test_exists(dir, "alpha"));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static const ss_status_entry *find(const ss_status *st, const char *name)
{
	for (size_t i = 0; i < st->count; i++)
		if (strcmp(st->entries[i].name, name) == 0)
			return &st->entries[i];
	return NULL;
}

static void test_worktree__status_groups_by_skill(void **state)
{
	ss_error ignored;
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	const char *gamma[] = {"gamma"};
	ss_status st = {0};
	const ss_status_entry *e;
	ss_error err;

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 0);
	ss_worktree_status_release(&st);

	ss_test_write(dir, "alpha/SKILL.md", "alpha 1\nchanged\n");
	ss_test_write(dir, "alpha/references/new.md", "new\n");
	{
		ss_buf p = SS_BUF_INIT;
		ss_fs_join(&p, dir, "beta");
		assert_int_equal(ss_fs_remove_tree(p.ptr, &ignored), 0);
		ss_buf_release(&p);
	}
	ss_test_write(dir, "gamma/SKILL.md", "gamma staged\n");
	assert_int_equal(ss_commit_stage(repo, gamma, 1, &err), 0);
	ss_test_write(dir, "delta/SKILL.md", "delta\n");
	ss_test_write(dir, "NOTES.txt", "notes\n");

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 5);
	assert_false(st.merging);
	e = find(&st, "alpha");
	assert_non_null(e);
	assert_false(e->outside);
	assert_int_equal(e->staged, SS_STATUS_NONE);
	assert_int_equal(e->unstaged, SS_STATUS_MODIFIED);
	assert_int_equal(e->npaths, 2);
	assert_string_equal(e->paths[0], "alpha/SKILL.md");
	assert_string_equal(e->paths[1], "alpha/references/new.md");
	e = find(&st, "beta");
	assert_int_equal(e->unstaged, SS_STATUS_DELETED);
	assert_int_equal(e->staged, SS_STATUS_NONE);
	e = find(&st, "gamma");
	assert_int_equal(e->staged, SS_STATUS_MODIFIED);
	assert_int_equal(e->unstaged, SS_STATUS_NONE);
	e = find(&st, "delta");
	assert_int_equal(e->unstaged, SS_STATUS_NEW);
	e = find(&st, "NOTES.txt");
	assert_true(e->outside);
	assert_int_equal(e->unstaged, SS_STATUS_NEW);
	ss_worktree_status_release(&st);

	/* staged: a new skill and a deleted one */
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(find(&st, "delta")->staged, SS_STATUS_NEW);
	assert_int_equal(find(&st, "beta")->staged, SS_STATUS_DELETED);
	assert_int_equal(find(&st, "beta")->unstaged, SS_STATUS_NONE);
	assert_int_equal(find(&st, "alpha")->staged, SS_STATUS_MODIFIED);
	ss_worktree_status_release(&st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__diff_text_and_stat(void **state)
{
	char *dir;
	ss_oid c, tree;
	ss_repo *repo = cloned(&dir, &c);
	const char *alpha[] = {"alpha"};
	ss_buf out = SS_BUF_INIT;
	ss_changes ch = {0};
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "alpha 1\nalpha two\nalpha 3\n");
	ss_test_write(dir, "beta/SKILL.md", "beta changed\n");
	assert_int_equal(ss_commit_tree(repo, &c, &tree, &err), 0);
	assert_int_equal(
	    ss_worktree_diff(repo, SS_DIFF_TREE_WORKDIR, &tree, NULL, alpha, 1, &out, &err), 0);
	assert_non_null(strstr(out.ptr, "--- a/alpha/SKILL.md\n+++ b/alpha/SKILL.md\n"));
	assert_non_null(strstr(out.ptr, "\n-alpha 2\n+alpha two\n+alpha 3\n"));
	assert_null(strstr(out.ptr, "beta"));
	assert_int_equal(
	    ss_worktree_diff_stat(repo, SS_DIFF_INDEX_WORKDIR, NULL, NULL, NULL, 0, &ch, &err), 0);
	assert_int_equal(ch.count, 2);
	assert_string_equal(ch.items[0].path, "alpha/SKILL.md");
	assert_int_equal(ch.items[0].added_lines, 2);
	assert_int_equal(ch.items[0].removed_lines, 1);
	ss_tree_changes_release(&ch);
	/* nothing staged yet */
	ss_buf_clear(&out);
	assert_int_equal(
	    ss_worktree_diff(repo, SS_DIFF_TREE_INDEX, &tree, NULL, NULL, 0, &out, &err), 0);
	assert_string_equal(out.ptr, "");
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_worktree_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worktree__checkout_writes_files_and_is_clean),
	    cmocka_unit_test(test_worktree__checkout_never_overwrites),
	    cmocka_unit_test(test_worktree__status_groups_by_skill),
	    cmocka_unit_test(test_worktree__diff_text_and_stat),
	};
	return cmocka_run_group_tests_name("core/worktree", tests, NULL, NULL);
}
