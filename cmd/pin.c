/*
 * pin.c: `skillsync pin <skill>...` and `skillsync unpin <skill>...`: keep today's version of
 * a skill whoever changes it (sync/review.h). Others' changes are fetched and wait for review;
 * after unpin the next pull merges them, or holds them as any other change.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util/lock.h"
#include "sync/review.h"

static int pin_main(ss_ctx *ctx, int argc, char **argv, bool on)
{
	ss_lock *lock = NULL;
	int ret = SS_EXIT_OK;

	if (argc < 2)
		return cli_usage_error(ctx, "name the skills to %s", on ? "pin" : "unpin");
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    ss_state_begin(ctx->state, &ctx->err) < 0)
		goto fail;
	for (int i = 1; i < argc; i++)
		if (ss_review_pin(ctx->repo, ctx->state, argv[i], on, &ctx->err) < 0) {
			ss_state_rollback(ctx->state);
			goto fail;
		}
	if (ss_state_commit(ctx->state, &ctx->err) < 0) {
		ss_state_rollback(ctx->state);
		goto fail;
	}
	for (int i = 1; i < argc; i++) {
		printf(on ? "Pinned " : "Unpinned ");
		cli_print_safe(stdout, argv[i]);
		printf(on ? ": others' changes wait for review ('skillsync review')\n"
		          : ": the next pull merges others' changes, or holds them for review\n");
	}
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_lock_free(lock);
	return ret;
}

static int cmd_pin(ss_ctx *ctx, int argc, char **argv);
static int cmd_unpin(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_pin_def = {
    "pin", cmd_pin, "keep a skill's version whoever changes it",
    "usage: skillsync pin <skill>...\n"
    "\n"
    "Keeps main's version of each skill whoever changes it in the space: pull still fetches\n"
    "and verifies their changes, and 'skillsync review' lists them as waiting, but none is\n"
    "merged until 'skillsync unpin' (then the next pull merges it, or holds it for review as\n"
    "any other change) or 'skillsync accept'. Your own changes, from any of your clones, are\n"
    "never held. 'ls' and 'status' show the pinned skills.\n"};

const ss_command cmd_unpin_def = {
    "unpin", cmd_unpin, "let others' changes of a pinned skill in again",
    "usage: skillsync unpin <skill>...\n"
    "\n"
    "Ends 'skillsync pin': the next pull merges the changes that waited because of the pin,\n"
    "or holds them for review as any other change (review.policy, docs/CONFIG.md).\n"};

static int cmd_pin(ss_ctx *ctx, int argc, char **argv)
{
	return pin_main(ctx, argc, argv, true);
}

static int cmd_unpin(ss_ctx *ctx, int argc, char **argv)
{
	return pin_main(ctx, argc, argv, false);
}
