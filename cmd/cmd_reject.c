/*
 * cmd_reject.c: `skillsync reject <skill>...`: no reminder for a held change until its member
 * changes the skill again (core/state/state_hold.h). main keeps its version; one of your own
 * (commit and push it) wins for you under the precedence rule.
 */
#include <stdio.h>

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
    "until that member changes the skill again (then the new version waits for review).\n"
    "'skillsync accept --all' leaves a rejected change out; 'skillsync accept <skill>' still\n"
    "takes it, when you name it. To keep a version of your own, edit, commit and push it:\n"
    "yours wins for you.\n"};

static int reject_one(ss_ctx *ctx, const char *name, void *payload)
{
	(void)payload;
	return ss_state_hold_reject(ctx->state, name, &ctx->err);
}

static int cmd_reject(ss_ctx *ctx, int argc, char **argv)
{
	ss_lock *lock = NULL;
	int ret = cli_each_name_locked(ctx, argc, argv, "reject", reject_one, NULL, &lock);

	for (int i = 1; ret == 0 && i < argc; i++) {
		printf("Rejected the change of ");
		cli_print_safe(stdout, argv[i]);
		printf(": no reminder until its member changes it again\n");
	}
	ss_lock_free(lock);
	return ret;
}
