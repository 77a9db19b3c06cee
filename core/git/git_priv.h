/*
 * git_priv.h: what the libgit2 glue of core/git/ shares (repo, tree, commit, worktree, merge):
 * libgit2's errors turned into ss_error, ids between ss_oid and git_oid, an index entry's stat
 * data, the trees of an id and of HEAD, a diff's changes. Only core/git/ includes it, so git2.h
 * stays behind it; the repository's own fields are in repo_priv.h.
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

/* Gives obj (for ss_pack_write, core/gitfmt/pack_write.h) the type of the bytes a read of
 * backend owner put in its data, and the backend to free them. */
struct ss_pack_write_obj;
void ss_git__backend_data(struct ss_pack_write_obj *obj, git_odb_backend *owner, git_object_t type);

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
