/*
 * cmd_card.c: `skillsync card`: the agent's card from the skills in the view, printed, published
 * to my repo (site.filae.agent.card, key self, guarded like push), read from anyone's repo,
 * or written as an A2A AgentCard. docs/CARD.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/card_remote.h"
#include "cmd/json_out.h"
#include "core/gitfmt/oid.h"
#include "core/git/tree.h"
#include "core/skill/report.h"
#include "core/skill/skillmd.h"
#include "core/state/state_record.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/time.h"

/* The settings kept in the clone's config, and the options that set them. */
static const struct {
	const char *option;
	const char *key;
} settings_keys[] = {
    {"--name", "card.name"},
    {"--description", "card.description"},
    {"--version", "card.version"},
    {"--url", "card.url"},
    {"--provider-name", "card.provider-name"},
    {"--provider-url", "card.provider-url"},
};
#define NSETTINGS (sizeof(settings_keys) / sizeof(settings_keys[0]))

typedef struct card_opts {
	const char *set[NSETTINGS]; /* given on the command line ("" clears) */
	bool mine, json, publish, force, is_public, a2a, automatic, no_auto;
	const char *show, *out;
} card_opts;

/* A skill of the view, in the order the card takes them: mine first, then by name. */
typedef struct card_entry {
	char *rkey;
	char *tree;
	bool mine;
} card_entry;

typedef struct card_entries {
	card_entry *list;
	size_t n, alloc;
	const char *me;
	bool only_mine;
} card_entries;

static int on_view(const ss_state_view_entry *e, void *payload)
{
	card_entries *es = payload;
	bool mine = es->me && !strcmp(e->did, es->me);

	if (es->only_mine && !mine)
		return 0;
	ss_xgrow((void **)&es->list, sizeof(*es->list), es->n + 1, &es->alloc);
	es->list[es->n].rkey = ss_xstrdup(e->rkey);
	es->list[es->n].tree = ss_xstrdup(e->tree);
	es->list[es->n++].mine = mine;
	return 0;
}

static int by_mine_then_name(const void *a, const void *b)
{
	const card_entry *x = a, *y = b;

	if (x->mine != y->mine)
		return x->mine ? -1 : 1;
	return strcmp(x->rkey, y->rkey);
}

static void entries_release(card_entries *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->list[i].rkey);
		free(es->list[i].tree);
	}
	free(es->list);
}

/* Adds one skill of the view to the card, from its SKILL.md in the view's tree. */
static int add_entry(ss_ctx *ctx, ss_card *card, const card_entry *e)
{
	ss_buf md = SS_BUF_INIT;
	ss_report *report = ss_report_new();
	ss_value *fm = NULL;
	ss_oid tree;
	size_t body;
	const ss_value *desc;
	int ret = -1;

	if (ss_oid_parse(&tree, e->tree, &ctx->err) < 0 ||
	    ss_tree_read_file(ctx->repo, &tree, "SKILL.md", &md, &ctx->err) < 0)
		goto out;
	if (ss_skillmd_parse(md.ptr, md.len, "SKILL.md", &fm, &body, report) < 0) {
		ret = ss_card_leave_out(card, e->rkey, "its SKILL.md cannot be read", &ctx->err);
		goto out;
	}
	desc = ss_value_map_get(fm, "description");
	ret = ss_card_add_skill(
	    card, e->rkey,
	    ss_value_type_of(desc) == SS_VALUE_STRING ? ss_value_string(desc, NULL) : "", fm,
	    &ctx->err);
out:
	ss_value_free(fm);
	ss_report_free(report);
	ss_buf_release(&md);
	return ret;
}

/* A config value, or NULL when absent (*out is then NULL too). */
static int config_get(ss_ctx *ctx, const char *key, char **out)
{
	*out = NULL;
	if (ss_state_config_get(ctx->state, key, out, &ctx->err) < 0) {
		if (ctx->err.code != SS_ENOTFOUND)
			return -1;
		*out = NULL;
	}
	return 0;
}

/* The settings: the options given, else the config's; the given ones are saved after the card
 * is built (so a bad value is not kept). */
static int load_settings(ss_ctx *ctx, const card_opts *o, char **values)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		if (o->set[i])
			values[i] = ss_xstrdup(o->set[i]);
		else if (config_get(ctx, settings_keys[i].key, &values[i]) < 0)
			return -1;
	}
	return 0;
}

static int save_settings(ss_ctx *ctx, const card_opts *o)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (o->set[i] &&
		    ss_state_config_set(ctx->state, settings_keys[i].key,
		                        o->set[i][0] ? o->set[i] : NULL, &ctx->err) < 0)
			return -1;
	return 0;
}

