/* cmd_show.c: `skillsync show <name> [--json]`: every version of one skill, why one wins, and
 * what the review gate does with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/diff/provenance.h"

static const char *why_text(ss_view_why why)
{
	switch (why) {
	case SS_VIEW_MINE:
		return "wins: your own version";
	case SS_VIEW_AUTHORITY:
		return "wins: the authority's version (no valid version of yours)";
	case SS_VIEW_NEWEST:
		return "wins: the most recently updated (neither yours nor the "
		       "authority's)";
	default:
		return "invalid: never a candidate";
	}
}

/* What a shadowed version is: "a member's version" (kept beside the precedence class). */
static const char *kind_text(ss_view_why why)
{
	switch (why) {
	case SS_VIEW_MINE:
		return "your version";
	case SS_VIEW_AUTHORITY:
		return "the authority's version";
	default:
		return "a member's version";
	}
}

/* "    a member's version, shadowed by yours": what v is and what shadows it. */
static void print_shadowed(const cli_member_list *m, const ss_provenance_version *v,
                           const ss_provenance_version *winner)
{
	printf("    %s, shadowed by ", kind_text(v->why));
	switch (winner->why) {
	case SS_VIEW_MINE:
		printf("yours\n");
		return;
	case SS_VIEW_AUTHORITY:
		printf("the authority's\n");
		return;
	default:
		cli_print_safe(stdout, cli_who(m, winner->did));
		if (winner->updated_us == v->updated_us)
			printf("'s (updated at the same time: the smaller DID wins)\n");
		else
			printf("'s, updated later\n");
	}
}

/* "signed by <did> at rev <rev>": the member's commit every version of it was checked
 * against (sync/public/verify.h); nothing when the clone holds no verified revision for it. Only
 * for public repos: a permissioned space's full read is checked against the host's set hash, not a
 * signed commit (docs/SPACES.md), so there the line would claim too much. */
static void print_signed(const cli_member_list *m, const ss_provenance_version *v, ss_buf *text)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->list[i].did, v->did) && m->list[i].rev) {
			printf("    signed by %s", cli_safe(text, v->did));
			printf(" at rev %s\n", cli_safe(text, m->list[i].rev));
		}
}

/* The review gate's say on the skill: pinned, and which version is held and why. */
static void print_gate(const cli_member_list *m, const char *name, bool pinned,
                       const ss_state_hold *h, ss_buf *text)
{
	if (pinned)
		printf("  pinned: others' changes wait for review ('skillsync unpin %s' lets them "
		       "in)\n",
		       cli_safe(text, name));
	if (!h)
		return;
	if (!h->did) {
		printf("  held for review: its removal from the space (");
	} else {
		printf("  held for review: %s's version", cli_safe(text, cli_who(m, h->did)));
		printf(" (%s", cli_safe(text, h->did));
		printf(", cid %s), not in main: ", h->cid ? cli_safe(text, h->cid) : "-");
	}
	cli_print_safe(stdout, h->reason);
	printf("%s\n", h->did ? "" : ")");
	printf("    main keeps %s\n",
	       h->kept_tree ? "its earlier version" : "no version: a new skill, not in your files");
	if (h->rejected)
		printf("    rejected: no reminder until that member changes it again\n");
	printf("    'skillsync review %s' shows the change, ", cli_safe(text, name));
	printf("'skillsync accept %s' takes it in\n", cli_safe(text, name));
}

static int cmd_show(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_show_def = {
    "show", cmd_show, "show every version of one skill and which one wins",
    "usage: skillsync show <name> [--json]\n"
    "\n"
    "Every member's version of the skill, best first: the one in the view and why, then the\n"
    "ones it shadows, then invalid ones with the reason they are never candidates. Then\n"
    "whether the skill is pinned, and the version the review gate holds out of main and why\n"
    "('skillsync review').\n"
    "\n"
    "    --json    print a JSON object {name, winner, shadows, pinned, held}\n"};

static int cmd_show(ss_ctx *ctx, int argc, char **argv)
{
	const char *name = NULL;
	bool json = false, space;
	ss_provenance p;
	ss_state_hold hold;
	cli_member_list members = {NULL, 0};
	cli_json w;
	cli_gate_marks gate;
	int held = 0;
	ss_buf text = SS_BUF_INIT;
	int ret = SS_EXIT_OK;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else if (!name)
			name = argv[i];
		else
			return cli_usage_error(ctx, "too many arguments");
	}
	if (!name)
		return cli_usage_error(ctx, "missing the skill's name");
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	memset(&p, 0, sizeof(p));
	memset(&hold, 0, sizeof(hold));
	memset(&gate, 0, sizeof(gate));
	space = cli_space_clone(ctx);
	/* one read transaction for the state's answers, ended before anything is printed */
	if (ss_state_read_begin(ctx->state, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (cli_members_load(ctx, &members) < 0 || cli_gate_marks_load(ctx, &gate) < 0 ||
	    ss_provenance_load(ctx->state, name, &p, &ctx->err) < 0 ||
	    (held = cli_gate_hold(ctx, &gate, name, &hold)) < 0) {
		ss_state_read_end(ctx->state);
		ret = cli_fail(&ctx->err);
		goto out;
	}
	ss_state_read_end(ctx->state);
	if (!p.count) {
		ss_error_set(&ctx->err, SS_ENOTFOUND, "skill '%s' is not in this space", name);
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (json) {
		cli_json_init(&w, stdout);
		cli_provenance_json(&w, name, &members, &p, cli_gate_pinned(&gate, name),
		                    held ? &hold : NULL);
		cli_json_finish(&w);
		goto out;
	}
	cli_print_safe(stdout, name);
	putchar('\n');
	if (!p.nvalid)
		printf("  no valid version: not in the view\n");
	for (size_t i = 0; i < p.count; i++) {
		const ss_provenance_version *v = &p.versions[i];

		printf("%s %s  ", i == 0 && p.nvalid ? "*" : " ",
		       cli_safe(&text, cli_who(&members, v->did)));
		printf("%s  updated ", cli_safe(&text, v->did));
		printf("%s\n", v->updated_at ? cli_safe(&text, v->updated_at) : "-");
		if (i == 0 && p.nvalid)
			printf("    %s\n", why_text(v->why));
		else if (v->valid)
			print_shadowed(&members, v, &p.versions[0]);
		if (!v->valid) {
			printf("    invalid: ");
			cli_print_safe(stdout, v->reason ? v->reason : "unknown");
			putchar('\n');
		} else if (!space) {
			print_signed(&members, v, &text);
		}
	}
	print_gate(&members, name, cli_gate_pinned(&gate, name), held ? &hold : NULL, &text);
out:
	ss_state_hold_release(&hold);
	cli_gate_marks_release(&gate);
	ss_buf_release(&text);
	cli_members_release(&members);
	ss_provenance_release(&p);
	return ret;
}
