/* space_perm.c: the permissioned-space transport: writers and heads (see sync/space/space_perm.h).
 */
#include "sync/space/space_perm_priv.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/identity/identity.h"
#include "sync/net/xrpc_blob.h"
#include "sync/space/space_proto.h"

perm_writer *ss_space_perm__writer(perm_space *ps, const char *did)
{
	perm_writer *w;

	for (size_t i = 0; i < ps->nwriters; i++)
		if (!strcmp(ps->writers[i].did, did))
			return &ps->writers[i];
	ss_xgrow((void **)&ps->writers, sizeof(*ps->writers), ps->nwriters + 1, &ps->alloc);
	w = &ps->writers[ps->nwriters++];
	memset(w, 0, sizeof(*w));
	w->did = ss_xstrdup(did);
	return w;
}

const char *ss_space_perm__who(const perm_writer *w)
{
	return w->handle ? w->handle : w->did;
}

int ss_space_perm__pds(perm_space *ps, perm_writer *w, ss_error *err)
{
	ss_identity id = {0};
	int ret;

	if (w->pds)
		return 0;
	if ((ret = ss_identity_resolve(ps->http, w->did, &id, err)) < 0)
		return ss_error_prefix(err, "cannot resolve the writer '%s'", w->did);
	ss_idcache_note(ps->ids, w->did, id.handle, id.pds);
	w->pds = id.pds;
	id.pds = NULL;
	if (!w->handle) {
		w->handle = id.handle;
		id.handle = NULL;
	}
	ss_identity_release(&id);
	return 0;
}

/* Every listRepos page, into *repos. */
static int list_repos(perm_space *ps, ss_space_repo **repos, size_t *n, ss_error *err)
{
	ss_buf body = SS_BUF_INIT;
	ss_error why;
	char *cursor = NULL;
	const char *host;
	int ret = 0;

	for (size_t page = 0;; page++) {
		const char *params[] = {"space",  ps->uri, "limit", SS_SPACE_REPOS_LIMIT,
		                        "cursor", cursor,  NULL};
		size_t before = *n;
		char *next = NULL;

		if (page >= SS_SPACE_MAX_PAGES) {
			ret = ss_error_set(err, SS_ERROR,
			                   "%s: more than %d pages of writers: giving up",
			                   SS_SPACE_NSID_LIST_REPOS, SS_SPACE_MAX_PAGES);
			break;
		}
		if ((ret = ss_space_cred_get(ps->cred, NULL, SS_SPACE_NSID_LIST_REPOS, params,
		                             ps->authority, &body, err)) < 0 ||
		    (ret = ss_space_proto_repos_page(&body, repos, n, &next, err)) < 0)
			break;
		if (next && cursor && !strcmp(next, cursor)) {
			free(next);
			ret = ss_error_set(err, SS_ERROR, "%s: the host sent the same cursor again",
			                   SS_SPACE_NSID_LIST_REPOS);
			break;
		}
		free(cursor);
		cursor = next;
		if (!cursor || *n == before)
			break;
	}
	/* a host of another alpha: said in one line rather than as a parse error */
	if (ret < 0 && ss_space_cred_host(ps->cred, &host, &why) == 0)
		ss_space_proto_alpha_explain(ps->http, host, SS_SPACE_NSID_LIST_REPOS, &body, err);
	if (ret < 0 && ss_space_cred_host(ps->cred, &host, &why) == 0 &&
	    (err->code == SS_ENETWORK || err->code == SS_ERROR) && !strstr(err->message, host))
		ss_error_prefix(err, "cannot list the writers of the space at '%s'", host);
	free(cursor);
	ss_buf_release(&body);
	return ret;
}

static ss_space_head *add_head(ss_space_head **heads, size_t *n, size_t *alloc, perm_writer *w)
{
	ss_space_head *h;

	ss_xgrow((void **)heads, sizeof(**heads), *n + 1, alloc);
	h = &(*heads)[(*n)++];
	memset(h, 0, sizeof(*h));
	h->did = ss_xstrdup(w->did);
	h->handle = w->handle ? ss_xstrdup(w->handle) : NULL;
	return h;
}

static int perm_heads(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err)
{
	perm_space *ps = (perm_space *)sp;
	ss_space_repo *repos = NULL;
	ss_space_head *heads = NULL;
	size_t nrepos = 0, nheads = 0, alloc = 0;
	const char *always[2] = {ps->authority, sp->me};
	int ret;

	ret = list_repos(ps, &repos, &nrepos, err);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < nrepos; i++) {
		perm_writer *w = ss_space_perm__writer(ps, repos[i].did);
		ss_space_head *h;
		ss_error why;

		h = add_head(&heads, &nheads, &alloc, w);
		h->rev = ss_xstrdup(repos[i].rev);
		free(w->rev);
		free(w->hash);
		w->rev = ss_xstrdup(repos[i].rev);
		w->hash = repos[i].hash ? ss_xstrdup(repos[i].hash) : NULL;
		/* the set hash stands for the commit: a change of either is a change */
		h->commit = ss_xstrdup(repos[i].hash ? repos[i].hash : repos[i].rev);
		if (ss_space_perm__pds(ps, w, &why) < 0) {
			h->rc = why.code;
			h->error = ss_xstrdup(why.message);
		}
		free(h->handle);
		h->handle = w->handle ? ss_xstrdup(w->handle) : NULL;
		h->pds = w->pds ? ss_xstrdup(w->pds) : NULL;
	}
	/* The authority and I keep our rows: "" says "no repo in the space yet". */
	for (size_t k = 0; k < 2; k++) {
		bool listed = !always[k];

		for (size_t i = 0; i < nrepos && !listed; i++)
			listed = !strcmp(repos[i].did, always[k]);
		if (!listed) {
			ss_space_head *h =
			    add_head(&heads, &nheads, &alloc, ss_space_perm__writer(ps, always[k]));

			h->rev = ss_xstrdup("");
		}
		if (k == 0 && sp->me && !strcmp(ps->authority, sp->me))
			break;
	}
	ss_space_repos_free(repos, nrepos);
	*out = heads;
	*n = nheads;
	return 0;
}

