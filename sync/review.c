/* review.c: the review gate's runs: the pull's holds, review, accept, pin (see sync/review.h). */
#include "sync/review.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/commit.h"
#include "core/git/worktree.h"
#include "core/skill/record.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/buf.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "sync/review_facts.h"
#include "sync/review_priv.h"
#include "sync/setting.h"

/* ---- small pieces ---- */

/* name's subtree in tree (NULL: none) into *out; *has false when tree has no such skill. */
static int subtree(ss_repo *repo, const ss_oid *tree, const char *name, ss_oid *out, bool *has,
                   ss_error *err)
{
	unsigned mode = 0;
	int rc;

	*has = false;
	ss_oid_clear(out);
	if (!tree)
		return 0;
	rc = ss_tree_lookup(repo, tree, name, out, &mode, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		ss_oid_clear(out);
		return 0;
	}
	if (rc < 0)
		return rc;
	*has = mode == SS_MODE_TREE;
	if (!*has)
		ss_oid_clear(out);
	return 0;
}

int ss_review__parse_opt(const char *hex, ss_oid *out, bool *has, ss_error *err)
{
	*has = hex != NULL;
	ss_oid_clear(out);
	return hex ? ss_oid_parse(out, hex, err) : 0;
}

static bool same(const ss_oid *a, bool has_a, const ss_oid *b, bool has_b)
{
	return has_a == has_b && (!has_a || ss_oid_equal(a, b));
}

static bool same_text(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static char *hex_of(const ss_oid *oid, bool has)
{
	char hex[SS_OID_HEXSZ + 1];

	if (!has)
		return NULL;
	ss_oid_fmt(hex, oid);
	return ss_xstrdup(hex);
}

/* A member's handle when the state knows it (new string), else NULL. */
static char *handle_of(ss_state *st, const char *did)
{
	ss_state_member m;
	ss_error ignored;
	char *out = NULL;

	if (!did || ss_state_member_get(st, did, &m, &ignored) < 0)
		return NULL;
	if (m.handle)
		out = ss_xstrdup(m.handle);
	ss_state_member_release(&m);
	return out;
}

/* The rules of this clone: policy, trust list (split into *words), me. */
typedef struct rules {
	ss_gate_rules r;
	char *trust_text;
	const char **trust;
} rules;

static int rules_load(ss_state *st, rules *out, ss_error *err)
{
	char *policy = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (ss_setting_get(st, "review.policy", &policy, NULL, err) < 0)
		return -1;
	ss_gate_policy_parse(policy, &out->r.policy);
	free(policy);
	if (ss_setting_get(st, "review.trust", &out->trust_text, NULL, err) < 0)
		return -1;
	for (char *p = out->trust_text; p && *p;) {
		char *comma = strchr(p, ',');

		out->trust = ss_xrealloc(out->trust, (n + 1) * sizeof(*out->trust));
		out->trust[n++] = p;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	out->r.trust = out->trust;
	out->r.ntrust = n;
	out->r.me = ss_state_me(st);
	return 0;
}

static void rules_release(rules *r)
{
	free(r->trust_text);
	free(r->trust);
}

/* ---- the pull's gate ---- */

/* One name the gate looks at. */
typedef struct candidate {
	char *name;
	ss_state_hold old; /* its hold so far (name NULL: none) */
} candidate;

typedef struct gate_run {
	ss_repo *repo;
	ss_state *st;
	rules rules;
	candidate *c;
	size_t n, alloc;
	/* the trees */
	ss_oid head, head_tree, track_tree, base_tree;
	bool has_head, has_base, contained;
	/* what it decided */
	ss_state_hold *puts;
	size_t nputs, puts_alloc;
	char **drops;
	size_t ndrops, drops_alloc;
	ss_review__take *takes, *held;
	size_t ntakes, takes_alloc, nheld, held_alloc;
	ss_buf takes_msg, held_msg;
	size_t replaced; /* holds put in place of another version */
	bool kept_facts; /* facts computed and kept in the state this run */
} gate_run;

static candidate *add_candidate(gate_run *g, const char *name)
{
	candidate *c;

	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->c[i].name, name))
			return &g->c[i];
	ss_xgrow((void **)&g->c, sizeof(*g->c), g->n + 1, &g->alloc);
	c = &g->c[g->n++];
	memset(c, 0, sizeof(*c));
	c->name = ss_xstrdup(name);
	return c;
}

