/*
 * A writer's listRepoOps answer, checked as a pull checks it without the network: the page read
 * (sync/space/space_proto.h), its ops folded from the empty set into a set hash and held against
 * the page's signed commit (sync/space/space_fold.h: the last op's revision, the MAC, the set
 * hash), then the commit's signature with the writer's key. An input is three lines, the space URI,
 * the writer's DID and its key as a DID document gives it ("<type> <publicKeyMultibase>"), then the
 * answer's body. Properties: every op handed out has a revision and names a record; a fold that
 * checks out gives the commit's hash, and the same set folded in the other order too.
 */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/lthash.h"
#include "core/atproto/multikey.h"
#include "sync/space/space_fold.h"
#include "sync/space/space_proto.h"

/* Splits the next line off *s (NUL-terminated in place); NULL when there is none. */
static char *line(char **s)
{
	char *l = *s, *nl = l ? strchr(l, '\n') : NULL;

	if (!nl)
		return NULL;
	*nl = '\0';
	*s = nl + 1;
	return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *rest = text, *space, *writer, *key, *mb;
	ss_buf body = SS_BUF_INIT;
	ss_space_op *ops = NULL;
	size_t n = 0;
	char *cursor = NULL, *rev = NULL, *hash = NULL;
	ss_space_commit c;
	ss_lthash h, back;
	ss_pubkey *pk = NULL;
	uint8_t digest[SS_SHA256_LEN], again[SS_SHA256_LEN];
	ss_error err;
	bool forged;

	if (!(space = line(&rest)) || !(writer = line(&rest)) || !(key = line(&rest)))
		goto out;
	ss_buf_put(&body, rest, size - (size_t)(rest - text));
	if (ss_space_proto_ops_page(&body, &ops, &n, &cursor, &rev, &hash, &err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		fuzz_check(ops[i].rev && strlen(ops[i].rev) == 13 && ops[i].collection &&
		               *ops[i].collection && ops[i].rkey && *ops[i].rkey &&
		               (ops[i].cid || ops[i].prev),
		           "an op handed out without a rev, a record or a change");
	ss_lthash_init(&h);
	if (ss_space_fold_ops(space, writer, "", &h, ops, n, &body, &c, &forged, &err) < 0)
		goto out;
	ss_lthash_digest(&h, digest);
	fuzz_check(!memcmp(digest, c.hash, sizeof(digest)), "a fold taken with another hash");
	fuzz_check(!n || !strcmp(c.rev, ops[n - 1].rev), "a fold taken at another revision");
	/* the set hash is the set's, whatever the order of its ops */
	ss_lthash_init(&back);
	for (size_t i = n; i-- > 0;) {
		if (ops[i].prev)
			ss_lthash_remove_record(&back, ops[i].collection, ops[i].rkey, ops[i].prev);
		if (ops[i].cid)
			ss_lthash_add_record(&back, ops[i].collection, ops[i].rkey, ops[i].cid);
	}
	ss_lthash_digest(&back, again);
	fuzz_check(!memcmp(digest, again, sizeof(digest)), "a set hash that depends on the order");
	if ((mb = strchr(key, ' '))) {
		*mb++ = '\0';
		if (ss_multikey_from_verification_method(&pk, key, mb, &err) == 0)
			(void)ss_space_commit_verify_sig(&c, space, writer, pk, &err);
	}
out:
	ss_pubkey_free(pk);
	ss_space_ops_free(ops, n);
	free(cursor);
	free(rev);
	free(hash);
	ss_buf_release(&body);
	free(text);
	return 0;
}
