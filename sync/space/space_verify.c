/*
 * space_verify.c: a space writer's records checked against its set hash and signed commit
 * (see sync/space/space_perm_priv.h).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/cid.h"
#include "core/atproto/multikey.h"
#include "core/atproto/space_commit.h"
#include "core/skill/record.h"
#include "core/state/state_floor.h"
#include "core/state/state_space.h"
#include "core/util/base64.h"
#include "sync/identity/identity.h"
#include "sync/space/space_fold.h"
#include "sync/space/space_perm_priv.h"

typedef struct sig_check {
	perm_space *ps;
	const perm_writer *wr;
	const ss_space_commit *c;
} sig_check;

static int check_with(const ss_pubkey *pk, void *arg, ss_error *err)
{
	const sig_check *k = arg;

	return ss_space_commit_verify_sig(k->c, k->ps->uri, k->wr->did, pk, err);
}

/* The signature of c by wr's author key (the identity cache's, read again once on failure). */
static int check_sig(perm_space *ps, const perm_writer *wr, const ss_space_commit *c, ss_error *err)
{
	sig_check k = {ps, wr, c};

	return ss_idcache_verify(ps->ids, wr->did, check_with, &k, err);
}

/*
 * A commit of wr verified (MAC, set hash, signature) against its highest verified revision
 * (core/state/state_floor.h; the commit's id is its set hash): refused when older, or another
 * commit at that revision; else the floor rises to it.
 */
static int floor_check_raise(perm_space *ps, const perm_writer *wr, const ss_space_commit *c,
                             ss_error *err)
{
	ss_state_floor f;
	ss_buf id = SS_BUF_INIT;
	int ret;

	if ((ret = ss_state_floor_get(ps->st, wr->did, &f, err)) < 0)
		return ret;
	ss_base64_encode(&id, c->hash, sizeof(c->hash), SS_BASE64_STD, true);
	ret = ss_state_floor_check(&f, c->rev, id.ptr, err);
	if (ret >= 0)
		ret = ss_state_floor_raise(ps->st, wr->did, c->rev, id.ptr, err);
	ss_state_floor_release(&f);
	ss_buf_release(&id);
	return ret < 0 ? -1 : 0;
}

int ss_space_verify__keep(perm_space *ps, const perm_writer *wr, const ss_space_kept *k)
{
	/* a set hash that cannot be kept is dropped: the next read is a full one */
	ss_error ignored;

	if (!ps->st)
		return 0;
	if (ss_state_space_writer_put(ps->st, wr->did, k->rev, &k->h, &ignored) < 0) {
		ss_state_space_writer_drop(ps->st, wr->did, &ignored);
		return -1;
	}
	return 0;
}

int ss_space_verify__ops(perm_space *ps, const perm_writer *wr, const char *since,
                         const ss_space_op *ops, size_t n, const ss_buf *body, ss_space_kept *out,
                         bool *caught, ss_error *err)
{
	ss_space_commit c;
	ss_lthash h;
	char *rev = NULL;
	ss_error ignored;
	int ret;

	*caught = false;
	if (!ps->st)
		return 0;
	if (ss_state_space_writer_get(ps->st, wr->did, &rev, &h, err) < 0)
		return ss_error_set(err, SS_EINVALID, "no set hash is kept for it");
	if (strcmp(rev, since)) {
		free(rev);
		return ss_error_set(err, SS_EINVALID, "the kept set hash is not at revision %s",
		                    since);
	}
	free(rev);
	ret = ss_space_fold_ops(ps->uri, wr->did, since, &h, ops, n, body, &c, caught, err);
	if (ret == 0) {
		/* past the fold a refusal is the answer's (its signature, a replayed commit),
		 * unless the key or the state could not be read */
		if ((ret = check_sig(ps, wr, &c, err)) == 0)
			ret = floor_check_raise(ps, wr, &c, err);
		*caught = ret < 0 && err->code == SS_EINVALID;
	}
	if (ret < 0) {
		ss_state_space_writer_drop(ps->st, wr->did, &ignored);
		return ret;
	}
	memcpy(out->rev, c.rev, sizeof(out->rev));
	out->h = h;
	return 0;
}

int ss_space_verify__car(perm_space *ps, const perm_writer *wr, const ss_space_repo_car *car,
                         ss_error *err)
{
	const ss_space_commit *c = &car->commit;
	bool kept = true;
	uint8_t digest[SS_SHA256_LEN];
	char cid[SS_CID_STRSZ];
	ss_lthash h;
	ss_error ignored;
	int ret = 0;

	ss_lthash_init(&h);
	for (size_t i = 0; i < car->n; i++) {
		const ss_space_repo_entry *e = &car->entries[i];

		ss_cid_fmt(cid, &e->cid);
		ss_lthash_add_record(&h, e->collection, e->rkey, cid);
		if (ret == 0 && !e->data && !strcmp(e->collection, SS_RECORD_TYPE))
			ret = ss_error_set(err, SS_EINVALID, "the CAR lacks the record '%s'",
			                   e->rkey);
	}
	ss_lthash_digest(&h, digest);
	if (ret == 0 && c->ver != SS_SPACE_COMMIT_VERSION)
		ret =
		    ss_error_set(err, SS_EINVALID, "the signed commit is of version %lld", c->ver);
	if (ret == 0 && memcmp(digest, c->hash, sizeof(digest)))
		ret = ss_error_set(err, SS_EINVALID,
		                   "its records do not give the set hash of its signed commit");
	if (ret == 0)
		ret = ss_space_commit_verify_mac(c, ps->uri, wr->did, err);
	if (ret == 0)
		ret = check_sig(ps, wr, c, err);
	if (ret == 0 && ps->st)
		ret = floor_check_raise(ps, wr, c, err);
	if (ret == 0 && ps->st &&
	    ss_state_space_writer_put(ps->st, wr->did, c->rev, &h, &ignored) < 0)
		kept = false;
	if (ps->st && (ret < 0 || !kept))
		ss_state_space_writer_drop(ps->st, wr->did, &ignored);
	return ret;
}
