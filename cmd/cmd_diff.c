/*
 * cmd_diff.c: `skillsync diff [--staged | --pushed] [--stat] [--json] [<skill>...]`: a summary per
 * skill (created / updated / deleted; files added, removed, changed; lines), then the unified
 * diff. --pushed compares the space's view (tracking commit) with HEAD: what `push` sends.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/diff/outgoing.h"
#include "core/git/commit.h"
#include "core/git/worktree.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "sync/push.h"

typedef enum side { SIDE_WORKDIR, SIDE_STAGED, SIDE_PUSHED } side;

/* One top-level name of the diff with its files. */
typedef struct group {
	const char *name;
	const char *change; /* "created", "updated", "deleted" */
	bool outside;
	const ss_outgoing_item *item; /* --pushed: the write, NULL when none is sent */
	size_t first, count;          /* its files in the changes */
	size_t added, removed, changed, plus, minus;
} group;

typedef struct diff_run {
	ss_ctx *ctx;
	side side;
	bool stat, json;
	char **names;
	size_t nnames, anames;
	ss_status status;
	ss_outgoing *out;
	ss_oid old_tree, new_tree;
	bool have_old, have_new;
	ss_changes changes;
	group *groups;
	size_t ngroups, agroups;
} diff_run;

static const char *kind_change(ss_status_kind k)
{
	return k == SS_STATUS_NEW ? "created" : k == SS_STATUS_DELETED ? "deleted" : "updated";
}

static size_t top_len(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash ? (size_t)(slash - path) : strlen(path);
}

/* HEAD's tree; *have false before the first commit. */
static int head_tree(ss_ctx *ctx, ss_oid *tree, bool *have)
{
	ss_oid c;
	int rc;

	*have = false;
	rc = ss_commit_read_ref(ctx->repo, "HEAD", &c, &ctx->err);
	if (rc < 0 && ctx->err.code == SS_ENOTFOUND)
		return 0;
	if (rc < 0 || ss_commit_tree(ctx->repo, &c, tree, &ctx->err) < 0)
		return -1;
	*have = true;
	return 0;
}

/*
 * --pushed: the outgoing writes (ss_push_preview: refused, like push, when main has not merged
 * the view); the paths are the changed skills (outside files never go).
 */
static int load_pushed(diff_run *d, char ***paths, size_t *npaths)
{
	ss_push_plan pv;
	int rc;

	rc = ss_push_preview(d->ctx->repo, d->ctx->state, ss_time_now() / 1000, SS_OUTGOING_NOTES,
	                     &pv, &d->ctx->err);
	d->out = pv.outgoing;
	pv.outgoing = NULL;
	if (rc == 0 && !ss_oid_is_zero(&pv.tracking) &&
	    ss_commit_tree(d->ctx->repo, &pv.tracking, &d->old_tree, &d->ctx->err) < 0)
		rc = -1;
	d->have_old = rc == 0 && !ss_oid_is_zero(&pv.tracking);
	if (rc == 0 && ss_commit_tree(d->ctx->repo, &pv.head, &d->new_tree, &d->ctx->err) < 0)
		rc = -1;
	d->have_new = rc == 0;
	ss_push_plan_release(&pv);
	if (rc < 0)
		return -1;
	{
		const ss_plan *plan = ss_outgoing_plan(d->out);
		size_t n = ss_outgoing_count(d->out) + ss_plan_notice_count(plan);

		*paths = ss_xcalloc(2 * n + 1, sizeof(**paths));
		for (size_t i = 0; i < ss_outgoing_count(d->out); i++) {
			const ss_plan_write *w = ss_outgoing_get(d->out, i)->write;
			(*paths)[(*npaths)++] = w->name;
			if (w->renamed_from)
				(*paths)[(*npaths)++] = w->renamed_from;
		}
		for (size_t i = 0; i < ss_plan_notice_count(plan); i++)
			if (ss_plan_notice_get(plan, i)->kind == SS_PLAN_NOT_MINE)
				(*paths)[(*npaths)++] = ss_plan_notice_get(plan, i)->name;
	}
	return 0;
}

static void set_change(diff_run *d, group *g)
{
	g->change = "updated";
	if (d->side == SIDE_PUSHED) {
		for (size_t i = 0; i < ss_outgoing_count(d->out); i++) {
			const ss_outgoing_item *it = ss_outgoing_get(d->out, i);
			if (!strcmp(it->write->name, g->name))
				g->item = it;
		}
		g->change = g->item ? (g->item->write->op == SS_WRITE_CREATE   ? "created"
		                       : g->item->write->op == SS_WRITE_UPDATE ? "updated"
		                                                               : "deleted")
		                    : "deleted";
		return;
	}
	for (size_t i = 0; i < d->status.count; i++) {
		const ss_status_entry *e = &d->status.entries[i];
		if (strcmp(e->name, g->name))
			continue;
		g->outside = e->outside;
		g->change = kind_change(d->side == SIDE_STAGED ? e->staged : e->unstaged);
	}
}

