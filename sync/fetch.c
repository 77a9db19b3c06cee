/* fetch.c: heads, listing and rendering of the members that moved (see
 * sync/fetch.h). */
#include "sync/fetch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diff/members.h"
#include "core/git/commit.h"
#include "core/git/render.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/mem.h"
#include "sync/fetch_priv.h"

/* An unchanged record keeps its verdict, and its subtree when the object store still has it. */
static bool tree_usable(ss_fetch_run_ctx *f, const ss_state_record *old)
{
	ss_error ignored;
	ss_oid oid;

	if (!old->valid)
		return true;
	return old->tree && ss_oid_parse(&oid, old->tree, &ignored) == 0 &&
	       ss_tree_exists(f->repo, &oid);
}

/* Tells opts->report about a skipped record (refused: the server's data did not verify). */
static void report(ss_fetch_run_ctx *f, const char *did, const char *rkey, const char *reason,
                   bool refused)
{
	f->res->skipped++;
	if (refused)
		f->res->refused++;
	if (f->opts && f->opts->report)
		f->opts->report(f->opts->payload, did, ss_fetch__handle(f, did), rkey, reason,
		                refused);
}

/*
 * A new version of a record that was valid, refused this time: the last good version stays
 * (docs/concepts/precedence.md), with a warning; the next listing tries the new version again.
 */
static int keep_last_good(ss_fetch_run_ctx *f, const ss_space_record *rec, const char *reason,
                          bool refused, ss_error *err)
{
	ss_buf why = SS_BUF_INIT;
	int rc = ss_state_record_touch(f->st, rec->did, rec->rkey, err);

	if (rc == 0) {
		ss_buf_printf(&why, "%s (its last good version is kept)", reason);
		report(f, rec->did, rec->rkey, why.ptr, refused);
	}
	ss_buf_release(&why);
	return rc;
}

/* A member's blob, for core/git/render.h. */
typedef struct blob_source {
	ss_fetch_run_ctx *f;
	const char *did;
} blob_source;

static void get_blobs(void *payload, ss_cid_read *reads, size_t n)
{
	blob_source *b = payload;

	ss_space_get_blobs(b->f->sp, b->did, reads, n);
}

/* A record whose blob could not be had: its member is listed in full next time, so that the
 * record is tried again (docs/concepts/precedence.md: a server's failure never becomes a verdict).
 */
static void retry_member(ss_fetch_run_ctx *f, const char *did)
{
	for (size_t i = 0; i < f->nretry; i++)
		if (!strcmp(f->retry[i], did))
			return;
	f->retry = ss_xrealloc(f->retry, (f->nretry + 1) * sizeof(*f->retry));
	f->retry[f->nretry++] = ss_xstrdup(did);
}

/* Renders rec, its blobs taken from the last version's subtree (old_tree, "" for none) when it
 * holds them. */
static int render(ss_fetch_run_ctx *f, const ss_space_record *rec, const char *old_tree,
                  ss_render *r, ss_error *err)
{
	ss_record_value value = {rec->value_json, rec->value_len, rec->value_cbor,
	                         rec->value_cbor_len};
	blob_source b = {f, rec->did};
	ss_render_blobs src = {NULL, get_blobs, &b, 0, 0};
	ss_error ignored;
	ss_oid old;
	int rc;

	if (*old_tree && ss_oid_parse(&old, old_tree, &ignored) == 0 &&
	    ss_tree_exists(f->repo, &old))
		src.old = &old;
	rc = ss_render_record_blobs(f->repo, rec->rkey, &value, &src, r, err);
	f->res->blobs_fetched += src.fetched;
	f->res->blobs_reused += src.reused;
	if (rc == 0 && r->refused)
		retry_member(f, rec->did);
	return rc;
}

