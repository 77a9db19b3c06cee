/* provenance_print.c: how ls and show print where versions come from (text and JSON), the members
 * they name, and the review gate's marks (held, pinned).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/diff/members.h"
#include "core/state/state_hold.h"
#include "core/util/mem.h"

const char *cli_who(const cli_member_list *m, const char *did)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->list[i].did, did))
			return m->list[i].handle ? m->list[i].handle : did;
	return did;
}

static const char *handle_of(const cli_member_list *m, const char *did)
{
	const char *w = cli_who(m, did);

	return w == did ? NULL : w;
}

static void json_version(cli_json *w, const char *key, const cli_member_list *m,
                         const ss_provenance_version *v)
{
	cli_json_object(w, key);
	cli_json_str(w, "did", v->did);
	cli_json_str(w, "handle", handle_of(m, v->did));
	cli_json_str(w, "why", ss_view_why_name(v->why));
	cli_json_str(w, "updatedAt", v->updated_at);
	cli_json_str(w, "cid", v->cid);
	cli_json_bool(w, "valid", v->valid);
	cli_json_str(w, "reason", v->reason);
	cli_json_end(w);
}

static void json_hold(cli_json *w, const cli_member_list *m, const ss_state_hold *h)
{
	if (!h) {
		cli_json_null(w, "held");
		return;
	}
	cli_json_object(w, "held");
	cli_json_str(w, "did", h->did);
	cli_json_str(w, "handle", h->did ? handle_of(m, h->did) : NULL);
	cli_json_str(w, "cid", h->cid);
	cli_json_str(w, "updatedAt", h->updated_at);
	cli_json_str(w, "reason", h->reason);
	cli_json_bool(w, "new", !h->kept_tree);
	cli_json_bool(w, "rejected", h->rejected);
	cli_json_end(w);
}

void cli_provenance_json(cli_json *w, const char *name, const cli_member_list *m,
                         const ss_provenance *p, bool pinned, const ss_state_hold *hold)
{
	cli_json_object(w, NULL);
	cli_json_str(w, "name", name);
	if (p->nvalid)
		json_version(w, "winner", m, &p->versions[0]);
	else
		cli_json_null(w, "winner");
	cli_json_array(w, "shadows");
	for (size_t i = p->nvalid ? 1 : 0; i < p->count; i++)
		json_version(w, NULL, m, &p->versions[i]);
	cli_json_end(w);
	cli_json_bool(w, "pinned", pinned);
	json_hold(w, m, hold);
	cli_json_end(w);
}

static int collect_held(const ss_state_hold *h, void *payload)
{
	cli_gate_marks *g = payload;

	ss_xgrow((void **)&g->held, sizeof(*g->held), g->nheld + 1, &g->held_alloc);
	g->held[g->nheld++] = ss_xstrdup(h->name);
	return 0;
}

static int collect_pinned(const char *name, void *payload)
{
	cli_gate_marks *g = payload;

	ss_xgrow((void **)&g->pinned, sizeof(*g->pinned), g->npinned + 1, &g->pinned_alloc);
	g->pinned[g->npinned++] = ss_xstrdup(name);
	return 0;
}

int cli_gate_marks_load(ss_ctx *ctx, cli_gate_marks *out)
{
	memset(out, 0, sizeof(*out));
	if (ss_state_hold_each(ctx->state, collect_held, out, &ctx->err) < 0 ||
	    ss_state_pin_each(ctx->state, collect_pinned, out, &ctx->err) < 0) {
		cli_gate_marks_release(out);
		return -1;
	}
	return 0;
}

void cli_gate_marks_release(cli_gate_marks *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nheld; i++)
		free(g->held[i]);
	for (size_t i = 0; i < g->npinned; i++)
		free(g->pinned[i]);
	free(g->held);
	free(g->pinned);
	memset(g, 0, sizeof(*g));
}

static bool in_names(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

bool cli_gate_pinned(const cli_gate_marks *g, const char *name)
{
	return in_names(g->pinned, g->npinned, name);
}

bool cli_gate_held(const cli_gate_marks *g, const char *name)
{
	return in_names(g->held, g->nheld, name);
}

int cli_gate_hold(ss_ctx *ctx, const cli_gate_marks *g, const char *name, ss_state_hold *out)
{
	memset(out, 0, sizeof(*out));
	if (!in_names(g->held, g->nheld, name))
		return 0;
	return ss_state_hold_get(ctx->state, name, out, &ctx->err) < 0 ? -1 : 1;
}

int cli_members_load(ss_ctx *ctx, cli_member_list *out)
{
	out->list = NULL;
	out->n = 0;
	return ss_members_list(ctx->state, &out->list, &out->n, &ctx->err);
}

void cli_print_member_kept(FILE *out, const char *who, ss_state_role role)
{
	fputs("'", out);
	cli_print_safe(out, who);
	fprintf(out, "' is already in the space: it is %s\n", ss_members_role_text(role));
}

void cli_members_release(cli_member_list *m)
{
	if (!m)
		return;
	ss_state_members_free(m->list, m->n);
	m->list = NULL;
	m->n = 0;
}
