/*
 * reject.c: `skillsync reject <skill>...`: no reminder for a held change until its member
 * changes the skill again (core/state/state_hold.h). main keeps its version; one of your own
 * (commit and push it) wins for you under the precedence rule.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/state/state_hold.h"
#include "core/util/lock.h"

static int cmd_reject(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_reject_def = {
    "reject", cmd_reject, "stop the reminder of a change held for review",
    "usage: skillsync reject <skill>...\n"
    "\n"
    "Says no to the change 'skillsync review' lists for each skill: main keeps its version,\n"
    "pull and status stop counting the change as waiting, and 'review' lists it as rejected,\n"
    "until that member changes the skill again (then the new version waits for review). To\n"
    "keep a version of your own, edit, commit and push it: yours wins for you.\n"};

static int cmd_reject(ss_ctx *ctx, int argc, char **argv)
{
	ss_lock *lock = NULL;
	int ret = SS_EXIT_OK;

	if (argc < 2)
		return cli_usage_error(ctx, "name the skills to reject");
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    ss_state_begin(ctx->state, &ctx->err) < 0)
		goto fail;
	for (int i = 1; i < argc; i++)
		if (ss_state_hold_reject(ctx->state, argv[i], &ctx->err) < 0) {
			ss_state_rollback(ctx->state);
			goto fail;
		}
	if (ss_state_commit(ctx->state, &ctx->err) < 0) {
		ss_state_rollback(ctx->state);
		goto fail;
	}
	for (int i = 1; i < argc; i++) {
		printf("Rejected the change of ");
		cli_print_safe(stdout, argv[i]);
		printf(": no reminder until its member changes it again\n");
	}
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_lock_free(lock);
	return ret;
}
