/*
 * The XRPC answers read from the network: a listRecords page (each record then through the
 * record decoder, as fetch does), a DID document, a JWT's exp claim.
 */
#include "tests/fuzz/fuzz.h"

#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_server.h"

static int on_record(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	ss_report *report;
	ss_skill *skill = NULL;

	fuzz_check(!(rec->value_json && rec->problem), "a listed entry with a text and a problem");
	/* A uri without '/' gives no key: the listing's consumer skips such an entry. */
	if (!rec->value_json || !rec->rkey)
		return 0;
	report = ss_report_new();
	ss_record_decode(rec->value_json, rec->value_len, rec->rkey, &skill, NULL, report);
	ss_skill_free(skill);
	ss_report_free(report);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_xrpc_did_doc doc;
	ss_error err;
	char *cursor = NULL, *s;
	size_t count;
	long long exp;

	ss_xrpc__walk_page("com.atproto.repo.listRecords", (const char *)data, size, on_record,
	                   NULL, &count, &cursor, &err);
	free(cursor);
	if (ss_xrpc_parse_did_doc((const char *)data, size, &doc, &err) == 0)
		ss_xrpc_did_doc_release(&doc);
	s = fuzz_cstr(data, size);
	ss_xrpc_jwt_exp(s, &exp, &err);
	free(s);
	return 0;
}