static int build(ss_ctx *ctx, const card_opts *o, bool only_mine, const char *created_at,
                 ss_card **out)
{
	char *values[NSETTINGS] = {NULL};
	ss_card_settings s;
	card_entries es;
	ss_buf now = SS_BUF_INIT;
	ss_card *card = NULL;
	int ret = -1;

	memset(&es, 0, sizeof(es));
	es.me = ss_state_me(ctx->state);
	es.only_mine = only_mine;
	if (load_settings(ctx, o, values) < 0)
		goto out;
	s.name = values[0];
	s.description = values[1];
	s.version = values[2];
	s.url = values[3];
	s.provider_name = values[4];
	s.provider_url = values[5];
	ss_time_format(ss_time_now(), &now);
	if (ss_card_new(&card, &s, created_at ? created_at : now.ptr, now.ptr, &ctx->err) < 0 ||
	    ss_state_view_each(ctx->state, on_view, &es, &ctx->err) < 0)
		goto out;
	if (es.n)
		qsort(es.list, es.n, sizeof(*es.list), by_mine_then_name);
	for (size_t i = 0; i < es.n; i++)
		if (add_entry(ctx, card, &es.list[i]) < 0)
			goto out;
	if (save_settings(ctx, o) < 0)
		goto out;
	*out = card;
	card = NULL;
	ret = 0;
out:
	for (size_t i = 0; i < NSETTINGS; i++)
		free(values[i]);
	entries_release(&es);
	ss_buf_release(&now);
	ss_card_free(card);
	return ret;
}

/* What was left out or cut, on stderr. */
static void print_left_out(const ss_card *card)
{
	for (size_t i = 0; i < ss_card_left_out_count(card); i++) {
		const char *name, *reason;

		ss_card_left_out(card, i, &name, &reason);
		fputs("warning: left out of the card: '", stderr);
		cli_print_safe(stderr, name);
		fputs("': ", stderr);
		cli_print_safe(stderr, reason);
		fputc('\n', stderr);
	}
	if (ss_card_cut_count(card))
		fprintf(stderr,
		        "note: %zu skill%s had a description, tags or examples cut to the card's "
		        "limits\n",
		        ss_card_cut_count(card), ss_card_cut_count(card) == 1 ? "" : "s");
}

/* {card, leftOut, published}, a member a line; the card as core lays it out (from the first
 * column: so the flat style), each skill left out on a line of its own. */
static void print_json(const ss_card *card, const char *uri)
{
	ss_buf b = SS_BUF_INIT;
	cli_json w;

	ss_card_format_json(card, &b);
	cli_json_init(&w, stdout);
	w.style = CLI_JSON_FLAT;
	cli_json_object(&w, NULL);
	cli_json_raw(&w, "card", b.ptr);
	w.style = CLI_JSON_LINES;
	cli_json_array(&w, "leftOut");
	w.style = CLI_JSON_SPACED;
	for (size_t i = 0; i < ss_card_left_out_count(card); i++) {
		const char *name, *reason;

		ss_card_left_out(card, i, &name, &reason);
		cli_json_object(&w, NULL);
		cli_json_str(&w, "name", name);
		cli_json_str(&w, "reason", reason);
		cli_json_end(&w);
	}
	cli_json_end(&w);
	cli_json_str(&w, "published", uri);
	cli_json_finish(&w);
	ss_buf_release(&b);
}

/* Publishes card as mine and remembers what it said (config card.digest), for card.auto. */
static int publish(ss_ctx *ctx, cli_card_remote *remote, const ss_card *card, char **uri)
{
	char digest[65];

	if (ss_card_digest(card, digest, &ctx->err) < 0 || cli_card_put(ctx, remote, card, uri) < 0)
		return -1;
	return ss_state_config_set(ctx->state, "card.digest", digest, &ctx->err);
}

