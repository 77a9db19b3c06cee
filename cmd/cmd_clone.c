/*
 * cmd_clone.c: `skillsync clone <authority> [<dir>] --member <h>... [--as <h>]`: parses the
 * options, runs ss_clone_run (sync/clone.h: where the clone is built, who is in the space)
 * and prints what it says.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/util/mem.h"
#include "sync/clone.h"

typedef struct clone_opts {
	const char *authority;
	const char *dir;
	const char **members;
	size_t nmembers;
	const char *as;
	bool quiet;
} clone_opts;

static int parse(ss_ctx *ctx, int argc, char **argv, clone_opts *o)
{
	size_t alloc = 0;
	int positional = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--member") || !strcmp(a, "-m") || !strcmp(a, "--as")) {
			if (i + 1 >= argc)
				return cli_usage_error(ctx, "'%s' needs a handle or DID", a);
			if (!strcmp(a, "--as")) {
				o->as = argv[++i];
			} else {
				ss_xgrow((void **)&o->members, sizeof(*o->members), o->nmembers + 1,
				         &alloc);
				o->members[o->nmembers++] = argv[++i];
			}
		} else if (!strncmp(a, "--member=", 9)) {
			ss_xgrow((void **)&o->members, sizeof(*o->members), o->nmembers + 1,
			         &alloc);
			o->members[o->nmembers++] = a + 9;
		} else if (!strncmp(a, "--as=", 5)) {
			o->as = a + 5;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			o->quiet = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error(ctx, "unknown option '%s'", a);
		} else if (positional == 0) {
			o->authority = a;
			positional++;
		} else if (positional == 1) {
			o->dir = a;
			positional++;
		} else {
			return cli_usage_error(ctx, "too many arguments");
		}
	}
	if (!o->authority)
		return cli_usage_error(
		    ctx, "missing the space's authority (a handle or DID) or its at:// URI");
	return 0;
}

/* The run's callbacks' payload. */
typedef struct clone_out {
	cli_progress_line line; /* on: stderr is a terminal, and no --quiet */
	bool quiet;             /* --quiet: only warnings and errors */
} clone_out;

static void end_progress(clone_out *co)
{
	cli_progress_clear(&co->line);
}

static void report(void *payload, const char *did, const char *handle, const char *rkey,
                   const char *reason, bool refused)
{
	(void)refused; /* a clone takes what verifies; the next pull asks for the rest again */
	end_progress(payload);
	cli_print_skip(did, handle, rkey, reason);
}

static void progress(void *payload, size_t records, size_t done, size_t members)
{
	cli_progress_records(&((clone_out *)payload)->line, records, done, members);
}

static void checkout(void *payload, size_t done, size_t total)
{
	cli_progress_count(&((clone_out *)payload)->line, "Checking out files", done, total);
}

static void removing(void *payload, const char *partial)
{
	(void)payload;
	fprintf(stderr, "Removing '%s' left by an interrupted clone\n", partial);
}

static void cloning(void *payload, const char *dir)
{
	if (((clone_out *)payload)->quiet)
		return;
	fprintf(stderr, "Cloning into '%s'...\n", dir);
}

static void kept(void *payload, const char *who, ss_state_role role)
{
	(void)payload;
	cli_print_member_kept(stderr, who, role);
}

/* For bench/ ($SKILLSYNC_STATS): what the clone cost on the wire, before the checkout. */
static void fetched(void *payload, const ss_http_stats *hs)
{
	struct rusage ru;
	struct timespec now;

	end_progress(payload);
	if (!getenv("SKILLSYNC_STATS"))
		return;
	getrusage(RUSAGE_SELF, &ru);
	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(stderr,
	        "stats: requests=%llu sent=%llu received=%llu peak_rss_before_checkout=%ldkB "
	        "epoch_before_checkout=%lld.%09ld\n",
	        (unsigned long long)hs->requests, (unsigned long long)hs->bytes_sent,
	        (unsigned long long)hs->bytes_received, ru.ru_maxrss, (long long)now.tv_sec,
	        now.tv_nsec);
}

