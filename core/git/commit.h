/*
 * commit.h: commits and refs.
 *
 * Two kinds of commits are written: tracking commits (one per fetch, on SS_REPO_TRACKING_REF,
 * authored by skillsync itself) and the person's commits on main (from the index, authored as
 * git config's user.name / user.email, else the skillsync default).
 *
 * Rules: every ref update names the value it expects to replace, and is refused with
 * SS_ECONFLICT when the ref moved meanwhile (another process); libgit2 locks the ref file for
 * the compare-and-swap. An expected value of NULL means "do not check"; the zero id means "the
 * ref must not exist yet".
 */
#ifndef SS_COMMIT_H
#define SS_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/git/repo.h"
#include "core/util/error.h"

#define SS_COMMIT_DEFAULT_NAME  "skillsync"
#define SS_COMMIT_DEFAULT_EMAIL "skillsync@localhost"

typedef struct ss_commit_opts {
	const char *ref;            /* ref to move to the new commit; NULL: write the object only */
	const ss_oid *expected_old; /* see the rules above */
	const char *author_name;    /* NULL: git config user.name, else SS_COMMIT_DEFAULT_NAME */
	const char *author_email;   /* NULL: git config user.email, else the default */
	int64_t time;               /* seconds since the epoch; 0: now */
} ss_commit_opts;

/* Writes a commit of tree with parents (0 or more) and message; out is its id. */
int ss_commit_create(ss_repo *repo, const ss_commit_opts *opts, const ss_oid *tree,
                     const ss_oid *parents, size_t nparents, const char *message, ss_oid *out,
                     ss_error *err);

/* Reads a ref ("HEAD", "refs/heads/main", ...) to a commit id; SS_ENOTFOUND when it does not
 * exist or HEAD's branch has no commit yet. */
int ss_commit_read_ref(ss_repo *repo, const char *name, ss_oid *out, ss_error *err);

/* Points ref at id if it still holds expected_old (rules above); msg goes to the reflog. */
int ss_commit_update_ref(ss_repo *repo, const char *name, const ss_oid *id,
                         const ss_oid *expected_old, const char *msg, ss_error *err);

/* The tree id of a commit. */
int ss_commit_tree(ss_repo *repo, const ss_oid *commit, ss_oid *tree, ss_error *err);

/* One commit of a history, for notes and `log`. */
typedef struct ss_commit_info {
	ss_oid oid;
	char *subject; /* the message's first line */
	char *message; /* the whole message */
	char *author_name;
	char *author_email;
	int64_t time;
	size_t nparents;
} ss_commit_info;

typedef struct ss_commit_list {
	ss_commit_info *items;
	size_t count;
} ss_commit_list;

void ss_commit_list_release(ss_commit_list *list);

/*
 * The commits reachable from `to` and not from `from` (NULL: all), newest first, that changed
 * path (a top-level name or a/b path; NULL: every commit). A merge counts only if path differs
 * from every parent (git log's default simplification). At most max commits (0: no limit).
 */
int ss_commit_log(ss_repo *repo, const ss_oid *from, const ss_oid *to, const char *path, size_t max,
                  ss_commit_list *out, ss_error *err);

/*
 * ss_commit_log for many paths in one walk, each commit's tree read once for all of them (the
 * work follows the commits, not commits x paths): out holds the commits that changed at least
 * one of the paths, newest first, and (*touched)[i * npaths + j] says whether out->items[i]
 * changed paths[j] (the caller frees *touched; NULL when out is empty).
 */
int ss_commit_log_paths(ss_repo *repo, const ss_oid *from, const ss_oid *to,
                        const char *const *paths, size_t npaths, ss_commit_list *out,
                        bool **touched, ss_error *err);

/*
 * Stages like `git add -A -- <name>...`: new, modified and deleted files below each top-level
 * name (a skill directory or a top-level file); names NULL/0: the whole working tree. Staging
 * a conflicted path resolves its conflict. Ignored files stay out. One walk of the working
 * tree (the status); the paths it found are staged as ss_commit_paths does.
 */
int ss_commit_stage(ss_repo *repo, const char *const *names, size_t nnames, ss_error *err);

/*
 * Commits the index on HEAD (the branch main), like `git commit`. When a merge is in progress
 * (MERGE_HEAD), the parents are HEAD and MERGE_HEAD and the merge state is cleaned up after.
 * SS_EMERGE if the index still has conflicts; SS_EINVALID "nothing to commit" when the index
 * equals HEAD outside a merge. out (may be NULL) receives the new commit.
 */
int ss_commit_staged(ss_repo *repo, const char *message, ss_oid *out, ss_error *err);

/*
 * Stages exactly these paths (full paths from the top, as ss_worktree_status lists them in
 * ss_status_entry.paths) the way `git add -A -- <path>...` does, without walking the working
 * tree again (a path that exists is added, its conflict if any resolved; one that does not,
 * or that became a directory, is removed), then commits as ss_commit_staged does. The new
 * blobs and trees go to one object batch (a pack when there are many), stored before the
 * index and HEAD name them; small packs are merged after when they pile up
 * (ss_repo_pack_small). paths must hold every path where the index differs from HEAD (the
 * paths of every status entry with staged changes, as `commit` makes sure): the tree is
 * HEAD's with only the top-level names of paths rebuilt from the index. When conflicts are
 * left (SS_EMERGE), what was staged stays staged.
 */
int ss_commit_paths(ss_repo *repo, const char *const *paths, size_t npaths, const char *message,
                    ss_oid *out, ss_error *err);

#endif
