/*
 * status_print.c: `status` as text (git's layout: the branch against the space, then the
 * changes staged, unmerged and not staged) or as one JSON object (see cmd/status_print.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/json_out.h"
#include "cmd/status_print.h"

static const char *kind_name(ss_status_kind k)
{
	switch (k) {
	case SS_STATUS_NEW:
		return "new";
	case SS_STATUS_MODIFIED:
		return "modified";
	case SS_STATUS_DELETED:
		return "deleted";
	default:
		return "";
	}
}

static void print_side(const ss_ctx *ctx, const ss_status *s, bool staged)
{
	ss_buf text = SS_BUF_INIT;
	bool header = false;

	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];
		ss_status_kind k = staged ? e->staged : e->unstaged;

		if (!k)
			continue;
		if (!header) {
			printf("%s\n", staged ? "Changes staged for commit:"
			                      : "Changes not staged for commit:");
			header = true;
		}
		/* git's colours: staged green, not staged red */
		printf("  %s%-9s %s%s%s%s%s\n", cli_color(ctx, staged ? CLI_GREEN : CLI_RED),
		       kind_name(k), cli_safe(&text, e->name), e->file ? "" : "/",
		       cli_color(ctx, CLI_RESET),
		       e->outside ? "  (outside skills: never pushed)" : "",
		       e->conflicted ? "  (conflict)" : "");
	}
	if (header)
		putchar('\n');
	ss_buf_release(&text);
}

/* git's "Unmerged paths", by skill: each conflicted file and what each side did to it. */
static void print_unmerged(const ss_ctx *ctx, const ss_status *s)
{
	ss_buf text = SS_BUF_INIT;
	bool any = false;

	for (size_t i = 0; i < s->count; i++)
		any |= s->entries[i].nconflicts > 0;
	if (!any)
		return;
	printf("Unmerged paths:\n"
	       "  (edit each file: keep what is right and remove the <<<<<<<, ======= and >>>>>>>\n"
	       "   lines, or delete the file to keep a deletion; then run 'skillsync commit')\n");
	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];

		if (!e->nconflicts)
			continue;
		printf("  %s%s%s%s  (%zu conflicted file%s)\n", cli_color(ctx, CLI_RED),
		       cli_safe(&text, e->name), e->file ? "" : "/", cli_color(ctx, CLI_RESET),
		       e->nconflicts, e->nconflicts == 1 ? "" : "s");
		for (size_t j = 0; j < e->nconflicts; j++)
			printf("    %-15s %s\n",
			       ss_worktree_conflict_kind_name(e->conflicts[j].kind),
			       cli_safe(&text, e->conflicts[j].path));
	}
	putchar('\n');
	ss_buf_release(&text);
}

static size_t count_ahead(const cli_status_run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ahead.count; i++)
		n += r->ahead.items[i].nparents <= 1;
	return n;
}

/* lines, one a line, as a JSON array of strings. */
static void json_lines(cli_json *w, const char *key, const char *lines)
{
	cli_json_array(w, key);
	for (const char *p = lines; *p;) {
		size_t n = strcspn(p, "\n");

		cli_json_strn(w, NULL, p, n);
		p += n + (p[n] == '\n');
	}
	cli_json_end(w);
}

static void json_unmerged(cli_json *w, const ss_status *s)
{
	cli_json_array(w, "unmerged");
	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];

		for (size_t j = 0; j < e->nconflicts; j++) {
			cli_json_object(w, NULL);
			cli_json_str(w, "name", e->name);
			cli_json_str(w, "path", e->conflicts[j].path);
			cli_json_str(w, "kind",
			             ss_worktree_conflict_kind_name(e->conflicts[j].kind));
			cli_json_end(w);
		}
	}
	cli_json_end(w);
}

static void json_changes(cli_json *w, const ss_status *s)
{
	cli_json_array(w, "changes");
	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];

		cli_json_object(w, NULL);
		cli_json_str(w, "name", e->name);
		cli_json_bool(w, "outside", e->outside);
		cli_json_str(w, "staged", kind_name(e->staged));
		cli_json_str(w, "unstaged", kind_name(e->unstaged));
		cli_json_bool(w, "conflicted", e->conflicted);
		cli_json_end(w);
	}
	cli_json_end(w);
}

/* What push would send, and the commits not pushed yet (merges left out). */
static void json_outgoing(cli_json *w, const cli_status_run *r)
{
	char hex[SS_OID_HEXSZ + 1];

	cli_json_array(w, "toPush");
	for (size_t i = 0; r->out && i < ss_outgoing_count(r->out); i++) {
		const ss_outgoing_item *it = ss_outgoing_get(r->out, i);

		cli_json_object(w, NULL);
		cli_json_str(w, "op", ss_plan_op_name(it->write->op));
		cli_json_str(w, "name", it->write->name);
		if (it->blobs)
			cli_json_int(w, "blobs", (intmax_t)it->blobs);
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_array(w, "unpushedCommits");
	for (size_t i = 0; i < r->ahead.count; i++) {
		const ss_commit_info *c = &r->ahead.items[i];

		if (c->nparents > 1)
			continue;
		ss_oid_fmt(hex, &c->oid);
		cli_json_object(w, NULL);
		cli_json_str(w, "id", hex);
		cli_json_str(w, "subject", c->subject);
		cli_json_end(w);
	}
	cli_json_end(w);
}

void cli_status_print_json(const cli_status_run *r)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_str(&w, "branch", "main");
	cli_json_bool(&w, "interrupted", r->interrupted);
	cli_json_str(&w, "blocked", r->blocked.len ? r->blocked.ptr : NULL);
	cli_json_array(&w, "pullPaths");
	for (size_t i = 0; i < r->s.napart; i++)
		cli_json_str(&w, NULL, r->s.apart[i]);
	cli_json_end(&w);
	cli_json_bool(&w, "merging", r->s.merging);
	json_changes(&w, &r->s);
	json_unmerged(&w, &r->s);
	json_outgoing(&w, r);
	cli_json_int(&w, "behind", r->behind);
	cli_json_int(&w, "waiting", r->waiting);
	cli_json_array(&w, "pinned");
	for (size_t i = 0; i < r->npinned; i++)
		cli_json_str(&w, NULL, r->pinned[i]);
	cli_json_end(&w);
	json_lines(&w, "notices", r->notices.ptr);
	json_lines(&w, "invalid", r->invalid.ptr);
	cli_refused_json(&w, "refused", r->out);
	cli_json_finish(&w);
}

