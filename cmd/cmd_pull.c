/*
 * cmd_pull.c: `skillsync pull [--ff-only] [--quiet] [--json]`: fetch, then merge the space's
 * changes into main; and the run that `fetch` shares (cmd/pull_run.h).
 *
 * Made for schedulers: no prompt ever (public repos are read without a session: a missing one
 * is only a note that push will need a sign-in; a member that cannot be reached is named, its
 * last known versions kept, the rest synced, and the exit status is 4), --quiet prints
 * nothing unless something changed or failed, one lock per clone (a second run waits, then
 * exits with status 6 naming the holder), and a run killed anywhere is finished or undone
 * by the next one (docs/SCHEDULE.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/pull_run.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/state/state_member.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/net/http.h"
#include "sync/setting.h"
#include "sync/transport/space.h"

static void on_skip(void *payload, const char *did, const char *handle, const char *rkey,
                    const char *reason, bool refused)
{
	cli_pull_run *run = payload;
	cli_pull_skip *s;

	ss_xgrow((void **)&run->skips, sizeof(*run->skips), run->nskips + 1, &run->skips_alloc);
	s = &run->skips[run->nskips++];
	s->did = ss_xstrdup(did ? did : "");
	s->handle = handle ? ss_xstrdup(handle) : NULL;
	s->rkey = ss_xstrdup(rkey ? rkey : "");
	s->reason = ss_xstrdup(reason ? reason : "");
	s->refused = refused;
}

/* "warning: <why><tail>" on stderr (why through the escape rule), the progress line cleared. */
static void warn(cli_pull_run *run, const char *why, const char *tail)
{
	cli_progress_clear(&run->line);
	fputs("warning: ", stderr);
	cli_print_safe(stderr, why);
	fprintf(stderr, "%s\n", tail);
}

/* A member that could not be read: said at once, the run goes on (exit status 4 at the end). */
static void on_unreachable(void *payload, const char *did, const char *handle, const char *why)
{
	(void)did;
	(void)handle;
	warn(payload, why, "; its last known versions are kept");
}

/* A refused answer before a read that checked out: said at once, also when quiet (exit 4). */
static void on_caught(void *payload, const char *did, const char *handle, const char *why)
{
	(void)did;
	(void)handle;
	warn(payload, why, "");
}

static void on_progress(void *payload, size_t records, size_t done, size_t members)
{
	cli_pull_run *run = payload;

	cli_progress_records(&run->line, records, done, members);
}

static void on_checkout(void *payload, size_t done, size_t total)
{
	cli_pull_run *run = payload;

	if (done == 0)
		cli_progress_clear(
		    &run->line); /* the fetch's line ends where the checkout's begins */
	cli_progress_count(&run->line, "Checking out files", done, total);
}

static void run_release(cli_pull_run *run)
{
	for (size_t i = 0; i < run->nskips; i++) {
		free(run->skips[i].did);
		free(run->skips[i].handle);
		free(run->skips[i].rkey);
		free(run->skips[i].reason);
	}
	free(run->skips);
	ss_pull_result_release(&run->result);
	ss_review_items_release(&run->held);
}

/*
 * The space. Reading public repos needs no session: without a usable one (after `logout`, or a
 * refresh token that expired) the run goes on as me all the same (my versions still rank
 * first) and says once, unless quiet, that push will need a sign-in.
 */
static int open_space(ss_state *st, const cli_pull_run *r, ss_http **http, ss_space **sp,
                      ss_error *err)
{
	ss_state_member m;
	ss_error ignored;
	const char *me;
	int ret;

	if ((ret = ss_setting_http_new(http, st, err)) < 0 ||
	    (ret = ss_space_open(sp, *http, st, false, err)) < 0)
		return ret;
	me = ss_space_me(*sp);
	if (!me || ss_space_signed_in(*sp) || r->quiet || r->json)
		return 0;
	memset(&m, 0, sizeof(m));
	if (ss_state_member_get(st, me, &m, &ignored) < 0)
		m.handle = NULL;
	fprintf(stderr,
	        "skillsync: not signed in as '%s': reading the public repos without a session; "
	        "push will need 'skillsync login %s'\n",
	        m.handle ? m.handle : me, m.handle ? m.handle : me);
	ss_state_member_release(&m);
	return 0;
}