static int on_record(void *payload, const ss_space_record *rec, ss_error *err)
{
	ss_fetch_run_ctx *f = payload;
	ss_state_record old, sr;
	ss_render r;
	char hex[SS_OID_HEXSZ + 1], old_tree[SS_OID_HEXSZ + 1] = "";
	bool had_good;
	int rc;

	memset(&old, 0, sizeof(old));
	memset(&r, 0, sizeof(r));
	f->res->records++;
	if (!rec->rkey) { /* an entry with no key: said, nothing stored */
		report(f, rec->did, "?", rec->problem, rec->refused);
		return 0;
	}
	rc = ss_state_record_get(f->st, rec->did, rec->rkey, &old, err);
	if (rc == 0 && !strcmp(old.cid, rec->cid) && tree_usable(f, &old)) {
		/* Unchanged: keep its subtree (stable rendering) and its verdict. */
		ss_state_record_release(&old);
		rc = ss_state_record_touch(f->st, rec->did, rec->rkey, err);
		goto progress;
	}
	had_good = rc == 0 && old.valid && tree_usable(f, &old);
	if (had_good)
		snprintf(old_tree, sizeof(old_tree), "%s", old.tree);
	ss_state_record_release(&old);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		return rc;
	if (rec->problem) {
		r.reason = ss_xstrdup(rec->problem);
	} else if (render(f, rec, old_tree, &r, err) < 0) {
		return ss_error_prefix(err, "cannot store '%s' of '%s'", rec->rkey,
		                       ss_fetch__who(f, rec->did));
	}
	if (!r.valid && had_good) {
		rc = keep_last_good(f, rec, r.reason, rec->refused || r.refused, err);
		goto out;
	}
	if (r.refused) { /* nothing good to keep: said, not kept, tried again next time */
		report(f, rec->did, rec->rkey, r.reason, true);
		goto out;
	}
	if (r.valid)
		ss_oid_fmt(hex, &r.tree);
	memset(&sr, 0, sizeof(sr));
	sr.did = rec->did;
	sr.rkey = rec->rkey;
	sr.cid = rec->cid;
	sr.created_at = r.created_at;
	sr.updated_at = r.updated_at;
	sr.updated_us = r.updated_us;
	sr.valid = r.valid;
	sr.reason = r.reason;
	sr.tree = r.valid ? hex : NULL;
	sr.note = r.note;
	rc = ss_state_record_put(f->st, &sr, err);
	if (rc == 0 && !r.valid)
		report(f, rec->did, rec->rkey, r.reason, rec->refused);
out:
	ss_render_release(&r);
progress:
	if (rc == 0 && f->opts && f->opts->progress && f->res->records % 100 == 0)
		f->opts->progress(f->opts->payload, f->res->records, f->members_done, f->to_list);
	return rc;
}

static int on_deleted(void *payload, const char *did, const char *rkey, ss_error *err)
{
	ss_fetch_run_ctx *f = payload;

	return ss_state_record_delete(f->st, did, rkey, err);
}

static const ss_space_head *find_head(const ss_fetch_run_ctx *f, const char *did)
{
	for (size_t i = 0; i < f->nheads; i++)
		if (!strcmp(f->heads[i].did, did))
			return &f->heads[i];
	return NULL;
}

/* Notes how did was read (fetch --json "reads"). */
static void note_read(ss_fetch_run_ctx *f, const char *did, const ss_space_read *how, bool verified)
{
	ss_fetch_read *r;

	f->res->reads = ss_xrealloc(f->res->reads, (f->res->nreads + 1) * sizeof(*r));
	r = &f->res->reads[f->res->nreads++];
	r->did = ss_xstrdup(did);
	r->path = ss_xstrdup(how->path ? how->path : "");
	r->verified = verified;
	r->fallback = how->fallback ? ss_xstrdup(how->fallback) : NULL;
}

void ss_fetch_result_release(ss_fetch_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nreads; i++) {
		free(r->reads[i].did);
		free(r->reads[i].path);
		free(r->reads[i].fallback);
	}
	free(r->reads);
	r->reads = NULL;
	r->nreads = 0;
	for (size_t i = 0; i < r->nfailed; i++) {
		free(r->failed[i].did);
		free(r->failed[i].why);
	}
	free(r->failed);
	r->failed = NULL;
	r->nfailed = 0;
}

/* A member that could not be read, or whose read was refused: kept with why. */
static void keep_failed(ss_fetch_run_ctx *f, const char *did, const char *why)
{
	ss_fetch_failed *x;

	f->res->failed = ss_xrealloc(f->res->failed, (f->res->nfailed + 1) * sizeof(*x));
	x = &f->res->failed[f->res->nfailed++];
	x->did = ss_xstrdup(did);
	x->why = ss_xstrdup(why ? why : "");
}

/* A member that could not be read, or whose read was refused: counted, kept with why, said. */
static void note_failed(ss_fetch_run_ctx *f, const char *did, const char *handle, const char *why)
{
	keep_failed(f, did, why);
	f->res->unreachable++;
	f->opts->unreachable(f->opts->payload, did, handle, why);
}

