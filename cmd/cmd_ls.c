/* cmd_ls.c: `skillsync ls [--json]`: the view, with where each skill comes from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/diff/provenance.h"
#include "core/state/state.h"
#include "core/state/state_record.h"
#include "core/util/mem.h"

/* One skill of the listing: read in the state's read transaction, printed after it. */
typedef struct ls_row {
	char *name;
	ss_provenance p;
	ss_state_hold hold;
	int held;
	bool pinned;
} ls_row;

typedef struct ls_ctx {
	bool json;
	cli_member_list members;
	cli_gate_marks gate;
	ls_row *rows;
	size_t nrows, rows_alloc;
	ss_ctx *ctx; /* for colours and the holds */
} ls_ctx;

static int on_entry(const ss_state_view_entry *e, void *payload)
{
	ls_ctx *l = payload;
	ls_row row;

	memset(&row, 0, sizeof(row));
	if (ss_provenance_load(l->ctx->state, e->rkey, &row.p, &l->ctx->err) < 0)
		return -1;
	if (!row.p.nvalid) {
		ss_provenance_release(&row.p);
		return 0;
	}
	if ((row.held = cli_gate_hold(l->ctx, &l->gate, e->rkey, &row.hold)) < 0) {
		ss_provenance_release(&row.p);
		return -1;
	}
	row.pinned = cli_gate_pinned(&l->gate, e->rkey);
	row.name = ss_xstrdup(e->rkey);
	ss_xgrow((void **)&l->rows, sizeof(*l->rows), l->nrows + 1, &l->rows_alloc);
	l->rows[l->nrows++] = row;
	return 0;
}

/* The members, the gate's marks and every skill of the view in one read transaction, which
 * ends before anything is printed (output may block: the state is not held meanwhile). */
static int read_view(ls_ctx *l)
{
	ss_ctx *ctx = l->ctx;
	int ret;

	if (ss_state_read_begin(ctx->state, &ctx->err) < 0)
		return -1;
	ret = cli_members_load(ctx, &l->members) < 0 || cli_gate_marks_load(ctx, &l->gate) < 0 ||
	              ss_state_view_each(ctx->state, on_entry, l, &ctx->err) < 0
	          ? -1
	          : 0;
	ss_state_read_end(ctx->state);
	return ret;
}

/* The rows as a JSON array, one skill a line. */
static void print_json(ls_ctx *l)
{
	cli_json w;

	cli_json_init(&w, stdout);
	w.style = CLI_JSON_FLAT;
	cli_json_array(&w, NULL);
	w.style = CLI_JSON_COMPACT;
	for (size_t i = 0; i < l->nrows; i++)
		cli_provenance_json(&w, l->rows[i].name, &l->members, &l->rows[i].p,
		                    l->rows[i].pinned, l->rows[i].held ? &l->rows[i].hold : NULL);
	cli_json_finish(&w);
}

static void print_row(ls_ctx *l, const ls_row *row)
{
	const ss_provenance *p = &row->p;
	const ss_provenance_version *w = &p->versions[0];
	ss_buf name = SS_BUF_INIT, who = SS_BUF_INIT, when = SS_BUF_INIT;

	printf("%s%-24s%s %-9s %-28s %s", cli_color(l->ctx, CLI_BOLD), cli_safe(&name, row->name),
	       cli_color(l->ctx, CLI_RESET), ss_view_why_name(w->why),
	       cli_safe(&who, cli_who(&l->members, w->did)),
	       w->updated_at ? cli_safe(&when, w->updated_at) : "-");
	if (p->count > 1) {
		printf("  %sshadows%s ", cli_color(l->ctx, CLI_YELLOW),
		       cli_color(l->ctx, CLI_RESET));
		for (size_t j = 1; j < p->count; j++)
			printf("%s%s%s", j > 1 ? ", " : "",
			       cli_safe(&who, cli_who(&l->members, p->versions[j].did)),
			       p->versions[j].valid ? "" : " (invalid)");
	}
	if (row->pinned)
		printf("  %spinned%s", cli_color(l->ctx, CLI_YELLOW), cli_color(l->ctx, CLI_RESET));
	if (row->held) {
		printf("  %s%s%s (", cli_color(l->ctx, CLI_YELLOW),
		       row->hold.rejected ? "held, rejected" : "held for review",
		       cli_color(l->ctx, CLI_RESET));
		cli_print_safe(stdout, row->hold.reason);
		putchar(')');
	}
	putchar('\n');
	ss_buf_release(&name);
	ss_buf_release(&who);
	ss_buf_release(&when);
}

static int cmd_ls(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_ls_def = {
    "ls", cmd_ls, "list the skills in the view and where they come from",
    "usage: skillsync ls [--json] [--color[=<when>]]\n"
    "\n"
    "One line per skill in the view: its name, why its version wins (mine, authority,\n"
    "newest), who wrote it, when it was updated, the versions it shadows, and 'pinned' or\n"
    "'held for review (<why>)' when the review gate keeps the view's version out of main\n"
    "('skillsync review' shows it).\n"
    "\n"
    "    --color[=<when>]  colour the names: always, never or auto (the default: on a\n"
    "              terminal, unless $NO_COLOR is set; docs/CONFIG.md)\n"
    "    --json    print a JSON array of {name, winner, shadows, pinned, held}\n"};

static int cmd_ls(ss_ctx *ctx, int argc, char **argv)
{
	ls_ctx l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	if ((ret = cli_color_json_only(ctx, argc, argv, &l.json)) != SS_EXIT_OK)
		return ret;
	if (cli_open_clone(ctx) < 0 || cli_color_init(ctx) < 0)
		return cli_fail(&ctx->err);
	if (read_view(&l) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (l.json)
		print_json(&l);
	for (size_t i = 0; !l.json && i < l.nrows; i++)
		print_row(&l, &l.rows[i]);
	if (!l.json && !l.nrows)
		fprintf(stderr, "no skills in this space yet\n");
	ret = SS_EXIT_OK;
out:
	for (size_t i = 0; i < l.nrows; i++) {
		free(l.rows[i].name);
		ss_state_hold_release(&l.rows[i].hold);
		ss_provenance_release(&l.rows[i].p);
	}
	free(l.rows);
	cli_gate_marks_release(&l.gate);
	cli_members_release(&l.members);
	return ret;
}
