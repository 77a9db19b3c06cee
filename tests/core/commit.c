#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/git/worktree.h"
#include "support/gitrepo.h"
#include "support/support.h"

static void test_commit__expected_old_ref_refuses_a_moved_ref(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *f1[] = {"alpha/SKILL.md", "one", NULL};
	const char *f2[] = {"alpha/SKILL.md", "two", NULL};
	ss_oid t1 = ss_test_tree(repo, f1), t2 = ss_test_tree(repo, f2), zero, c1, c2, c3, now;
	ss_commit_opts opts = {0};
	ss_buf log = SS_BUF_INIT;
	ss_error err;

	ss_oid_clear(&zero);
	opts.ref = SS_REPO_TRACKING_REF;
	opts.expected_old = &zero;
	opts.author_name = SS_COMMIT_DEFAULT_NAME;
	opts.author_email = SS_COMMIT_DEFAULT_EMAIL;
	SS_ASSERT_FAILS(ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, &now, &err), err,
	                SS_ENOTFOUND);
	assert_int_equal(ss_commit_create(repo, &opts, &t1, NULL, 0, "fetch 1", &c1, &err), 0);
	/* "must not exist" now fails */
	SS_ASSERT_FAILS(ss_commit_create(repo, &opts, &t2, &c1, 1, "fetch 2", &c2, &err), err,
	                SS_ECONFLICT);
	assert_non_null(strstr(err.message, SS_REPO_TRACKING_REF));
	opts.expected_old = &c1;
	assert_int_equal(ss_commit_create(repo, &opts, &t2, &c1, 1, "fetch 2", &c2, &err), 0);
	/* a second process still believing in c1 is refused, and the ref stays at c2 */
	SS_ASSERT_FAILS(ss_commit_create(repo, &opts, &t1, &c1, 1, "fetch 3", &c3, &err), err,
	                SS_ECONFLICT);
	assert_int_equal(ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, &now, &err), 0);
	assert_true(ss_oid_equal(&now, &c2));
	assert_int_equal(ss_commit_tree(repo, &c2, &now, &err), 0);
	assert_true(ss_oid_equal(&now, &t2));
	/* git sees the same history */
	assert_int_equal(ss_test_git(dir, &log, "log --format='%an <%ae> %s' remotes/space/main"),
	                 0);
	assert_string_equal(log.ptr, "skillsync <skillsync@localhost> fetch 2\n"
	                             "skillsync <skillsync@localhost> fetch 1\n");
	assert_int_equal(ss_test_git(dir, NULL, "fsck --strict 2>/dev/null"), 0);
	ss_buf_release(&log);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_commit__author_from_git_config(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *f[] = {"a/SKILL.md", "x", NULL};
	ss_oid t = ss_test_tree(repo, f), c;
	ss_buf log = SS_BUF_INIT;
	ss_error err;

	assert_int_equal(ss_test_git(dir, NULL, "config user.name 'Ada Lovelace'"), 0);
	assert_int_equal(ss_test_git(dir, NULL, "config user.email ada@example.com"), 0);
	ss_repo_free(repo);
	assert_int_equal(ss_repo_open(&repo, dir, &err), 0);
	assert_int_equal(ss_commit_create(repo, NULL, &t, NULL, 0, "mine", &c, &err), 0);
	ss_buf_puts(&log, "log --format='%an <%ae>' ");
	{
		char hex[SS_OID_HEXSZ + 1];
		ss_oid_fmt(hex, &c);
		ss_buf_puts(&log, hex);
	}
	{
		ss_buf outp = SS_BUF_INIT;
		assert_int_equal(ss_test_git(dir, &outp, log.ptr), 0);
		assert_string_equal(outp.ptr, "Ada Lovelace <ada@example.com>\n");
		ss_buf_release(&outp);
	}
	ss_buf_release(&log);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_commit__log_lists_commits_touching_a_skill(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *f1[] = {"a/SKILL.md", "1", "b/SKILL.md", "1", NULL};
	const char *f2[] = {"a/SKILL.md", "2", "b/SKILL.md", "1", NULL};
	const char *f3[] = {"a/SKILL.md", "2", "b/SKILL.md", "3", NULL};
	ss_oid t1 = ss_test_tree(repo, f1), t2 = ss_test_tree(repo, f2),
	       t3 = ss_test_tree(repo, f3);
	ss_oid c1 = ss_test_commit(repo, NULL, &t1, NULL, "add a and b");
	ss_oid c2 = ss_test_commit(repo, NULL, &t2, &c1, "reword a\n\nbecause");
	ss_oid c3 = ss_test_commit(repo, NULL, &t3, &c2, "reword b");
	ss_commit_list list = {0};
	ss_error err;

	assert_int_equal(ss_commit_log(repo, NULL, &c3, "a", 0, &list, &err), 0);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.items[0].subject, "reword a");
	assert_string_equal(list.items[0].message, "reword a\n\nbecause");
	assert_string_equal(list.items[0].author_name, "tester");
	assert_string_equal(list.items[1].subject, "add a and b");
	ss_commit_list_release(&list);
	assert_int_equal(ss_commit_log(repo, &c1, &c3, "a", 0, &list, &err), 0);
	assert_int_equal(list.count, 1);
	assert_true(ss_oid_equal(&list.items[0].oid, &c2));
	ss_commit_list_release(&list);
	assert_int_equal(ss_commit_log(repo, &c1, &c3, NULL, 0, &list, &err), 0);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.items[0].subject, "reword b");
	ss_commit_list_release(&list);
	assert_int_equal(ss_commit_log(repo, NULL, &c3, NULL, 1, &list, &err), 0);
	assert_int_equal(list.count, 1);
	ss_commit_list_release(&list);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Each path's commits in ss_commit_log_paths's rows are those ss_commit_log lists for it. */