/* An answer refused as not verifying before the member's read checked out (how->caught):
 * counted, kept and said all the same (docs/SECURITY.md: a caught lie is still told). */
static void note_caught(ss_fetch_run_ctx *f, const char *did, const char *caught)
{
	ss_buf why = SS_BUF_INIT;

	ss_buf_printf(&why,
	              "'%s': its server sent what does not verify (%s): refused; read again, the "
	              "member synced",
	              ss_fetch__who(f, did), caught);
	keep_failed(f, did, why.ptr);
	f->res->caught++;
	if (f->opts && f->opts->caught)
		f->opts->caught(f->opts->payload, did, ss_fetch__handle(f, did), why.ptr);
	ss_buf_release(&why);
}

static int on_done(void *payload, const char *did, const ss_space_read *how, ss_error *err)
{
	ss_fetch_run_ctx *f = payload;
	const ss_space_head *h = find_head(f, did);
	bool full = how->full;

	if (full && ss_state_sweep_end(f->st, did, err) < 0)
		return -1;
	if (full)
		f->res->full_listings++;
	else
		f->res->incremental_listings++;
	for (size_t i = 0; full && i < f->nwants; i++)
		if (!strcmp(f->wants[i].did, did) && f->wants[i].since_rev)
			f->res->fallbacks++;
	note_read(f, did, how, how->verified);
	if (how->caught)
		note_caught(f, did, how->caught);
	if (h && ss_state_member_set_head(f->st, did, h->commit, h->rev, err) < 0)
		return -1;
	for (size_t i = 0; i < f->nretry; i++)
		if (!strcmp(f->retry[i], did) &&
		    ss_state_member_set_head(f->st, did, NULL, NULL, err) < 0)
			return -1;
	f->members_done++;
	if (f->opts && f->opts->progress)
		f->opts->progress(f->opts->payload, f->res->records, f->members_done, f->to_list);
	return 0;
}

/* Some records of the member were refused: its head is forgotten, so that the next run lists
 * it in full and takes their signed versions once they come. */
static int on_incomplete(void *payload, const char *did, ss_error *err)
{
	ss_fetch_run_ctx *f = payload;

	return ss_state_member_set_head(f->st, did, NULL, NULL, err);
}

/* A member that could not be read this time: its last known versions stay
 * (docs/concepts/precedence.md). */
static int on_failed(void *payload, const char *did, const ss_space_read *how, const ss_error *why,
                     ss_error *err)
{
	ss_fetch_run_ctx *f = payload;

	(void)err;
	if (how)
		note_read(f, did, how, false);
	f->members_done++;
	note_failed(f, did, ss_fetch__handle(f, did), why->message);
	return 0;
}

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Brings the state's members in line with heads; fills wants with the members
 * that moved. */
