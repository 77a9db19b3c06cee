/* pull_print.c: what `fetch` and `pull` print, as text or JSON (cmd/pull_run.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/pull_run.h"

/* At most this many bytes of a note's first line in text output (the JSON has all of it). */
#define NOTE_MAX 100

bool cli_pull_changed(const cli_pull_run *run)
{
	const ss_pull_result *r = &run->result;

	return run->recovered.merge || run->recovered.fetch || run->recovered.push ||
	       r->fetch.changed || run->nskips ||
	       (r->merge_ran && r->merge.kind != SS_MERGE_UP_TO_DATE);
}

size_t cli_pull_waiting(const cli_pull_run *run)
{
	size_t n = 0;

	for (size_t i = 0; i < run->held.count; i++)
		n += !run->held.items[i].hold.rejected;
	return n;
}

/* Whether this run's gate put the item's version in place of the one held before. */
static bool replaced(const cli_pull_run *run, const ss_review_item *it)
{
	return run->result.gated.replaced && it->hold.replaced;
}

/* A line for each held change this run replaced by a newer version, also under --quiet:
 * what review showed before is not what accept would take. */
static void print_replaced(const cli_pull_run *run)
{
	for (size_t i = 0; i < run->held.count; i++) {
		const ss_review_item *it = &run->held.items[i];

		if (!replaced(run, it))
			continue;
		cli_print_safe(stdout, it->hold.name);
		printf(": ");
		if (it->hold.did) {
			cli_print_safe(stdout, it->handle ? it->handle : it->hold.did);
			printf("'s newer version replaces the one held for review");
		} else {
			printf("its removal from the space replaces the version held for review");
		}
		printf("%s\n", it->hold.seen == SS_SEEN_EARLIER ? " (review it again)" : "");
	}
}

