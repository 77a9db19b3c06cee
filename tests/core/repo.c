/* repo.c: a clone keeps files byte for byte: .gitattributes and .gitignore have no effect. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/git/worktree.h"
#include "core/util/fs.h"
#include "support/gitrepo.h"
#include "support/support.h"

/* A skill whose .gitattributes asks for CRLF line ends, $Id$ expansion and a filter, and whose
 * .gitignore (and a top-level one) would hide logs and a build directory. */
static const char *const files[] = {
    "pdf/SKILL.md",
    "---\nname: pdf\ndescription: d\n---\nbody\n",
    "pdf/.gitattributes",
    "* text eol=crlf ident\n*.md filter=evil\n*.txt binary\n",
    "pdf/.gitignore",
    "*.log\nbuild/\n",
    "pdf/notes.md",
    "line 1\nline 2 $Id$\n",
    "pdf/kept.log",
    "tracked although ignored\n",
    ".gitignore",
    "*.tmp\n",
    NULL,
};

static bool status_has(const ss_status *s, const char *path)
{
	for (size_t i = 0; i < s->count; i++)
		for (size_t j = 0; j < s->entries[i].npaths; j++)
			if (!strcmp(s->entries[i].paths[j], path))
				return true;
	return false;
}

static void test_repo__git_files_in_a_skill_change_nothing(void **state)
{
	char *dir, *text;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid tree = ss_test_tree(repo, files), commit, staged;
	ss_buf body = SS_BUF_INIT;
	ss_status s;
	ss_error err;

	commit = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	if (ss_worktree_checkout(repo, &commit, &err) < 0)
		fail_msg("%s", err.message);
	/* checkout writes the bytes of the tree: no CRLF, no $Id$ expansion */
	text = ss_test_read(dir, "pdf/notes.md");
	assert_string_equal(text, "line 1\nline 2 $Id$\n");
	free(text);
	/* and status sees nothing changed */
	assert_int_equal(ss_worktree_status(repo, &s, &err), 0);
	assert_int_equal(s.count, 0);
	ss_worktree_status_release(&s);

	/* files the .gitignore files name still count, for status and for commit */
	ss_test_write(dir, "pdf/debug.log", "new log\n");
	ss_test_write(dir, "pdf/build/out.txt", "built\r\n");
	ss_test_write(dir, "pdf/scratch.tmp", "tmp\n");
	assert_int_equal(ss_worktree_status(repo, &s, &err), 0);
	assert_true(status_has(&s, "pdf/debug.log"));
	assert_true(status_has(&s, "pdf/build/out.txt"));
	assert_true(status_has(&s, "pdf/scratch.tmp"));
	ss_worktree_status_release(&s);
	if (ss_commit_stage(repo, NULL, 0, &err) < 0 ||
	    ss_commit_staged(repo, "add", &staged, &err) < 0)
		fail_msg("%s", err.message);
	assert_int_equal(ss_commit_tree(repo, &staged, &tree, &err), 0);
	assert_int_equal(ss_tree_read_file(repo, &tree, "pdf/debug.log", &body, &err), 0);
	ss_buf_clear(&body);
	assert_int_equal(ss_tree_read_file(repo, &tree, "pdf/build/out.txt", &body, &err), 0);
	assert_string_equal(body.ptr, "built\r\n");
	ss_buf_clear(&body);
	assert_int_equal(ss_tree_read_file(repo, &tree, "pdf/scratch.tmp", &body, &err), 0);
	ss_buf_release(&body);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The attributes file is written in clones (new, or made before it existed), never in another
 * git repository a command is run in. */
static void test_repo__attributes_only_in_clones(void **state)
{
	char *dir, *other = ss_test_tmpdir(), *text;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf path = SS_BUF_INIT;
	ss_error err;

	ss_repo_free(repo);
	ss_fs_join(&path, dir, ".git/info/attributes");
	assert_int_equal(unlink(path.ptr), 0);
	ss_test_write(dir, ".git/skillsync/state.db", "");
	assert_int_equal(ss_repo_open(&repo, dir, &err), 0);
	text = ss_test_read(dir, ".git/info/attributes");
	assert_non_null(strstr(text, "* -text -ident -filter"));
	free(text);
	ss_repo_free(repo);

	assert_int_equal(ss_test_git(other, NULL, "init -q ."), 0);
	ss_test_write(other, ".git/info/attributes", "*.md diff=markdown\n");
	assert_int_equal(ss_repo_open(&repo, other, &err), 0);
	text = ss_test_read(other, ".git/info/attributes");
	assert_string_equal(text, "*.md diff=markdown\n");
	free(text);
	ss_repo_free(repo);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
	ss_test_tmpdir_free(other);
}

int test_repo_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repo__git_files_in_a_skill_change_nothing),
	    cmocka_unit_test(test_repo__attributes_only_in_clones),
	};
	return cmocka_run_group_tests_name("repo", tests, NULL, NULL);
}