static int plan(ss_fetch_run_ctx *f, ss_space_want **wants, size_t *nwants, ss_error *err)
{
	ss_state_member *members = NULL;
	size_t n = 0;
	int ret = -1;

	*wants = ss_xcalloc(f->nheads ? f->nheads : 1, sizeof(**wants));
	f->since = ss_xcalloc(f->nheads ? f->nheads : 1, sizeof(*f->since));
	*nwants = 0;
	if (ss_state_members_list(f->st, &members, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!find_head(f, members[i].did)) {
			if (ss_state_member_remove(f->st, members[i].did, err) < 0)
				goto out;
			f->dropped = true;
		}
	for (size_t i = 0; i < f->nheads; i++) {
		const ss_space_head *h = &f->heads[i];
		ss_state_member m;
		bool known;
		int rc;

		if (h->rc < 0) {
			note_failed(f, h->did, h->handle, h->error);
			continue;
		}
		memset(&m, 0, sizeof(m));
		rc = ss_state_member_get(f->st, h->did, &m, err);
		known = rc == 0;
		if (rc < 0 && err->code == SS_ENOTFOUND) {
			ss_state_member nm = {h->did, h->handle, h->pds,
			                      NULL,   NULL,      SS_ROLE_MEMBER};

			if (ss_members_add(f->st, &nm, NULL, NULL, err) < 0)
				goto out;
		} else if (rc < 0) {
			goto out;
		}
		if (!known || !m.rev || !same(m.rev, h->rev) || !same(m.commit, h->commit)) {
			(*wants)[*nwants].did = h->did;
			/* Changes since the revision the state holds, when the transport can say (a
			 * writer that never wrote has the empty revision: listed in full). */
			if (known && m.rev && *m.rev &&
			    (ss_space_caps(f->sp) & SS_SPACE_CAN_LIST_SINCE))
				f->since[*nwants] = ss_xstrdup(m.rev);
			(*wants)[*nwants].since_rev = f->since[*nwants];
			(*nwants)++;
		}
		ss_state_member_release(&m);
	}
	ret = 0;
out:
	ss_state_members_free(members, n);
	return ret;
}

/* Stops the walk (1) at a view entry whose member is gone (`members remove` drops a member's
 * records between fetches): the view must then be computed again. */
static int stale_entry(const ss_state_view_entry *e, void *payload)
{
	const ss_fetch_run_ctx *f = payload;

	for (size_t i = 0; i < f->nmembers; i++)
		if (!strcmp(f->members[i].did, e->did))
			return 0;
	return 1;
}

/*
 * Whether the run has nothing to do: no member moved or was dropped, no push deleted a name
 * that another version may now take (config "view_stale", see sync/push_finish.c), and the
 * view still matches the members. Then nothing is written (the state's transaction is rolled
 * back), which is what a scheduled pull does most of the time.
 */
static int nothing_moved(ss_fetch_run_ctx *f, size_t nwants, bool *out, ss_error *err)
{
	char *stale = NULL;
	int rc;

	*out = false;
	if (nwants || f->dropped)
		return 0;
	rc = ss_state_config_get(f->st, "view_stale", &stale, err);
	free(stale);
	if (rc == 0)
		return 0;
	if (err->code != SS_ENOTFOUND)
		return rc;
	rc = ss_state_view_each(f->st, stale_entry, f, err);
	if (rc < 0)
		return rc;
	*out = rc == 0;
	return 0;
}

int ss_fetch_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_fetch_opts *opts,
                 ss_fetch_result *out, ss_error *err)
{
	ss_fetch_run_ctx f;
	ss_space_want *wants = NULL;
	size_t nwants = 0;
	bool idle;
	ss_space_listener l = {on_record, on_deleted, on_done, &f, NULL, on_incomplete};
	int ret = -1;

	memset(&f, 0, sizeof(f));
	memset(out, 0, sizeof(*out));
	f.repo = repo;
	f.st = st;
	f.sp = sp;
	f.opts = opts;
	f.res = out;
	/* With an unreachable callback, a member that cannot be read is named and the rest
	 * syncs; without (clone), it fails the run. */
	if (opts && opts->unreachable) {
		l.failed = on_failed;
		ret = ss_space_heads_partial(sp, &f.heads, &f.nheads, err);
	} else {
		ret = ss_space_heads(sp, &f.heads, &f.nheads, err);
	}
	if (ret < 0)
		goto out;
	ret = -1;
	if (ss_state_begin(st, err) < 0)
		goto out;
	if (plan(&f, &wants, &nwants, err) < 0)
		goto out;
	if (ss_state_members_list(st, &f.members, &f.nmembers, err) < 0)
		goto out;
	if (nothing_moved(&f, nwants, &idle, err) < 0)
		goto out;
	if (idle) {
		int rc = ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, &out->commit, err);

		if (rc < 0 && err->code == SS_ENOTFOUND) {
			ss_oid_clear(&out->commit);
			rc = 0;
		}
		ret = rc;
		goto out;
	}
	f.to_list = nwants;
	f.wants = wants;
	f.nwants = nwants;
	for (size_t i = 0; i < nwants; i++)
		if (ss_state_sweep_begin(st, wants[i].did, err) < 0)
			goto out;
	/* The rendered objects go into packs; they are on disk before the state or a ref
	 * names them (ss_fetch_view__commit). */
	if (ss_repo_batch_begin(repo, 0, err) < 0)
		goto out;
	ret = ss_space_list(sp, wants, nwants, &l, err);
	if (ret < 0)
		goto out;
	ret = ss_repo_batch_end(repo, err);
	if (ret < 0)
		goto out;
	out->listed = nwants;
	ret = ss_fetch_view__commit(&f, err);
out:
	ss_repo_batch_abort(repo); /* a no-op once ended */
	ss_state_rollback(st);     /* a no-op once committed */
	ss_space_heads_free(f.heads, f.nheads);
	ss_state_members_free(f.members, f.nmembers);
	for (size_t i = 0; f.since && i < nwants; i++)
		free(f.since[i]);
	free(f.since);
	for (size_t i = 0; i < f.nretry; i++)
		free(f.retry[i]);
	free(f.retry);
	free(wants);
	return ret;
}