static void group_changes(diff_run *d)
{
	for (size_t i = 0; i < d->changes.count; i++) {
		const ss_change *c = &d->changes.items[i];
		size_t len = top_len(c->path);
		group *g = d->ngroups ? &d->groups[d->ngroups - 1] : NULL;

		if (!g || strlen(g->name) != len || memcmp(g->name, c->path, len)) {
			char *name = ss_xmalloc(len + 1);
			memcpy(name, c->path, len);
			name[len] = '\0';
			ss_xgrow((void **)&d->groups, sizeof(*d->groups), d->ngroups + 1,
			         &d->agroups);
			g = &d->groups[d->ngroups++];
			memset(g, 0, sizeof(*g));
			g->name = name;
			g->first = i;
			set_change(d, g);
		}
		g->count++;
		g->added += c->kind == SS_CHANGE_ADDED;
		g->removed += c->kind == SS_CHANGE_REMOVED;
		g->changed += c->kind == SS_CHANGE_MODIFIED;
		g->plus += c->added_lines;
		g->minus += c->removed_lines;
	}
}

static const char *file_path(const ss_change *c)
{
	const char *slash = strchr(c->path, '/');
	return slash ? slash + 1 : c->path;
}

/* The summary: names and paths are a member's words, through the escape rule. */
static void print_text(const diff_run *d)
{
	ss_buf text = SS_BUF_INIT;

	for (size_t i = 0; i < d->ngroups; i++) {
		const group *g = &d->groups[i];

		printf("%s%s: %s (", cli_safe(&text, g->name), g->outside ? "" : "/", g->change);
		if (g->added)
			printf("%zu added%s", g->added, g->removed || g->changed ? ", " : "");
		if (g->removed)
			printf("%zu removed%s", g->removed, g->changed ? ", " : "");
		if (g->changed)
			printf("%zu changed", g->changed);
		printf("; +%zu -%zu)", g->plus, g->minus);
		if (g->outside)
			printf("  outside skills: never pushed");
		if (d->side == SIDE_PUSHED && !g->item)
			printf("  not yours: nothing sent");
		else if (g->item && g->item->write->renamed_from)
			printf("  renamed from %s", cli_safe(&text, g->item->write->renamed_from));
		else if (g->item && g->item->write->based_on)
			printf("  your own version of %s's",
			       cli_safe(&text, g->item->write->based_on));
		putchar('\n');
		for (size_t j = g->first; j < g->first + g->count; j++) {
			const ss_change *c = &d->changes.items[j];
			printf("  %c %s", "?ADM"[c->kind], cli_safe(&text, file_path(c)));
			if (c->binary)
				printf(" (binary)\n");
			else
				printf(" (+%zu -%zu)\n", c->added_lines, c->removed_lines);
		}
	}
	ss_buf_release(&text);
}

static void json_files(cli_json *w, const diff_run *d, const group *g)
{
	static const char *kinds[] = {"", "added", "removed", "changed"};

	cli_json_array(w, "files");
	for (size_t j = g->first; j < g->first + g->count; j++) {
		const ss_change *c = &d->changes.items[j];

		cli_json_object(w, NULL);
		cli_json_str(w, "path", file_path(c));
		cli_json_str(w, "change", kinds[c->kind]);
		cli_json_int(w, "added", c->added_lines);
		cli_json_int(w, "removed", c->removed_lines);
		cli_json_bool(w, "binary", c->binary);
		cli_json_end(w);
	}
	cli_json_end(w);
}

static void json_group(cli_json *w, const diff_run *d, const group *g)
{
	cli_json_object(w, NULL);
	cli_json_str(w, "name", g->name);
	cli_json_str(w, "change", g->change);
	cli_json_bool(w, "outside", g->outside);
	if (d->side == SIDE_PUSHED) {
		cli_json_str(w, "op", g->item ? ss_plan_op_name(g->item->write->op) : NULL);
		cli_json_str(w, "note", g->item ? g->item->note : NULL);
	}
	cli_json_int(w, "added", g->added);
	cli_json_int(w, "removed", g->removed);
	cli_json_int(w, "changed", g->changed);
	cli_json_object(w, "lines");
	cli_json_int(w, "added", g->plus);
	cli_json_int(w, "removed", g->minus);
	cli_json_end(w);
	json_files(w, d, g);
	cli_json_end(w);
}

static void print_json(const diff_run *d)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_array(&w, NULL);
	for (size_t i = 0; i < d->ngroups; i++)
		json_group(&w, d, &d->groups[i]);
	cli_json_finish(&w);
}

static int parse(diff_run *d, int argc, char **argv)
{
	bool dashdash = false, staged = false, pushed = false;
	int used, rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!dashdash &&
		    ((rc = cli_color_json_option(d->ctx, a, &d->json, &used)) || used)) {
			if (rc)
				return rc;
		} else if (!dashdash && (!strcmp(a, "--staged") || !strcmp(a, "--cached")))
			staged = true;
		else if (!dashdash && !strcmp(a, "--pushed"))
			pushed = true;
		else if (!dashdash && !strcmp(a, "--stat"))
			d->stat = true;
		else if (!dashdash && !strcmp(a, "--"))
			dashdash = true;
		else if (!dashdash && a[0] == '-')
			return cli_usage_error(d->ctx, "unknown option '%s'", a);
		else {
			ss_xgrow((void **)&d->names, sizeof(*d->names), d->nnames + 1, &d->anames);
			d->names[d->nnames++] = ss_xstrndup(a, cli_path_len(a));
		}
	}
	if (staged && pushed)
		return cli_usage_error(d->ctx, "--staged and --pushed cannot be used together");
	d->side = pushed ? SIDE_PUSHED : staged ? SIDE_STAGED : SIDE_WORKDIR;
	return SS_EXIT_OK;
}

