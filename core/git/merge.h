/*
 * merge.h: bringing a commit (the tracking commit) into main, like `git merge`.
 *
 * Up to date, fast-forward, or a three-way merge. A clean merge is committed at once; a
 * conflicting one leaves conflict markers in the files, the conflicts in the index, MERGE_HEAD
 * and MERGE_MSG, and is concluded by ss_commit_staged().
 *
 * Rules: uncommitted changes are never overwritten and nothing is written through a symbolic
 * link: when the merge would touch a file that differs from HEAD (working directory or
 * index), an untracked file, or a path with a symbolic link on its way, nothing is written
 * and the paths are named. The update is journaled once that check passed, so that a merge
 * killed midway is finished (or undone) by ss_merge_recover() under the same rule; a checkout
 * that fails midway puts the files back itself. See docs/GIT-MODEL.md for the order.
 */
#ifndef SS_MERGE_H
#define SS_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/util/buf.h"
#include "core/util/error.h"

typedef enum ss_merge_kind {
	SS_MERGE_UP_TO_DATE = 1, /* theirs is already in HEAD: nothing done */
	SS_MERGE_FAST_FORWARD,   /* HEAD moved to theirs */
	SS_MERGE_MERGED,         /* a merge commit was created */
	SS_MERGE_CONFLICTED,     /* conflicts left to resolve (the call returned SS_EMERGE) */
} ss_merge_kind;

typedef struct ss_merge_result {
	ss_merge_kind kind;
	ss_oid head;  /* HEAD after the merge */
	char **paths; /* conflicted paths, or the uncommitted files in the way (SS_EEXISTS) */
	size_t npaths;
} ss_merge_result;

void ss_merge_result_release(ss_merge_result *result);

/*
 * Merges the commit theirs into HEAD (main); message is the merge commit's message (and
 * MERGE_MSG's on conflict). Returns 0 for up to date / fast-forward / merged, SS_EMERGE with
 * the conflicted paths, SS_EEXISTS with the uncommitted files the merge would overwrite
 * (nothing touched), SS_EINVALID when a merge is already in progress. result may be read
 * after any of these codes.
 */
int ss_merge_commit(ss_repo *repo, const ss_oid *theirs, const char *message,
                    ss_merge_result *result, ss_error *err);
/* The same, calling progress (when not NULL) with payload as a fast-forward or clean merge
 * writes its files: done of total, from 0 up to total. */
int ss_merge_commit_progress(ss_repo *repo, const ss_oid *theirs, const char *message,
                             ss_worktree_progress progress, void *payload, ss_merge_result *result,
                             ss_error *err);

/* The best common ancestor of the commits a and b (git merge-base) into *out; SS_ENOTFOUND
 * when they have none. */
int ss_merge_base(ss_repo *repo, const ss_oid *a, const ss_oid *b, ss_oid *out, ss_error *err);

/* Appends the waiting merge's message (MERGE_MSG: the merge message and the conflicted
 * paths) to out, for `commit` to offer; SS_ENOTFOUND when no merge waits. */
int ss_merge_message(ss_repo *repo, ss_buf *out, ss_error *err);

/* Whether a merge waits to be concluded (MERGE_HEAD exists). */
bool ss_merge_in_progress(ss_repo *repo);

/*
 * Finishes a fast-forward or clean merge killed between its journal and its ref update (the
 * journal in <gitdir>/skillsync/merge names both commits), or undoes a conflicting merge
 * killed midway. It writes a path only while it holds the old or the merge's content and has
 * no symbolic link on its way; else SS_EEXISTS naming the path, and the journal stays (the
 * next call says the same). A move libgit2 cannot finish is undone. *recovered (may be NULL)
 * says whether there was anything to do.
 */
int ss_merge_recover(ss_repo *repo, bool *recovered, ss_error *err);

/*
 * Whether the merge journal exists: a merge was killed midway (its files may be half
 * updated until ss_merge_recover runs), or the process holding the clone's lock is writing
 * one right now. Read-only, so `status` can say so instead of showing the files as edits.
 */
bool ss_merge_interrupted(ss_repo *repo);

/*
 * Whether ss_merge_recover can finish the interrupted merge by itself: 0 (also when there is
 * none), or SS_EEXISTS with the line it would stop with, naming the path that holds the
 * person's changes (or a symbolic link). Read-only, for `status`.
 */
int ss_merge_recover_check(ss_repo *repo, ss_error *err);

/*
 * The paths of the interrupted merge that hold its own content now, so that `status` lists
 * them apart from the person's edits: each path the merge writes that ss_merge_recover may
 * write (its old or new version, a part of the file it was writing, nothing where it removes
 * one), and the temporary files it left. A path of the merge that holds anything else is the
 * person's and is not listed. Sorted, one each, in *out (ss_merge_paths_free); none when no
 * merge is interrupted or when only its journal is left (its files are all in place).
 * Read-only.
 */
int ss_merge_interrupted_paths(ss_repo *repo, char ***out, size_t *count, ss_error *err);
void ss_merge_paths_free(char **paths, size_t count);

#endif
