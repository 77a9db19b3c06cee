/*
 * cmd_fetch.c: `skillsync fetch [--quiet] [--json]`: bring the space's changes into the tracking
 * ref (refs/remotes/space/main) without touching main or the files; `pull` merges them.
 */
#include "cmd/pull_run.h"

static int cmd_fetch(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_fetch_def = {
    "fetch", cmd_fetch, "bring the space's changes into the tracking ref",
    "usage: skillsync fetch [--quiet] [--json]\n"
    "\n"
    "Asks each member's repo for its revision (one small request per member), lists the\n"
    "records of the members whose repo moved, and when the view changed writes one commit on\n"
    "refs/remotes/space/main saying skill by skill what changed, who changed it, and the\n"
    "record's note. main and your files are not touched: 'skillsync pull' merges.\n"
    "\n"
    "    -q, --quiet   print nothing unless something changed or failed\n"
    "    --json        print one JSON object: the changes, skipped records, requests sent\n"
    "\n"
    "Exit status: 0, 4 network, 5 authentication, 6 another skillsync holds the clone.\n"};

static int cmd_fetch(ss_ctx *ctx, int argc, char **argv)
{
	return cli_pull_main(ctx, argc, argv, false);
}
