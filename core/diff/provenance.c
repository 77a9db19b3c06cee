#include "core/diff/provenance.h"

#include <stdlib.h>
#include <string.h>

#include "core/state/state_record.h"
#include "core/util/mem.h"

typedef struct collect {
	ss_provenance_version *v;
	size_t n, alloc;
} collect;

static char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

static int on_record(const ss_state_record *r, void *payload)
{
	collect *c = payload;
	ss_provenance_version *v;

	ss_xgrow((void **)&c->v, sizeof(*c->v), c->n + 1, &c->alloc);
	v = &c->v[c->n++];
	memset(v, 0, sizeof(*v));
	v->did = ss_xstrdup(r->did);
	v->cid = ss_xstrdup(r->cid);
	v->updated_at = dup_or_null(r->updated_at);
	v->updated_us = r->updated_us;
	v->valid = r->valid && r->tree;
	v->reason = dup_or_null(r->reason);
	return 0;
}

int ss_provenance_load(ss_state *st, const char *rkey, ss_provenance *out, ss_error *err)
{
	const char *me = ss_state_me(st), *authority = ss_state_authority(st);
	collect c = {NULL, 0, 0};
	ss_view_version *vv;
	size_t *order;

	memset(out, 0, sizeof(*out));
	if (ss_state_records_each(st, rkey, on_record, &c, err) < 0) {
		out->versions = c.v;
		out->count = c.n;
		ss_provenance_release(out);
		return -1;
	}
	vv = ss_xcalloc(c.n ? c.n : 1, sizeof(*vv));
	order = ss_xcalloc(c.n ? c.n : 1, sizeof(*order));
	for (size_t i = 0; i < c.n; i++) {
		vv[i].did = c.v[i].did;
		vv[i].cid = c.v[i].cid;
		vv[i].updated_us = c.v[i].updated_us;
		vv[i].valid = c.v[i].valid;
		vv[i].reason = c.v[i].reason;
	}
	out->nvalid = ss_view_rank(vv, c.n, me, authority, order);
	out->versions = ss_xcalloc(c.n ? c.n : 1, sizeof(*out->versions));
	out->count = c.n;
	for (size_t i = 0; i < c.n; i++) {
		out->versions[i] = c.v[order[i]];
		out->versions[i].why = ss_view_why_of(&vv[order[i]], me, authority);
	}
	free(vv);
	free(order);
	free(c.v);
	return 0;
}

void ss_provenance_release(ss_provenance *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++) {
		free(p->versions[i].did);
		free(p->versions[i].cid);
		free(p->versions[i].updated_at);
		free(p->versions[i].reason);
	}
	free(p->versions);
	memset(p, 0, sizeof(*p));
}
