/* space_perm_list.c: a writer's records in the space: all of them (listRecords) or what
 * changed since a revision (listRepoOps); see sync/space_perm.h. */
#include <stdlib.h>
#include <string.h>

#include "core/crash.h"
#include "core/mem.h"
#include "core/record.h"
#include "sync/space_perm_priv.h"
#include "sync/space_proto.h"
#include "sync/space_public.h"
#include "sync/xrpc_priv.h"

struct walk {
	const ss_space_listener *l;
	const char *did;
	bool stopped; /* the listener failed: its error, not the server's */
	ss_lthash h;  /* a full listing's records (sync/space_verify.c) */
};

/*
 * Whether r's value is the record its CID names (the host could serve another value under the
 * same CID): NULL when it is, else why (in why). Trust comes from the data: a record that
 * fails is reported with this reason, and fetch keeps its last good version.
 */
static const char *check_cid(const ss_space_record *r, ss_buf *why)
{
	ss_error e;
	char *cid = NULL;
	const char *problem = NULL;

	if (r->problem || !r->value_json)
		return r->problem;
	if (ss_record_cid_from_json(r->value_json, r->value_len, &cid, &e) < 0) {
		ss_buf_printf(why, "cannot compute the record's CID: %s", e.message);
		problem = why->ptr;
	} else if (strcmp(cid, r->cid)) {
		ss_buf_printf(why,
		              "the record's value does not match its CID %s (changed by the host "
		              "or on the way)",
		              r->cid);
		problem = why->ptr;
	}
	free(cid);
	return problem;
}

static int on_entry(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	struct walk *w = payload;
	ss_space_record r = {w->did,          rec->rkey,      rec->cid,
	                     rec->value_json, rec->value_len, rec->problem};
	ss_buf why = SS_BUF_INIT;
	int ret;

	if (!rec->rkey || !rec->cid) {
		ss_buf_printf(&why, "a listed entry has no %s", rec->rkey ? "CID" : "record key");
		r.rkey = NULL;
		r.value_json = NULL;
		r.problem = why.ptr;
	}
	if (rec->rkey && rec->cid)
		ss_lthash_add_record(&w->h, SS_SKILL_COLLECTION, rec->rkey, rec->cid);
	r.problem = check_cid(&r, &why);
	if (r.problem)
		r.value_json = NULL;
	ret = w->l->record(w->l->payload, &r, err);
	w->stopped = ret < 0;
	ss_buf_release(&why);
	return ret;
}

/* Every record of the skill collection, page by page. */
static int list_full(perm_space *ps, perm_writer *wr, struct walk *w, ss_error *err)
{
	ss_buf body = SS_BUF_INIT;
	char *cursor = NULL;
	size_t total = 0;
	bool matched;
	int ret = 0;

	ss_lthash_init(&w->h);
	for (size_t page = 0;; page++) {
		const char *params[] = {"space",      ps->uri,
		                        "repo",       wr->did,
		                        "collection", SS_SKILL_COLLECTION,
		                        "limit",      SS_SPACE_RECORDS_LIMIT,
		                        "cursor",     cursor,
		                        NULL};
		size_t count = 0;
		char *next = NULL;

		if (page >= SS_XRPC_LIST_MAX_PAGES || total > SS_XRPC_LIST_MAX_RECORDS) {
			ret =
			    ss_error_set(err, SS_ERROR, "%s: too many pages or records: giving up",
			                 SS_SPACE_NSID_LIST_RECORDS);
			break;
		}
		ret = ss_space_cred_get(ps->cred, wr->pds, SS_SPACE_NSID_LIST_RECORDS, params,
		                        wr->did, &body, err);
		if (ret < 0 && err->code == SS_ENOTFOUND && page == 0 &&
		    strstr(err->message, "RepoNotFound")) {
			ret = 0; /* never wrote in the space: no records */
			break;
		}
		if (ret < 0 ||
		    (ret = ss_xrpc__walk_page(SS_SPACE_NSID_LIST_RECORDS, body.ptr, body.len,
		                              on_entry, w, &count, &next, err)) < 0)
			break;
		total += count;
		if (next && cursor && !strcmp(next, cursor)) {
			free(next);
			ret =
			    ss_error_set(err, SS_ERROR, "%s: the server sent the same cursor again",
			                 SS_SPACE_NSID_LIST_RECORDS);
			break;
		}
		free(cursor);
		cursor = next;
		if (!cursor || !count)
			break;
	}
	if (ret == 0)
		ss_space_verify__full(ps, wr, &w->h, &matched);
	free(cursor);
	ss_buf_release(&body);
	return ret;
}

/* By record key, then by position (the last op of a key is the one that counts). */
static int by_key(const void *a, const void *b)
{
	const ss_space_op *x = *(const ss_space_op *const *)a, *y = *(const ss_space_op *const *)b;
	int c = strcmp(x->rkey, y->rkey);

	return c ? c : (x < y ? -1 : x > y);
}

