/* push_finish.c: landed writes -> state and tracking commit (after a push, or its recovery). */
#include <stdlib.h>
#include <string.h>

#include "core/diff/outgoing.h"
#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "sync/fetch.h"
#include "sync/push_priv.h"

/*
 * After my record of rkey is deleted, the name leaves the view and the tracking tree: when
 * another member has a version, the next fetch computes the view again and brings it in as an
 * addition, which the next pull checks out ("deleting your version; <who>'s version will
 * apply"). Putting it in this tracking commit instead would make main, which contains it at
 * once (it is main's commit, or ss_push_conclude merges it), look as if the person had deleted
 * the other version too.
 * No member's repo has moved for that fetch (mine is recorded as of this push), so config
 * "view_stale" tells it to compute the view anyway.
 */
static int apply_delete(ss_state *st, const char *me, const char *rkey, ss_tree_top *top,
                        ss_error *err)
{
	if (ss_state_record_delete(st, me, rkey, err) < 0 ||
	    ss_tree_top_remove(top, rkey, err) < 0 || ss_state_view_remove(st, rkey, err) < 0 ||
	    ss_state_config_set(st, "view_stale", "1", err) < 0)
		return -1;
	return 0;
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

/*
 * Whether two top trees hold the same skills: every top-level name that differs between them
 * is outside the skills in both (a README on main, say), so the tracking ref may name the
 * commit with the other tree (see ss_push__finish).
 */
static int same_skills(ss_repo *repo, const ss_oid *a, const ss_oid *b, bool *same, ss_error *err)
{
	ss_changes top = {0};
	int ret = -1;

	*same = false;
	if (ss_tree_diff_top(repo, a, b, &top, err) < 0)
		return -1;
	for (size_t i = 0; i < top.count; i++) {
		ss_oid sub;
		bool skill_a, skill_b;

		if (ss_outgoing_is_skill(repo, a, top.items[i].path, &sub, &skill_a, err) < 0 ||
		    ss_outgoing_is_skill(repo, b, top.items[i].path, &sub, &skill_b, err) < 0)
			goto out;
		if (skill_a || skill_b) {
			ret = 0;
			goto out;
		}
	}
	*same = true;
	ret = 0;
out:
	ss_tree_changes_release(&top);
	return ret;
}

/*
 * The tracking commit for the new view tree: the pushed HEAD itself when it holds the same
 * skills (the usual case: my versions win for me), as `git push` moves origin/main, so main
 * needs no merge; else a new commit on the previous tracking commit, which ss_push_conclude
 * merges into main.
 */
static int tracking_commit(ss_repo *repo, const ss_push_landed *l, const ss_oid *tree,
                           const ss_oid *old, const char *msg, ss_oid *out, ss_error *err)
{
	ss_oid head, head_tree;
	ss_commit_opts co;
	bool same = false;

	if (ss_oid_parse(&head, l->head, err) < 0 ||
	    ss_commit_tree(repo, &head, &head_tree, err) < 0 ||
	    same_skills(repo, tree, &head_tree, &same, err) < 0)
		return -1;
	if (same) {
		*out = head;
		return 0;
	}
	memset(&co, 0, sizeof(co));
	co.author_name = SS_COMMIT_DEFAULT_NAME;
	co.author_email = SS_COMMIT_DEFAULT_EMAIL;
	return ss_commit_create(repo, &co, tree, old, old ? 1 : 0, msg, out, err);
}

int ss_push__finish(ss_repo *repo, ss_state *st, const char *me, const ss_push_landed *l,
                    ss_oid *tracking, ss_error *err)
{
	ss_tree_top *top = NULL;
	ss_buf msg = SS_BUF_INIT;
	char hex[SS_OID_HEXSZ + 1];
	ss_oid old, tree, commit;
	bool in_txn = false, have_old;
	int ret = -1;

	have_old = ss_state_tracking(st, &old);
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
		if (ss_state_journal_drop_note(st, w->rkey, err) < 0)
			goto out;
		if (w->op == SS_WRITE_DELETE
		        ? apply_delete(st, me, w->rkey, top, err) < 0
		        : apply_put(st, me, w, l->push_time, top, &msg, err) < 0)
			goto out;
	}
	ss_buf_putc(&msg, '\n');
	if (ss_tree_top_write(top, &tree, err) < 0 ||
	    tracking_commit(repo, l, &tree, have_old ? &old : NULL, msg.ptr, &commit, err) < 0)
		goto out;
	ss_oid_fmt(hex, &commit);
	if ((l->commit && ss_state_member_set_head(st, me, l->commit, l->rev, err) < 0) ||
	    ss_state_set_tracking(st, &commit, err) < 0 ||
	    ss_state_config_set(st, "pushed", l->head, err) < 0 ||
	    ss_state_config_set(st, "pushed_tracking", hex, err) < 0 ||
	    ss_state_journal_clear(st, err) < 0)
		goto out;
	ss_crash_point("before-state");
	if (ss_state_commit(st, err) < 0)
		goto out;
	in_txn = false;
	ss_crash_point("before-ref");
	if (ss_commit_update_ref(repo, SS_REPO_TRACKING_REF, &commit, NULL, "skillsync: push",
	                         err) < 0)
		goto out;
	*tracking = commit;
	ss_crash_point("before-main");
	ret = ss_push_conclude(repo, st, NULL, err);
	/* The transport's copy of my repo follows (best effort: the writes are recorded). */
	if (l->sp)
		ss_space_landed(l->sp, l->commit);
out:
	if (in_txn)
		ss_state_rollback(st);
	ss_tree_top_free(top);
	ss_buf_release(&msg);
	return ret;
}