static bool named(const diff_run *d, const char *name)
{
	for (size_t i = 0; i < d->nnames; i++)
		if (!strcmp(d->names[i], name))
			return true;
	return false;
}

static int cmd_diff(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_diff_def = {
    "diff", cmd_diff, "show changes by skill, then as a unified diff",
    "usage: skillsync diff [--staged | --pushed] [--stat] [--json] [--color[=<when>]] [--]\n"
    "                      [<skill>...]\n"
    "\n"
    "Without an option: the working tree against the index (what 'commit' would stage).\n"
    "A summary per skill (created, updated or deleted; files added, removed, changed; lines)\n"
    "comes first, each file marked A (added), M (modified) or D (deleted) as in git, then\n"
    "the unified diff.\n"
    "\n"
    "    --staged    the index against HEAD (also --cached)\n"
    "    --pushed    what 'push' would send: the space's view (tracking ref) against HEAD;\n"
    "                like push, refused (exit 3) while a fetch is not merged: pull first\n"
    "    --stat      the summary only\n"
    "    --color[=<when>]  colour the diff: always, never or auto (the default: on a\n"
    "                terminal, unless $NO_COLOR is set; docs/CONFIG.md)\n"
    "    --json      the summary as JSON: [{name, change, files: [{path, change, added,\n"
    "                removed}]}] (with --pushed also op and note per skill)\n"};

static int cmd_diff(ss_ctx *ctx, int argc, char **argv)
{
	diff_run d;
	char **pushed_paths = NULL;
	const char **paths = NULL;
	size_t npaths = 0, npushed = 0;
	ss_diff_kind kind;
	ss_buf patch = SS_BUF_INIT;
	int ret;

	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	if ((ret = parse(&d, argc, argv)) != SS_EXIT_OK)
		goto out;
	ret = SS_EXIT_ERROR;
	if (cli_open_clone(ctx) < 0 || cli_color_init(ctx) < 0)
		goto fail;
	if (d.side == SIDE_PUSHED) {
		if (load_pushed(&d, &pushed_paths, &npushed) < 0)
			goto fail;
		paths = ss_xcalloc(npushed + 1, sizeof(*paths));
		for (size_t i = 0; i < npushed; i++)
			if (!d.nnames || named(&d, pushed_paths[i]))
				paths[npaths++] = pushed_paths[i];
		kind = SS_DIFF_TREES;
		if (!npaths)
			goto print;
	} else {
		if (cli_status_refresh(ctx, NULL, 0, &d.status) < 0)
			goto fail;
		if (d.side == SIDE_STAGED && head_tree(ctx, &d.old_tree, &d.have_old) < 0)
			goto fail;
		paths = ss_xcalloc(d.nnames + d.status.count + 1, sizeof(*paths));
		for (size_t i = 0; i < d.nnames; i++)
			paths[npaths++] = d.names[i];
		kind = d.side == SIDE_STAGED ? SS_DIFF_TREE_INDEX : SS_DIFF_INDEX_WORKDIR;
		if (!d.nnames) {
			/* what the status found changed on that side, taken literally: the diff
			 * walks those names only */
			for (size_t i = 0; i < d.status.count; i++) {
				const ss_status_entry *e = &d.status.entries[i];
				if ((d.side == SIDE_STAGED ? e->staged : e->unstaged) !=
				    SS_STATUS_NONE)
					paths[npaths++] = e->name;
			}
			if (!npaths)
				goto print;
			kind = (ss_diff_kind)(kind | SS_DIFF_LITERAL);
		}
	}
	if (ss_worktree_diff_stat(ctx->repo, kind, d.have_old ? &d.old_tree : NULL,
	                          d.have_new ? &d.new_tree : NULL, paths, npaths, &d.changes,
	                          d.stat || d.json ? NULL : &patch, &ctx->err) < 0)
		goto fail;
	group_changes(&d);
print:
	if (d.json) {
		print_json(&d);
	} else {
		print_text(&d);
		if (patch.len) {
			putchar('\n');
			cli_print_patch(ctx, patch.ptr, patch.len);
		}
	}
	ret = SS_EXIT_OK;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	for (size_t i = 0; i < d.ngroups; i++)
		free((char *)(uintptr_t)d.groups[i].name);
	free(d.groups);
	for (size_t i = 0; i < d.nnames; i++)
		free(d.names[i]);
	free(d.names);
	free(paths);
	free(pushed_paths);
	ss_tree_changes_release(&d.changes);
	ss_worktree_status_release(&d.status);
	ss_outgoing_free(d.out);
	ss_buf_release(&patch);
	return ret;
}