void ss_space_perm_set_state(ss_space *sp, ss_state *st)
{
	perm_space *ps = (perm_space *)sp;

	ps->st = st;
	ss_idcache_free(ps->ids);
	ps->ids = ss_idcache_new(ps->http, st);
	ss_space_cred_use_ids(ps->cred, ps->ids);
}

static void perm_free(ss_space *sp)
{
	perm_space *ps = (perm_space *)sp;

	for (size_t i = 0; i < ps->nwriters; i++) {
		free(ps->writers[i].did);
		free(ps->writers[i].handle);
		free(ps->writers[i].pds);
		free(ps->writers[i].rev);
		free(ps->writers[i].hash);
	}
	free(ps->writers);
	ss_space_cred_free(ps->cred);
	ss_idcache_free(ps->ids);
	ss_xrpc_free(ps->mine);
	free(ps->uri);
	free(ps->authority);
	free(ps->my_rev);
	free(ps);
}

/* A writer's blobs from its PDS: com.atproto.space.getBlob with the space's credential, one at
 * a time (each request signed as the credential's renewal may need). */
static void perm_get_blobs(ss_space *sp, const char *did, ss_cid_read *reads, size_t n)
{
	perm_space *ps = (perm_space *)sp;
	perm_writer *wr = ss_space_perm__writer(ps, did);

	for (size_t i = 0; i < n; i++) {
		const char *params[] = {"space", ps->uri, "repo", did, "cid", reads[i].cid, NULL};
		ss_cid_read *r = &reads[i];

		ss_buf_clear(r->out);
		if ((r->rc = ss_space_perm__pds(ps, wr, &r->err)) < 0 ||
		    (r->rc = ss_space_cred_get(ps->cred, wr->pds, SS_SPACE_NSID_GET_BLOB, params,
		                               did, r->out, &r->err)) < 0)
			continue;
		if (r->out->len > r->max)
			r->rc = ss_error_set(&r->err, SS_ETOOBIG,
			                     "%s: the blob is larger than %zu bytes",
			                     SS_SPACE_NSID_GET_BLOB, r->max);
	}
}

/* Blobs go to my PDS as for a public repo: the space record names them. */
static int perm_upload_blob(ss_space *sp, const void *bytes, size_t len, char **cid, char **mime,
                            ss_error *err)
{
	perm_space *ps = (perm_space *)sp;

	if (!ps->mine)
		return ss_space_read_only(err);
	return ss_xrpc_upload_blob(ps->mine, bytes, len, cid, mime, err);
}

static const ss_space_vtable perm_vtable = {
    "space",
    SS_SPACE_CAN_LIST_SINCE,
    perm_heads,
    ss_space_perm__list,
    ss_space_perm__apply,
    perm_free,
    NULL,
    perm_get_blobs,
    perm_upload_blob,
};

int ss_space_perm_new(ss_space **out, ss_http *http, ss_xrpc *mine, const char *me_did,
                      const char *uri, const char *authority, const ss_space_perm_writer *known,
                      size_t n, ss_error *err)
{
	perm_space *ps = ss_xcalloc(1, sizeof(*ps));

	ps->base.vt = &perm_vtable;
	ps->base.me = me_did && *me_did ? ss_xstrdup(me_did) : NULL;
	ps->base.signed_in = mine != NULL;
	ps->http = http;
	ps->mine = mine;
	ps->uri = ss_xstrdup(uri);
	ps->authority = ss_xstrdup(authority);
	ps->ids = ss_idcache_new(http, NULL);
	for (size_t i = 0; i < n; i++) {
		perm_writer *w = ss_space_perm__writer(ps, known[i].did);

		if (known[i].handle && !w->handle)
			w->handle = ss_xstrdup(known[i].handle);
		if (known[i].pds && !w->pds)
			w->pds = ss_xstrdup(known[i].pds);
		if (ps->base.me && !strcmp(known[i].did, ps->base.me) && known[i].rev &&
		    *known[i].rev && !ps->my_rev)
			ps->my_rev = ss_xstrdup(known[i].rev);
	}
	if (ss_space_cred_new(&ps->cred, http, mine, uri, authority, err) < 0) {
		ss_space_free(&ps->base);
		return -1;
	}
	ss_space_cred_use_ids(ps->cred, ps->ids);
	*out = &ps->base;
	return 0;
}