static void assert_rows_match_log(ss_repo *repo, const ss_oid *from, const ss_oid *to,
                                  const char *const *paths, size_t npaths,
                                  const ss_commit_list *list, const bool *touched)
{
	ss_error err;

	for (size_t j = 0; j < npaths; j++) {
		ss_commit_list one = {0};
		size_t k = 0;

		assert_int_equal(ss_commit_log(repo, from, to, paths[j], 0, &one, &err), 0);
		for (size_t i = 0; i < list->count; i++) {
			if (!touched[i * npaths + j])
				continue;
			assert_true(k < one.count);
			assert_true(ss_oid_equal(&list->items[i].oid, &one.items[k].oid));
			k++;
		}
		assert_int_equal(k, one.count);
		ss_commit_list_release(&one);
	}
}

static void test_commit__log_paths_marks_each_commit_s_skills(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *f1[] = {"a/SKILL.md", "1", "b/SKILL.md", "1", NULL};
	const char *f2[] = {"a/SKILL.md", "2", "b/SKILL.md", "1", NULL};
	const char *f3[] = {"a/SKILL.md", "1", "b/SKILL.md", "3", NULL};
	const char *fm[] = {"a/SKILL.md", "2", "b/SKILL.md", "3", NULL};
	const char *f4[] = {"a/SKILL.md", "2", "b/SKILL.md", "3", "c/SKILL.md", "4", NULL};
	const char *paths[] = {"a", "b", "c", "zz"};
	ss_oid t1 = ss_test_tree(repo, f1), t2 = ss_test_tree(repo, f2),
	       t3 = ss_test_tree(repo, f3), tm = ss_test_tree(repo, fm),
	       t4 = ss_test_tree(repo, f4);
	ss_oid c1 = ss_test_commit(repo, NULL, &t1, NULL, "add a and b");
	ss_oid c2 = ss_test_commit(repo, NULL, &t2, &c1, "edit a");
	ss_oid c3 = ss_test_commit(repo, NULL, &t3, &c1, "edit b");
	ss_oid parents[2] = {c2, c3}, m, tip;
	ss_commit_list list = {0};
	bool *touched = NULL;
	size_t found = 0;
	ss_error err;

	/* A merge taking each side's version changes nothing (git log's simplification). */
	assert_int_equal(ss_commit_create(repo, NULL, &tm, parents, 2, "merge", &m, &err), 0);
	tip = ss_test_commit(repo, NULL, &t4, &m, "add c");
	assert_int_equal(ss_commit_log_paths(repo, NULL, &tip, paths, 4, &list, &touched, &err), 0);
	assert_int_equal(list.count, 4);
	for (size_t i = 0; i < list.count; i++) {
		const bool *row = touched + i * 4;

		assert_false(ss_oid_equal(&list.items[i].oid, &m));
		assert_false(row[3]);
		if (ss_oid_equal(&list.items[i].oid, &c1) && row[0] && row[1] && !row[2])
			found++;
		if (ss_oid_equal(&list.items[i].oid, &tip) && !row[0] && !row[1] && row[2])
			found++;
	}
	assert_int_equal(found, 2);
	assert_rows_match_log(repo, NULL, &tip, paths, 4, &list, touched);
	ss_commit_list_release(&list);
	free(touched);

	/* More commits than the trees kept between commits; from hides the start. */
	for (int k = 0; k < 20; k++) {
		char v[16];
		const char *f[] = {"a/SKILL.md", "2", "b/SKILL.md", "3", "c/SKILL.md", v, NULL};

		snprintf(v, sizeof(v), "%d", k % 3 ? 4 : 100 + k);
		f[k % 2 ? 1 : 3] = v; /* a or b each time, c every third */
		{
			ss_oid t = ss_test_tree(repo, f);
			tip = ss_test_commit(repo, NULL, &t, &tip, "step");
		}
	}
	assert_int_equal(ss_commit_log_paths(repo, &c2, &tip, paths, 4, &list, &touched, &err), 0);
	assert_true(list.count > 10);
	assert_rows_match_log(repo, &c2, &tip, paths, 4, &list, touched);
	ss_commit_list_release(&list);
	free(touched);
	assert_int_equal(ss_commit_log_paths(repo, NULL, &tip, paths, 0, &list, &touched, &err), 0);
	assert_int_equal(list.count, 0);
	assert_null(touched);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_commit__stage_and_commit_on_head(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *only_alpha[] = {"alpha"};
	ss_buf out = SS_BUF_INIT;
	ss_oid c1, c2, head, tree, oid;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "a\n");
	ss_test_write(dir, "alpha/scripts/x.sh", "x\n");
	ss_test_write(dir, "beta/SKILL.md", "b\n");
	ss_test_write(dir, "README.md", "hi\n");
	SS_ASSERT_FAILS(ss_commit_staged(repo, "empty", &c1, &err), err, SS_EINVALID);
	assert_string_equal(err.message, "nothing to commit");
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "first", &c1, &err), 0);
	assert_int_equal(ss_commit_read_ref(repo, SS_REPO_MAIN_REF, &head, &err), 0);
	assert_true(ss_oid_equal(&head, &c1));
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");

	/* delete a file of alpha, change README: staging only alpha commits only alpha */
	ss_buf_puts(&out, dir);
	ss_buf_puts(&out, "/alpha/scripts/x.sh");
	assert_int_equal(remove(out.ptr), 0);
	ss_buf_clear(&out);
	ss_test_write(dir, "README.md", "changed\n");
	ss_test_write(dir, "alpha/references/new.md", "new\n");
	ss_test_write(dir, "alphabet/SKILL.md", "not alpha\n");
	assert_int_equal(ss_commit_stage(repo, only_alpha, 1, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "drop x", &c2, &err), 0);
	assert_int_equal(ss_commit_tree(repo, &c2, &tree, &err), 0);
	SS_ASSERT_FAILS(ss_tree_lookup(repo, &tree, "alpha/scripts/x.sh", &oid, NULL, &err), err,
	                SS_ENOTFOUND);
	assert_int_equal(ss_tree_lookup(repo, &tree, "alpha/SKILL.md", &oid, NULL, &err), 0);
	assert_int_equal(ss_tree_lookup(repo, &tree, "alpha/references/new.md", &oid, NULL, &err),
	                 0);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, " M README.md\n?? alphabet/\n");
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "rev-list --parents -n1 HEAD | wc -w"), 0);
	assert_string_equal(out.ptr, "2\n");
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Staging by the paths the status found gives the tree and the index `git add -A` would:
 * a mode-only change, a whole skill deleted, a file become a directory, new nested
 * directories, a link and a name libgit2 checks itself. */