static int run(ss_ctx *ctx, cli_pull_run *r, bool ff_only)
{
	ss_repo *repo = ctx->repo;
	ss_state *st = ctx->state;
	ss_lock *lock = NULL;
	ss_http *http = NULL;
	ss_space *sp = NULL;
	ss_fetch_opts fopts;
	ss_pull_opts popts;
	ss_http_stats stats;
	int ret;

	memset(&fopts, 0, sizeof(fopts));
	fopts.report = on_skip;
	fopts.unreachable = on_unreachable;
	fopts.caught = on_caught;
	fopts.progress = on_progress;
	fopts.payload = r;
	fopts.subject = r->merge ? "pull" : "fetch";
	memset(&popts, 0, sizeof(popts));
	popts.merge = r->merge;
	popts.ff_only = ff_only;
	popts.fetch = &fopts;
	popts.checkout = on_checkout;
	if ((ret = open_space(st, r, &http, &sp, &ctx->err)) < 0 ||
	    (ret = cli_lock_clone(ctx, sp, &lock, &r->recovered)) < 0)
		goto out;
	ret = ss_pull_run(repo, st, sp, &popts, &r->result, &ctx->err);
	if (r->merge && (ret == 0 || r->result.merge_ran)) {
		ss_error ignored; /* what waits is said as far as the state tells it */

		ss_error_clear(&ignored);
		(void)ss_review_list(repo, st, NULL, 0, false, &r->held, &ignored);
	}
	if (ret == 0 && r->merge) /* the agents' folders: after the merge, under the lock */
		ret = cli_link_pull(ctx, cli_pull_changed(r), !r->quiet || cli_pull_changed(r));
	cli_progress_clear(&r->line);
out:
	if (http) {
		ss_http_get_stats(http, &stats);
		r->requests = stats.requests;
		r->bytes = stats.bytes_received;
	}
	ss_space_free(sp);
	ss_http_free(http);
	if (lock) {
		ss_error ignored;

		ss_lock_free(lock);
		/* packs merged when they pile up, once the lock is released: a run waiting for it
		 * (cron's next pull, a push) never waits for this; a failure changes nothing */
		if (ret == 0)
			(void)ss_repo_pack_auto(repo, NULL, &ignored);
	}
	return ret;
}

int cli_pull_main(ss_ctx *ctx, int argc, char **argv, bool merge)
{
	cli_pull_run r;
	bool ff_only = false;
	int code;

	memset(&r, 0, sizeof(r));
	r.merge = merge;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			r.json = true;
		else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
			r.quiet = true;
		else if (merge && !strcmp(argv[i], "--ff-only"))
			ff_only = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	if (cli_open_clone(ctx) < 0 ||
	    (merge && !ff_only &&
	     ss_setting_is(ctx->state, "pull.ff", "only", &ff_only, &ctx->err) < 0) ||
	    cli_progress(ctx, r.quiet || r.json, &r.line.on) < 0)
		return cli_fail(&ctx->err);
	r.code = run(ctx, &r, ff_only) < 0 ? ctx->err.code : 0;
	code = cli_exit_code(r.code);
	/* Like `git fetch --all` with a remote down: the rest synced, the status says not all. A
	 * record refused because what the server sent does not verify is a failed read too, and
	 * so is an answer refused before a second read checked out (docs/SECURITY.md). */
	if (code == SS_EXIT_OK &&
	    (r.result.fetch.unreachable || r.result.fetch.refused || r.result.fetch.caught))
		code = SS_EXIT_NETWORK;
	if (r.json) {
		if (!r.quiet || r.code < 0 || cli_pull_changed(&r) || cli_pull_waiting(&r))
			cli_pull_print_json(&r, r.code < 0 ? &ctx->err : NULL);
		if (r.code < 0)
			cli_fail(&ctx->err);
	} else {
		cli_pull_print_text(&r, r.code < 0 ? &ctx->err : NULL);
	}
	run_release(&r);
	return code;
}

static int cmd_pull(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_pull_def = {
    "pull", cmd_pull, "fetch, then merge the space's changes into main",
    "usage: skillsync pull [--ff-only] [--quiet] [--json]\n"
    "\n"
    "Fetches (see 'skillsync fetch --help'), then merges the space's view into main: a\n"
    "fast-forward when main has no commits of its own, else a three-way merge. Conflicting\n"
    "edits of the same lines leave conflict markers; 'skillsync status' lists them; fix them\n"
    "and run 'skillsync commit'. Uncommitted changes are never overwritten: when the merge\n"
    "would touch them, pull fetches, then stops naming the files. Made for cron and systemd\n"
    "timers (docs/SCHEDULE.md): it never prompts, and a second run waits for the first\n"
    "($SKILLSYNC_LOCK_WAIT seconds, default 5), then gives up.\n"
    "\n"
    "    --ff-only     merge only when main can fast-forward; else stop (exit status 1)\n"
    "    -q, --quiet   print nothing unless something changed or failed, or changes wait\n"
    "                  for review\n"
    "    --json        print one JSON object: fetch, merge, changes, held changes, requests\n"
    "                  sent, error\n"
    "\n"
    "Changes of others that add or change scripts (setting review.policy) or touch a pinned\n"
    "skill are fetched but held back from main, your files and the agents' folders; pull\n"
    "says in one line how many wait, and 'skillsync review' shows them. When a member's\n"
    "newer version replaces one held, pull says so (also with --quiet): accept then takes\n"
    "it only once review has shown it.\n"
    "\n"
    "Exit status: 0 up to date or merged, 1 failure (e.g. uncommitted changes in the way),\n"
    "2 conflicts to resolve, 4 network, 5 authentication, 6 another skillsync holds the\n"
    "clone.\n"};

static int cmd_pull(ss_ctx *ctx, int argc, char **argv)
{
	return cli_pull_main(ctx, argc, argv, true);
}
