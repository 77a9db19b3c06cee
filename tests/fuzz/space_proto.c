/*
 * The permissioned-space answers read from the network (sync/space/space_proto.h): a listRepos page
 * (both forms), a listRepoOps page, a getRecord answer, getRepo's CAR, the space host of a DID
 * document, an error answer turned into its one line, and what says a newer alpha (an unknown
 * method, a newer shape, describeServer's spacesAlpha, a URI's spelling).
 */
#include "tests/fuzz/fuzz.h"

#include "sync/net/xrpc_server.h"
#include "sync/space/space_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_buf body = SS_BUF_INIT;
	ss_space_repo *repos = NULL;
	ss_space_op *ops = NULL;
	ss_space_repo_car car;
	size_t nrepos = 0, nops = 0;
	char *cursor = NULL, *rev = NULL, *hash = NULL, *cid = NULL, *host = NULL;
	bool renew;
	ss_error err;

	ss_buf_put(&body, data, size);
	if (ss_space_proto_repos_page(&body, &repos, &nrepos, &cursor, &err) == 0)
		for (size_t i = 0; i < nrepos; i++)
			fuzz_check(repos[i].did && repos[i].rev, "a writer without a DID or a rev");
	ss_space_repos_free(repos, nrepos);
	free(cursor);
	cursor = NULL;
	if (ss_space_proto_ops_page(&body, &ops, &nops, &cursor, &rev, &hash, &err) == 0)
		for (size_t i = 0; i < nops; i++)
			fuzz_check(!ops[i].value_json ||
			               ops[i].value_len == strlen(ops[i].value_json),
			           "an op's value length");
	ss_space_ops_free(ops, nops);
	free(cursor);
	free(rev);
	free(hash);
	if (ss_space_proto_record_cid(&body, &cid, &err) == 0)
		free(cid);
	if (ss_space_proto_repo_car(data, size, &car, &err) == 0)
		for (size_t i = 0; i < car.n; i++)
			fuzz_check(*car.entries[i].collection && *car.entries[i].rkey &&
			               !strchr(car.entries[i].collection, '/') &&
			               (!car.entries[i].data ||
			                (car.entries[i].data >= data &&
			                 car.entries[i].data + car.entries[i].len <= data + size &&
			                 ss_cid_matches(&car.entries[i].cid, car.entries[i].data,
			                                car.entries[i].len))),
			           "an index entry without its names, or a block not its CID's");
	ss_space_repo_car_release(&car);
	if (ss_xrpc_did_doc_space_host((const char *)data, size, &host, &err) == 0)
		free(host);
	ss_space_proto_error("com.atproto.space.listRepos", 401, &body, &renew, &err);
	fuzz_check(renew, "a 401 that does not ask for a new credential");
	ss_error_clear(&err);
	ss_space_proto_alpha_unknown("host", SS_SPACE_NSID_LIST_REPOS, 501, &body, &err);
	fuzz_check(err.code == SS_EINVALID, "a 501 that is not read as an unknown method");
	(void)ss_space_proto_newer_shape(SS_SPACE_NSID_LIST_REPOS, &body);
	free(ss_space_proto_alpha_of(&body));
	ss_buf_putc(&body, '\0');
	(void)ss_space_proto_uri_form(body.ptr);
	ss_buf_release(&body);
	return 0;
}
