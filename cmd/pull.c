/*
 * pull.c: `skillsync pull [--ff-only] [--quiet] [--json]`: fetch, then merge the space's
 * changes into main; and the run that `fetch` shares (cmd/pull.h).
 *
 * Made for schedulers: no prompt ever (a clone with an account needs its stored session, a
 * read-only clone none; a missing one is an error line, exit status 5), --quiet prints
 * nothing unless something changed or failed, one lock per clone (a second run waits, then
 * exits with status 6 naming the holder), and a run killed anywhere is finished or undone
 * by the next one (docs/SCHEDULE.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/pull.h"
#include "core/lock.h"
#include "core/mem.h"
#include "core/repo.h"
#include "core/state.h"
#include "sync/http.h"
#include "sync/space.h"

static void on_skip(void *payload, const char *did, const char *handle, const char *rkey,
                    const char *reason)
{
	cmd_pull_run *run = payload;
	cmd_pull_skip *s;

	ss_xgrow((void **)&run->skips, sizeof(*run->skips), run->nskips + 1, &run->skips_alloc);
	s = &run->skips[run->nskips++];
	s->did = ss_xstrdup(did ? did : "");
	s->handle = handle ? ss_xstrdup(handle) : NULL;
	s->rkey = ss_xstrdup(rkey ? rkey : "");
	s->reason = ss_xstrdup(reason ? reason : "");
}

static void on_progress(void *payload, size_t records, size_t done, size_t members)
{
	cmd_pull_run *run = payload;

	if (run->progress)
		fprintf(stderr, "\rfetching: %zu records, %zu of %zu members listed", records, done,
		        members);
}

static void run_release(cmd_pull_run *run)
{
	for (size_t i = 0; i < run->nskips; i++) {
		free(run->skips[i].did);
		free(run->skips[i].handle);
		free(run->skips[i].rkey);
		free(run->skips[i].reason);
	}
	free(run->skips);
	ss_pull_result_release(&run->result);
}

/* The space, as me when the clone has an account (its session must be usable: never a
 * prompt), else read-only. */
static int open_space(ss_state *st, ss_http **http, ss_space **sp, ss_error *err)
{
	if (ss_http_new(http, NULL, err) < 0)
		return -1;
	return ss_space_open(sp, *http, st, ss_state_me(st) != NULL, err);
}

static int run(ss_ctx *ctx, cmd_pull_run *r, bool ff_only)
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
	fopts.progress = on_progress;
	fopts.payload = r;
	fopts.subject = r->merge ? "pull" : "fetch";
	memset(&popts, 0, sizeof(popts));
	popts.merge = r->merge;
	popts.ff_only = ff_only;
	popts.fetch = &fopts;
	if ((ret = cmd_lock_clone(ctx, repo, &lock, &r->merge_recovered)) < 0 ||
	    (ret = open_space(st, &http, &sp, &ctx->err)) < 0)
		goto out;
	ret = ss_pull_run(repo, st, sp, &popts, &r->result, &ctx->err);
	if (r->progress)
		fputs("\r\033[K", stderr);
out:
	if (http) {
		ss_http_get_stats(http, &stats);
		r->requests = stats.requests;
	}
	ss_space_free(sp);
	ss_http_free(http);
	ss_lock_release(lock);
	return ret;
}

int cmd_pull_main(ss_ctx *ctx, int argc, char **argv, bool merge)
{
	cmd_pull_run r;
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
			return cmd_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cmd_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	if (cmd_open_clone(ctx) < 0)
		return cmd_fail(&ctx->err);
	r.progress = !r.quiet && !r.json && isatty(STDERR_FILENO);
	r.code = run(ctx, &r, ff_only) < 0 ? ctx->err.code : 0;
	code = cmd_exit_code(r.code);
	if (r.json) {
		if (!r.quiet || r.code < 0 || cmd_pull_changed(&r))
			cmd_pull_print_json(&r, r.code < 0 ? &ctx->err : NULL);
		if (r.code < 0)
			cmd_fail(&ctx->err);
	} else {
		cmd_pull_print_text(&r, r.code < 0 ? &ctx->err : NULL);
	}
	run_release(&r);
	return code;
}

int cmd_pull(ss_ctx *ctx, int argc, char **argv)
{
	return cmd_pull_main(ctx, argc, argv, true);
}
