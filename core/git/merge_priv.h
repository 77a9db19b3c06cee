/*
 * merge_priv.h: what core/git/merge.c and core/git/merge_recover.c share: a move of the working
 * tree between two known states, the check that it may write each path, and the write.
 *
 * Rules: a path is written only while it holds what the move wrote or is about to replace
 * (the old or the target content, or nothing where one side has nothing), and never
 * through a symbolic link: every directory on its way is checked with lstat, never followed.
 * Anything else belongs to the person and stops the move, naming the path. Private to
 * core/git/merge*.c.
 */
#ifndef SS_MERGE_PRIV_H
#define SS_MERGE_PRIV_H

#include <stdbool.h>
#include <time.h>

#include "core/git/git_priv.h"
#include "core/git/merge.h"

/* The merge journal, <statedir>/merge: "old <id>\n<kind> <id>\n" (merge.c says when). */
void ss_merge__journal_path(ss_buf *out, ss_repo *repo);

/* The index of the merge of commit theirs into commit ours (git_merge_commits, default
 * options, as git_merge computes it); a libgit2 code. */
int ss_merge__index(git_index **out, ss_repo *repo, const ss_oid *ours, const ss_oid *theirs);

/* A move of the files from old's tree to a target: a commit's tree (fast-forward, clean
 * merge) or a conflicting merge's index (conflict markers and all). */
typedef struct ss_merge_move {
	git_tree *old;      /* the tree before (an empty tree when old is zero) */
	git_tree *target;   /* the tree after, or NULL and: */
	git_index *merged;  /* the conflicting merge's index (as git_merge computes it) */
	git_strarray paths; /* every file path that differs between the two */
	/*
	 * The cut rule, for the recovery of a conflicting merge only: git_merge (libgit2) writes
	 * each file in place, so a kill inside one leaves a part of it. A regular file changed
	 * since cut_since (the journal's time) that is a strict beginning of what the merge
	 * writes there (either side's version or the file with conflict markers) is that part,
	 * the merge's own, and may be written. (A fast-forward or clean merge needs no such rule:
	 * ss_merge_move__write renames whole files into place.)
	 */
	bool cut_rule;
	struct timespec cut_since;
	/* Called (when not NULL) as ss_merge_move__write writes files: done of total. */
	ss_worktree_progress progress;
	void *payload;
} ss_merge_move;

/* The move from commit old (zero: nothing) to commit target, or (conflicting) the merge of
 * commit target into old. */
int ss_merge_move__init(ss_merge_move *m, ss_repo *repo, const ss_oid *old, const ss_oid *target,
                        bool conflicting, ss_error *err);
void ss_merge_move__release(ss_merge_move *m);

/* Whether every path of m may be written (the rules above): 0, or SS_EEXISTS with
 * "'<path>' <why>" in err (why: "has changes of yours", "was deleted", "is a symbolic link", "is in
 * the way"). */
int ss_merge_move__check(ss_repo *repo, const ss_merge_move *m, ss_error *err);

/* The same for one path of m (a path of m->paths). */
int ss_merge_move__check_path(ss_repo *repo, const ss_merge_move *m, const char *path,
                              ss_error *err);

/*
 * Writes m's paths as the old tree (undo) or the target tree (finish; not for a conflicting
 * merge) has them, files and index; check first. Removals first, then each file to
 * SS_MERGE_TEMP in its directory and renamed into place: a kill leaves every tracked path
 * whole (its old or its new content) and at most one stray temporary file, which
 * ss_merge_move__clean removes. Not through symbolic links.
 */
int ss_merge_move__write(ss_repo *repo, const ss_merge_move *m, bool to_target, ss_error *err);

/* The temporary file name of ss_merge_move__write; recovery removes it (ss_merge_move__clean)
 * in the directories of the move's paths, and the check does not count it as in the way. */
#define SS_MERGE_TEMP ".skillsync-new"

/* The temporary name ss_merge_move__write uses for path (relative to the working tree, in
 * out): SS_MERGE_TEMP in its directory, '~' added while a side of m tracks that name. */
void ss_merge_move__temp_name(ss_buf *out, const ss_merge_move *m, const char *path);

/* Removes what a killed ss_merge_move__write left at SS_MERGE_TEMP beside m's paths. */
void ss_merge_move__clean(ss_repo *repo, const ss_merge_move *m);

/* The conflict labels a conflicting merge writes (and its check expects). */
#define SS_MERGE_OUR_LABEL   "main"
#define SS_MERGE_THEIR_LABEL "space/main"

#endif
