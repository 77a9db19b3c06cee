/* fetch_view.c: the view from the state's metadata, and the tracking commit
 * that holds it. */
#include <stdlib.h>
#include <string.h>

#include "core/diff/view.h"
#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/skill/skilldir.h"
#include "core/state/state_record.h"
#include "core/util/buf.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"
#include "sync/fetch_priv.h"

/* Past this size the tracking commit's message only counts the remaining
 * changes. */
#define MESSAGE_MAX (64 * 1024)

const char *ss_fetch__handle(const ss_fetch_run_ctx *f, const char *did)
{
	for (size_t i = 0; i < f->nmembers; i++)
		if (!strcmp(f->members[i].did, did))
			return f->members[i].handle;
	return NULL;
}

const char *ss_fetch__who(const ss_fetch_run_ctx *f, const char *did)
{
	const char *h = did ? ss_fetch__handle(f, did) : NULL;

	return h ? h : did;
}

typedef struct version {
	char *did, *cid, *tree;
	int64_t us;
	bool valid;
} version;

/* Groups the state's records by name and keeps each name's winner. */
typedef struct calc {
	const char *me, *authority;
	char *rkey;
	version *v;
	size_t nv, av;
	ss_state_view_entry *out;
	size_t nout, aout;
} calc;

static void flush(calc *c)
{
	ss_view_version *vv;
	size_t *order;

	if (!c->rkey)
		return;
	vv = ss_xcalloc(c->nv, sizeof(*vv));
	order = ss_xcalloc(c->nv, sizeof(*order));
	for (size_t i = 0; i < c->nv; i++) {
		vv[i].did = c->v[i].did;
		vv[i].cid = c->v[i].cid;
		vv[i].updated_us = c->v[i].us;
		vv[i].valid = c->v[i].valid && c->v[i].tree;
	}
	if (ss_view_rank(vv, c->nv, c->me, c->authority, order) > 0) {
		version *w = &c->v[order[0]];
		ss_state_view_entry *e;

		ss_xgrow((void **)&c->out, sizeof(*c->out), c->nout + 1, &c->aout);
		e = &c->out[c->nout++];
		e->rkey = c->rkey;
		c->rkey = NULL;
		e->did = w->did;
		e->cid = w->cid;
		e->tree = w->tree;
		w->did = w->cid = w->tree = NULL;
	}
	for (size_t i = 0; i < c->nv; i++) {
		free(c->v[i].did);
		free(c->v[i].cid);
		free(c->v[i].tree);
	}
	c->nv = 0;
	free(c->rkey);
	c->rkey = NULL;
	free(vv);
	free(order);
}

static int on_record(const ss_state_record *r, void *payload)
{
	calc *c = payload;
	version *v;

	if (c->rkey && strcmp(c->rkey, r->rkey))
		flush(c);
	if (!c->rkey)
		c->rkey = ss_xstrdup(r->rkey);
	ss_xgrow((void **)&c->v, sizeof(*c->v), c->nv + 1, &c->av);
	v = &c->v[c->nv++];
	v->did = ss_xstrdup(r->did);
	v->cid = ss_xstrdup(r->cid);
	v->tree = r->tree ? ss_xstrdup(r->tree) : NULL;
	v->us = r->updated_us;
	v->valid = r->valid;
	return 0;
}

static void calc_release(calc *c)
{
	flush(c);
	for (size_t i = 0; i < c->nout; i++)
		ss_state_view_entry_release(&c->out[i]);
	free(c->out);
	free(c->v);
}

static int compare_entry(const void *key, const void *elem)
{
	return strcmp(key, ((const ss_state_view_entry *)elem)->rkey);
}

/* Compares the old view (the state's view table) with the new one, into the
 * message. */
typedef struct changes {
	ss_fetch_run_ctx *f;
	calc *c;
	bool *seen; /* per new entry: it was in the old view */
	ss_buf body;
	size_t omitted;
} changes;

static void escape(ss_buf *out, const char *s)
{
	ss_utf8_escape(out, s, strlen(s), SS_ESCAPE_TEXT);
}