static int collect_hold(const ss_state_hold *h, void *payload)
{
	gate_run *g = payload;
	candidate *c = add_candidate(g, h->name);

	ss_state_hold_copy(&c->old, h);
	return 0;
}

static void add_take(ss_review__take **list, size_t *n, size_t *alloc, const char *name,
                     const ss_oid *tree, bool has)
{
	ss_review__take *t;

	ss_xgrow((void **)list, sizeof(**list), *n + 1, alloc);
	t = &(*list)[(*n)++];
	t->name = ss_xstrdup(name);
	t->tree = *tree;
	t->has = has;
}

void ss_review__who_line(ss_buf *out, ss_state *st, const char *name, const char *did,
                         const char *cid, const char *why)
{
	char *handle = handle_of(st, did);

	if (did)
		ss_buf_printf(out, "- %s's version of %s (at://%s/%s/%s, cid %s)",
		              handle ? handle : did, name, did, SS_RECORD_TYPE, name,
		              cid ? cid : "?");
	else
		ss_buf_printf(out, "- the removal of %s from the space", name);
	if (why && *why)
		ss_buf_printf(out, ": %s", why);
	ss_buf_puts(out, "\n");
	free(handle);
}

/* Decides one candidate. */
static int decide(gate_run *g, candidate *c, ss_error *err)
{
	ss_oid view, from, base, mine;
	bool has_view, has_from, has_base, has_mine, pinned;
	ss_state_view_entry v;
	ss_state_record rec;
	ss_gate_change facts;
	ss_gate_rules r = g->rules.r;
	ss_gate_verdict verdict;
	char *handle = NULL;
	int ret = -1;

	memset(&v, 0, sizeof(v));
	memset(&rec, 0, sizeof(rec));
	memset(&facts, 0, sizeof(facts));
	if (subtree(g->repo, &g->track_tree, c->name, &view, &has_view, err) < 0 ||
	    subtree(g->repo, g->has_base ? &g->base_tree : NULL, c->name, &base, &has_base, err) <
	        0)
		return -1;
	if (c->old.name) {
		if (ss_review__parse_opt(c->old.kept_tree, &from, &has_from, err) < 0)
			return -1;
	} else {
		from = base;
		has_from = has_base;
	}
	if (subtree(g->repo, &g->head_tree, c->name, &mine, &has_mine, err) < 0)
		return -1;
	/* nothing left to hold: the view is back at what main keeps, or main has it already (an
	 * accept killed before the state forgot its hold) */
	if (same(&from, has_from, &view, has_view) || same(&mine, has_mine, &view, has_view)) {
		if (c->old.name) {
			ss_xgrow((void **)&g->drops, sizeof(*g->drops), g->ndrops + 1,
			         &g->drops_alloc);
			g->drops[g->ndrops++] = ss_xstrdup(c->name);
		}
		return 0;
	}
	if (has_view) {
		int rc = ss_state_view_get(g->st, c->name, &v, err);

		if (rc < 0 && err->code != SS_ENOTFOUND)
			return rc;
		ss_error_clear(err);
		if (rc == 0) {
			facts.did = v.did;
			handle = handle_of(g->st, v.did);
			facts.handle = handle;
			if (ss_state_record_get(g->st, v.did, c->name, &rec, err) < 0) {
				if (err->code != SS_ENOTFOUND)
					goto out;
				ss_error_clear(err);
			}
		}
	}
	if (ss_state_pin_get(g->st, c->name, &pinned, err) < 0)
		goto out;
	r.pinned = pinned;
	/* the files' facts (a diff and the audit) count only where the rules reach them: under
	 * policy scripts, for a change that is not mine, pinned or trusted */
	verdict = ss_gate_decide(&facts, &r);
	if (verdict == SS_GATE_MERGE && r.policy == SS_GATE_SCRIPTS) {
		bool computed;

		if (ss_review_facts(g->repo, g->st, c->name, has_from ? &from : NULL,
		                    has_view ? &view : NULL, &facts, &computed, err) < 0)
			goto out;
		g->kept_facts |= computed;
		verdict = ss_gate_decide(&facts, &r);
	}
	if (ss_gate_held(verdict)) {
		ss_state_hold *h;

		ss_xgrow((void **)&g->puts, sizeof(*g->puts), g->nputs + 1, &g->puts_alloc);
		h = &g->puts[g->nputs++];
		memset(h, 0, sizeof(*h));
		h->name = ss_xstrdup(c->name);
		h->did = facts.did ? ss_xstrdup(facts.did) : NULL;
		h->cid = v.cid && has_view ? ss_xstrdup(v.cid) : NULL;
		h->view_tree = hex_of(&view, has_view);
		h->kept_tree = hex_of(&from, has_from);
		h->reason = ss_xstrdup(ss_gate_reason(verdict));
		h->updated_at = rec.updated_at ? ss_xstrdup(rec.updated_at) : NULL;
		h->replaced = c->old.name && !(same_text(c->old.view_tree, h->view_tree) &&
		                               same_text(c->old.cid, h->cid));
		g->replaced += h->replaced;
		/* the hold commit leaves the skill as the merge base has it: no change from that
		 * side */
		add_take(&g->held, &g->nheld, &g->held_alloc, c->name, &base, has_base);
		ss_review__who_line(&g->held_msg, g->st, c->name, facts.did, h->cid, h->reason);
	} else if (c->old.name) {
		/* Main still keeps what the hold kept: the version comes in now. Otherwise main has
		 * it already, or the person changed the skill since (their version stands). */
		if (same(&mine, has_mine, &from, has_from)) {
			add_take(&g->takes, &g->ntakes, &g->takes_alloc, c->name, &view, has_view);
			ss_review__who_line(&g->takes_msg, g->st, c->name, facts.did, v.cid,
			                    verdict == SS_GATE_MINE ? "your own version"
			                    : verdict == SS_GATE_TRUSTED
			                        ? "review.trust names its member"
			                        : "no longer held");
		}
		ss_xgrow((void **)&g->drops, sizeof(*g->drops), g->ndrops + 1, &g->drops_alloc);
		g->drops[g->ndrops++] = ss_xstrdup(c->name);
	}
	ret = 0;
out:
	free(handle);
	ss_state_view_entry_release(&v);
	ss_state_record_release(&rec);
	return ret;
}

