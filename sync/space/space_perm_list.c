/* space_perm_list.c: a writer's records in the space: all of them (getRepo) or what changed
 * since a revision (listRepoOps); see sync/space/space_perm.h. */
#include <stdlib.h>
#include <string.h>

#include "core/skill/record.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "sync/space/space_perm_priv.h"
#include "sync/space/space_proto.h"

struct walk {
	const ss_space_listener *l;
	const char *did;
	bool stopped;    /* the listener failed: its error, not the server's */
	bool refused;    /* read, and refused by the checks (sync/space/space_verify.c) */
	bool verified;   /* checked against the writer's signed commit */
	ss_buf fallback; /* why the ops were not taken, when they were asked */
	bool caught;     /* ... because what the host sent failed a check (not a compacted log) */
};

/*
 * Whether r's value is the record its CID names (the host could serve another value under the
 * same CID): NULL when it is, else why (in why; *caught true when the value is another one).
 */
static const char *check_cid(const ss_space_record *r, ss_buf *why, bool *caught)
{
	ss_error e;
	char *cid = NULL;
	const char *problem = NULL;

	if (!r->value_json) {
		ss_buf_printf(why, "the host sent the record '%s' without its value", r->rkey);
		return why->ptr;
	}
	if (ss_record_cid_from_json(r->value_json, r->value_len, &cid, &e) < 0) {
		ss_buf_printf(why, "cannot compute the CID of the record '%s': %s", r->rkey,
		              e.message);
		problem = why->ptr;
	} else if (strcmp(cid, r->cid)) {
		ss_buf_printf(why,
		              "the value of the record '%s' does not match its CID %s (changed by "
		              "the host or on the way)",
		              r->rkey, r->cid);
		problem = why->ptr;
		*caught = true;
	}
	free(cid);
	return problem;
}

/* A record block of the CAR to the listener, as it is: the record decoder reads DAG-CBOR
 * (ss_record_value) and reports a block that is no record value. */
static int emit_block(struct walk *w, const ss_space_repo_entry *e, ss_error *err)
{
	char cid[SS_CID_STRSZ];
	ss_space_record r = {w->did, e->rkey, cid, NULL, 0, NULL, e->data, e->len, false};
	int ret;

	ss_cid_fmt(cid, &e->cid);
	ret = w->l->record(w->l->payload, &r, err);
	w->stopped = ret < 0;
	return ret;
}

/*
 * The whole repo (getRepo), checked against its signed commit (sync/space/space_verify.c) before
 * anything reaches w's listener; then its skill records. A repo that fails the check is
 * refused whole (w->refused, err says what failed).
 */