static void note_line(changes *ch, const char *did, const char *rkey)
{
	ss_state_record r;
	ss_error ignored;

	memset(&r, 0, sizeof(r));
	if (ss_state_record_get(ch->f->st, did, rkey, &r, &ignored) == 0 && r.note && *r.note) {
		ss_buf_puts(&ch->body, "    note: ");
		ss_utf8_escape_line(&ch->body, r.note, 400);
		ss_buf_putc(&ch->body, '\n');
	}
	ss_state_record_release(&r);
}

static void change_line(changes *ch, const char *what, const char *rkey, const char *did,
                        const char *old_did)
{
	if (ch->body.len > MESSAGE_MAX) {
		ch->omitted++;
		return;
	}
	/* Each field is one line of the message, whatever the space sent (utf8.h's escape). */
	ss_buf_printf(&ch->body, "%s ", what);
	escape(&ch->body, rkey);
	if (did) {
		ss_buf_puts(&ch->body, " by ");
		escape(&ch->body, ss_fetch__who(ch->f, did));
	}
	if (old_did && (!did || strcmp(old_did, did))) {
		ss_buf_puts(&ch->body, " (was ");
		escape(&ch->body, ss_fetch__who(ch->f, old_did));
		ss_buf_putc(&ch->body, ')');
	}
	ss_buf_putc(&ch->body, '\n');
	if (did)
		note_line(ch, did, rkey);
}

static int on_old_entry(const ss_state_view_entry *e, void *payload)
{
	changes *ch = payload;
	ss_state_view_entry *n =
	    bsearch(e->rkey, ch->c->out, ch->c->nout, sizeof(*ch->c->out), compare_entry);

	if (!n) {
		ch->f->res->removed++;
		change_line(ch, "removed", e->rkey, NULL, e->did);
		return 0;
	}
	ch->seen[n - ch->c->out] = true;
	if (strcmp(n->cid, e->cid) || strcmp(n->did, e->did) || strcmp(n->tree, e->tree)) {
		ch->f->res->updated++;
		change_line(ch, "updated", n->rkey, n->did, e->did);
	}
	return 0;
}

/*
 * The view's tree. Entries of the previous tracking tree outside the skills stay: after a push
 * the tracking ref may name main's own commit (sync/push_finish.c), and a README there must not
 * look deleted by the space.
 */
