/*
 * gitrepo.h: helpers for tests of the git layer: a repository in a temp directory, the git
 * CLI to check what libgit2 wrote (a second opinion), and reading files of the working tree.
 */
#ifndef SS_TEST_GITREPO_H
#define SS_TEST_GITREPO_H

#include "core/git/repo.h"
#include "core/util/buf.h"

/* Runs `git -C dir <args>` (args is a shell fragment), appends its stdout to out (may be
 * NULL) and returns its exit status. Author/committer are fixed and no user config is read. */
int ss_test_git(const char *dir, ss_buf *out, const char *args);
/* Runs the shell script in dir, git's environment as ss_test_git's; its exit status. */
int ss_test_sh(const char *dir, const char *script);

/* Returns the content of dir/rel (fails the test if unreadable); free() it. */
char *ss_test_read(const char *dir, const char *rel);

/* Whether dir/rel exists. */
int ss_test_exists(const char *dir, const char *rel);

/* A new repository in a fresh temp dir; *dir receives the path (ss_test_tmpdir_free it). */
ss_repo *ss_test_repo_new(char **dir);

/* A tree of files given as NULL-terminated pairs (path, content); paths ending in "*" are
 * executable (the star is dropped). */
ss_oid ss_test_tree(ss_repo *repo, const char *const *pairs);

/* A commit of tree with up to one parent (NULL: none) on ref (NULL: none), no ref check. */
ss_oid ss_test_commit(ss_repo *repo, const char *ref, const ss_oid *tree, const ss_oid *parent,
                      const char *message);

#endif