/* One line, also under --quiet: what a person reading cron's mail needs to know. */
static void print_waiting(const cli_pull_run *run)
{
	size_t n = cli_pull_waiting(run), k = 0;

	print_replaced(run);
	if (!n)
		return;
	printf("%zu change%s wait%s for review: ", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	for (size_t i = 0; i < run->held.count; i++) {
		const ss_review_item *it = &run->held.items[i];

		if (it->hold.rejected)
			continue;
		printf("%s", k++ ? ", " : "");
		cli_print_safe(stdout, it->hold.name);
		printf(" (");
		cli_print_safe(stdout, it->handle     ? it->handle
		                       : it->hold.did ? it->hold.did
		                                      : "removed");
		printf(", ");
		cli_print_safe(stdout, it->hold.reason);
		printf(")");
	}
	printf(" ('skillsync review' shows them)\n");
}

static const char *kind_word(ss_change_kind kind)
{
	switch (kind) {
	case SS_CHANGE_ADDED:
		return "added";
	case SS_CHANGE_REMOVED:
		return "removed";
	case SS_CHANGE_MODIFIED:
		return "updated";
	}
	return "changed";
}

static void print_changes(const ss_pull_changes *c)
{
	for (size_t i = 0; i < c->count; i++) {
		const ss_pull_change *x = &c->items[i];

		printf("  %-7s ", kind_word(x->kind));
		cli_print_safe(stdout, x->name);
		if (x->did) {
			printf(" (");
			cli_print_safe(stdout, x->handle ? x->handle : x->did);
			printf(x->mine ? ", yours)" : ")");
		}
		if (x->note) {
			printf(": ");
			cli_print_note(stdout, x->note, NOTE_MAX);
		}
		putchar('\n');
	}
}

static void print_skips(const cli_pull_run *run)
{
	for (size_t i = 0; i < run->nskips; i++) {
		const cli_pull_skip *s = &run->skips[i];

		cli_print_skip(s->did, s->handle, s->rkey, s->reason);
	}
}

static bool main_moved(const ss_pull_result *r, const ss_error *err)
{
	return r->merge_ran && !err &&
	       (r->merge.kind == SS_MERGE_FAST_FORWARD || r->merge.kind == SS_MERGE_MERGED);
}

void cli_pull_print_text(const cli_pull_run *run, const ss_error *err)
{
	const ss_pull_result *r = &run->result;
	bool quiet = run->quiet && !err && !cli_pull_changed(run);
	size_t nchanges = r->fetched.count;
	char hex[SS_OID_HEXSZ + 1];

	print_skips(run);
	if (quiet) {
		print_waiting(run);
		fflush(stdout);
		return;
	}
	if (run->recovered.merge)
		printf("finished a merge that was interrupted\n");
	if (run->recovered.fetch)
		printf("finished a fetch that was interrupted\n");
	if (run->recovered.push)
		printf("finished an interrupted push: %zu write%s had landed\n",
		       run->recovered.push, run->recovered.push == 1 ? "" : "s");
	if (r->fetch.changed) {
		printf("fetched %zu change%s from the space\n", nchanges, nchanges == 1 ? "" : "s");
		if (!main_moved(r, err))
			print_changes(&r->fetched);
	} else if (!run->merge && !err) {
		printf("the space has not changed\n");
	}
	if (!r->merge_ran || (err && err->code != SS_EMERGE))
		goto out;
	switch (r->merge.kind) {
	case SS_MERGE_UP_TO_DATE:
		printf("already up to date\n");
		break;
	case SS_MERGE_FAST_FORWARD:
		printf("fast-forward: main has the space's changes\n");
		print_changes(&r->merged);
		break;
	case SS_MERGE_MERGED:
		ss_oid_fmt(hex, &r->merge.head);
		printf("merged the space's changes into main (merge commit %.7s)\n", hex);
		print_changes(&r->merged);
		break;
	case SS_MERGE_CONFLICTED:
		for (size_t i = 0; i < r->merge.npaths; i++) {
			printf("conflict: ");
			cli_print_safe(stdout, r->merge.paths[i]);
			putchar('\n');
		}
		break;
	}
out:
	print_waiting(run);
	fflush(stdout);
	if (err)
		cli_fail(err);
}

static void json_change_list(cli_json *w, const char *key, const ss_pull_changes *c)
{
	cli_json_array(w, key);
	for (size_t i = 0; i < c->count; i++) {
		const ss_pull_change *x = &c->items[i];

		cli_json_object(w, NULL);
		cli_json_str(w, "name", x->name);
		cli_json_str(w, "change", kind_word(x->kind));
		if (x->did) {
			cli_json_object(w, "by");
			cli_json_str(w, "did", x->did);
			cli_json_str(w, "handle", x->handle);
			cli_json_bool(w, "mine", x->mine);
			cli_json_end(w);
		} else {
			cli_json_null(w, "by");
		}
		cli_json_str(w, "note", x->note);
		cli_json_end(w);
	}
	cli_json_end(w);
}

static const char *merge_word(const cli_pull_run *run, const ss_error *err)
{
	const ss_pull_result *r = &run->result;

	if (!r->merge_ran) {
		if (err && err->code == SS_EMERGE)
			return "waiting"; /* an earlier merge waits to be concluded */
		if (err && err->code == SS_EINVALID)
			return "not-fast-forward";
		return "none";
	}
	if (err && err->code == SS_EEXISTS)
		return "blocked"; /* uncommitted changes in the way: nothing written */
	if (err && err->code != SS_EMERGE)
		return "failed";
	switch (r->merge.kind) {
	case SS_MERGE_UP_TO_DATE:
		return "up-to-date";
	case SS_MERGE_FAST_FORWARD:
		return "fast-forward";
	case SS_MERGE_MERGED:
		return "merged";
	case SS_MERGE_CONFLICTED:
		return "conflicted";
	}
	return "failed";
}

/* "reads": how each member read this run was read (sync/fetch.h). */
static void json_reads(cli_json *w, const ss_fetch_result *f)
{
	cli_json_array(w, "reads");
	for (size_t i = 0; i < f->nreads; i++) {
		const ss_fetch_read *x = &f->reads[i];

		cli_json_object(w, NULL);
		cli_json_str(w, "did", x->did);
		cli_json_str(w, "path", x->path);
		cli_json_bool(w, "verified", x->verified);
		cli_json_str(w, "fallback", x->fallback);
		cli_json_end(w);
	}
	cli_json_end(w);
}

/* "failed": each member that could not be read, or whose read was refused, and why. */
static void json_failed(cli_json *w, const ss_fetch_result *f)
{
	cli_json_array(w, "failed");
	for (size_t i = 0; i < f->nfailed; i++) {
		cli_json_object(w, NULL);
		cli_json_str(w, "did", f->failed[i].did);
		cli_json_str(w, "reason", f->failed[i].why);
		cli_json_end(w);
	}
	cli_json_end(w);
}

/* An id, or null for none. */
static void json_oid(cli_json *w, const char *key, const ss_oid *oid)
{
	char hex[SS_OID_HEXSZ + 1];

	if (ss_oid_is_zero(oid)) {
		cli_json_null(w, key);
		return;
	}
	ss_oid_fmt(hex, oid);
	cli_json_str(w, key, hex);
}

static void json_fetch(cli_json *w, const cli_pull_run *run)
{
	const ss_pull_result *r = &run->result;
	const ss_fetch_result *f = &r->fetch;

	cli_json_object(w, "fetch");
	cli_json_bool(w, "changed", f->changed);
	cli_json_int(w, "listed", f->listed);
	cli_json_int(w, "records", f->records);
	cli_json_int(w, "skipped", f->skipped);
	cli_json_int(w, "refused", f->refused);
	cli_json_int(w, "added", f->added);
	cli_json_int(w, "updated", f->updated);
	cli_json_int(w, "removed", f->removed);
	json_oid(w, "tracking", &r->tracking);
	json_change_list(w, "changes", &r->fetched);
	cli_json_array(w, "skips");
	for (size_t i = 0; i < run->nskips; i++) {
		const cli_pull_skip *s = &run->skips[i];

		cli_json_object(w, NULL);
		cli_json_str(w, "did", s->did);
		cli_json_str(w, "rkey", s->rkey);
		cli_json_str(w, "reason", s->reason);
		cli_json_bool(w, "refused", s->refused);
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_object(w, "listings");
	cli_json_int(w, "full", f->full_listings);
	cli_json_int(w, "incremental", f->incremental_listings);
	cli_json_int(w, "fallback", f->fallbacks);
	cli_json_end(w);
	json_reads(w, f);
	json_failed(w, f);
	cli_json_end(w);
}

static void json_merge(cli_json *w, const cli_pull_run *run, const ss_error *err)
{
	const ss_pull_result *r = &run->result;
	static const ss_oid none;

	cli_json_object(w, "merge");
	cli_json_str(w, "result", merge_word(run, err));
	json_oid(w, "head", r->merge_ran ? &r->merge.head : &none);
	json_change_list(w, "changes", &r->merged);
	cli_json_array(w, "paths");
	for (size_t i = 0; r->merge_ran && i < r->merge.npaths; i++)
		cli_json_str(w, NULL, r->merge.paths[i]);
	cli_json_end(w);
	cli_json_int(w, "waiting", cli_pull_waiting(run));
	cli_json_array(w, "held");
	for (size_t i = 0; i < run->held.count; i++) {
		const ss_review_item *it = &run->held.items[i];

		cli_json_object(w, NULL);
		cli_json_str(w, "name", it->hold.name);
		cli_json_str(w, "did", it->hold.did);
		cli_json_str(w, "handle", it->handle);
		cli_json_str(w, "cid", it->hold.cid);
		cli_json_str(w, "reason", it->hold.reason);
		cli_json_bool(w, "new", !it->hold.kept_tree);
		cli_json_bool(w, "rejected", it->hold.rejected);
		cli_json_bool(w, "replaced", replaced(run, it));
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_end(w);
}

void cli_pull_print_json(const cli_pull_run *run, const ss_error *err)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_object(&w, "recovered");
	cli_json_bool(&w, "merge", run->recovered.merge);
	cli_json_bool(&w, "fetch", run->recovered.fetch);
	cli_json_int(&w, "push", run->recovered.push);
	cli_json_end(&w);
	json_fetch(&w, run);
	if (run->merge)
		json_merge(&w, run, err);
	cli_json_int(&w, "requests", run->requests);
	cli_json_int(&w, "bytes", run->bytes);
	if (err) {
		cli_json_object(&w, "error");
		cli_json_str(&w, "code", ss_error_name(err->code));
		cli_json_str(&w, "message", err->message);
		cli_json_end(&w);
	} else {
		cli_json_null(&w, "error");
	}
	cli_json_finish(&w);
	fflush(stdout);
}
