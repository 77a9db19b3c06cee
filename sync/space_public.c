/* space_public.c: the public-repos transport (see sync/space_public.h). */
#include "sync/space_public.h"

#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "sync/space_priv.h"

typedef struct pub_member {
	char *did;
	char *handle;
	char *pds;
	ss_xrpc *client; /* unauthenticated, on the member's PDS */
} pub_member;

typedef struct pub_space {
	ss_space base;
	ss_http *http;
	ss_xrpc *mine;
	pub_member *members;
	size_t nmembers;
} pub_space;

static pub_member *find_member(pub_space *ps, const char *did)
{
	for (size_t i = 0; i < ps->nmembers; i++)
		if (!strcmp(ps->members[i].did, did))
			return &ps->members[i];
	return NULL;
}

static const char *who(const pub_member *m)
{
	return m->handle ? m->handle : m->did;
}

/* One getLatestCommit per member, all in flight at once (bounded) over the shared connections. */
static int pub_heads(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	ss_xrpc_head_job *jobs = ss_xcalloc(ps->nmembers ? ps->nmembers : 1, sizeof(*jobs));
	ss_space_head *heads;

	for (size_t i = 0; i < ps->nmembers; i++) {
		jobs[i].client = ps->members[i].client;
		jobs[i].did = ps->members[i].did;
	}
	/* Each job ends with its own rc and err: the members that failed are named below. */
	if (ps->nmembers)
		ss_xrpc_get_latest_commit_many(jobs, ps->nmembers, 0, err);
	heads = ss_xcalloc(ps->nmembers ? ps->nmembers : 1, sizeof(*heads));
	for (size_t i = 0; i < ps->nmembers; i++) {
		pub_member *m = &ps->members[i];

		heads[i].did = ss_xstrdup(m->did);
		heads[i].handle = m->handle ? ss_xstrdup(m->handle) : NULL;
		heads[i].commit = jobs[i].commit.cid;
		heads[i].rev = jobs[i].commit.rev;
		jobs[i].commit.cid = jobs[i].commit.rev = NULL;
		if (jobs[i].rc < 0) {
			heads[i].rc = jobs[i].rc;
			ss_error_prefix(&jobs[i].err, "cannot read the head of '%s'", who(m));
			heads[i].error = ss_xstrdup(jobs[i].err.message);
		}
	}
	*out = heads;
	*n = ps->nmembers;
	free(jobs);
	return 0;
}

struct list_job {
	const ss_space_listener *l;
	const char *did;
};

static int on_record(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	struct list_job *job = payload;
	ss_space_record r = {job->did,        rec->rkey,      rec->cid,
	                     rec->value_json, rec->value_len, rec->problem};
	ss_buf why = SS_BUF_INIT;
	int ret;

	if (!rec->rkey || !rec->cid) {
		/* nothing to keep it by: said (rkey NULL), never stored */
		ss_buf_printf(&why, "the listed entry '%s' has no %s", rec->uri ? rec->uri : "",
		              rec->rkey ? "CID" : "record key in its uri");
		r.rkey = NULL;
		r.value_json = NULL;
		r.problem = why.ptr;
	}
	ret = job->l->record(job->l->payload, &r, err);
	ss_buf_release(&why);
	return ret;
}

static int pub_list(ss_space *sp, const ss_space_want *wants, size_t n, const ss_space_listener *l,
                    ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	ss_xrpc_list_job *jobs = ss_xcalloc(n ? n : 1, sizeof(*jobs));
	struct list_job *payloads = ss_xcalloc(n ? n : 1, sizeof(*payloads));
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		pub_member *m = find_member(ps, wants[i].did);

		if (!m) {
			ss_error_set(err, SS_ENOTFOUND, "'%s' is not a member of this space",
			             wants[i].did);
			goto out;
		}
		payloads[i].l = l;
		payloads[i].did = m->did;
		jobs[i].client = m->client;
		jobs[i].repo = m->did;
		jobs[i].collection = SS_SKILL_COLLECTION;
		jobs[i].fn = on_record;
		jobs[i].payload = &payloads[i];
	}
	if (n)
		ss_xrpc_list_records_many(jobs, n, 0, err);
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].rc < 0) {
			pub_member *m = find_member(ps, wants[i].did);

			ss_error_prefix(&jobs[i].err, "cannot list the skills of '%s'", who(m));
			if (!l->failed) {
				*err = jobs[i].err;
				ret = jobs[i].rc;
				goto out;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].rc < 0 ? l->failed(l->payload, wants[i].did, &jobs[i].err, err) < 0
		                   : l->done && l->done(l->payload, wants[i].did, true, err) < 0)
			goto out;
	}
	ret = 0;
