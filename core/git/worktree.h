/*
 * worktree.h: the working directory and the index: checkout, status by skill, unified diffs.
 *
 * Status is grouped by top-level name: a skill directory, or an entry "outside skills"
 * (ss_skilldir_outside: a top-level file or dot-directory), listed as such since it is
 * committed but never pushed.
 *
 * Rules: a checkout never overwrites a file that differs from what it expects (it refuses,
 * naming the files, and touches nothing).
 */
#ifndef SS_WORKTREE_H
#define SS_WORKTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/*
 * Writes commit's tree into the working directory and the index, for a fresh clone (HEAD
 * already points at commit, or will); the index holds exactly the tree's files, each with its
 * stat data. Files already present that differ are not overwritten: SS_EEXISTS naming them,
 * nothing written; one with the same content (and executable bit) is kept as it is. Only
 * files, executables and directories are checked out: any other entry (a symbolic link, a
 * submodule) or an unsafe path component is SS_EINVALID naming the path, nothing written.
 * A failure while writing (a full disk) returns the error and leaves the files written so far.
 */
int ss_worktree_checkout(ss_repo *repo, const ss_oid *commit, ss_error *err);

/* The same, calling progress (when not NULL) with payload as files are written: done of
 * total, from 0 up to total, always from the calling thread (the files are written by it and
 * one more thread). */
typedef void (*ss_worktree_progress)(void *payload, size_t done, size_t total);
int ss_worktree_checkout_progress(ss_repo *repo, const ss_oid *commit,
                                  ss_worktree_progress progress, void *payload, ss_error *err);

/* How one side of a top-level name changed. 0 = unchanged. */
typedef enum ss_status_kind {
	SS_STATUS_NONE = 0,
	SS_STATUS_NEW,      /* did not exist before */
	SS_STATUS_MODIFIED, /* exists on both sides, differs */
	SS_STATUS_DELETED,  /* exists no more */
} ss_status_kind;

/* What each side did to a path left conflicted by a merge (git's "Unmerged paths"); "here" is
 * main, "there" the commit merged in (the space's view). */
typedef enum ss_conflict_kind {
	SS_CONFLICT_BOTH_MODIFIED = 1,
	SS_CONFLICT_BOTH_ADDED,
	SS_CONFLICT_DELETED_HERE,  /* changed there, deleted here */
	SS_CONFLICT_DELETED_THERE, /* changed here, deleted there */
	SS_CONFLICT_OTHER,         /* added on one side only, or deleted on both */
} ss_conflict_kind;

typedef struct ss_conflict {
	char *path; /* full path from the top */
	ss_conflict_kind kind;
} ss_conflict;

/* "both modified", "deleted here", ... for messages. */
const char *ss_worktree_conflict_kind_name(ss_conflict_kind kind);

typedef struct ss_status_entry {
	char *name;              /* the top-level directory or file */
	bool file;               /* a top-level file, not a directory */
	bool outside;            /* not a skill directory (ss_skilldir_outside) */
	ss_status_kind staged;   /* index vs HEAD */
	ss_status_kind unstaged; /* working directory vs index (untracked counts as new) */
	bool conflicted;         /* some path below has an index conflict */
	char **paths;            /* the changed paths below it (full paths from the top), sorted */
	size_t npaths;
	ss_conflict *conflicts; /* the paths of paths with an index conflict, sorted */
	size_t nconflicts;
} ss_status_entry;

typedef struct ss_status {
	ss_status_entry *entries; /* sorted by name; skill directories and outside files mixed */
	size_t count;
	bool merging; /* a merge waits to be concluded (MERGE_HEAD exists) */
	char **apart; /* ss_worktree_status_apart: the changed paths it set apart, sorted */
	size_t napart;
	/* what the walk had to read: directories listed and files hashed (for the tests and
	 * benchmarks of the refreshed index and the directory cache; 0 when libgit2 walked) */
	size_t dirs_read, files_hashed;
} ss_status;

/* Status of the index vs HEAD and the working directory vs index; ignored files left out. */
int ss_worktree_status(ss_repo *repo, ss_status *out, ss_error *err);
/* The same, with the changed paths that are in skip (sorted by strcmp, nskip of them) left out
 * of the entries and listed in out->apart instead: the entries' kinds are those of the other
 * paths alone. For `status` after an interrupted pull (ss_merge_interrupted_paths). */
int ss_worktree_status_apart(ss_repo *repo, const char *const *skip, size_t nskip, ss_status *out,
                             ss_error *err);
/*
 * Either of the above (skip may be NULL), with flags:
 * - SS_STATUS_REFRESH: the files whose stat data changed but whose content did not (after a
 *   copy, a restore, a touch) get their new stat data written back into the index, as git's
 *   status does, so that the next status compares them by their stat data instead of hashing
 *   them again. The caller holds the clone's lock (core/util/lock.h): the index is read and
 *   written back under it, so no other skillsync's index is overwritten. The entries are the
 *   same with or without it.
 */
#define SS_STATUS_REFRESH 1u
int ss_worktree_status_flags(ss_repo *repo, const char *const *skip, size_t nskip, unsigned flags,
                             ss_status *out, ss_error *err);
void ss_worktree_status_release(ss_status *status);

/* What a diff compares. */
typedef enum ss_diff_kind {
	SS_DIFF_TREES = 1,     /* old_tree vs new_tree */
	SS_DIFF_TREE_INDEX,    /* old_tree vs the index (`git diff --staged` with HEAD's tree) */
	SS_DIFF_INDEX_WORKDIR, /* the index vs the working directory (`git diff`) */
	SS_DIFF_TREE_WORKDIR,  /* old_tree vs the working directory, untracked files included */
	/* or'ed with one of the above: the paths are taken literally (a path, or a directory and
	 * everything below it; no wildcards), and only they are walked: for the paths a status
	 * found changed, so that the diff costs what changed, not the whole tree */
	SS_DIFF_LITERAL = 0x100,
} ss_diff_kind;

/*
 * Appends a unified diff (git's format, 3 lines of context) of the given paths (top-level
 * names or deeper paths; NULL/0: everything) to out. Unused tree arguments may be NULL; a NULL
 * tree that is used means the empty tree.
 */
int ss_worktree_diff(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                     const ss_oid *new_tree, const char *const *paths, size_t npaths, ss_buf *out,
                     ss_error *err);

/* The same comparison as file-level changes with line counts (for --stat and --json) into out
 * when not NULL, and the unified diff appended to patch when not NULL: one comparison for
 * both. */
int ss_worktree_diff_stat(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                          const ss_oid *new_tree, const char *const *paths, size_t npaths,
                          ss_changes *out, ss_buf *patch, ss_error *err);

#endif
