/* space_fold.c: a listRepoOps answer folded and held against its signed commit (see
 * sync/space/space_fold.h). */
#include "sync/space/space_fold.h"

#include <jansson.h>
#include <string.h>

/* The signed commit of a listRepoOps page. */
static int page_commit(const ss_buf *body, ss_space_commit *c, ss_error *err)
{
	json_t *root = json_loadb(body->ptr ? body->ptr : "", body->len, 0, NULL);
	const json_t *commit = root ? json_object_get(root, "commit") : NULL;
	int ret;

	if (!commit)
		ret = ss_error_set(err, SS_EINVALID, "the host sent no signed commit");
	else
		ret = ss_space_commit_from_json(c, commit, err);
	json_decref(root);
	return ret;
}

int ss_space_fold_ops(const char *space, const char *writer, const char *since, ss_lthash *h,
                      const ss_space_op *ops, size_t n, const ss_buf *body, ss_space_commit *c,
                      bool *forged, ss_error *err)
{
	uint8_t digest[SS_SHA256_LEN];
	int ret;

	memset(c, 0, sizeof(*c));
	*forged = false;
	for (size_t i = 0; i < n; i++) {
		if (!ops[i].collection || !ops[i].rkey || !ops[i].rev)
			return ss_error_set(err, SS_EINVALID, "an op names no record");
		if (ops[i].prev)
			ss_lthash_remove_record(h, ops[i].collection, ops[i].rkey, ops[i].prev);
		if (ops[i].cid)
			ss_lthash_add_record(h, ops[i].collection, ops[i].rkey, ops[i].cid);
	}
	ss_lthash_digest(h, digest);
	if ((ret = page_commit(body, c, err)) < 0)
		return ret;
	if (n && strcmp(c->rev, ops[n - 1].rev))
		return ss_error_set(err, SS_EINVALID,
		                    "the signed commit is at revision %s, the last op at %s",
		                    c->rev, ops[n - 1].rev);
	if ((ret = ss_space_commit_verify_mac(c, space, writer, err)) < 0) {
		*forged = true;
		return ret;
	}
	if (memcmp(digest, c->hash, sizeof(digest)))
		return ss_error_set(
		    err, SS_EINVALID,
		    "the ops since %s do not give the set hash of its signed commit "
		    "(a compacted log or a bad hash)",
		    since);
	return 0;
}
