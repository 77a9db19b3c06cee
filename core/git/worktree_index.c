/*
 * worktree_index.c: the index file as skillsync reads it (core/gitfmt/index_file.h) handed to
 * libgit2: the repository's read, kept between calls, and libgit2 indexes in memory of a part of
 * it, for the diffs of the working directory and of HEAD against the index.
 */
#include "core/git/worktree_priv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/util/mem.h"

const ss_index_file *ss_worktree__index(ss_repo *repo)
{
	return ss_index_file_get(&repo->index, repo->gitdir);
}

/* Marks in pick the entries at or below each of the names, taken literally. */
static void pick_literal(const ss_index_file *ix, const char *const *names, size_t n,
                         unsigned char *pick)
{
	for (size_t k = 0; k < n; k++) {
		size_t at = ss_index_file_position(ix, names[k]), lo, hi;
		if (at < ix->count)
			pick[at] = 1;
		ss_index_file_dir(ix, names[k], &lo, &hi);
		memset(pick + lo, 1, hi - lo);
	}
}

/* A libgit2 index in memory of ix's entries marked in pick, strip bytes cut from each path and
 * their stat data zeroed (ss_worktree__index_subset). */
static int picked_index(const ss_index_file *ix, const unsigned char *pick, size_t strip,
                        git_index **out, ss_error *err)
{
	int rc;

	*out = NULL;
	if ((rc = git_index_new(out)) < 0)
		return ss_git__error(err, rc, "cannot read the index");
	/* in the index's order: each added at the end of libgit2's sorted entries */
	for (size_t i = 0; i < ix->count; i++) {
		if (!pick[i])
			continue;
		const ss_index_entry *s = &ix->entries[i];
		git_index_entry e = {0};
		e.mode = s->mode;
		ss_git__oid_in(&e.id, &s->id);
		e.flags = s->flags;
		e.flags_extended = s->flags_extended;
		e.path = s->path + strip;
		if ((rc = git_index_add(*out, &e)) < 0) {
			git_index_free(*out);
			*out = NULL;
			return ss_git__error(err, rc, "cannot read the index");
		}
	}
	return 0;
}

int ss_worktree__index_subset(const ss_index_file *ix, const char *const *names, size_t n,
                              bool literal, git_index **out, ss_error *err)
{
	unsigned char *pick = ss_xcalloc(ix->count ? ix->count : 1, 1);
	git_pathspec *ps = NULL;
	git_strarray spec = {(char **)(uintptr_t)names, n};
	int rc, ret;

	*out = NULL;
	if (literal)
		pick_literal(ix, names, n, pick);
	else if ((rc = git_pathspec_new(&ps, &spec)) < 0) {
		free(pick);
		return ss_git__error(err, rc, "cannot read the index");
	}
	for (size_t i = 0; ps && i < ix->count; i++)
		pick[i] = (unsigned char)git_pathspec_matches_path(ps, 0, ix->entries[i].path);
	ret = picked_index(ix, pick, 0, out, err);
	git_pathspec_free(ps);
	free(pick);
	return ret;
}

int ss_worktree__index_below(const ss_index_file *ix, const char *name, git_index **out,
                             ss_error *err)
{
	unsigned char *pick = ss_xcalloc(ix->count ? ix->count : 1, 1);
	size_t lo, hi;
	int ret;

	ss_index_file_dir(ix, name, &lo, &hi);
	memset(pick + lo, 1, hi - lo);
	ret = picked_index(ix, pick, strlen(name) + 1, out, err);
	free(pick);
	return ret;
}

void ss_worktree__index_entry(ss_index_entry *out, const git_index_entry *e)
{
	out->ctime.seconds = e->ctime.seconds;
	out->ctime.nanoseconds = e->ctime.nanoseconds;
	out->mtime.seconds = e->mtime.seconds;
	out->mtime.nanoseconds = e->mtime.nanoseconds;
	out->dev = e->dev;
	out->ino = e->ino;
	out->mode = e->mode;
	out->uid = e->uid;
	out->gid = e->gid;
	out->file_size = e->file_size;
	ss_git__oid_out(&out->id, &e->id);
	out->flags = e->flags;
	out->flags_extended = e->flags_extended;
	out->path = e->path;
}