static int list_car(perm_space *ps, perm_writer *wr, struct walk *w, ss_error *err)
{
	const char *params[] = {"space", ps->uri, "repo", wr->did, NULL};
	ss_buf body = SS_BUF_INIT;
	ss_space_repo_car car;
	int ret;

	memset(&car, 0, sizeof(car));
	ret = ss_space_cred_get(ps->cred, wr->pds, SS_SPACE_NSID_GET_REPO, params, wr->did, &body,
	                        err);
	if (ret < 0 && err->code == SS_ENOTFOUND && strstr(err->message, "RepoNotFound") &&
	    !(wr->rev && *wr->rev)) {
		ret = 0; /* never wrote in the space (listRepos names no revision): no records */
		goto out;
	}
	if (ret < 0)
		goto out;
	if ((ret = ss_space_proto_repo_car(body.ptr, body.len, &car, err)) < 0 ||
	    (ret = ss_space_verify__car(ps, wr, &car, err)) < 0) {
		w->refused = true;
		goto out;
	}
	w->verified = true;
	for (size_t i = 0; i < car.n && ret == 0; i++)
		if (!strcmp(car.entries[i].collection, SS_RECORD_TYPE))
			ret = emit_block(w, &car.entries[i], err);
out:
	ss_space_repo_car_release(&car);
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

/*
 * Tells l what the ops of the skill collection leave: each key's last op; nothing when a
 * value is not the record its CID names, or missing (w->fallback then says why).
 */
static int emit_ops(struct walk *w, const ss_space_op *ops, size_t n, ss_error *err)
{
	const ss_space_op **idx = ss_xcalloc(n ? n : 1, sizeof(*idx));
	const ss_space_listener *l = w->l;
	size_t m = 0, k = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		if (ops[i].collection && !strcmp(ops[i].collection, SS_RECORD_TYPE) && ops[i].rkey)
			idx[m++] = &ops[i];
	qsort(idx, m, sizeof(*idx), by_key);
	/* a later op on the same key counts */
	for (size_t i = 0; i < m; i++)
		if (i + 1 == m || strcmp(idx[i + 1]->rkey, idx[i]->rkey))
			idx[k++] = idx[i];
	for (size_t i = 0; i < k && ret == 0; i++) {
		ss_space_record r = {w->did,
		                     idx[i]->rkey,
		                     idx[i]->cid,
		                     idx[i]->value_json,
		                     idx[i]->value_len,
		                     NULL,
		                     NULL,
		                     0,
		                     false};

		if (idx[i]->cid && check_cid(&r, &w->fallback, &w->caught))
			k = 0; /* nothing told */
	}
	for (size_t i = 0; i < k && ret == 0; i++) {
		const ss_space_op *op = idx[i];
		ss_space_record r = {w->did, op->rkey, op->cid, op->value_json, op->value_len,
		                     NULL,   NULL,     0,       false};

		if (!op->cid)
			ret = l->deleted ? l->deleted(l->payload, w->did, op->rkey, err) : 0;
		else
			ret = l->record(l->payload, &r, err);
		w->stopped = ret < 0;
	}
	free(idx);
	return ret;
}

/*
 * The ops since since_rev, all pages, checked against the kept set hash and the signed commit
 * (sync/space/space_verify.c), then what they leave to w's listener. When they do not check out,
 * the writer is read whole instead (*full set, w->fallback says why).
 */
static int list_since(perm_space *ps, perm_writer *wr, const char *since, struct walk *w,
                      bool *full, ss_error *err)
{
	ss_space_op *ops = NULL;
	ss_buf body = SS_BUF_INIT;
	char *cursor = NULL;
	size_t nops = 0;
	ss_space_kept kept;
	int ret = 0;

	memset(&kept, 0, sizeof(kept));
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
	if (ret == 0 &&
	    ss_space_verify__ops(ps, wr, since, ops, nops, &body, &kept, &w->caught, err) < 0)
		ss_buf_printf(&w->fallback, "%s: %s", SS_SPACE_NSID_LIST_OPS, err->message);
	else if (ret == 0 && (ret = emit_ops(w, ops, nops, err)) == 0 && !w->fallback.len) {
		/* what the set hash vouches for was taken in: its position is kept */
		w->verified = ps->st != NULL;
		(void)ss_space_verify__keep(ps, wr, &kept);
	}
	if (ret == 0 && w->fallback.len) {
		*full = true;
		ret = list_car(ps, wr, w, err);
	}
	ss_space_ops_free(ops, nops);
	free(cursor);
	ss_buf_release(&body);
	return ret;
}

/*
 * A read that failed as if the writer's repo had moved (its PDS unreachable, or not holding the
 * repo): its DID document is read again (once per run, sync/identity/idcache.h); true when
 * it names another PDS, which wr then uses.
 */
static bool moved(perm_space *ps, perm_writer *wr, const ss_error *why)
{
	char *pds = ss_idcache_moved_pds(ps->ids, wr->did, wr->pds, why->code);

	if (!pds)
		return false;
	free(wr->pds);
	wr->pds = pds;
	return true;
}

/* One writer read: in full (getRepo) when since is NULL or empty, else its ops since. */
static int read_writer(perm_space *ps, perm_writer *wr, const char *since, struct walk *w,
                       bool *full, ss_error *err)
{
	*full = !since || !*since;
	return *full ? list_car(ps, wr, w, err) : list_since(ps, wr, since, w, full, err);
}

int ss_space_perm__list(ss_space *sp, const ss_space_want *wants, size_t n,
                        const ss_space_listener *l, ss_error *err)
{
	perm_space *ps = (perm_space *)sp;
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		perm_writer *wr = ss_space_perm__writer(ps, wants[i].did);
		const char *since = wants[i].since_rev;
		bool full = !since || !*since;
		struct walk w = {l, wr->did, false, false, false, SS_BUF_INIT, false};
		ss_space_read how;
		ss_error why;
		int rc;

		ss_crash_delay("space-writer");
		rc = ss_space_perm__pds(ps, wr, &why);
		if (rc == 0)
			rc = read_writer(ps, wr, since, &w, &full, &why);
		/* nothing is handed on before a read checks out: a moved repo is read again, at the
		 * PDS its DID document names now */
		if (rc < 0 && !w.stopped && !w.refused && moved(ps, wr, &why)) {
			ss_buf_clear(&w.fallback);
			w.caught = false;
			rc = read_writer(ps, wr, since, &w, &full, &why);
		}
		how = (ss_space_read){full, full ? "car" : "ops", w.verified,
		                      w.fallback.len ? w.fallback.ptr : NULL,
		                      w.caught ? w.fallback.ptr : NULL};
		if (rc < 0 && (w.stopped || why.code == SS_EAUTH)) {
			/* the listener's own failure, or the credential refused: no writer can be
			 * read */
			*err = why;
			ret = rc;
		} else if (rc < 0) {
			if (w.refused)
				ss_error_prefix(
				    &why, "'%s' not synced: its whole repo (%s) failed the check",
				    ss_space_perm__who(wr), SS_SPACE_NSID_GET_REPO);
			else
				ss_error_prefix(&why, "cannot list the skills of '%s'",
				                ss_space_perm__who(wr));
			if (!l->failed) {
				*err = why;
				ret = rc;
			} else if (l->failed(l->payload, wr->did, w.refused ? &how : NULL, &why,
			                     err) < 0) {
				ret = -1;
			}
		} else if (l->done && l->done(l->payload, wr->did, &how, err) < 0) {
			ret = -1;
		}
		ss_buf_release(&w.fallback);
		ss_crash_point("space-writer-listed"); /* test-only: between two writers */
	}
	return ret;
}