int ss_review__take_in(ss_repo *repo, const ss_oid *head, const ss_oid *head_tree,
                       const ss_review__take *takes, size_t n, const char *message,
                       const ss_commit_opts *opts, ss_merge_result *merge, ss_oid *out,
                       ss_error *err)
{
	ss_tree_top *top = NULL;
	ss_oid tree, commit;
	int ret = -1;

	memset(merge, 0, sizeof(*merge));
	if (ss_tree_top_new(&top, repo, head_tree, false, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if ((takes[i].has
		         ? ss_tree_top_set(top, takes[i].name, &takes[i].tree, SS_MODE_TREE, err)
		         : ss_tree_top_remove(top, takes[i].name, err)) < 0)
			goto out;
	if (ss_tree_top_write(top, &tree, err) < 0 ||
	    ss_commit_create(repo, opts, &tree, head, 1, message, &commit, err) < 0)
		goto out;
	ret = ss_merge_commit(repo, &commit, message, merge, err);
	if (ret == 0 && out)
		*out = merge->head;
out:
	ss_tree_top_free(top);
	return ret;
}

static void gate_release(gate_run *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->c[i].name);
		ss_state_hold_release(&g->c[i].old);
	}
	free(g->c);
	for (size_t i = 0; i < g->nputs; i++)
		ss_state_hold_release(&g->puts[i]);
	free(g->puts);
	for (size_t i = 0; i < g->ndrops; i++)
		free(g->drops[i]);
	free(g->drops);
	for (size_t i = 0; i < g->ntakes; i++)
		free(g->takes[i].name);
	free(g->takes);
	for (size_t i = 0; i < g->nheld; i++)
		free(g->held[i].name);
	free(g->held);
	ss_buf_release(&g->takes_msg);
	ss_buf_release(&g->held_msg);
	rules_release(&g->rules);
}

