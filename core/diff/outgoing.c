/* outgoing.c: HEAD vs the tracking tree -> the plan of writes (see core/diff/outgoing.h). */
#include "core/diff/outgoing.h"

#include <stdlib.h>
#include <string.h>

#include "core/diff/note.h"
#include "core/diff/outgoing_priv.h"
#include "core/diff/view.h"
#include "core/git/tree.h"
#include "core/state/state_hold.h"
#include "core/skill/skilldir.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/mem.h"
#include "core/util/time.h"

int ss_outgoing_is_skill(ss_repo *repo, const ss_oid *tree, const char *name, ss_oid *subtree,
                         bool *is_skill, ss_error *err)
{
	unsigned mode = 0;
	int rc;

	*is_skill = false;
	ss_oid_clear(subtree);
	if (!tree || ss_oid_is_zero(tree))
		return 0;
	rc = ss_tree_lookup(repo, tree, name, subtree, &mode, err);
	if (rc < 0 && err->code == SS_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	*is_skill = !ss_skilldir_outside(name, mode == SS_MODE_TREE);
	return 0;
}

/* ---- the state's answers for the plan ---- */

typedef struct versions {
	ss_view_version *v;
	char **dids;
	size_t n, alloc;
	const char *me;
} versions;

static int collect_version(const ss_state_record *r, void *payload)
{
	versions *vs = payload;

	if (vs->me && !strcmp(r->did, vs->me))
		return 0;
	if (vs->n == vs->alloc) {
		size_t a = vs->alloc;
		ss_xgrow((void **)&vs->v, sizeof(*vs->v), vs->n + 1, &vs->alloc);
		ss_xgrow((void **)&vs->dids, sizeof(*vs->dids), vs->n + 1, &a);
	}
	vs->dids[vs->n] = ss_xstrdup(r->did);
	vs->v[vs->n].did = vs->dids[vs->n];
	vs->v[vs->n].cid = NULL;
	vs->v[vs->n].updated_us = r->updated_us;
	vs->v[vs->n].valid = r->valid;
	vs->v[vs->n].reason = NULL;
	vs->n++;
	return 0;
}

static void lookup_reset(ss_outgoing_lookup *l)
{
	ss_state_record_release(&l->mine);
	ss_state_view_entry_release(&l->view);
	free(l->view_from);
	free(l->next_from);
	l->view_from = l->next_from = NULL;
}

/* A member's handle when the state knows it, else the DID (new string). */
static char *who(ss_state *st, const char *did)
{
	ss_state_member m;
	ss_error ignored;
	char *out;

	memset(&m, 0, sizeof(m));
	if (ss_state_member_get(st, did, &m, &ignored) < 0)
		return ss_xstrdup(did);
	out = ss_xstrdup(m.handle ? m.handle : did);
	ss_state_member_release(&m);
	return out;
}

int ss_outgoing_lookup_fn(void *payload, const char *name, ss_plan_owner *out, ss_error *err)
{
	ss_outgoing_lookup *l = payload;
	versions vs;
	size_t *order = NULL;
	int rc, ret = -1;

	lookup_reset(l);
	memset(&vs, 0, sizeof(vs));
	vs.me = l->me;
	if (l->me) {
		rc = ss_state_record_get(l->st, l->me, name, &l->mine, err);
		if (rc < 0 && err->code != SS_ENOTFOUND)
			return rc;
		if (rc == 0) {
			out->my_cid = l->mine.cid;
			out->my_created_at = l->mine.created_at;
		}
	}
	rc = ss_state_view_get(l->st, name, &l->view, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		return rc;
	if (rc == 0 && (!l->me || strcmp(l->view.did, l->me)))
		out->view_from = l->view_from = who(l->st, l->view.did);
	if ((rc = ss_state_records_each(l->st, name, collect_version, &vs, err)) < 0) {
		ret = rc;
		goto out;
	}
	if (vs.n) {
		order = ss_xcalloc(vs.n, sizeof(*order));
		if (ss_view_rank(vs.v, vs.n, l->me, l->authority, order) > 0)
			out->next_from = l->next_from = who(l->st, vs.v[order[0]].did);
	}
	ret = 0;
out:
	for (size_t i = 0; i < vs.n; i++)
		free(vs.dids[i]);
	free(vs.dids);
	free(vs.v);
	free(order);
	return ret;
}

void ss_outgoing__lookup_release(ss_outgoing_lookup *l)
{
	if (l)
		lookup_reset(l);
}

/* ---- the tree diff ---- */

typedef struct side {
	char *name;
	ss_oid tree;
	bool used;
} side;

static void add_change(ss_outgoing *o, const ss_change *top, bool in_view, bool in_head)
{
	ss_plan_change *c;

	ss_xgrow((void **)&o->changes, sizeof(*o->changes), o->nchanges + 1, &o->changes_alloc);
	ss_xgrow((void **)&o->subtrees, sizeof(*o->subtrees), o->nchanges + 1, &o->subtrees_alloc);
	o->subtrees[o->nchanges].old = top->old_oid;
	o->subtrees[o->nchanges].new = top->new_oid;
	c = &o->changes[o->nchanges++];
	memset(c, 0, sizeof(*c));
	c->name = ss_xstrdup(top->path);
	c->in_view = in_view;
	c->in_head = in_head;
}

/* ss_outgoing_is_skill for one side of a top-level change (mode 0: missing on that side). */
static bool is_skill(const char *name, unsigned mode)
{
	return mode && !ss_skilldir_outside(name, mode == SS_MODE_TREE);
}

/* Whether an outside entry is as the last push's HEAD had it (config "pushed"). */
static int same_as_pushed(ss_outgoing *o, const ss_change *c, bool *same, ss_error *err)
{
	char *hex = NULL;
	ss_oid pushed, tree, oid;
	unsigned mode = 0;
	int rc;

	*same = false;
	if (ss_state_config_get(o->st, "pushed", &hex, err) < 0)
		return 0;
	rc = ss_oid_parse(&pushed, hex, err);
	free(hex);
	if (rc < 0 || ss_commit_tree(o->repo, &pushed, &tree, err) < 0)
		return -1;
	rc = ss_tree_lookup(o->repo, &tree, c->path, &oid, &mode, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		*same = ss_oid_is_zero(&c->new_oid);
		return 0;
	}
	if (rc < 0)
		return rc;
	*same = ss_oid_equal(&oid, &c->new_oid) && mode == c->new_mode;
	return 0;
}

/*
 * Whether a skill differs from the view only because the view's version is held for review
 * (core/state/state_hold.h): HEAD still has what the hold keeps, so the person did not change
 * it, and pushing it would make their older copy a record of theirs.
 */
static int held_only(ss_outgoing *o, const ss_change *c, bool *out, ss_error *err)
{
	ss_state_hold h;
	ss_oid kept;
	int rc;

	*out = false;
	rc = ss_state_hold_get(o->st, c->path, &h, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (!h.kept_tree)
		*out = c->new_mode == 0;
	else if ((rc = ss_oid_parse(&kept, h.kept_tree, err)) == 0)
		*out = c->new_mode == SS_MODE_TREE && ss_oid_equal(&kept, &c->new_oid);
	ss_state_hold_release(&h);
	return rc;
}

static int classify(ss_outgoing *o, const ss_changes *top, ss_error *err)
{
	for (size_t i = 0; i < top->count; i++) {
		const char *name = top->items[i].path;
		/* The diff's sides, not a lookup of name in each root tree (a read of each). */
		bool old_skill = is_skill(name, top->items[i].old_mode);
		bool new_skill = is_skill(name, top->items[i].new_mode);

		if (!old_skill && !new_skill) {
			bool same;
			if (same_as_pushed(o, &top->items[i], &same, err) < 0)
				return -1;
			if (same) /* listed by the push that sent the commit changing it */
				continue;
			ss_xgrow((void **)&o->outside, sizeof(*o->outside), o->noutside + 1,
			         &o->outside_alloc);
			o->outside[o->noutside++] = ss_xstrdup(name);
			continue;
		}
		{
			bool held;

			if (held_only(o, &top->items[i], &held, err) < 0)
				return -1;
			if (held)
				continue;
		}
		add_change(o, &top->items[i], old_skill, new_skill);
	}
	return 0;
}

int ss_outgoing_new(ss_outgoing **out, ss_repo *repo, ss_state *st, const char *me,
                    const ss_oid *tracking, const ss_oid *head, int64_t push_ms, unsigned flags,
                    ss_error *err)
{
	ss_outgoing *o = ss_xcalloc(1, sizeof(*o));
	ss_changes top = {0};
	ss_outgoing_lookup l;
	bool reading = false;
	int ret = -1;

	memset(&l, 0, sizeof(l));
	o->repo = repo;
	o->st = st;
	o->me = me ? ss_xstrdup(me) : NULL;
	{
		ss_buf t = SS_BUF_INIT;

		ss_time_format(push_ms * 1000, &t);
		o->time = ss_buf_detach(&t, NULL);
	}
	if (tracking && !ss_oid_is_zero(tracking)) {
		o->tracking = *tracking;
		if (ss_commit_tree(repo, tracking, &o->tracking_tree, err) < 0)
			goto out;
	}
	o->head = *head;
	if (ss_commit_tree(repo, head, &o->head_tree, err) < 0)
		goto out;
	if (ss_tree_diff_top(repo, ss_oid_is_zero(&o->tracking_tree) ? NULL : &o->tracking_tree,
	                     &o->head_tree, &top, err) < 0)
		goto out;
	/* The state's answers for every change (its hold, its versions, their members) in one
	 * read: one snapshot, not one lock and journal check per statement. */
	if (ss_state_read_begin(st, err) < 0)
		goto out;
	reading = true;
	if (classify(o, &top, err) < 0 || ss_outgoing__find_renames(o, err) < 0)
		goto out;
	l.st = st;
	l.me = me;
	l.authority = ss_state_authority(st);
	if (ss_plan_new(&o->plan, o->changes, o->nchanges, ss_outgoing_lookup_fn, &l, o->time,
	                err) < 0)
		goto out;
	if (ss_outgoing__fill(o, flags, err) < 0)
		goto out;
	*out = o;
	o = NULL;
	ret = 0;
out:
	if (reading)
		ss_state_read_end(st);
	ss_outgoing__lookup_release(&l);
	ss_tree_changes_release(&top);
	ss_outgoing_free(o);
	return ret;
}

void ss_outgoing_free(ss_outgoing *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nitems; i++) {
		free(o->items[i].note);
		free(o->items[i].record);
	}
	free(o->items);
	for (size_t i = 0; i < o->nrefused; i++)
		ss_report_free((ss_report *)(uintptr_t)o->refused[i].report);
	free(o->refused);
	for (size_t i = 0; i < o->nchanges; i++) {
		free((char *)(uintptr_t)o->changes[i].name);
		free((char *)(uintptr_t)o->changes[i].renamed_from);
	}
	free(o->changes);
	free(o->subtrees);
	for (size_t i = 0; i < o->noutside; i++)
		free(o->outside[i]);
	free(o->outside);
	ss_plan_free(o->plan);
	free(o->me);
	free(o->time);
	free(o);
}

const ss_plan *ss_outgoing_plan(const ss_outgoing *o)
{
	return o->plan;
}

size_t ss_outgoing_count(const ss_outgoing *o)
{
	return o->nitems;
}

const ss_outgoing_item *ss_outgoing_get(const ss_outgoing *o, size_t i)
{
	return i < o->nitems ? &o->items[i] : NULL;
}

size_t ss_outgoing_outside_count(const ss_outgoing *o)
{
	return o->noutside;
}

const char *ss_outgoing_outside(const ss_outgoing *o, size_t i)
{
	return i < o->noutside ? o->outside[i] : NULL;
}

size_t ss_outgoing_refused_count(const ss_outgoing *o)
{
	return o->nrefused;
}

const ss_outgoing_refusal *ss_outgoing_refused(const ss_outgoing *o, size_t i)
{
	return i < o->nrefused ? &o->refused[i] : NULL;
}

const char *ss_outgoing_time(const ss_outgoing *o)
{
	return o->time;
}
