/*
 * accept.c: `skillsync accept <skill>... | --all`: the held versions into main as one commit
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
    "usage: skillsync accept <skill>... | --all\n"
    "\n"
    "Takes the versions 'skillsync review' lists for these skills (or all of them) into main\n"
    "as one commit of yours that says whose versions they are (\"Accept bob.example's version\n"
    "of pdf-forms (at://..., cid ...)\"), and checks them out, so that the agents' folders\n"
    "see them at once (copies made by 'link --copy' are refreshed). Exactly the version\n"
    "reviewed comes in, even when the space has a newer one (which then waits in turn).\n"
    "Uncommitted changes are never overwritten: when the files are in the way, nothing\n"
    "changes and they are named.\n"
    "\n"
    "    --all   every change waiting for review\n"};

static int cmd_accept(ss_ctx *ctx, int argc, char **argv)
{
	const char **names = ss_xcalloc((size_t)argc + 1, sizeof(*names));
	ss_merge_result m;
	ss_buf said = SS_BUF_INIT;
	ss_lock *lock = NULL;
	size_t nnames = 0;
	bool all = false;
	int ret = SS_EXIT_OK;

	memset(&m, 0, sizeof(m));
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
	if (ss_review_accept(ctx->repo, ctx->state, names, nnames, all, &m, &said, &ctx->err) < 0) {
		if (ctx->err.code == SS_EEXISTS && m.npaths) {
			ss_buf safe = SS_BUF_INIT;

			for (size_t i = 0; i < m.npaths; i++)
				fprintf(stderr, "  %s\n", cli_safe(&safe, m.paths[i]));
			ss_buf_release(&safe);
		}
		goto fail;
	}
	cli_print_safe(stdout, said.ptr);
	if (cli_link_pull(ctx, true, true) < 0)
		goto fail;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_lock_free(lock);
	free(names);
	ss_buf_release(&said);
	ss_merge_result_release(&m);
	return ret;
}
