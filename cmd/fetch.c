/*
 * fetch.c: `skillsync fetch [--quiet] [--json]`: bring the space's changes into the tracking
 * ref (refs/remotes/space/main) without touching main or the files; `pull` merges them.
 */
#include "cmd/pull.h"

int cmd_fetch(ss_ctx *ctx, int argc, char **argv)
{
	return cli_pull_main(ctx, argc, argv, false);
}
