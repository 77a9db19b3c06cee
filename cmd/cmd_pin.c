/*
 * cmd_pin.c: `skillsync pin <skill>...` and `skillsync unpin <skill>...`: keep today's version of
 * a skill whoever changes it (sync/review.h). Others' changes are fetched and wait for review;
 * after unpin the next pull merges them, or holds them as any other change.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "core/util/lock.h"
#include "sync/review.h"

static int pin_one(ss_ctx *ctx, const char *name, void *on)
{
	return ss_review_pin(ctx->repo, ctx->state, name, *(bool *)on, &ctx->err);
}

static int pin_main(ss_ctx *ctx, int argc, char **argv, bool on)
{
	ss_lock *lock = NULL;
	int ret = cli_each_name_locked(ctx, argc, argv, on ? "pin" : "unpin", pin_one, &on, &lock);

	for (int i = 1; ret == 0 && i < argc; i++) {
		printf(on ? "Pinned " : "Unpinned ");
		cli_print_safe(stdout, argv[i]);
		printf(on ? ": others' changes wait for review ('skillsync review')\n"
		          : ": the next pull merges others' changes, or holds them for review\n");
	}
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
