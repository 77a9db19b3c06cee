#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/util/fs.h"
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
	ss_worktree_status_release(&st);

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
	assert_string_equal(ss_worktree_conflict_kind_name(st.entries[1].conflicts[0].kind),
	                    "deleted here");
	assert_string_equal(st.entries[2].conflicts[0].path, "gamma/SKILL.md");
	assert_int_equal(st.entries[2].conflicts[0].kind, SS_CONFLICT_BOTH_ADDED);
	ss_worktree_status_release(&st);
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

/*
 * A killed fast-forward whose paths the person then changed: recovery writes nothing, names
 * the path in one line, keeps the journal and says the same again; nothing is written through
 * a symbolic link (checked with lstat on the way, never followed).
 */
static void test_merge__recover_stops_at_the_persons_changes(void **state)
{
	char *dir, *outside = ss_test_tmpdir();
	ss_oid c0;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md", "new alpha\n", "beta/SKILL.md",
	                       "beta\n",         "beta/x/y.md", "y\n",
	                       "README.md",      "readme\n",    NULL};
	ss_oid t = theirs(repo, &c0, files), h;
	ss_buf link = SS_BUF_INIT, target = SS_BUF_INIT;
	bool recovered;
	ss_error err;

	write_journal(dir, "new", &c0, &t);
	ss_test_write(dir, "alpha/SKILL.md", "my edit\n");
	for (int again = 0; again < 2; again++) {
		assert_int_equal(ss_merge_recover(repo, &recovered, &err), SS_EEXISTS);
		assert_string_equal(err.message,
		                    "cannot finish the interrupted pull: 'alpha/SKILL.md' "
		                    "has changes of yours; move it aside or restore it, "
		                    "then run skillsync again");
		assert_file(dir, "alpha/SKILL.md", "my edit\n");
		assert_true(ss_merge_interrupted(repo));
	}
	ss_test_write(dir, "alpha/SKILL.md", "line 1\nline 2\nline 3\n");
	/* a link where the move adds a directory, to a directory outside */
	ss_buf_printf(&link, "%s/beta/x", dir);
	assert_int_equal(symlink(outside, link.ptr), 0);
	assert_int_equal(ss_merge_recover(repo, &recovered, &err), SS_EEXISTS);
	assert_non_null(strstr(err.message, "'beta/x' is a symbolic link"));
	ss_buf_printf(&target, "%s/y.md", outside);
	assert_int_not_equal(access(target.ptr, F_OK), 0);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &c0));
	/* once the link goes, recovery finishes */
	assert_int_equal(unlink(link.ptr), 0);
	assert_int_equal(ss_merge_recover(repo, &recovered, &err), 0);
	assert_true(recovered);
	h = head(repo);
	assert_true(ss_oid_equal(&h, &t));
	assert_file(dir, "beta/x/y.md", "y\n");
	assert_porcelain(dir, "");
	ss_buf_release(&link);
	ss_buf_release(&target);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
	ss_test_tmpdir_free(outside);
}

/* The id git prints for `git <args>` in dir (one line of hex). */
static ss_oid git_oid_of(const char *dir, const char *args)
{
	ss_buf out = SS_BUF_INIT;
	ss_oid oid;
	ss_error err;

	assert_int_equal(ss_test_git(dir, &out, args), 0);
	if (out.len && out.ptr[out.len - 1] == '\n')
		ss_buf_truncate(&out, out.len - 1);
	if (ss_oid_parse(&oid, out.ptr, &err) < 0)
		fail_msg("git %s: %s", args, out.ptr);
	ss_buf_release(&out);
	return oid;
}

/*
 * A checkout that fails after writing some files (here a file name over the 255 bytes a
 * directory entry may have, written by git itself since skillsync refuses to build one): the
 * merge puts back what it wrote and leaves no journal, so the tree is as before, and the
 * next try fails the same way instead of finding "uncommitted changes".
 */
static void test_merge__failed_checkout_puts_the_files_back(void **state)
{
	char *dir;
	ss_oid c0;
	ss_repo *repo = cloned(&dir, &c0);
	const char *files[] = {"alpha/SKILL.md",
	                       "line 1\nLINE 2\nline 3\n",
	                       "beta/SKILL.md",
	                       "beta\n",
	                       "README.md",
	                       "readme\n",
	                       NULL};
	ss_oid base = ss_test_tree(repo, files), blob, zeta, top, t, h;
	char long_name[301], hex[SS_OID_HEXSZ + 1], hex2[SS_OID_HEXSZ + 1];
	ss_buf list = SS_BUF_INIT, out = SS_BUF_INIT;
	ss_merge_result r;
	ss_error err;

	memset(long_name, 'a', 300);
	long_name[300] = '\0';
	ss_test_write(dir, ".git/long.txt", "long\n");
	blob = git_oid_of(dir, "hash-object -w .git/long.txt");
	ss_oid_fmt(hex, &blob);
	ss_buf_printf(&list, "100644 blob %s\tSKILL.md\n100644 blob %s\t%s\n", hex, hex, long_name);
	ss_test_write(dir, ".git/zeta.list", list.ptr);
	ss_buf_clear(&out);
	ss_buf_printf(&out, "mktree <'%s/.git/zeta.list'", dir);
	zeta = git_oid_of(dir, out.ptr);
	ss_oid_fmt(hex, &base);
	ss_buf_clear(&out);
	ss_buf_printf(&out, "ls-tree %s", hex);
	ss_buf_clear(&list);
	assert_int_equal(ss_test_git(dir, &list, out.ptr), 0);
	ss_oid_fmt(hex2, &zeta);
	ss_buf_printf(&list, "040000 tree %s\tzeta\n", hex2);
	ss_test_write(dir, ".git/top.list", list.ptr);
	ss_buf_clear(&out);
	ss_buf_printf(&out, "mktree <'%s/.git/top.list'", dir);
	top = git_oid_of(dir, out.ptr);
	t = ss_test_commit(repo, SS_REPO_TRACKING_REF, &top, &c0, "fetch");

	for (int again = 0; again < 2; again++) {
		assert_true(ss_merge_commit(repo, &t, "pull", &r, &err) < 0);
		assert_int_not_equal(err.code, SS_EEXISTS); /* not "uncommitted changes" */
		h = head(repo);
		assert_true(ss_oid_equal(&h, &c0));
		assert_file(dir, "alpha/SKILL.md", "line 1\nline 2\nline 3\n");
		assert_false(ss_test_exists(dir, "zeta"));
		assert_false(ss_merge_interrupted(repo));
		assert_porcelain(dir, "");
		ss_merge_result_release(&r);
	}
	ss_buf_release(&list);
	ss_buf_release(&out);
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
	    cmocka_unit_test(test_merge__failed_checkout_puts_the_files_back),
	    cmocka_unit_test(test_merge__recover_stops_at_the_persons_changes),
	};
	return cmocka_run_group_tests_name("core/merge", tests, NULL, NULL);
}