/* Tells l what the ops of the skill collection leave: each key's last op. */
static int emit_ops(struct walk *w, const ss_space_op *ops, size_t n, ss_error *err)
{
	const ss_space_op **idx = ss_xcalloc(n ? n : 1, sizeof(*idx));
	const ss_space_listener *l = w->l;
	size_t m = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		if (ops[i].collection && !strcmp(ops[i].collection, SS_SKILL_COLLECTION) &&
		    ops[i].rkey)
			idx[m++] = &ops[i];
	qsort(idx, m, sizeof(*idx), by_key);
	for (size_t k = 0; k < m && ret == 0; k++) {
		const ss_space_op *op = idx[k];

		if (k + 1 < m && !strcmp(idx[k + 1]->rkey, op->rkey))
			continue; /* a later op on the same key counts */
		if (!op->cid) {
			if (l->deleted)
				ret = l->deleted(l->payload, w->did, op->rkey, err);
		} else {
			ss_space_record r = {w->did,         op->rkey,      op->cid,
			                     op->value_json, op->value_len, NULL};

			ss_buf why = SS_BUF_INIT;

			if (!op->value_json)
				r.problem = "the server sent the record without a value";
			r.problem = check_cid(&r, &why);
			if (r.problem)
				r.value_json = NULL;
			ret = l->record(l->payload, &r, err);
			ss_buf_release(&why);
		}
	}
	w->stopped = ret < 0;
	free(idx);
	return ret;
}

/*
 * The ops since since_rev, all pages, checked against the kept set hash and the signed commit
 * (sync/space_verify.c), then what they leave to w's listener. When they do not check out,
 * the writer is read in full instead (*full set).
 */
static int list_since(perm_space *ps, perm_writer *wr, const char *since, struct walk *w,
                      bool *full, ss_error *err)
{
	ss_space_op *ops = NULL;
	ss_buf body = SS_BUF_INIT;
	char *cursor = NULL;
	size_t nops = 0;
	int ret = 0;

	for (size_t page = 0;; page++) {
		const char *params[] = {"space",  ps->uri, "repo",  wr->did,
		                        "since",  since,   "limit", SS_SPACE_OPS_LIMIT,
		                        "cursor", cursor,  NULL};
		char *next = NULL, *crev = NULL, *chash = NULL;
		size_t before = nops;

		if (page >= SS_SPACE_MAX_PAGES) {
			ret = ss_error_set(err, SS_ERROR, "%s: too many pages: giving up",
			                   SS_SPACE_NSID_LIST_OPS);
			break;
		}
		if ((ret = ss_space_cred_get(ps->cred, wr->pds, SS_SPACE_NSID_LIST_OPS, params,
		                             wr->did, &body, err)) < 0 ||
		    (ret = ss_space_proto_ops_page(&body, &ops, &nops, &next, &crev, &chash, err)) <
		        0)
			break;
		free(crev);
		free(chash);
		if (next && cursor && !strcmp(next, cursor)) {
			free(next);
			ret =
			    ss_error_set(err, SS_ERROR, "%s: the server sent the same cursor again",
			                 SS_SPACE_NSID_LIST_OPS);
			break;
		}
		free(cursor);
		cursor = next;
		if (!cursor || nops == before)
			break;
	}
	if (ret == 0 && ss_space_verify__ops(ps, wr, since, ops, nops, &body, err) < 0) {
		*full = true;
		ret = list_full(ps, wr, w, err);
	} else if (ret == 0) {
		ret = emit_ops(w, ops, nops, err);
	}
	ss_space_ops_free(ops, nops);
	free(cursor);
	ss_buf_release(&body);
	return ret;
}

int ss_space_perm__list(ss_space *sp, const ss_space_want *wants, size_t n,
                        const ss_space_listener *l, ss_error *err)
{
	perm_space *ps = (perm_space *)sp;

	for (size_t i = 0; i < n; i++) {
		perm_writer *wr = ss_space_perm__writer(ps, wants[i].did);
		bool full = !wants[i].since_rev || !*wants[i].since_rev;
		struct walk w = {l, wr->did, false, {{0}}};
		ss_error why;
		int rc;

		rc = ss_space_perm__pds(ps, wr, &why);
		if (rc == 0)
			rc = full ? list_full(ps, wr, &w, &why)
			          : list_since(ps, wr, wants[i].since_rev, &w, &full, &why);
		if (rc < 0 && w.stopped) {
			*err = why; /* the listener's own failure */
			return rc;
		}
		if (rc < 0) {
			ss_error_prefix(&why, "cannot list the skills of '%s'",
			                ss_space_perm__who(wr));
			if (!l->failed) {
				*err = why;
				return rc;
			}
			if (l->failed(l->payload, wr->did, &why, err) < 0)
				return -1;
			continue;
		}
		if (l->done && l->done(l->payload, wr->did, full, err) < 0)
			return -1;
		ss_crash_point("space-writer-listed"); /* test-only: between two writers */
	}
	return 0;
}
