/* push_finish.c: landed writes -> state and tracking commit; recovery of a killed push. */
#include <stdlib.h>
#include <string.h>

#include "core/commit.h"
#include "core/mem.h"
#include "core/record.h"
#include "core/report.h"
#include "core/time.h"
#include "core/tree.h"
#include "core/view.h"
#include "sync/fetch.h"
#include "sync/push_internal.h"

void ss_push_at(const ss_push_opts *opts, const char *point)
{
	if (opts && opts->at)
		opts->at(opts->payload, point);
}

/* ---- who wins a name once my record is gone ---- */

typedef struct others {
	const char *me;
	ss_view_version *v;
	char **did, **cid, **tree;
	size_t n, alloc;
} others;

static int collect(const ss_state_record *r, void *payload)
{
	others *o = payload;

	if (!strcmp(r->did, o->me))
		return 0;
	if (o->n == o->alloc) {
		size_t a = o->alloc, b = o->alloc, c = o->alloc;
		ss_xgrow((void **)&o->v, sizeof(*o->v), o->n + 1, &o->alloc);
		ss_xgrow((void **)&o->did, sizeof(*o->did), o->n + 1, &a);
		ss_xgrow((void **)&o->cid, sizeof(*o->cid), o->n + 1, &b);
		ss_xgrow((void **)&o->tree, sizeof(*o->tree), o->n + 1, &c);
	}
	o->did[o->n] = ss_xstrdup(r->did);
	o->cid[o->n] = ss_xstrdup(r->cid);
	o->tree[o->n] = r->tree ? ss_xstrdup(r->tree) : NULL;
	memset(&o->v[o->n], 0, sizeof(o->v[o->n]));
	o->v[o->n].did = o->did[o->n];
	o->v[o->n].cid = o->cid[o->n];
	o->v[o->n].updated_us = r->updated_us;
	o->v[o->n].valid = r->valid && r->tree;
	o->n++;
	return 0;
}

static void others_release(others *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->did[i]);
		free(o->cid[i]);
		free(o->tree[i]);
	}
	free(o->v);
	free(o->did);
	free(o->cid);
	free(o->tree);
}

/* After my record of rkey is deleted: the next version in the view, or none. */
static int apply_delete(ss_repo *repo, ss_state *st, const char *me, const char *authority,
                        const char *rkey, ss_tree_top *top, ss_error *err)
{
	others o = {me, NULL, NULL, NULL, NULL, 0, 0};
	size_t *order = NULL;
	int ret = -1;

	if (ss_state_record_delete(st, me, rkey, err) < 0 ||
	    ss_state_records_each(st, rkey, collect, &o, err) < 0)
		goto out;
	order = ss_xcalloc(o.n + 1, sizeof(*order));
	if (o.n && ss_view_rank(o.v, o.n, me, authority, order) > 0) {
		size_t w = order[0];
		ss_state_view_entry e = {rkey, o.did[w], o.cid[w], o.tree[w]};
		ss_oid tree;

		if (ss_oid_parse(&tree, o.tree[w], err) < 0 ||
		    ss_tree_top_set(top, rkey, &tree, SS_MODE_TREE, err) < 0 ||
		    ss_state_view_put(st, &e, err) < 0)
			goto out;
	} else if (ss_tree_top_remove(top, rkey, err) < 0 ||
	           ss_state_view_remove(st, rkey, err) < 0) {
		goto out;
	}
	(void)repo;
	ret = 0;
out:
	free(order);
	others_release(&o);
	return ret;
}