static int changed_names(gate_run *g, ss_error *err)
{
	ss_changes top = {NULL, 0};
	int ret;

	ret = ss_tree_diff_top(g->repo, g->has_base ? &g->base_tree : NULL, &g->track_tree, &top,
	                       err);
	for (size_t i = 0; ret == 0 && i < top.count; i++)
		if (top.items[i].old_mode == SS_MODE_TREE || top.items[i].new_mode == SS_MODE_TREE)
			add_candidate(g, top.items[i].path);
	ss_tree_changes_release(&top);
	return ret;
}

/* The holds put and dropped, and the facts of pairs no hold names any more forgotten. */
static int write_state(gate_run *g, ss_error *err)
{
	if (!g->nputs && !g->ndrops && !g->kept_facts)
		return 0;
	if (ss_state_begin(g->st, err) < 0)
		return -1;
	for (size_t i = 0; i < g->nputs; i++)
		if (ss_state_hold_put(g->st, &g->puts[i], err) < 0)
			goto fail;
	for (size_t i = 0; i < g->ndrops; i++)
		if (ss_state_hold_remove(g->st, g->drops[i], err) < 0)
			goto fail;
	if (ss_state_hold_facts_prune(g->st, err) < 0 || ss_state_commit(g->st, err) < 0)
		goto fail;
	return 0;
fail:
	ss_state_rollback(g->st);
	return -1;
}

/* The hold commit: tracking's tree with the held skills as the merge base has them. */
static int hold_commit(gate_run *g, const ss_oid *tracking, ss_oid *out, ss_error *err)
{
	ss_commit_opts o;
	ss_tree_top *top = NULL;
	ss_buf msg = SS_BUF_INIT;
	ss_oid tree;
	int ret = -1;

	memset(&o, 0, sizeof(o));
	o.author_name = SS_COMMIT_DEFAULT_NAME;
	o.author_email = SS_COMMIT_DEFAULT_EMAIL;
	if (ss_tree_top_new(&top, g->repo, &g->track_tree, false, err) < 0)
		goto out;
	for (size_t i = 0; i < g->nheld; i++)
		if ((g->held[i].has ? ss_tree_top_set(top, g->held[i].name, &g->held[i].tree,
		                                      SS_MODE_TREE, err)
		                    : ss_tree_top_remove(top, g->held[i].name, err)) < 0)
			goto out;
	if (ss_tree_top_write(top, &tree, err) < 0)
		goto out;
	ss_buf_printf(&msg,
	              "Hold %zu change%s of the space for review (" SS_REPO_TRACKING_REF ")\n\n"
	              "The space's view without the versions held for review; 'skillsync review'\n"
	              "shows them, 'skillsync accept' takes them into main:\n\n%s",
	              g->nheld, g->nheld == 1 ? "" : "s", g->held_msg.ptr);
	ret = ss_commit_create(g->repo, &o, &tree, tracking, 1, msg.ptr, out, err);
out:
	ss_tree_top_free(top);
	ss_buf_release(&msg);
	return ret;
}