static int cmd_clone(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_clone_def = {
    "clone", cmd_clone, "copy a memory space into a new git working tree",
    "usage: skillsync clone <authority> [<dir>] [--member <handle-or-did>]... [--as "
    "<handle-or-did>] [--quiet]\n"
    "       skillsync clone at://<authority>/space/garden.engram.space/<key> [<dir>] [--as "
    "<handle-or-did>] [--quiet]\n"
    "\n"
    "Creates <dir> (default: the authority's handle) holding one directory per skill in the\n"
    "view: for each name, your own version, else the authority's, else the most recently\n"
    "updated one. The space is the authority's repo and the members' repos; records that fail\n"
    "validation are skipped with one warning each. The clone is an ordinary git repository;\n"
    "refs/remotes/space/main holds the view as fetched, and the local state lives in .git/.\n"
    "With an at:// URI, the space is a permissioned space: its host names the writers, and\n"
    "reading it needs you signed in with your account password (not an app password:\n"
    "docs/SPACES.md). Its default <dir> is the space's key.\n"
    "\n"
    "    -m, --member <h>   a member of the space (repeat for each; change later with\n"
    "                       'skillsync members add|remove')\n"
    "    --as <h>           the signed-in account that is you (default: the only one signed\n"
    "                       in; with none, a read-only clone with no \"mine\")\n"
    "    -q, --quiet        no progress and no \"Cloning into\" (progress is shown only\n"
    "                       on a terminal anyway); warnings and errors still\n"};

static int cmd_clone(ss_ctx *ctx, int argc, char **argv)
{
	clone_opts o;
	clone_out co = {{false, false, -1}, false};
	ss_fetch_opts fo;
	ss_clone_opts run;
	ss_clone_result res;
	char *dir = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	ret = parse(ctx, argc, argv, &o);
	if (ret)
		goto out;
	co.quiet = o.quiet;
	if (cli_progress(ctx, o.quiet, &co.line.on) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (o.dir) {
		dir = ss_xstrdup(o.dir);
		dir[cli_path_len(dir)] = '\0';
	}
	memset(&fo, 0, sizeof(fo));
	fo.report = report;
	fo.progress = progress;
	fo.payload = &co;
	run = (ss_clone_opts){.authority = o.authority,
	                      .dir = dir,
	                      .members = o.members,
	                      .nmembers = o.nmembers,
	                      .as = o.as,
	                      .fetch = &fo,
	                      .removing = removing,
	                      .cloning = cloning,
	                      .kept = kept,
	                      .fetched = fetched,
	                      .checkout = checkout,
	                      .payload = &co};
	ret = ss_clone_run(&run, &res, &ctx->err);
	end_progress(&co);
	if (ret < 0) {
		ret = cli_fail(&ctx->err);
		if (res.partial)
			fprintf(stderr,
			        "skillsync: the partial clone stays in '%s'; run the same clone "
			        "again to start over\n",
			        res.partial);
		goto out;
	}
	printf("Cloned %zu skill%s from %zu member%s", res.fetch.added,
	       res.fetch.added == 1 ? "" : "s", res.fetch.listed, res.fetch.listed == 1 ? "" : "s");
	if (res.fetch.skipped)
		printf(" (%zu invalid record%s skipped)", res.fetch.skipped,
		       res.fetch.skipped == 1 ? "" : "s");
	printf(".\n");
	if (!o.quiet && !strncmp(o.authority, "at://", 5))
		fprintf(stderr,
		        "This clone reads a permissioned space: each fetch gets a delegation "
		        "token from your PDS, which needs a session signed in with 'skillsync "
		        "login --oauth' or the account password (an app password is refused).\n");
	ret = SS_EXIT_OK;
out:
	ss_clone_result_release(&res);
	free(o.members);
	free(dir);
	return ret;
}