static int apply_put(ss_state *st, const char *me, const ss_journal_write *w, const char *push_time,
                     ss_tree_top *top, ss_buf *msg, ss_error *err)
{
	ss_state_record r;
	ss_state_view_entry e = {w->rkey, me, w->cid, w->tree};
	ss_oid tree;
	int64_t us = 0;

	memset(&r, 0, sizeof(r));
	ss_time_parse(push_time, &us);
	r.did = me;
	r.rkey = w->rkey;
	r.cid = w->cid;
	r.created_at = w->created_at;
	r.updated_at = push_time;
	r.updated_us = us;
	r.valid = true;
	r.tree = w->tree;
	r.note = w->note;
	if (ss_oid_parse(&tree, w->tree, err) < 0 ||
	    ss_tree_top_set(top, w->rkey, &tree, SS_MODE_TREE, err) < 0 ||
	    ss_state_record_put(st, &r, err) < 0 || ss_state_view_put(st, &e, err) < 0)
		return -1;
	if (w->note && *w->note) {
		const char *nl = strchr(w->note, '\n');
		ss_buf_printf(msg, "\n    %.*s", nl ? (int)(nl - w->note) : (int)strlen(w->note),
		              w->note);
	}
	return 0;
}

int ss_push_finish(ss_repo *repo, ss_state *st, const char *me, const ss_push_landed *l,
                   const ss_push_opts *opts, ss_oid *tracking, ss_error *err)
{
	ss_tree_top *top = NULL;
	ss_buf msg = SS_BUF_INIT;
	char *old_hex = NULL, *authority = NULL, hex[SS_OID_HEXSZ + 1];
	ss_oid old, tree, commit;
	ss_commit_opts co;
	bool in_txn = false, have_old;
	int ret = -1;

	have_old = ss_state_config_get(st, "tracking", &old_hex, err) == 0 &&
	           ss_oid_parse(&old, old_hex, err) == 0;
	if (!have_old)
		ss_oid_clear(&old);
	if (ss_state_config_get(st, "authority", &authority, err) < 0)
		authority = NULL;
	if (ss_state_begin(st, err) < 0)
		goto out;
	in_txn = true;
	{
		ss_oid base_tree;
		if (have_old && ss_commit_tree(repo, &old, &base_tree, err) < 0)
			goto out;
		if (ss_tree_top_new(&top, repo, have_old ? &base_tree : NULL, false, err) < 0)
			goto out;
	}
	ss_buf_printf(&msg, "push: %zu change%s to my records\n", l->n, l->n == 1 ? "" : "s");
	for (size_t i = 0; i < l->n; i++) {
		const ss_journal_write *w = &l->writes[i];

		ss_buf_printf(&msg, "\n%s %s", ss_plan_op_name(w->op), w->rkey);
		if (w->op == SS_PLAN_DELETE
		        ? apply_delete(repo, st, me, authority, w->rkey, top, err) < 0
		        : apply_put(st, me, w, l->push_time, top, &msg, err) < 0)
			goto out;
	}
	ss_buf_putc(&msg, '\n');
	memset(&co, 0, sizeof(co));
	co.author_name = SS_COMMIT_DEFAULT_NAME;
	co.author_email = SS_COMMIT_DEFAULT_EMAIL;
	if (ss_tree_top_write(top, &tree, err) < 0 ||
	    ss_commit_create(repo, &co, &tree, have_old ? &old : NULL, have_old ? 1 : 0, msg.ptr,
	                     &commit, err) < 0)
		goto out;
	ss_oid_fmt(hex, &commit);
	if ((l->commit && ss_state_member_set_head(st, me, l->commit, l->rev, err) < 0) ||
	    ss_state_config_set(st, "tracking", hex, err) < 0 ||
	    ss_state_config_set(st, "pushed", l->head, err) < 0 ||
	    ss_state_journal_clear(st, err) < 0)
		goto out;
	ss_push_at(opts, "before-state");
	if (ss_state_commit(st, err) < 0)
		goto out;
	in_txn = false;
	ss_push_at(opts, "before-ref");
	if (ss_commit_update_ref(repo, SS_REPO_TRACKING_REF, &commit, NULL, "skillsync: push",
	                         err) < 0)
		goto out;
	*tracking = commit;
	ret = 0;
out:
	if (in_txn)
		ss_state_rollback(st);
	ss_tree_top_free(top);
	ss_buf_release(&msg);
	free(old_hex);
	free(authority);
	return ret;
}
