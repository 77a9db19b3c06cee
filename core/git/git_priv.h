/*
 * git_priv.h: private glue between libgit2 and the git modules (repo, tree, commit, worktree,
 * merge). Only those modules include it, so git2.h stays behind them.
 *
 * Rules: every libgit2 failure becomes an ss_error through ss_git__error(), which copes with
 * git_error_last() being NULL (libgit2 1.5 does not always set one).
 */
#ifndef SS_GIT_PRIV_H
#define SS_GIT_PRIV_H

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "core/git/repo.h"
#include "core/util/error.h"
#include "core/util/platform.h"

git_repository *ss_repo__git(ss_repo *repo);

/* The repository's open object batch (core/git/repo_batch.c), NULL when none. */
/* Adds to git (a repository of the clone's) the ignore rules every repository skillsync opens
 * has (repo.c): every path counts, only .git is left out. */
int ss_repo__ignore_rules(git_repository *git, ss_error *err);

/* The repository's read of its index file (index_file.c: ss_index_file_get). */
typedef struct ss_index_kept ss_index_kept;
ss_index_kept **ss_repo__index_slot(ss_repo *repo);
void ss_index_kept_free(ss_index_kept *k);

typedef struct ss_repo_batch ss_repo_batch;
ss_repo_batch **ss_repo_batch__slot(ss_repo *repo);

/* Writes a pack when the open batch holds enough (a no-op without a batch): called by the
 * tree writers after a whole subtree, so that a skill's objects share a pack. */
int ss_repo_batch__maybe_flush(ss_repo *repo, ss_error *err);

/*
 * One object for ss_pack_write, by its id, either as an entry of another pack, copied as it
 * is (raw, raw_len: its type and size header and its deflated bytes, not a delta; borrowed
 * until the next object; raw_crc: the CRC-32 that pack's index gives it, checked), or else as
 * its type and bytes (data, memory of the backend owner's, as a backend's read allocates it;
 * the writer frees it with git_odb_backend_data_free), hashed against id when check is set.
 */
typedef struct ss_repo_pack_obj {
	git_oid id;
	const unsigned char *raw;
	size_t raw_len;
	uint32_t raw_crc;
	git_odb_backend *owner;
	void *data;
	size_t len;
	git_object_t type;
	bool check;
} ss_repo_pack_obj;

/*
 * Writes count objects, none a delta, into one new pack of dir (a repository's
 * objects/pack) and its index (core/git/pack_write.c), both synced when this returns 0 (name: the
 * pack's name, pack-<name>.pack). read fills *obj (zeroed) with the i-th object, i from 0 to
 * count - 1 in that order. The same object twice fails.
 */
typedef int (*ss_repo_pack_read)(void *payload, size_t i, ss_repo_pack_obj *obj);
int ss_pack_write(const char *dir, size_t count, ss_repo_pack_read read, void *payload,
                  char name[GIT_OID_HEXSZ + 1], ss_error *err);

/*
 * order[0..n) (n at most UINT32_MAX) gets 0..n-1 sorted by the git_oid each element of base
 * (n elements of stride bytes) starts with, equal ids by their place: a sort of n 4-byte
 * numbers rather than of the elements, whose copy (qsort's, as large as the array) was the
 * largest allocation of a pack merge's end.
 */
void ss_git__oid_order(uint32_t *order, size_t n, const void *base, size_t stride);

/*
 * Sets err from the libgit2 return code gitcode and its last error, after a prefix formatted
 * from fmt ("cannot write tree for '%s'"); returns the SS_E* code: GIT_ENOTFOUND ->
 * SS_ENOTFOUND, GIT_EEXISTS -> SS_EEXISTS, GIT_EMODIFIED / GIT_ELOCKED -> SS_ECONFLICT,
 * GIT_ECONFLICT -> SS_EEXISTS (a checkout refusing to overwrite), else SS_ERROR.
 */
int ss_git__error(ss_error *err, int gitcode, const char *fmt, ...) SS_PRINTF(3, 4);

/*
 * The fields of an index entry git_index_add_bypath would take from the file's lstat (libgit2's
 * git_index_entry__init_from_stat: the times, dev from st_rdev as it does, ino, uid, gid, size),
 * so that the next status sees the file unchanged; mode, id and path are the caller's.
 */
static inline void ss_git__index_stat(git_index_entry *e, const struct stat *st)
{
	struct timespec ctime = ss_platform_ctime(st), mtime = ss_platform_mtime(st);

	e->ctime.seconds = (int32_t)ctime.tv_sec;
	e->ctime.nanoseconds = (uint32_t)ctime.tv_nsec;
	e->mtime.seconds = (int32_t)mtime.tv_sec;
	e->mtime.nanoseconds = (uint32_t)mtime.tv_nsec;
	e->dev = (uint32_t)st->st_rdev;
	e->ino = (uint32_t)st->st_ino;
	e->uid = (uint32_t)st->st_uid;
	e->gid = (uint32_t)st->st_gid;
	e->file_size = (uint32_t)st->st_size;
}

static inline void ss_git__oid_in(git_oid *out, const ss_oid *oid)
{
	memcpy(out->id, oid->id, SS_OID_RAWSZ);
}

static inline void ss_git__oid_out(ss_oid *out, const git_oid *oid)
{
	memcpy(out->id, oid->id, SS_OID_RAWSZ);
}

/* Looks up a tree; oid NULL (or zero) gives *out = NULL, which libgit2 reads as empty. */
int ss_git__tree(git_tree **out, ss_repo *repo, const ss_oid *oid, ss_error *err);

/* Looks up the tree of HEAD's commit; *out = NULL when HEAD has no commit yet. */
int ss_git__head_tree(git_tree **out, ss_repo *repo, ss_error *err);

/* Frees an array of count heap strings. */
void ss_git__strings_free(char **items, size_t count);

/*
 * Literal pathspecs (GIT_DIFF_DISABLE_PATHSPEC_MATCH) that libgit2 1.5 can walk: it keeps such a
 * list in strcmp order and walks it beside a tree or an index in git's order, where a
 * directory "x" sorts as "x/", after "x-a" and "x-b"; with two such names after it, "x" is
 * skipped and its changes are missing from the diff. ss_git__pathspec_split divides paths[0, n)
 * into groups none of whose paths is the start of another path of the same group: the first
 * group holds every path that is the start of none (*first of them), each later group one path.
 * out gets the paths in that order (n of them, borrowed); diff each group on its own.
 */
void ss_git__pathspec_split(const char *const *paths, size_t n, const char **out, size_t *first);

/* Turns a diff into file-level changes with line counts (see tree.h), sorted by path. */
struct ss_changes;
int ss_git__diff_changes(git_diff *diff, struct ss_changes *out, ss_error *err);

#endif
