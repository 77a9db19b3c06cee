/*
 * repo.h: the clone's git repository (libgit2, which only the git modules include).
 *
 * A clone is an ordinary git repository: `refs/heads/main` is the person's branch, the tracking
 * ref SS_REPO_TRACKING_REF holds the view as the space had it at the last fetch, and skillsync's
 * own files (state database, lock) live in <gitdir>/skillsync/. A command opens its ss_repo once
 * (cmd/: cli_open_clone, after its options) and passes it to the tree, commit, worktree and
 * merge modules.
 *
 * Rules: the first ss_repo_init/ss_repo_open starts libgit2's global state, which stays until
 * the process exits (core/git/repo.c says why), so nobody else initialises libgit2. An ss_repo is
 * used by one thread at a time.
 */
#ifndef SS_REPO_H
#define SS_REPO_H

#include <stdbool.h>

#include "core/gitfmt/oid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_REPO_MAIN_REF     "refs/heads/main"
#define SS_REPO_TRACKING_REF "refs/remotes/space/main"

typedef struct ss_repo ss_repo;

/*
 * Creates a new repository with a working tree at path (created if missing) whose HEAD points
 * at refs/heads/main with no commit yet, and creates <gitdir>/skillsync/ (mode 0700).
 * SS_EEXISTS if path already holds a git repository.
 */
int ss_repo_init(ss_repo **out, const char *path, ss_error *err);

/*
 * Opens the repository containing path (path itself or a parent directory, like git).
 * SS_ENOTFOUND when there is none; bare repositories are refused (SS_EINVALID).
 */
int ss_repo_open(ss_repo **out, const char *path, ss_error *err);

void ss_repo_free(ss_repo *repo);

/* The working tree's directory, without a trailing slash. Borrowed. */
const char *ss_repo_workdir(const ss_repo *repo);
/* The .git directory, without a trailing slash. Borrowed. */
const char *ss_repo_gitdir(const ss_repo *repo);
/* <gitdir>/skillsync: where the state database and the lock live (created, 0700). Borrowed. */
const char *ss_repo_statedir(const ss_repo *repo);

/*
 * Object batches, for writing many objects at once (a fetch). Between ss_repo_batch_begin and
 * ss_repo_batch_end, the objects written through repo (blobs, trees, commits) are held in
 * memory and written as packs, one per flush_bytes of object data (0: SS_REPO_BATCH_FLUSH),
 * instead of one loose file each; they are readable all along. A batch that ends with fewer
 * than SS_REPO_BATCH_LOOSE_MAX objects and no pack yet is written loose instead (as git does
 * for small fetches), so small fetches do not pile up packs.
 *
 * Rules: when ss_repo_batch_end returns 0, every object of the batch is in the object store
 * and synced to disk: only then may a ref or the state name one of them. ss_repo_batch_abort
 * drops the objects not yet written (packs already written stay, unreferenced, harmless);
 * it is a no-op without a batch, so it can sit on a cleanup path. A failed
 * ss_repo_batch_end leaves the batch open: abort it. ss_repo_free aborts an open batch.
 * One batch at a time per repo (SS_EINVALID otherwise).
 */
#define SS_REPO_BATCH_FLUSH     (4u * 1024 * 1024)
#define SS_REPO_BATCH_LOOSE_MAX 100

int ss_repo_batch_begin(ss_repo *repo, size_t flush_bytes, ss_error *err);
int ss_repo_batch_end(ss_repo *repo, ss_error *err);
void ss_repo_batch_abort(ss_repo *repo);

/*
 * Packs pile up: every fetch of SS_REPO_BATCH_LOOSE_MAX objects or more writes at least one (a
 * clone one per SS_REPO_BATCH_FLUSH bytes: 74 at 3x30,000), and a lookup searches their
 * indexes in turn. ss_repo_pack_auto (core/git/repo_pack.c) merges them as `git gc --auto` would,
 * objects whole as in a fetch's packs (no delta search: that stays `git gc`'s):
 * - when objects/pack holds more than gc.autoPackLimit packs (git's key, default 50; 0 or
 *   less: no limit), or objects/ more than gc.auto loose objects (default 6700, estimated from
 *   objects/17 as git does), every pack and every loose object go into one new pack;
 * - else, when SS_REPO_SMALL_PACKS packs or more are smaller than SS_REPO_SMALL_PACK bytes
 *   (those of pulls; a clone's are 4 MB), those are merged into one: work bounded by
 *   SS_REPO_SMALL_PACKS x SS_REPO_SMALL_PACK bytes of packs, whatever the repository's size.
 * gc.auto = 0 (or less) turns both off, as it turns off git's. Packs with a .keep file stay.
 *
 * Rules: the new pack and its index are synced before anything is removed, and only the packs
 * and loose files read into it are removed (a pack's index first): a kill at any moment leaves
 * the old packs, or the old and the new, all complete. Other runs and git may read and write
 * meanwhile (libgit2 and git look in objects/pack again for an object they miss); a second
 * merge is not: <statedir>/pack.lock is tried, never waited for, and a run that finds it taken
 * does nothing (returns 0). So the callers run it after their own work, once the clone's lock
 * is released: a run waiting for that lock never waits for a merge. Not during an object batch
 * (SS_EINVALID). out (NULL allowed): what was done, all zero when nothing was.
 */
#define SS_REPO_SMALL_PACK  (1024u * 1024)
#define SS_REPO_SMALL_PACKS 16

typedef struct ss_repo_packed {
	size_t packs;   /* packs merged */
	size_t loose;   /* loose objects packed */
	size_t objects; /* objects in the new pack */
	bool all;       /* by the gc rule (every pack), not the small-pack one */
} ss_repo_packed;

int ss_repo_pack_auto(ss_repo *repo, ss_repo_packed *out, ss_error *err);

/* The small-pack rule alone, whatever gc.auto says. *merged: packs merged (0: fewer than
 * SS_REPO_SMALL_PACKS). */
int ss_repo_pack_small(ss_repo *repo, size_t *merged, ss_error *err);

#endif
