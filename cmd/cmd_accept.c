/*
 * cmd_accept.c: `skillsync accept <skill>... | --all`: the held versions into main as one commit
 * saying whose versions were accepted, checked out at once (sync/review.h), and the agents'
 * folders brought up to date.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/review.h"

static int cmd_accept(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_accept_def = {
    "accept", cmd_accept, "take changes held for review into main",
    "usage: skillsync accept <skill>[@<version>]... | --all\n"
    "\n"
    "Takes the versions 'skillsync review' showed for these skills into main as one commit\n"
    "of yours that says whose versions they are (\"Accept bob.example's version of pdf-forms\n"
    "(at://..., cid ...)\"), and checks them out, so that the agents' folders see them at\n"
    "once (copies made by 'link --copy' are refreshed). Only the version review showed comes\n"
    "in: when a pull has put a newer one in its place since, or review never showed the\n"
    "change, nothing is taken and you are told to review it (again). <skill>@<version>\n"
    "takes the version of that id (review shows it) without that check. A change you\n"
    "rejected comes in only when you name it. Uncommitted changes are never overwritten:\n"
    "when the files are in the way, nothing changes and they are named.\n"
    "\n"
    "    --all   every change review showed as it is now, except the rejected ones (the\n"
    "            others are named, with why they were left out)\n"};

/* What --all left out, one line each. */
static void print_skipped(const ss_review_accepted *a)
{
	for (size_t i = 0; i < a->nskipped; i++) {
		printf("skipped ");
		cli_print_safe(stdout, a->skipped[i].name);
		printf(": %s", a->skipped[i].why);
		if (!strcmp(a->skipped[i].why, "rejected"))
			printf(" ('skillsync accept ");
		else
			printf(" ('skillsync review ");
		cli_print_safe(stdout, a->skipped[i].name);
		printf("')\n");
	}
	fflush(stdout);
}

static int cmd_accept(ss_ctx *ctx, int argc, char **argv)
{
	const char **names = ss_xcalloc((size_t)argc + 1, sizeof(*names));
	ss_merge_result m;
	ss_review_accepted said;
	ss_lock *lock = NULL;
	size_t nnames = 0;
	bool all = false;
	int rc, ret = SS_EXIT_OK;

	memset(&m, 0, sizeof(m));
	memset(&said, 0, sizeof(said));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			all = true;
		else if (argv[i][0] == '-') {
			free(names);
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else
			names[nnames++] = argv[i];
	}
	if (all == (nnames > 0)) {
		free(names);
		return cli_usage_error(ctx, "name the skills to accept, or --all");
	}
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0)
		goto fail;
	rc = ss_review_accept(ctx->repo, ctx->state, names, nnames, all, &m, &said, &ctx->err);
	print_skipped(&said);
	if (rc < 0) {
		if (ctx->err.code == SS_EEXISTS && m.npaths) {
			ss_buf safe = SS_BUF_INIT;

			for (size_t i = 0; i < m.npaths; i++)
				fprintf(stderr, "  %s\n", cli_safe(&safe, m.paths[i]));
			ss_buf_release(&safe);
		}
		goto fail;
	}
	cli_print_safe(stdout, said.message.ptr);
	if (cli_link_pull(ctx, true, true) < 0)
		goto fail;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_lock_free(lock);
	free(names);
	ss_review_accepted_release(&said);
	ss_merge_result_release(&m);
	return ret;
}
