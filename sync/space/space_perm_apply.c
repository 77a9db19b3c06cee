/*
 * space_perm_apply.c: writes to my repo in the space (see sync/space/space_perm.h). The space has
 * no compare-and-swap: the check before the writes is the guard, and docs/SPACES.md says
 * which race remains.
 */
#include <stdlib.h>
#include <string.h>

#include "core/skill/record.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "sync/net/xrpc_repo.h"
#include "sync/space/space_perm_priv.h"
#include "sync/space/space_proto.h"

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static int pull_first(ss_error *err, const char *rkey)
{
	return ss_error_set(err, SS_ECONFLICT,
	                    "'%s' changed in your repo in the space since the last fetch "
	                    "(changed remotely)",
	                    rkey);
}

/* The ops of my repo since since (NULL: all), all pages, read with my session; *rev and *hash
 * (may be NULL) get the commit the last page names; body keeps the last page. */
static int my_ops(perm_space *ps, const char *since, ss_space_op **ops, size_t *nops, char **rev,
                  char **hash, ss_buf *body, size_t *requests, ss_error *err)
{
	char *cursor = NULL;
	int ret = 0;

	*ops = NULL;
	*nops = 0;
	for (size_t page = 0; page < SS_SPACE_MAX_PAGES; page++) {
		const char *params[] = {"space",  ps->uri, "repo",  ps->base.me,
		                        "since",  since,   "limit", SS_SPACE_OPS_LIMIT,
		                        "cursor", cursor,  NULL};
		char *next = NULL, *crev = NULL, *chash = NULL;
		size_t before = *nops;

		ss_buf_clear(body);
		(*requests)++;
		if ((ret = ss_xrpc_query(ps->mine, SS_SPACE_NSID_LIST_OPS, params, body, err)) <
		        0 ||
		    (ret = ss_space_proto_ops_page(body, ops, nops, &next, &crev, &chash, err)) < 0)
			break;
		if (crev && rev) {
			free(*rev);
			*rev = crev;
			crev = NULL;
		}
		if (chash && hash) {
			free(*hash);
			*hash = chash;
			chash = NULL;
		}
		free(crev);
		free(chash);
		free(cursor);
		cursor = next;
		if (!cursor || *nops == before)
			break;
	}
	free(cursor);
	return ret;
}

/* Before the writes: what my repo holds now for each written key, from the ops since my last
 * revision, is what the state expects. */
static int check_ops(perm_space *ps, const ss_space_write *writes, size_t n, size_t *requests,
                     ss_error *err)
{
	ss_space_op *ops = NULL;
	ss_buf body = SS_BUF_INIT;
	size_t nops = 0;
	int ret = my_ops(ps, ps->my_rev, &ops, &nops, NULL, NULL, &body, requests, err);

	ss_buf_release(&body);

	for (size_t i = 0; ret == 0 && i < n; i++) {
		const ss_space_op *last = NULL;

		for (size_t k = 0; k < nops; k++)
			if (ops[k].collection && !strcmp(ops[k].collection, SS_RECORD_TYPE) &&
			    ops[k].rkey && !strcmp(ops[k].rkey, writes[i].rkey))
				last = &ops[k];
		if (!last)
			continue; /* untouched since my last revision: as the state says */
		if (writes[i].op == SS_WRITE_CREATE ? last->cid != NULL
		                                    : !same(last->cid, writes[i].swap_cid))
			ret = pull_first(err, writes[i].rkey);
	}
	ss_space_ops_free(ops, nops);
	return ret;
}

/* Without a known revision: one getRecord per update or delete. */
static int check_records(perm_space *ps, const ss_space_write *writes, size_t n, size_t *requests,
                         ss_error *err)
{
	ss_buf body = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < n; i++) {
		const char *params[] = {"space",     ps->uri,        "repo",
		                        ps->base.me, "collection",   SS_RECORD_TYPE,
		                        "rkey",      writes[i].rkey, NULL};
		int rc;

		if (writes[i].op == SS_WRITE_CREATE)
			continue; /* #create fails on an existing key */
		ss_buf_clear(&body);
		(*requests)++;
		rc = ss_xrpc_query(ps->mine, SS_SPACE_NSID_GET_RECORD, params, &body, err);
		if (rc < 0 && err->code == SS_ENOTFOUND) {
			ret = pull_first(err, writes[i].rkey);
			break;
		}
		if (rc < 0) {
			ret = rc;
			break;
		}
		{
			char *cid = NULL;

			if ((ret = ss_space_proto_record_cid(&body, &cid, err)) == 0 &&
			    !same(cid, writes[i].swap_cid))
				ret = pull_first(err, writes[i].rkey);
			free(cid);
		}
	}
	ss_buf_release(&body);
	return ret;
}

