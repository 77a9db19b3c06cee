/* ls.c: `skillsync ls [--json]`: the view, with where each skill comes from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/diff/provenance.h"
#include "core/state/state.h"
#include "core/state/state_record.h"

typedef struct ls_ctx {
	ss_state *st;
	bool json;
	cli_member_list members;
	cli_gate_marks gate;
	size_t count;
	ss_error *err;
	ss_ctx *ctx; /* for colours and the holds */
} ls_ctx;

static int on_entry(const ss_state_view_entry *e, void *payload)
{
	ls_ctx *l = payload;
	ss_provenance p;
	const ss_provenance_version *w;
	ss_state_hold hold;
	bool pinned = cli_gate_pinned(&l->gate, e->rkey);
	int held;

	if (ss_provenance_load(l->st, e->rkey, &p, l->err) < 0)
		return -1;
	if (!p.nvalid) {
		ss_provenance_release(&p);
		return 0;
	}
	if ((held = cli_gate_hold(l->ctx, &l->gate, e->rkey, &hold)) < 0) {
		ss_provenance_release(&p);
		return -1;
	}
	w = &p.versions[0];
	if (l->json) {
		printf("%s\n", l->count ? "," : "");
		cli_print_json_provenance(e->rkey, &l->members, &p, pinned, held ? &hold : NULL);
	} else {
		ss_buf name = SS_BUF_INIT, who = SS_BUF_INIT, when = SS_BUF_INIT;

		printf("%s%-24s%s %-9s %-28s %s", cli_color(l->ctx, CLI_BOLD),
		       cli_safe(&name, e->rkey), cli_color(l->ctx, CLI_RESET),
		       ss_view_why_name(w->why), cli_safe(&who, cli_who(&l->members, w->did)),
		       w->updated_at ? cli_safe(&when, w->updated_at) : "-");
		if (p.count > 1) {
			printf("  %sshadows%s ", cli_color(l->ctx, CLI_YELLOW),
			       cli_color(l->ctx, CLI_RESET));
			for (size_t i = 1; i < p.count; i++)
				printf("%s%s%s", i > 1 ? ", " : "",
				       cli_safe(&who, cli_who(&l->members, p.versions[i].did)),
				       p.versions[i].valid ? "" : " (invalid)");
		}
		if (pinned)
			printf("  %spinned%s", cli_color(l->ctx, CLI_YELLOW),
			       cli_color(l->ctx, CLI_RESET));
		if (held) {
			printf("  %s%s%s (", cli_color(l->ctx, CLI_YELLOW),
			       hold.rejected ? "held, rejected" : "held for review",
			       cli_color(l->ctx, CLI_RESET));
			cli_print_safe(stdout, hold.reason);
			putchar(')');
		}
		putchar('\n');
		ss_buf_release(&name);
		ss_buf_release(&who);
		ss_buf_release(&when);
	}
	l->count++;
	ss_state_hold_release(&hold);
	ss_provenance_release(&p);
	return 0;
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
	l.st = ctx->state;
	l.err = &ctx->err;
	if (cli_members_load(ctx, &l.members) < 0 || cli_gate_marks_load(ctx, &l.gate) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (l.json)
		printf("[");
	ret = ss_state_view_each(ctx->state, on_entry, &l, &ctx->err);
	if (l.json)
		printf("%s]\n", l.count ? "\n" : "");
	if (ret < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (!l.json && !l.count)
		fprintf(stderr, "no skills in this space yet\n");
	ret = SS_EXIT_OK;
out:
	cli_gate_marks_release(&l.gate);
	cli_members_release(&l.members);
	return ret;
}