out:
	free(jobs);
	free(payloads);
	return ret;
}

static int pub_apply(ss_space *sp, const ss_space_write *writes, size_t n, const char *swap_commit,
                     ss_space_applied *out, ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	ss_xrpc_write *xw = ss_xcalloc(n ? n : 1, sizeof(*xw));
	ss_xrpc_apply_result res;
	int ret;

	memset(&res, 0, sizeof(res));
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		xw[i].op = writes[i].op == SS_PLAN_CREATE   ? SS_XRPC_CREATE
		           : writes[i].op == SS_PLAN_UPDATE ? SS_XRPC_UPDATE
		                                            : SS_XRPC_DELETE;
		xw[i].collection = SS_SKILL_COLLECTION;
		xw[i].rkey = writes[i].rkey;
		xw[i].value_json = writes[i].value_json;
	}
	if (!ps->mine) {
		free(xw);
		return ss_error_set(err, SS_EAUTH, "not signed in as '%s' (run 'skillsync login')",
		                    sp->me);
	}
	ret = ss_xrpc_apply_writes(ps->mine, sp->me, xw, n, swap_commit, &res, err);
	out->napplied = res.nresults;
	out->cids = ss_xcalloc(res.nresults ? res.nresults : 1, sizeof(char *));
	for (size_t i = 0; i < res.nresults; i++) {
		out->cids[i] = res.results[i].cid;
		res.results[i].cid = NULL;
	}
	out->commit = res.commit.cid;
	out->rev = res.commit.rev;
	res.commit.cid = NULL;
	res.commit.rev = NULL;
	out->nrequests = res.nrequests;
	ss_xrpc_apply_result_release(&res);
	free(xw);
	return ret;
}

static void pub_free(ss_space *sp)
{
	pub_space *ps = (pub_space *)sp;

	for (size_t i = 0; i < ps->nmembers; i++) {
		free(ps->members[i].did);
		free(ps->members[i].handle);
		free(ps->members[i].pds);
		ss_xrpc_free(ps->members[i].client);
	}
	free(ps->members);
	ss_xrpc_free(ps->mine);
	free(ps);
}

static const ss_space_vtable pub_vtable = {
    "public", SS_SPACE_CAN_GUARD, pub_heads, pub_list, pub_apply, pub_free,
};

int ss_space_public_new(ss_space **out, ss_http *http, ss_xrpc *mine, const char *me_did,
                        const ss_space_public_member *members, size_t n, ss_error *err)
{
	pub_space *ps = ss_xcalloc(1, sizeof(*ps));

	ps->base.vt = &pub_vtable;
	ps->base.me = me_did && *me_did ? ss_xstrdup(me_did) : NULL;
	ps->base.signed_in = mine != NULL;
	ps->http = http;
	ps->mine = mine;
	ps->members = ss_xcalloc(n ? n : 1, sizeof(*ps->members));
	for (size_t i = 0; i < n; i++) {
		pub_member *m;

		if (find_member(ps, members[i].did))
			continue;
		m = &ps->members[ps->nmembers];
		if (ss_xrpc_new(&m->client, http, members[i].pds, err) < 0) {
			ss_error_prefix(err, "member '%s'",
			                members[i].handle ? members[i].handle : members[i].did);
			ss_space_free(&ps->base);
			return -1;
		}
		m->did = ss_xstrdup(members[i].did);
		m->handle = members[i].handle ? ss_xstrdup(members[i].handle) : NULL;
		m->pds = ss_xstrdup(members[i].pds);
		ps->nmembers++;
	}
	*out = &ps->base;
	return 0;
}