static void test_commit__stage_paths_as_git_add_all(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf out = SS_BUF_INIT, path = SS_BUF_INIT;
	const char *paths[16];
	size_t npaths = 0;
	ss_status st;
	ss_oid c1, c2;
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "a\n");
	ss_test_write(dir, "alpha/scripts/run.sh", "echo\n");
	ss_test_write(dir, "beta/SKILL.md", "b\n");
	ss_test_write(dir, "beta/references/notes.md", "n\n");
	ss_test_write(dir, "gamma/SKILL.md", "g\n");
	ss_test_write(dir, "gamma/x", "a file\n");
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_commit_staged(repo, "first", &c1, &err), 0);

	ss_buf_printf(&path,
	              "cd '%s' && chmod +x alpha/scripts/run.sh && rm -r beta gamma/x && "
	              "ln -s SKILL.md alpha/link",
	              dir);
	assert_int_equal(system(path.ptr), 0);
	ss_test_write(dir, "gamma/x/y.md", "now a directory\n");
	ss_test_write(dir, "delta/SKILL.md", "d\n");
	ss_test_write(dir, "delta/templates/deep/r.md", "r\n");
	ss_test_write(dir, "alpha/caf\xc3\xa9.md", "c\n");
	ss_test_write(dir, "alpha/SKILL.md", "a, longer\n");
	/* as `skillsync commit` does: the paths of the status, staged and committed at once */
	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	for (size_t i = 0; i < st.count; i++)
		for (size_t j = 0; j < st.entries[i].npaths; j++)
			if (npaths < 16)
				paths[npaths++] = st.entries[i].paths[j];
	assert_int_equal(ss_commit_paths(repo, paths, npaths, "second", &c2, &err), 0);
	ss_worktree_status_release(&st);

	assert_int_equal(ss_test_git(dir, &out, "ls-tree -r HEAD | cut -c1-7,54-"), 0);
	assert_string_equal(out.ptr, "100644 alpha/SKILL.md\n"
	                             "100644 \"alpha/caf\\303\\251.md\"\n"
	                             "120000 alpha/link\n"
	                             "100755 alpha/scripts/run.sh\n"
	                             "100644 delta/SKILL.md\n"
	                             "100644 delta/templates/deep/r.md\n"
	                             "100644 gamma/SKILL.md\n"
	                             "100644 gamma/x/y.md\n");
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "show HEAD:alpha/SKILL.md HEAD:gamma/x/y.md"), 0);
	assert_string_equal(out.ptr, "a, longer\nnow a directory\n");
	ss_buf_clear(&out);
	/* git agrees with the index, and the index's stat data match the files (diff-files does
	 * not refresh: a wrong mtime, size or inode would list the file) */
	assert_int_equal(ss_test_git(dir, &out, "diff-files --name-only"), 0);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	assert_int_equal(ss_test_git(dir, NULL, "fsck --strict 2>/dev/null"), 0);
	ss_buf_release(&out);
	ss_buf_release(&path);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_commit__open_finds_the_repo_from_inside(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir), *again = NULL;
	ss_buf sub = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "alpha/scripts/x", "x");
	ss_buf_printf(&sub, "%s/alpha/scripts", dir);
	assert_int_equal(ss_repo_open(&again, sub.ptr, &err), 0);
	assert_string_equal(ss_repo_workdir(again), ss_repo_workdir(repo));
	assert_true(ss_test_exists(dir, ".git/skillsync"));
	ss_buf_clear(&sub);
	ss_buf_printf(&sub, "%s/.git/skillsync", dir);
	assert_string_equal(ss_repo_statedir(again), sub.ptr);
	ss_repo_free(again);
	/* HEAD is main, unborn */
	ss_buf_clear(&sub);
	assert_int_equal(ss_test_git(dir, &sub, "symbolic-ref HEAD"), 0);
	assert_string_equal(sub.ptr, "refs/heads/main\n");
	SS_ASSERT_FAILS(ss_repo_init(&again, dir, &err), err, SS_EEXISTS);
	ss_buf_release(&sub);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
	dir = ss_test_tmpdir();
	SS_ASSERT_FAILS(ss_repo_open(&again, dir, &err), err, SS_ENOTFOUND);
	ss_test_tmpdir_free(dir);
}

int test_commit_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_commit__expected_old_ref_refuses_a_moved_ref),
	    cmocka_unit_test(test_commit__author_from_git_config),
	    cmocka_unit_test(test_commit__log_lists_commits_touching_a_skill),
	    cmocka_unit_test(test_commit__log_paths_marks_each_commit_s_skills),
	    cmocka_unit_test(test_commit__stage_and_commit_on_head),
	    cmocka_unit_test(test_commit__stage_paths_as_git_add_all),
	    cmocka_unit_test(test_commit__open_finds_the_repo_from_inside),
	};
	return cmocka_run_group_tests_name("core/commit", tests, NULL, NULL);
}