void cli_card_auto(ss_ctx *ctx)
{
	char *mode = NULL, *known = NULL, *created = NULL, *uri = NULL;
	cli_card_remote remote;
	card_opts o;
	ss_card *card = NULL;
	char digest[65];

	memset(&remote, 0, sizeof(remote));
	memset(&o, 0, sizeof(o));
	if (config_get(ctx, "card.auto", &mode) < 0)
		goto fail;
	if (!mode)
		goto out;
	if (config_get(ctx, "card.created-at", &created) < 0 ||
	    config_get(ctx, "card.digest", &known) < 0 ||
	    build(ctx, &o, strcmp(mode, "all") != 0, created, &card) < 0 ||
	    ss_card_digest(card, digest, &ctx->err) < 0)
		goto fail;
	if (known && !strcmp(known, digest))
		goto out; /* the card says what it said */
	if (cli_card_read_mine(ctx, false, &remote) < 0 || publish(ctx, &remote, card, &uri) < 0)
		goto fail;
	print_left_out(card);
	fprintf(stderr,
	        "card: published again with %zu skill%s (card.auto): ", ss_card_skill_count(card),
	        ss_card_skill_count(card) == 1 ? "" : "s");
	cli_print_safe(stderr, uri);
	fputc('\n', stderr);
	goto out;
fail:
	fputs("warning: the card was not published again: ", stderr);
	cli_print_safe(stderr, ctx->err.message);
	fputs(" ('skillsync card --publish' tries again)\n", stderr);
out:
	cli_card_remote_release(&remote);
	ss_card_free(card);
	free(mode);
	free(known);
	free(created);
	free(uri);
}

static int cmd_card(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_card_def = {
    "card", cmd_card, "build, publish or show an agent card from the skills",
    "usage: skillsync card [--mine] [--name <n>] [--description <d>] [--version <v>]\n"
    "                      [--url <u>] [--provider-name <n>] [--provider-url <u>] [--json]\n"
    "                      [--publish [--force] [--public] [--auto]] [--no-auto]\n"
    "                      [--a2a [--out <dir>]]\n"
    "   or: skillsync card --show <handle-or-did> [--json]\n"
    "\n"
    "Builds the agent's site.filae.agent.card record from the skills in the view: one entry\n"
    "per skill (its name, its description cut to the card's limit, tags and examples from\n"
    "its metadata), at most 50 (the others are named on stderr and in --json). The settings\n"
    "are kept in the clone, so the next 'card' needs none of them ('' clears one).\n"
    "\n"
    "    --mine               only the skills I own (always, in a permissioned space)\n"
    "    --name <n>           the agent's name (100 bytes, 50 characters)\n"
    "    --description <d>    what the agent does (1000 bytes, 500 characters)\n"
    "    --version <v>        the card's version (20 bytes; default 1.0.0)\n"
    "    --url <u>            the agent's URL (needed for --a2a)\n"
    "    --provider-name <n>  who operates the agent\n"
    "    --provider-url <u>   their website\n"
    "    --json               print {card, leftOut, published} as JSON\n"
    "    --publish            write the card to my repo (key 'self'); refused when the card\n"
    "                         there changed since this clone last published it\n"
    "    --force              with --publish: replace a card changed elsewhere\n"
    "    --public             allow a public card from a permissioned space's clone\n"
    "    --auto               with --publish: from now on, 'push' publishes the card again\n"
    "                         whenever what it says changed (config card.auto)\n"
    "    --no-auto            stop that\n"
    "    --a2a                print the A2A AgentCard instead\n"
    "    --out <dir>          with --a2a: write <dir>/.well-known/agent-card.json\n"
    "    --show <who>         read and print anyone's published card\n"};

/* The value of an option that takes one: argv[*i + 1], or a usage error. */
static int value_of(ss_ctx *ctx, int argc, char **argv, int *i, const char **out)
{
	if (*i + 1 >= argc)
		return cli_usage_error(ctx, "%s needs a value", argv[*i]);
	*out = argv[++*i];
	return 0;
}

static int parse(ss_ctx *ctx, int argc, char **argv, card_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k;
		int rc = 0;

		for (k = 0; k < NSETTINGS; k++)
			if (!strcmp(a, settings_keys[k].option))
				break;
		if (k < NSETTINGS)
			rc = value_of(ctx, argc, argv, &i, &o->set[k]);
		else if (!strcmp(a, "--mine"))
			o->mine = true;
		else if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "--publish"))
			o->publish = true;
		else if (!strcmp(a, "--force"))
			o->force = true;
		else if (!strcmp(a, "--public"))
			o->is_public = true;
		else if (!strcmp(a, "--a2a"))
			o->a2a = true;
		else if (!strcmp(a, "--auto"))
			o->automatic = true;
		else if (!strcmp(a, "--no-auto"))
			o->no_auto = true;
		else if (!strcmp(a, "--out"))
			rc = value_of(ctx, argc, argv, &i, &o->out);
		else if (!strcmp(a, "--show"))
			rc = value_of(ctx, argc, argv, &i, &o->show);
		else if (a[0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", a);
		else
			return cli_usage_error(ctx, "unexpected argument '%s'", a);
		if (rc)
			return rc;
	}
	if (o->show && (o->publish || o->a2a || o->mine || o->out))
		return cli_usage_error(ctx, "--show reads a card: it takes only --json");
	if (o->out && !o->a2a)
		return cli_usage_error(ctx, "--out goes with --a2a");
	if (o->force && !o->publish)
		return cli_usage_error(ctx, "--force goes with --publish");
	if (o->automatic && !o->publish)
		return cli_usage_error(ctx, "--auto goes with --publish");
	if (o->automatic && o->no_auto)
		return cli_usage_error(ctx, "--auto or --no-auto, not both");
	if (o->a2a && (o->publish || o->json))
		return cli_usage_error(ctx,
		                       "--a2a prints the A2A card: not with --publish or --json");
	return 0;
}

