/* cmd_push.c: `skillsync push [--dry-run] [--json]`: send my committed skill changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/card_remote.h"
#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/git/repo.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/net/http.h"
#include "sync/push.h"
#include "sync/recover.h"
#include "sync/setting.h"
#include "sync/transport/space.h"

static const char *notice_text(const ss_plan_notice *n, ss_buf *b)
{
	ss_buf_clear(b);
	cli_notice_format(b, n->kind, n->name, n->who);
	return b->ptr;
}

/* Whether the skill name is one the push refuses. */
static bool refused(const ss_outgoing *o, const char *name)
{
	for (size_t i = 0; i < ss_outgoing_refused_count(o); i++)
		if (!strcmp(ss_outgoing_refused(o, i)->name, name))
			return true;
	return false;
}

static void print_text(const ss_push_result *r, size_t recovered, bool dry)
{
	const ss_plan *plan = ss_outgoing_plan(r->outgoing);
	ss_buf b = SS_BUF_INIT;

	if (recovered)
		printf("finished an interrupted push: %zu write%s had landed\n", recovered,
		       recovered == 1 ? "" : "s");
	for (size_t i = 0; i < ss_plan_notice_count(plan); i++)
		printf("note: %s\n", notice_text(ss_plan_notice_get(plan, i), &b));
	for (size_t i = 0; i < ss_outgoing_outside_count(r->outgoing); i++)
		printf("not pushed (outside skill directories): %s\n",
		       ss_outgoing_outside(r->outgoing, i));
	if (ss_outgoing_count(r->outgoing) == 0) {
		printf("everything up to date\n");
		goto out;
	}
	for (size_t i = 0; i < ss_outgoing_count(r->outgoing); i++) {
		const ss_outgoing_item *it = ss_outgoing_get(r->outgoing, i);
		if (refused(r->outgoing, it->write->name))
			continue;
		printf("%s%-6s %s", dry ? "would " : "", ss_plan_op_name(it->write->op),
		       it->write->name);
		if (it->write->renamed_from)
			printf(" (renamed from %s)", it->write->renamed_from);
		else if (it->write->based_on)
			printf(" (your own version of %s's)", cli_safe(&b, it->write->based_on));
		if (it->blobs)
			printf(" (%zu file%s as blobs)", it->blobs, it->blobs == 1 ? "" : "s");
		putchar('\n');
	}
	if (!dry)
		printf("pushed %zu change%s in %zu request%s\n", r->sent, r->sent == 1 ? "" : "s",
		       r->requests, r->requests == 1 ? "" : "s");
out:
	ss_buf_release(&b);
}

static void json_writes(cli_json *w, const ss_outgoing *o)
{
	cli_json_array(w, "writes");
	for (size_t i = 0; i < ss_outgoing_count(o); i++) {
		const ss_outgoing_item *it = ss_outgoing_get(o, i);

		cli_json_object(w, NULL);
		cli_json_str(w, "op", ss_plan_op_name(it->write->op));
		cli_json_str(w, "name", it->write->name);
		if (it->write->renamed_from)
			cli_json_str(w, "renamedFrom", it->write->renamed_from);
		if (it->write->based_on)
			cli_json_str(w, "basedOn", it->write->based_on);
		if (it->note)
			cli_json_str(w, "note", it->note);
		if (it->blobs)
			cli_json_int(w, "blobs", (intmax_t)it->blobs);
		cli_json_end(w);
	}
	cli_json_end(w);
}

/* The files that went up as blobs; in a permissioned space, who else can read them. */
static void print_blobs(const ss_push_result *r, const ss_space *sp)
{
	if (!r->blobs_uploaded)
		return;
	printf("sent %zu file%s as blobs (%zu bytes)\n", r->blobs_uploaded,
	       r->blobs_uploaded == 1 ? "" : "s", r->blob_bytes);
	if (!strcmp(ss_space_kind(sp), "space"))
		printf("note: %zu file%s went up as blobs to your PDS, which serves them to anyone "
		       "who knows their CID (com.atproto.sync.getBlob), without the space's "
		       "credential (see docs/SECURITY.md)\n",
		       r->blobs_uploaded, r->blobs_uploaded == 1 ? "" : "s");
}

