/*
 * lock.c: taking the clone's lock for a command that writes, then finishing whatever a killed
 * run left behind in git (a merge; the push journal and a tracking ref behind the state are
 * finished by sync/pull.c and sync/push.c, in that order). Every command that writes the
 * state, the refs or the files takes it here: commit, push, fetch, pull, members add and
 * remove, and clone while it builds the new clone (cmd_lock_path).
 *
 * The wait for another run is SS_LOCK_WAIT_MS, or $SKILLSYNC_LOCK_WAIT seconds (0 to 3600;
 * 0: do not wait), so a scheduler can choose between waiting and skipping a run.
 */
#include "cmd/cmd.h"
#include "core/env.h"
#include "core/fs.h"
#include "core/lock.h"
#include "core/merge.h"
#include "core/repo.h"

static int lock_wait_ms(unsigned *out, ss_error *err)
{
	long s;
	int rc = ss_env_seconds("SKILLSYNC_LOCK_WAIT", 0, 3600, &s, err);

	if (rc < 0)
		return rc;
	*out = rc ? (unsigned)s * 1000u : SS_LOCK_WAIT_MS;
	return 0;
}

int cmd_lock_path(ss_ctx *ctx, const char *path, ss_lock **out)
{
	unsigned wait_ms;
	int ret = lock_wait_ms(&wait_ms, &ctx->err);

	if (ret < 0)
		return ret;
	return ss_lock_acquire(out, path, wait_ms, &ctx->err);
}

int cmd_lock_clone(ss_ctx *ctx, ss_repo *repo, ss_lock **out, bool *recovered)
{
	ss_buf path = SS_BUF_INIT;
	ss_lock *lock = NULL;
	int ret;

	if (recovered)
		*recovered = false;
	ss_fs_join(&path, ss_repo_statedir(repo), "lock");
	ret = cmd_lock_path(ctx, path.ptr, &lock);
	ss_buf_release(&path);
	if (ret < 0)
		return ret;
	ret = ss_merge_recover(repo, recovered, &ctx->err);
	if (ret == 0 && ctx->state) /* another run may have changed it while this one waited */
		ret = ss_state_reload(ctx->state, &ctx->err);
	if (ret < 0) {
		ss_lock_release(lock);
		return ret;
	}
	*out = lock;
	return 0;
}