/* Where main stands against the space, and a merge that waits. */
static void print_branch(const cli_status_run *r)
{
	size_t npush = r->out ? ss_outgoing_count(r->out) : 0, nahead = count_ahead(r);
	size_t nrefused = r->out ? ss_outgoing_refused_count(r->out) : 0;
	char hex[SS_OID_HEXSZ + 1];

	printf("On branch main\n");
	if (r->s.merging && r->nconflicts)
		printf("A merge waits to be concluded: fix the conflicts below, then run "
		       "'skillsync commit'.\n");
	else if (r->s.merging)
		printf("A merge waits to be concluded: all conflicts fixed; run 'skillsync "
		       "commit'.\n");
	if (npush) {
		printf("Your branch has %zu commit%s not yet pushed; push would send:", nahead,
		       nahead == 1 ? "" : "s");
		for (size_t i = 0; i < npush; i++) {
			const ss_outgoing_item *it = ss_outgoing_get(r->out, i);

			printf("%s %s %s", i ? "," : "", ss_plan_op_name(it->write->op),
			       it->write->name);
			if (it->blobs)
				printf(" (%zu file%s as blobs)", it->blobs,
				       it->blobs == 1 ? "" : "s");
		}
		printf("\n");
		for (size_t i = 0; i < r->ahead.count; i++) {
			const ss_commit_info *c = &r->ahead.items[i];
			if (c->nparents > 1)
				continue;
			ss_oid_fmt(hex, &c->oid);
			printf("  %.7s %s\n", hex, c->subject);
		}
	}
	if (nrefused) {
		printf("Push would refuse %zu skill%s, and send nothing until %s fixed:\n",
		       nrefused, nrefused == 1 ? "" : "s", nrefused == 1 ? "it is" : "they are");
		cli_refused_print(stdout, r->out, "  ");
	}
	if (r->behind && r->s.merging)
		printf("The space's view has %zu more change%s not merged into main: run "
		       "'skillsync pull' once the merge is committed\n",
		       r->behind, r->behind == 1 ? "" : "s");
	else if (r->behind)
		printf("The space's view has %zu change%s not merged into main: run 'skillsync "
		       "pull'\n",
		       r->behind, r->behind == 1 ? "" : "s");
	if (!npush && !r->behind && !r->s.merging)
		printf("Your branch is up to date with the space.\n");
	if (r->waiting)
		printf("%zu change%s of the space wait%s for review: run 'skillsync review'\n",
		       r->waiting, r->waiting == 1 ? "" : "s", r->waiting == 1 ? "s" : "");
	if (r->npinned) {
		printf("Pinned: ");
		for (size_t i = 0; i < r->npinned; i++) {
			printf("%s", i ? ", " : "");
			cli_print_safe(stdout, r->pinned[i]);
		}
		printf(" (others' changes wait for review; 'skillsync unpin' ends it)\n");
	}
}

/* A pull killed while it updated the files: what the next pull stops at, and the files it
 * was writing, set apart (they are the pull's, not the person's changes). */
static void print_interrupted(const cli_status_run *r)
{
	ss_buf safe = SS_BUF_INIT;

	printf("A pull was interrupted while it updated the files: run 'skillsync pull' to "
	       "finish it.\n");
	if (r->blocked.len)
		printf("It will stop at a change of yours: %s\n", cli_safe(&safe, r->blocked.ptr));
	if (r->s.napart) {
		printf("Files the interrupted pull was writing (its own, not your changes; "
		       "'skillsync pull' finishes them):\n");
		for (size_t i = 0; i < r->s.napart; i++)
			printf("  %s\n", cli_safe(&safe, r->s.apart[i]));
	}
	putchar('\n');
	ss_buf_release(&safe);
}

void cli_status_print_text(const cli_status_run *r)
{
	if (r->interrupted)
		print_interrupted(r);
	print_branch(r);
	if (r->notices.len)
		printf("%s", r->notices.ptr);
	if (!r->s.count && r->s.napart) {
		printf("nothing of yours to commit\n");
	} else if (!r->s.count) {
		printf("nothing to commit, working tree clean\n");
	} else {
		putchar('\n');
		print_side(r->ctx, &r->s, true);
		print_unmerged(r->ctx, &r->s);
		print_side(r->ctx, &r->s, false);
	}
	if (r->ninvalid)
		printf("Invalid skill%s ('skillsync commit' refuses %s):\n%s",
		       r->ninvalid == 1 ? "" : "s", r->ninvalid == 1 ? "it" : "them",
		       r->invalid.ptr);
}