/* Writes the A2A card to <dir>/.well-known/agent-card.json, atomically. */
static int write_a2a(ss_ctx *ctx, const char *dir, const ss_buf *json)
{
	ss_buf wk = SS_BUF_INIT, path = SS_BUF_INIT;
	int ret = -1;

	if (ss_fs_join(&wk, dir, ".well-known") < 0 ||
	    ss_fs_join(&path, wk.ptr, "agent-card.json") < 0) {
		ss_error_set(&ctx->err, SS_ETOOBIG, "path too long");
		goto out;
	}
	if (ss_fs_mkdir_p(wk.ptr, 0755, &ctx->err) < 0 ||
	    ss_fs_write_atomic(path.ptr, json->ptr, json->len, 0644, &ctx->err) < 0)
		goto out;
	printf("wrote %s\n", path.ptr);
	ret = 0;
out:
	ss_buf_release(&wk);
	ss_buf_release(&path);
	return ret;
}

static int cmd_card(ss_ctx *ctx, int argc, char **argv)
{
	card_opts o;
	cli_card_remote remote;
	ss_card *card = NULL;
	char *created = NULL, *uri = NULL;
	bool permissioned, only_mine;
	ss_buf text = SS_BUF_INIT;
	int ret;

	memset(&remote, 0, sizeof(remote));
	ret = parse(ctx, argc, argv, &o);
	if (ret)
		return ret;
	if (o.show)
		return cli_card_show(ctx, o.show, o.json);
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	permissioned = cli_space_clone(ctx);
	only_mine = o.mine || permissioned;
	if (only_mine && !ss_state_me(ctx->state)) {
		ss_error_set(&ctx->err, SS_EAUTH,
		             "this clone is read-only: it has no skills of its own for a card");
		return cli_fail(&ctx->err);
	}
	if (permissioned && (o.publish || o.out) && !o.is_public) {
		ss_error_set(&ctx->err, SS_ERROR,
		             "this clone is of a permissioned space and a card is public: add "
		             "--public to publish one (it lists only your own skills)");
		return cli_fail(&ctx->err);
	}
	if (permissioned && !o.mine)
		fprintf(stderr,
		        "note: a permissioned space: the card lists only your own skills\n");
	/* createdAt: the published card's when publishing, else the one last published. */
	if ((o.publish && cli_card_read_mine(ctx, o.force, &remote) < 0) ||
	    (!remote.created_at && config_get(ctx, "card.created-at", &created) < 0) ||
	    build(ctx, &o, only_mine, remote.created_at ? remote.created_at : created, &card) < 0 ||
	    (o.publish && publish(ctx, &remote, card, &uri) < 0) ||
	    (o.automatic && ss_state_config_set(ctx->state, "card.auto", only_mine ? "mine" : "all",
	                                        &ctx->err) < 0) ||
	    (o.no_auto && ss_state_config_set(ctx->state, "card.auto", NULL, &ctx->err) < 0)) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	print_left_out(card);
	if (o.a2a) {
		if (ss_card_a2a(card, &text, &ctx->err) < 0 || ss_buf_putc(&text, '\n') < 0 ||
		    (o.out ? write_a2a(ctx, o.out, &text) : (fputs(text.ptr, stdout), 0)) < 0) {
			ret = cli_fail(&ctx->err);
			goto out;
		}
	} else if (o.json) {
		print_json(card, uri);
	} else if (o.publish) {
		printf("published the card with %zu skill%s: %s\n", ss_card_skill_count(card),
		       ss_card_skill_count(card) == 1 ? "" : "s", uri);
	} else {
		ss_card_format_text(card, &text);
		fputs(text.ptr, stdout);
	}
	ret = SS_EXIT_OK;
out:
	cli_card_remote_release(&remote);
	free(created);
	free(uri);
	ss_buf_release(&text);
	ss_card_free(card);
	return ret;
}