static int build_tree(ss_fetch_run_ctx *f, const calc *c, const ss_oid *parent_tree, ss_oid *out,
                      ss_error *err)
{
	ss_tree_top *t = NULL;
	ss_tree_list old = {0};
	int ret = -1;

	if (ss_tree_top_new(&t, f->repo, NULL, false, err) < 0)
		return -1;
	if (parent_tree && ss_tree_list_top(f->repo, parent_tree, &old, err) < 0)
		goto out;
	for (size_t i = 0; i < old.count; i++) {
		const char *name = old.entries[i].name;
		unsigned mode = old.entries[i].mode;

		if (ss_skilldir_outside(name, mode == SS_MODE_TREE) &&
		    ss_tree_top_set(t, name, &old.entries[i].oid, mode, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < c->nout; i++) {
		ss_oid oid;

		if (ss_oid_parse(&oid, c->out[i].tree, err) < 0 ||
		    ss_tree_top_set(t, c->out[i].rkey, &oid, SS_MODE_TREE, err) < 0)
			goto out;
	}
	ret = ss_tree_top_write(t, out, err);
out:
	ss_tree_list_release(&old);
	ss_tree_top_free(t);
	return ret;
}

static int save_view(ss_fetch_run_ctx *f, const calc *c, ss_error *err)
{
	if (ss_state_view_clear(f->st, err) < 0)
		return -1;
	for (size_t i = 0; i < c->nout; i++)
		if (ss_state_view_put(f->st, &c->out[i], err) < 0)
			return -1;
	return 0;
}

int ss_fetch_view__commit(ss_fetch_run_ctx *f, ss_error *err)
{
	calc c;
	changes ch;
	ss_oid tree, parent, parent_tree, commit;
	bool has_parent;
	ss_buf msg = SS_BUF_INIT;
	int rc, ret = -1;

	memset(&c, 0, sizeof(c));
	memset(&ch, 0, sizeof(ch));
	ss_buf_init(&ch.body);
	c.me = ss_space_me(f->sp);
	c.authority = ss_state_authority(f->st);
	if (ss_state_records_each(f->st, NULL, on_record, &c, err) < 0)
		goto out;
	flush(&c);

	ch.f = f;
	ch.c = &c;
	ch.seen = ss_xcalloc(c.nout ? c.nout : 1, sizeof(bool));
	if (ss_state_view_each(f->st, on_old_entry, &ch, err) < 0)
		goto out;
	for (size_t i = 0; i < c.nout; i++) {
		if (ch.seen[i])
			continue;
		f->res->added++;
		change_line(&ch, "added", c.out[i].rkey, c.out[i].did, NULL);
	}
	if (ch.omitted)
		ss_buf_printf(&ch.body, "... and %zu more\n", ch.omitted);

	rc = ss_commit_read_ref(f->repo, SS_REPO_TRACKING_REF, &parent, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		goto out;
	has_parent = rc == 0;
	if (has_parent && ss_commit_tree(f->repo, &parent, &parent_tree, err) < 0)
		goto out;
	if (build_tree(f, &c, has_parent ? &parent_tree : NULL, &tree, err) < 0)
		goto out;
	if (has_parent && ss_oid_equal(&tree, &parent_tree)) {
		commit = parent;
	} else {
		ss_commit_opts opts;

		memset(&opts, 0, sizeof(opts));
		opts.author_name = SS_COMMIT_DEFAULT_NAME;
		opts.author_email = SS_COMMIT_DEFAULT_EMAIL;
		ss_buf_printf(&msg, "%s: %zu added, %zu updated, %zu removed\n\n%s",
		              f->opts && f->opts->subject ? f->opts->subject : "fetch",
		              f->res->added, f->res->updated, f->res->removed, ch.body.ptr);
		if (ss_commit_create(f->repo, &opts, &tree, has_parent ? &parent : NULL,
		                     has_parent ? 1 : 0, msg.ptr, &commit, err) < 0)
			goto out;
		f->res->changed = true;
	}
	if (save_view(f, &c, err) < 0 || ss_state_set_tracking(f->st, &commit, err) < 0 ||
	    ss_state_config_set(f->st, "view_stale", NULL, err) < 0 ||
	    (!f->res->unreachable && ss_state_config_set(f->st, "rebuilt", NULL, err) < 0) ||
	    ss_state_commit(f->st, err) < 0)
		goto out;
	f->res->commit = commit;
	ss_crash_point("fetch-before-ref"); /* test-only: the state names a commit, the ref not */
	if (f->res->changed) {
		ss_oid zero;

		ss_oid_clear(&zero);
		if (ss_commit_update_ref(f->repo, SS_REPO_TRACKING_REF, &commit,
		                         has_parent ? &parent : &zero, "skillsync: fetch", err) < 0)
			goto out;
	}
	ret = 0;
out:
	calc_release(&c);
	free(ch.seen);
	ss_buf_release(&ch.body);
	ss_buf_release(&msg);
	return ret;
}

int ss_fetch_recover(ss_repo *repo, ss_state *st, ss_error *err)
{
	char hex[SS_OID_HEXSZ + 1];
	ss_oid want, cur, tree;
	int rc;

	if (!ss_state_tracking(st, &want))
		return 0;
	rc = ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, &cur, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		return rc;
	if (rc == 0 && ss_oid_equal(&cur, &want))
		return 0;
	if (ss_commit_tree(repo, &want, &tree, err) < 0) {
		ss_oid_fmt(hex, &want);
		return ss_error_prefix(err, "the local state names tracking commit %s", hex);
	}
	if (rc < 0) /* no tracking ref yet */
		ss_oid_clear(&cur);
	return ss_commit_update_ref(repo, SS_REPO_TRACKING_REF, &want, &cur,
	                            "skillsync: finish an interrupted fetch", err);
}