/*
 * After the writes: my repo's revision and set hash, when the ops since my last revision are
 * exactly these n writes (one revision). Otherwise someone else wrote too (another device):
 * out->commit and rev stay NULL, so the state keeps my old revision and the next fetch lists
 * what happened since. When they are, the set hash kept for my repo (core/state/state_space.h)
 * takes them in, checked against the signed commit as a fetch would (sync/space/space_verify.c), so
 * that the next fetch of my repo folds what comes after them instead of reading it in full.
 */
static int after(perm_space *ps, size_t n, ss_space_applied *out, ss_error *err)
{
	ss_space_op *ops = NULL;
	ss_buf body = SS_BUF_INIT;
	char *rev = NULL, *hash = NULL;
	size_t nops = 0;
	bool clean;
	int ret = my_ops(ps, ps->my_rev, &ops, &nops, &rev, &hash, &body, &out->nrequests, err);

	clean = ret == 0 && rev && (ps->my_rev ? nops == n : nops >= n);
	for (size_t i = 0; clean && i < nops; i++)
		clean = ops[i].rev && !strcmp(ops[i].rev, rev);
	if (clean && ps->my_rev) {
		ss_error ignored; /* a set hash that does not check out is dropped: a full read */

		perm_writer *me = ss_space_perm__writer(ps, ps->base.me);
		ss_space_kept kept;
		bool caught;

		if (ss_space_verify__ops(ps, me, ps->my_rev, ops, nops, &body, &kept, &caught,
		                         &ignored) == 0 &&
		    ps->st)
			(void)ss_space_verify__keep(ps, me, &kept);
	}
	free(ps->my_rev);
	ps->my_rev = NULL;
	if (clean) {
		out->rev = rev;
		out->commit = hash ? hash : ss_xstrdup(rev);
		ps->my_rev = ss_xstrdup(rev);
		rev = hash = NULL;
	}
	free(rev);
	free(hash);
	ss_space_ops_free(ops, nops);
	ss_buf_release(&body);
	return ret;
}

int ss_space_perm__apply(ss_space *sp, const ss_space_write *writes, size_t n,
                         const char *swap_commit, ss_space_applied *out, ss_error *err)
{
	perm_space *ps = (perm_space *)sp;
	ss_xrpc_write *xw = NULL;
	ss_xrpc_apply_result res;
	size_t checks = 0;
	int ret;

	(void)swap_commit; /* the space has none: the check below stands for it */
	memset(&res, 0, sizeof(res));
	memset(out, 0, sizeof(*out));
	if (!ps->mine)
		return ss_error_set(err, SS_EAUTH, "not signed in as '%s' (run 'skillsync login')",
		                    sp->me);
	ret = ps->my_rev ? check_ops(ps, writes, n, &checks, err)
	                 : check_records(ps, writes, n, &checks, err);
	out->nrequests = checks;
	if (ret < 0)
		return ret;
	xw = ss_xcalloc(n ? n : 1, sizeof(*xw));
	for (size_t i = 0; i < n; i++) {
		xw[i].op = writes[i].op == SS_WRITE_CREATE   ? SS_XRPC_CREATE
		           : writes[i].op == SS_WRITE_UPDATE ? SS_XRPC_UPDATE
		                                             : SS_XRPC_DELETE;
		xw[i].collection = SS_RECORD_TYPE;
		xw[i].rkey = writes[i].rkey;
		xw[i].value_json = writes[i].value_json;
	}
	ret = ss_xrpc_apply_writes_space(ps->mine, SS_SPACE_NSID_APPLY, ps->uri, sp->me, xw, n,
	                                 &res, err);
	if (ret < 0 &&
	    (strstr(err->message, "RecordAlreadyExists") || strstr(err->message, "RecordNotFound")))
		err->code = ret = SS_ECONFLICT; /* a concurrent create or delete: nothing written */
	out->napplied = res.nresults;
	out->cids = ss_xcalloc(res.nresults ? res.nresults : 1, sizeof(char *));
	for (size_t i = 0; i < res.nresults; i++) {
		out->cids[i] = res.results[i].cid;
		res.results[i].cid = NULL;
	}
	out->nrequests += res.nrequests;
	ss_xrpc_apply_result_release(&res);
	free(xw);
	if (ret == 0)
		ss_crash_point("space-applied"); /* test-only: landed, the journal says "sending" */
	if (ret == 0 && after(ps, n, out, err) < 0)
		ret = 0; /* the writes landed: only the state's revision is left unknown */
	return ret;
}
