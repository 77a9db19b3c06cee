/*
 * cmd_review.c: `skillsync review [--json] [<skill>...]`: the changes the review gate holds back
 * (sync/review.h): each skill, who changed it, when, the record's note, the files, why it
 * waits; with skill names also the change itself as a diff against main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/review.h"

static const char *file_mark(ss_change_kind k)
{
	return k == SS_CHANGE_ADDED ? "A" : k == SS_CHANGE_REMOVED ? "D" : "M";
}

static const char *file_word(ss_change_kind k)
{
	return k == SS_CHANGE_ADDED ? "added" : k == SS_CHANGE_REMOVED ? "removed" : "changed";
}

static void print_text(const ss_review_item *it)
{
	const ss_state_hold *h = &it->hold;
	char id[SS_OID_HEXSZ + 1];

	printf("%s", h->rejected ? "rejected " : "");
	cli_print_safe(stdout, h->name);
	if (h->did) {
		printf(": ");
		cli_print_safe(stdout, it->handle ? it->handle : h->did);
		printf("'s version (");
		cli_print_safe(stdout, h->did);
		printf(")");
	} else {
		printf(": removed from the space");
	}
	if (h->updated_at) {
		printf(", ");
		cli_print_safe(stdout, h->updated_at);
	}
	printf("\n    held: ");
	cli_print_safe(stdout, h->reason);
	printf("%s\n", h->kept_tree ? "" : " (new skill)");
	ss_review_version(h, false, id);
	printf("    version: %s%s\n", id,
	       h->seen == SS_SEEN_EARLIER ? " (newer than the one review showed before)" : "");
	if (it->note) {
		printf("    note: ");
		cli_print_note(stdout, it->note, 200);
		putchar('\n');
	}
	for (size_t i = 0; i < it->files.count; i++) {
		printf("    %s ", file_mark(it->files.items[i].kind));
		cli_print_safe(stdout, it->files.items[i].path);
		if (it->files.items[i].new_mode == 0100755u)
			printf(" (executable)");
		putchar('\n');
	}
	for (size_t i = 0; i < it->findings.n; i++) {
		printf("    ");
		cli_audit_print_finding(&it->findings.findings[i]);
	}
}

static void json_item(cli_json *w, const ss_review_item *it)
{
	const ss_state_hold *h = &it->hold;
	char id[SS_OID_HEXSZ + 1];

	ss_review_version(h, true, id);
	cli_json_object(w, NULL);
	cli_json_str(w, "name", h->name);
	cli_json_str(w, "did", h->did);
	cli_json_str(w, "handle", it->handle);
	cli_json_str(w, "cid", h->cid);
	cli_json_str(w, "updatedAt", h->updated_at);
	cli_json_str(w, "note", it->note);
	cli_json_str(w, "reason", h->reason);
	cli_json_str(w, "version", id);
	cli_json_bool(w, "new", !h->kept_tree);
	cli_json_bool(w, "rejected", h->rejected);
	cli_json_array(w, "files");
	for (size_t i = 0; i < it->files.count; i++) {
		cli_json_object(w, NULL);
		cli_json_str(w, "path", it->files.items[i].path);
		cli_json_str(w, "change", file_word(it->files.items[i].kind));
		cli_json_bool(w, "executable", it->files.items[i].new_mode == 0100755u);
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_array(w, "findings");
	for (size_t i = 0; i < it->findings.n; i++)
		cli_audit_json_finding(w, &it->findings.findings[i]);
	cli_json_end(w);
	cli_json_end(w);
}

static void print_json(const ss_review_items *l)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_array(&w, NULL);
	for (size_t i = 0; i < l->count; i++)
		json_item(&w, &l->items[i]);
	cli_json_finish(&w);
	fflush(stdout);
}

/* Each change; with names (diffs) also its diff against main. */
static int print_list(ss_ctx *ctx, const ss_review_items *l, bool diffs, ss_buf *patch)
{
	if (!l->count)
		printf("No change waits for review.\n");
	for (size_t i = 0; i < l->count; i++) {
		print_text(&l->items[i]);
		if (!diffs)
			continue;
		ss_buf_clear(patch);
		if (ss_review_diff(ctx->repo, &l->items[i], patch, &ctx->err) < 0)
			return -1;
		if (patch->len) {
			putchar('\n');
			cli_print_patch(ctx, patch->ptr, patch->len);
		}
	}
	if (l->count && !diffs)
		printf(
		    "\n'skillsync review <skill>' shows a change, 'skillsync accept <skill>' takes "
		    "it into main.\n");
	fflush(stdout);
	return 0;
}

static int cmd_review(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_review_def = {
    "review", cmd_review, "show the changes that wait for review",
    "usage: skillsync review [--json] [<skill>...]\n"
    "\n"
    "Lists the changes others made that pull fetched but holds back for review (setting\n"
    "review.policy, docs/CONFIG.md; pinned skills): each skill, who changed it (handle and\n"
    "DID), when, the record's note, why it waits, and the files added (A), changed (M) or\n"
    "removed (D), and the version's id. With skill names, also the change itself as a diff\n"
    "against main. Held versions are in the tracking ref (refs/remotes/space/main), never in\n"
    "main, your files or an agent's folder; 'skillsync accept' takes in the version review\n"
    "showed (a newer one a pull brings later must be reviewed again), 'skillsync reject'\n"
    "stops the reminder until that member changes the skill again.\n"
    "\n"
    "    --json   the changes as a JSON array: [{name, did, handle, cid, updatedAt, note,\n"
    "             reason, version (the id 'accept <skill>@<version>' takes), new, rejected,\n"
    "             files: [{path, change, executable}], findings: [{skill, path, line, rule,\n"
    "             level, message, excerpt}] as 'skillsync audit' finds them in the files the\n"
    "             held version brings}]\n"};

static int cmd_review(ss_ctx *ctx, int argc, char **argv)
{
	const char **names = ss_xcalloc((size_t)argc + 1, sizeof(*names));
	ss_review_items l = {NULL, 0};
	ss_buf patch = SS_BUF_INIT;
	ss_lock *lock = NULL;
	size_t nnames = 0;
	bool json = false;
	int ret = SS_EXIT_OK;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-') {
			free(names);
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else
			names[nnames++] = argv[i];
	}
	/* under the lock: what review shows is recorded in the state (accept takes only that) */
	if (cli_open_clone(ctx) < 0 || cli_color_init(ctx) < 0 ||
	    cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    ss_review_list(ctx->repo, ctx->state, names, nnames, true, &l, &ctx->err) < 0)
		goto fail;
	if (json)
		print_json(&l);
	else if (print_list(ctx, &l, nnames > 0, &patch) < 0)
		goto fail;
	if (ss_review_shown(ctx->state, &l, &ctx->err) == 0)
		goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_lock_free(lock);
	free(names);
	ss_buf_release(&patch);
	ss_review_items_release(&l);
	return ret;
}