static void print_json(const ss_push_result *r, size_t recovered, bool dry)
{
	const ss_plan *plan = ss_outgoing_plan(r->outgoing);
	ss_buf b = SS_BUF_INIT;
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_bool(&w, "dryRun", dry);
	cli_json_int(&w, "recovered", recovered);
	cli_json_int(&w, "sent", r->sent);
	cli_json_int(&w, "requests", r->requests);
	json_writes(&w, r->outgoing);
	cli_json_array(&w, "notices");
	for (size_t i = 0; i < ss_plan_notice_count(plan); i++)
		cli_json_str(&w, NULL, notice_text(ss_plan_notice_get(plan, i), &b));
	cli_json_end(&w);
	cli_json_array(&w, "outside");
	for (size_t i = 0; i < ss_outgoing_outside_count(r->outgoing); i++)
		cli_json_str(&w, NULL, ss_outgoing_outside(r->outgoing, i));
	cli_json_end(&w);
	cli_refused_json(&w, "refused", r->outgoing);
	cli_json_finish(&w);
	ss_buf_release(&b);
}

static void progress(void *payload, size_t written, size_t total)
{
	cli_progress_count(payload, "Writing skills", written, total);
}

static int cmd_push(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_push_def = {
    "push", cmd_push, "send your committed skill changes to your repo",
    "usage: skillsync push [--dry-run] [--json] [--quiet]\n"
    "\n"
    "Sends what HEAD changed against the space's view (the tracking ref) as record writes to\n"
    "your own repo: a new skill is created, a changed one updated (a skill whose version came\n"
    "from someone else becomes your own version), a deleted one removed (only yours; when\n"
    "another member has one, theirs applies after). Each record carries a note made from the\n"
    "commit subjects and a summary of what changed. If your repo moved since the last fetch,\n"
    "nothing is written: run 'skillsync pull' first (exit status 3). Files outside skill\n"
    "directories are never pushed.\n"
    "\n"
    "Every skill sent is checked first (the rules of 'skillsync validate' and the record's\n"
    "size). A push sends HEAD whole or nothing: when any skill is refused, every problem of\n"
    "every refused skill is listed, nothing is sent, and the exit status is 1; the valid skills\n"
    "beside it wait too (fix the refused ones, commit, push again). --dry-run and 'status'\n"
    "make the same checks.\n"
    "\n"
    "    -n, --dry-run   show what would be sent, send nothing (exit status 1 when a skill\n"
    "                    would be refused)\n"
    "    --json          print the writes, notes, notices and refused skills as JSON\n"
    "    -q, --quiet     no progress line (shown only on a terminal anyway)\n"};

static int cmd_push(ss_ctx *ctx, int argc, char **argv)
{
	bool dry = false, json = false, quiet = false;
	cli_progress_line line = {false, false, -1};
	ss_lock *lock = NULL;
	ss_http *http = NULL;
	ss_space *sp = NULL;
	ss_push_opts opts;
	ss_push_result r;
	ss_recovered rec;
	int ret;

	memset(&r, 0, sizeof(r));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run") || !strcmp(argv[i], "-n"))
			dry = true;
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
			quiet = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	if (cli_progress(ctx, quiet || json, &line.on) < 0)
		goto fail;
	memset(&opts, 0, sizeof(opts));
	opts.dry_run = dry;
	opts.progress = progress;
	opts.payload = &line;
	if (!dry && (ss_setting_http_new(&http, ctx->state, &ctx->err) < 0 ||
	             ss_space_open(&sp, http, ctx->state, true, &ctx->err) < 0))
		goto fail;
	if (cli_lock_clone(ctx, sp, &lock, &rec) < 0)
		goto fail;
	ret = ss_push_run(ctx->repo, ctx->state, sp, &opts, &r, &ctx->err);
	cli_progress_clear(&line);
	if (ret < 0 && !(r.outgoing && ss_outgoing_refused_count(r.outgoing)))
		goto fail;
	if (json)
		print_json(&r, rec.push, dry);
	else if (ret == 0 || dry)
		print_text(&r, rec.push, dry);
	if (ret < 0) { /* refused skills: every problem first, then the one error line */
		if (!json)
			cli_refused_print(stderr, r.outgoing, "error: ");
		goto fail;
	}
	if (!json && sp)
		print_blobs(&r, sp);
	if (!dry && r.sent)
		cli_card_auto(ctx);
	ret = SS_EXIT_OK;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	if (http && getenv("SKILLSYNC_STATS")) {
		/* For bench/: what the push cost on the wire. */
		ss_http_stats hs;

		ss_http_get_stats(http, &hs);
		fprintf(stderr, "stats: requests=%llu writes=%zu sent=%llu received=%llu\n",
		        (unsigned long long)hs.requests, r.requests,
		        (unsigned long long)hs.bytes_sent, (unsigned long long)hs.bytes_received);
	}
	ss_push_result_release(&r);
	ss_space_free(sp);
	ss_http_free(http);
	ss_lock_free(lock);
	return ret;
}
