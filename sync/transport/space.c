/* space.c: dispatch of the transport interface to its implementation. */
#include "sync/transport/space_impl.h"

#include <stdlib.h>

void ss_space_heads_free(ss_space_head *heads, size_t n)
{
	for (size_t i = 0; heads && i < n; i++) {
		free(heads[i].did);
		free(heads[i].handle);
		free(heads[i].commit);
		free(heads[i].rev);
		free(heads[i].pds);
		free(heads[i].error);
	}
	free(heads);
}

void ss_space_applied_release(ss_space_applied *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->cids && i < a->napplied; i++)
		free(a->cids[i]);
	free(a->cids);
	free(a->commit);
	free(a->rev);
	a->cids = NULL;
	a->commit = NULL;
	a->rev = NULL;
	a->napplied = 0;
	a->nrequests = 0;
}

const char *ss_space_kind(const ss_space *sp)
{
	return sp->vt->kind;
}

unsigned ss_space_caps(const ss_space *sp)
{
	return sp->vt->caps;
}

const char *ss_space_me(const ss_space *sp)
{
	return sp->me;
}

bool ss_space_signed_in(const ss_space *sp)
{
	return sp->signed_in;
}

int ss_space_heads_partial(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err)
{
	*out = NULL;
	*n = 0;
	return sp->vt->heads(sp, out, n, err);
}

int ss_space_heads(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err)
{
	int ret = ss_space_heads_partial(sp, out, n, err);

	for (size_t i = 0; ret == 0 && i < *n; i++)
		if ((*out)[i].rc < 0) {
			ret = ss_error_set(err, (*out)[i].rc, "%s", (*out)[i].error);
			ss_space_heads_free(*out, *n);
			*out = NULL;
			*n = 0;
		}
	return ret;
}

int ss_space_list(ss_space *sp, const ss_space_want *wants, size_t n, const ss_space_listener *l,
                  ss_error *err)
{
	return sp->vt->list(sp, wants, n, l, err);
}

int ss_space_read_only(ss_error *err)
{
	return ss_error_set(err, SS_EAUTH,
	                    "this clone is read-only (no account was signed in when it was "
	                    "cloned): to push, run 'skillsync login <handle>', then clone the "
	                    "space again with '--as <handle>'");
}

int ss_space_apply(ss_space *sp, const ss_space_write *writes, size_t n, const char *swap_commit,
                   ss_space_applied *out, ss_error *err)
{
	if (!sp->me)
		return ss_space_read_only(err);
	return sp->vt->apply(sp, writes, n, swap_commit, out, err);
}

void ss_space_landed(ss_space *sp, const char *commit)
{
	if (sp && sp->vt->landed && commit)
		sp->vt->landed(sp, commit);
}

void ss_space_free(ss_space *sp)
{
	char *me;

	if (!sp)
		return;
	me = sp->me;
	sp->vt->free(sp);
	free(me);
}

void ss_space_get_blobs(ss_space *sp, const char *did, ss_cid_read *reads, size_t n)
{
	sp->vt->get_blobs(sp, did, reads, n);
}

int ss_space_upload_blob(ss_space *sp, const void *bytes, size_t len, char **cid, char **mime,
                         ss_error *err)
{
	if (!sp->me || !sp->signed_in)
		return ss_space_read_only(err);
	return sp->vt->upload_blob(sp, bytes, len, cid, mime, err);
}
