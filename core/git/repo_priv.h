/*
 * repo_priv.h: the clone's repository as the files of core/git/ see it (repo.h keeps it opaque
 * to everyone else), as libgit2 shares struct git_repository with its own files.
 *
 * Rules: workdir, gitdir and statedir have no trailing slash; batch is the open object batch
 * (core/git/repo_batch.c), NULL when none; index is the index file as last read
 * (core/gitfmt/index_file.h, ss_index_file_get), NULL until then. ss_repo_free frees them all.
 */
#ifndef SS_REPO_PRIV_H
#define SS_REPO_PRIV_H

#include <git2.h>

#include "core/git/repo.h"
#include "core/gitfmt/index_file.h"
#include "core/util/error.h"

typedef struct ss_repo_batch ss_repo_batch;

struct ss_repo {
	git_repository *git;
	char *workdir;
	char *gitdir;
	char *statedir;
	ss_repo_batch *batch;
	ss_index_kept *index;
};

/* Adds to git (a repository of the clone's) the ignore rules every repository skillsync opens
 * has (repo.c): every path counts, only .git is left out. */
int ss_repo__ignore_rules(git_repository *git, ss_error *err);

/* Writes a pack when the open batch holds enough (a no-op without a batch): called by the
 * tree writers after a whole subtree, so that a skill's objects share a pack. */
int ss_repo_batch__maybe_flush(ss_repo *repo, ss_error *err);

#endif
