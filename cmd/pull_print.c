/* pull_print.c: what `fetch` and `pull` print, as text or JSON (cmd/pull.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/pull.h"

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

static void json_change_list(const ss_pull_changes *c)
{
	putchar('[');
	for (size_t i = 0; i < c->count; i++) {
		const ss_pull_change *x = &c->items[i];

		printf("%s{\"name\":", i ? "," : "");
		cli_print_json_string(x->name);
		printf(",\"change\":\"%s\",\"by\":", kind_word(x->kind));
		if (x->did) {
			printf("{\"did\":");
			cli_print_json_string(x->did);
			printf(",\"handle\":");
			cli_print_json_string(x->handle);
			printf(",\"mine\":%s}", x->mine ? "true" : "false");
		} else {
			printf("null");
		}
		printf(",\"note\":");
		cli_print_json_string(x->note);
		putchar('}');
	}
	putchar(']');
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
static void json_reads(const ss_fetch_result *f)
{
	printf("\"reads\":[");
	for (size_t i = 0; i < f->nreads; i++) {
		const ss_fetch_read *x = &f->reads[i];

		printf("%s{\"did\":", i ? "," : "");
		cli_print_json_string(x->did);
		printf(",\"path\":");
		cli_print_json_string(x->path);
		printf(",\"verified\":%s,\"fallback\":", x->verified ? "true" : "false");
		cli_print_json_string(x->fallback);
		putchar('}');
	}
	putchar(']');
}

/* "failed": each member that could not be read, or whose read was refused, and why. */
static void json_failed(const ss_fetch_result *f)
{
	printf(",\"failed\":[");
	for (size_t i = 0; i < f->nfailed; i++) {
		printf("%s{\"did\":", i ? "," : "");
		cli_print_json_string(f->failed[i].did);
		printf(",\"reason\":");
		cli_print_json_string(f->failed[i].why);
		putchar('}');
	}
	putchar(']');
}

void cli_pull_print_json(const cli_pull_run *run, const ss_error *err)
{
	const ss_pull_result *r = &run->result;
	const ss_fetch_result *f = &r->fetch;
	char hex[SS_OID_HEXSZ + 1];

	printf("{\"recovered\":{\"merge\":%s,\"fetch\":%s,\"push\":%zu},",
	       run->recovered.merge ? "true" : "false", run->recovered.fetch ? "true" : "false",
	       run->recovered.push);
	printf("\"fetch\":{\"changed\":%s,\"listed\":%zu,\"records\":%zu,\"skipped\":%zu,"
	       "\"refused\":%zu,"
	       "\"added\":%zu,\"updated\":%zu,\"removed\":%zu,\"tracking\":",
	       f->changed ? "true" : "false", f->listed, f->records, f->skipped, f->refused,
	       f->added, f->updated, f->removed);
	if (ss_oid_is_zero(&r->tracking)) {
		printf("null");
	} else {
		ss_oid_fmt(hex, &r->tracking);
		printf("\"%s\"", hex);
	}
	printf(",\"changes\":");
	json_change_list(&r->fetched);
	printf(",\"skips\":[");
	for (size_t i = 0; i < run->nskips; i++) {
		const cli_pull_skip *s = &run->skips[i];
		printf("%s{\"did\":", i ? "," : "");
		cli_print_json_string(s->did);
		printf(",\"rkey\":");
		cli_print_json_string(s->rkey);
		printf(",\"reason\":");
		cli_print_json_string(s->reason);
		printf(",\"refused\":%s}", s->refused ? "true" : "false");
	}
	printf("],\"listings\":{\"full\":%zu,\"incremental\":%zu,\"fallback\":%zu},",
	       f->full_listings, f->incremental_listings, f->fallbacks);
	json_reads(f);
	json_failed(f);
	putchar('}');
	if (run->merge) {
		printf(",\"merge\":{\"result\":\"%s\",\"head\":", merge_word(run, err));
		if (r->merge_ran && !ss_oid_is_zero(&r->merge.head)) {
			ss_oid_fmt(hex, &r->merge.head);
			printf("\"%s\"", hex);
		} else {
			printf("null");
		}
		printf(",\"changes\":");
		json_change_list(&r->merged);
		printf(",\"paths\":[");
		for (size_t i = 0; r->merge_ran && i < r->merge.npaths; i++) {
			printf("%s", i ? "," : "");
			cli_print_json_string(r->merge.paths[i]);
		}
		printf("]");
		printf(",\"waiting\":%zu,\"held\":[", cli_pull_waiting(run));
		for (size_t i = 0; i < run->held.count; i++) {
			const ss_review_item *it = &run->held.items[i];

			printf("%s{\"name\":", i ? "," : "");
			cli_print_json_string(it->hold.name);
			printf(",\"did\":");
			cli_print_json_string(it->hold.did);
			printf(",\"handle\":");
			cli_print_json_string(it->handle);
			printf(",\"cid\":");
			cli_print_json_string(it->hold.cid);
			printf(",\"reason\":");
			cli_print_json_string(it->hold.reason);
			printf(",\"new\":%s,\"rejected\":%s,\"replaced\":%s}",
			       it->hold.kept_tree ? "false" : "true",
			       it->hold.rejected ? "true" : "false",
			       replaced(run, it) ? "true" : "false");
		}
		printf("]}");
	}
	printf(",\"requests\":%llu,\"bytes\":%llu,\"error\":", (unsigned long long)run->requests,
	       (unsigned long long)run->bytes);
	if (err) {
		printf("{\"code\":\"%s\",\"message\":", ss_error_name(err->code));
		cli_print_json_string(err->message);
		putchar('}');
	} else {
		printf("null");
	}
	printf("}\n");
	fflush(stdout);
}
