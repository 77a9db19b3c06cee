/*
 * clone_lock.c: taking the clone's lock for a command that writes, then finishing whatever a killed
 * run left behind (ss_recover_clone: a merge, a push, a tracking ref behind the state, in
 * that order), once, here. Every command that writes the state, the refs or the files takes
 * it here: commit, push, fetch, pull, members add and remove, review (it records what it
 * showed), accept, pin, unpin, reject
 * (clone takes the new clone's lock in sync/clone.c). status and diff take it only to write
 * back the index's refreshed stat data, and only when it is free (cli_status_refresh).
 *
 * The wait for another run is ss_lock_take's (core/util/lock.h).
 */
#include <string.h>

#include "cmd/cmd.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "sync/recover.h"

int cli_lock_clone(ss_ctx *ctx, struct ss_space *sp, ss_lock **out, ss_recovered *recovered)
{
	ss_buf path = SS_BUF_INIT;
	ss_lock *lock = NULL;
	int ret;

	if (recovered)
		memset(recovered, 0, sizeof(*recovered));
	ss_fs_join(&path, ss_repo_statedir(ctx->repo), "lock");
	ret = ss_lock_take(&lock, path.ptr, &ctx->err);
	ss_buf_release(&path);
	if (ret < 0)
		return ret;
	ret = ss_recover_clone(ctx->repo, ctx->state, sp, recovered, &ctx->err);
	if (ret == 0 && ctx->state) /* another run may have changed it while this one waited */
		ret = ss_state_reload(ctx->state, &ctx->err);
	if (ret < 0) {
		ss_lock_free(lock);
		return ret;
	}
	*out = lock;
	return 0;
}

int cli_status_refresh(ss_ctx *ctx, const char *const *skip, size_t nskip, ss_status *out)
{
	ss_buf path = SS_BUF_INIT;
	ss_lock *lock = NULL;
	ss_error busy;
	unsigned flags = 0;
	int ret;

	ss_fs_join(&path, ss_repo_statedir(ctx->repo), "lock");
	if (!ss_merge_interrupted(ctx->repo) && ss_lock_acquire(&lock, path.ptr, 0, &busy) == 0)
		flags = SS_STATUS_REFRESH;
	ss_buf_release(&path);
	ret = ss_worktree_status_flags(ctx->repo, skip, nskip, flags, out, &ctx->err);
	ss_lock_free(lock);
	return ret;
}

int cli_each_name_locked(ss_ctx *ctx, int argc, char **argv, const char *verb, cli_name_fn fn,
                         void *payload, ss_lock **lock)
{
	if (argc < 2)
		return cli_usage_error(ctx, "name the skills to %s", verb);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, lock, NULL) < 0 ||
	    ss_state_begin(ctx->state, &ctx->err) < 0)
		return cli_fail(&ctx->err);
	for (int i = 1; i < argc; i++)
		if (fn(ctx, argv[i], payload) < 0) {
			ss_state_rollback(ctx->state);
			return cli_fail(&ctx->err);
		}
	if (ss_state_commit(ctx->state, &ctx->err) < 0) {
		ss_state_rollback(ctx->state);
		return cli_fail(&ctx->err);
	}
	return 0;
}