int ss_review_gate(ss_repo *repo, ss_state *st, const ss_oid *tracking, ss_review_gated *out,
                   ss_error *err)
{
	gate_run g;
	ss_oid base;
	int rc, ret = -1;

	memset(&g, 0, sizeof(g));
	memset(out, 0, sizeof(*out));
	out->theirs = *tracking;
	g.repo = repo;
	g.st = st;
	rc = ss_commit_read_ref(repo, "HEAD", &g.head, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		return 0; /* nothing committed yet: the first merge takes the view as it is */
	}
	if (rc < 0 || rules_load(st, &g.rules, err) < 0 ||
	    ss_commit_tree(repo, &g.head, &g.head_tree, err) < 0 ||
	    ss_commit_tree(repo, tracking, &g.track_tree, err) < 0)
		goto out;
	rc = ss_merge_base(repo, &g.head, tracking, &base, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		goto out;
	ss_error_clear(err);
	if (rc == 0) {
		g.has_base = true;
		g.contained = ss_oid_equal(&base, tracking);
		if (ss_commit_tree(repo, &base, &g.base_tree, err) < 0)
			goto out;
	}
	if (ss_state_hold_each(st, collect_hold, &g, err) < 0)
		goto out;
	if (!g.contained && changed_names(&g, err) < 0)
		goto out;
	for (size_t i = 0; i < g.n; i++)
		if (decide(&g, &g.c[i], err) < 0)
			goto out;
	if (g.ntakes) { /* first into main, then out of the state: a kill between is re-decided */
		ss_commit_opts o;
		ss_merge_result m;
		ss_buf msg = SS_BUF_INIT;

		memset(&o, 0, sizeof(o));
		o.author_name = SS_COMMIT_DEFAULT_NAME;
		o.author_email = SS_COMMIT_DEFAULT_EMAIL;
		ss_buf_printf(&msg, "Take %zu version%s no longer held for review\n\n%s", g.ntakes,
		              g.ntakes == 1 ? "" : "s", g.takes_msg.ptr);
		rc = ss_review__take_in(repo, &g.head, &g.head_tree, g.takes, g.ntakes, msg.ptr, &o,
		                        &m, NULL, err);
		ss_buf_release(&msg);
		ss_merge_result_release(&m);
		if (rc < 0)
			goto out;
		out->released = g.ntakes;
	}
	if (write_state(&g, err) < 0)
		goto out;
	ss_crash_point("pull-held");
	if (g.nheld && !g.contained && hold_commit(&g, tracking, &out->theirs, err) < 0)
		goto out;
	out->held = g.nheld;
	out->replaced = g.replaced;
	ret = 0;
out:
	gate_release(&g);
	return ret;
}

/* ---- review ---- */

void ss_review_items_release(ss_review_items *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->count; i++) {
		ss_state_hold_release(&l->items[i].hold);
		free(l->items[i].handle);
		free(l->items[i].note);
		ss_tree_changes_release(&l->items[i].files);
		ss_audit_report_release(&l->items[i].findings);
	}
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

typedef struct list_run {
	ss_review_items *out;
	size_t alloc;
	const char *const *names;
	size_t nnames;
} list_run;

static int collect_item(const ss_state_hold *h, void *payload)
{
	list_run *l = payload;
	ss_review_item *it;
	bool wanted = !l->nnames;

	for (size_t i = 0; i < l->nnames && !wanted; i++)
		wanted = !strcmp(l->names[i], h->name);
	if (!wanted)
		return 0;
	ss_xgrow((void **)&l->out->items, sizeof(*l->out->items), l->out->count + 1, &l->alloc);
	it = &l->out->items[l->out->count++];
	memset(it, 0, sizeof(*it));
	ss_state_hold_copy(&it->hold, h);
	return 0;
}

int ss_review_list(ss_repo *repo, ss_state *st, const char *const *names, size_t nnames,
                   bool with_files, ss_review_items *out, ss_error *err)
{
	list_run l = {out, 0, names, nnames};

	memset(out, 0, sizeof(*out));
	if (ss_state_hold_each(st, collect_item, &l, err) < 0)
		goto fail;
	for (size_t i = 0; i < nnames; i++) {
		bool found = false;

		for (size_t j = 0; j < out->count && !found; j++)
			found = !strcmp(out->items[j].hold.name, names[i]);
		if (!found) {
			ss_error_set(err, SS_ENOTFOUND, "'%s' has no change waiting for review",
			             names[i]);
			goto fail;
		}
	}
	for (size_t i = 0; i < out->count; i++) {
		ss_review_item *it = &out->items[i];
		ss_state_record rec;
		ss_oid kept, view;
		bool has_kept, has_view;

		it->handle = handle_of(st, it->hold.did);
		if (it->hold.did &&
		    ss_state_record_get(st, it->hold.did, it->hold.name, &rec, err) == 0) {
			if (rec.cid && it->hold.cid && !strcmp(rec.cid, it->hold.cid) && rec.note &&
			    *rec.note)
				it->note = ss_xstrdup(rec.note);
			ss_state_record_release(&rec);
		}
		ss_error_clear(err);
		it->facts.did = it->hold.did;
		it->facts.handle = it->handle;
		if (!with_files)
			continue;
		if (ss_review__parse_opt(it->hold.kept_tree, &kept, &has_kept, err) < 0 ||
		    ss_review__parse_opt(it->hold.view_tree, &view, &has_view, err) < 0 ||
		    ss_gate_facts(repo, it->hold.name, has_kept ? &kept : NULL,
		                  has_view ? &view : NULL, &it->facts, &it->files, &it->findings,
		                  err) < 0)
			goto fail;
	}
	return 0;
fail:
	ss_review_items_release(out);
	return -1;
}

int ss_review_shown(ss_state *st, const ss_review_items *l, ss_error *err)
{
	if (!l->count)
		return 0;
	if (ss_state_begin(st, err) < 0)
		return -1;
	for (size_t i = 0; i < l->count; i++) {
		const ss_state_hold *h = &l->items[i].hold;

		if (ss_state_hold_shown(st, h->name, h->view_tree, h->cid, err) < 0) {
			ss_state_rollback(st);
			return -1;
		}
	}
	if (ss_state_commit(st, err) < 0) {
		ss_state_rollback(st);
		return -1;
	}
	return 0;
}

void ss_review_version(const ss_state_hold *h, bool full, char out[SS_OID_HEXSZ + 1])
{
	size_t n = full ? SS_OID_HEXSZ : SS_REVIEW_ID_LEN;

	if (!h->view_tree || strlen(h->view_tree) < n) {
		memcpy(out, "removed", sizeof("removed"));
		return;
	}
	memcpy(out, h->view_tree, n);
	out[n] = '\0';
}

int ss_review_diff(ss_repo *repo, const ss_review_item *item, ss_buf *patch, ss_error *err)
{
	ss_tree_top *top = NULL;
	ss_oid head, head_tree, view, tree;
	const char *paths[1] = {item->hold.name};
	bool has_view;
	int ret = -1;

	if (ss_commit_read_ref(repo, "HEAD", &head, err) < 0 ||
	    ss_commit_tree(repo, &head, &head_tree, err) < 0 ||
	    ss_review__parse_opt(item->hold.view_tree, &view, &has_view, err) < 0 ||
	    ss_tree_top_new(&top, repo, &head_tree, false, err) < 0)
		goto out;
	if ((has_view ? ss_tree_top_set(top, item->hold.name, &view, SS_MODE_TREE, err)
	              : ss_tree_top_remove(top, item->hold.name, err)) < 0 ||
	    ss_tree_top_write(top, &tree, err) < 0)
		goto out;
	ret = ss_worktree_diff(repo, SS_DIFF_TREES, &head_tree, &tree, paths, 1, patch, err);
out:
	ss_tree_top_free(top);
	return ret;
}

/* ---- pin ---- */

int ss_review_pin(ss_repo *repo, ss_state *st, const char *name, bool on, ss_error *err)
{
	ss_oid head, tree, sub;
	bool has, pinned;

	if (ss_state_pin_get(st, name, &pinned, err) < 0)
		return -1;
	if (!on && !pinned)
		return ss_error_set(err, SS_ENOTFOUND, "'%s' is not pinned", name);
	if (on) {
		if (ss_commit_read_ref(repo, "HEAD", &head, err) < 0 ||
		    ss_commit_tree(repo, &head, &tree, err) < 0 ||
		    subtree(repo, &tree, name, &sub, &has, err) < 0)
			return -1;
		if (!has)
			return ss_error_set(err, SS_ENOTFOUND, "no skill '%s' in main", name);
	}
	return ss_state_pin_set(st, name, on, err);
}
