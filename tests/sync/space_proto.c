/*
 * space_proto.c: the permissioned-space protocol details of sync/space_proto.h without a
 * server: the signature base against the reference-generated HTTP signatures (cocoon's
 * vectors, testdata/vectors/cocoon-space.json), the headers it signs, and the answer shapes
 * (listRepos in its August and October forms, listRepoOps, the space host of a DID document)
 * and error lines. tests/cmd/space*.sh run it against the test space host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/base64.h"
#include "core/buf.h"
#include "core/crypto.h"
#include "core/multikey.h"
#include "sync/space_proto.h"
#include "support/support.h"

static const char *header(json_t *h, const char *name)
{
	return json_string_value(json_object_get(h, name));
}

/* The inner list after "atproto-space=" and the signature bytes of a Signature value. */
static void split(json_t *h, const char **params, ss_buf *sig)
{
	const char *in = header(h, "signature-input"), *s = header(h, "signature");
	const char *start = strchr(s, ':') + 1, *end = strrchr(s, ':');
	ss_error err;

	*params = strchr(in, '=') + 1;
	assert_int_equal(ss_base64_decode(sig, start, (size_t)(end - start), SS_BASE64_STD, &err),
	                 0);
}

static void test_space_proto__signature_base_is_the_reference_one(void **state)
{
	json_t *v = ss_test_json("vectors/cocoon-space.json"), *cases, *c;
	size_t i;

	(void)state;
	cases = json_object_get(v, "httpsig");
	assert_true(json_array_size(cases) >= 3);
	json_array_foreach(cases, i, c)
	{
		json_t *h = json_object_get(c, "headers");
		ss_buf base = SS_BUF_INIT, sig = SS_BUF_INIT;
		ss_pubkey *pk = NULL;
		const char *params;
		ss_error err;

		split(h, &params, &sig);
		ss_space_proto_sig_base(&base, header(h, "authorization"),
		                        header(h, "atproto-space-audience"), params);
		assert_int_equal(ss_pubkey_from_did_key(
		                     &pk, json_string_value(json_object_get(c, "keyDid")), &err),
		                 0);
		assert_int_equal(ss_sig_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr,
		                               sig.len, false, &err),
		                 0);
		/* one byte off in what is covered: the signature no longer holds */
		base.ptr[3] ^= 1;
		assert_int_not_equal(ss_sig_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr,
		                                   sig.len, false, &err),
		                     0);
		ss_pubkey_free(pk);
		ss_buf_release(&base);
		ss_buf_release(&sig);
	}
	json_decref(v);
}

/* The lines ss_space_proto_sign makes, as a verifier reads them. */
static void check_signed(const char *token, const char *audience)
{
	ss_p256_key *key = NULL;
	ss_pubkey *pk = NULL;
	char *keyid = NULL, **lines = NULL;
	json_t *h = json_object();
	ss_buf base = SS_BUF_INIT, sig = SS_BUF_INIT, want = SS_BUF_INIT;
	const char *params;
	ss_error err;
	size_t n = 0;

	assert_int_equal(ss_p256_key_new(&key, &err), 0);
	assert_int_equal(ss_p256_did_key(key, &keyid, &err), 0);
	assert_int_equal(ss_space_proto_sign(key, keyid, token, audience, &lines, &err), 0);
	for (; lines[n]; n++) {
		char *colon = strstr(lines[n], ": "), *name = strndup(lines[n], colon - lines[n]);

		for (char *p = name; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		json_object_set_new(h, name, json_string(colon + 2));
		free(name);
	}
	assert_int_equal(n, audience ? 4 : 3);
	ss_buf_printf(&want, "%s %s", audience ? "Atproto-Space" : "Bearer", token);
	assert_string_equal(header(h, "authorization"), want.ptr);
	ss_buf_clear(&want);
	ss_buf_printf(&want,
	              "atproto-space=(\"authorization\"%s);keyid=\"%s\";alg=\"ecdsa-p256-sha256\"",
	              audience ? " \"atproto-space-audience\"" : "", keyid);
	assert_string_equal(header(h, "signature-input"), want.ptr);
	if (audience)
		assert_string_equal(header(h, "atproto-space-audience"), audience);
	split(h, &params, &sig);
	assert_int_equal(sig.len, 64);
	ss_space_proto_sig_base(&base, header(h, "authorization"), audience, params);
	assert_int_equal(ss_pubkey_from_did_key(&pk, keyid, &err), 0);
	assert_int_equal(
	    ss_sig_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr, sig.len, false, &err),
	    0);
	ss_pubkey_free(pk);
	ss_p256_key_free(key);
	ss_space_proto_lines_free(lines);
	free(keyid);
	json_decref(h);
	ss_buf_release(&base);
	ss_buf_release(&sig);
	ss_buf_release(&want);
}

static void test_space_proto__signed_headers_verify(void **state)
{
	(void)state;
	check_signed("delegation.token.sig", NULL);
	check_signed("credential.jwt.sig", "did:plc:ewvi7nxzyoun6zhxrhs64oiz");
}

static void test_space_proto__list_repos_both_forms(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_space_repo *r = NULL;
	size_t n = 0;
	char *cursor = NULL;
	ss_error err;

	(void)state;
	/* October: repoRev, spaceRev, bytes hash; a page with a cursor */
	ss_buf_puts(&b,
	            "{\"repos\":[{\"did\":\"did:plc:a\",\"repoRev\":\"3l1\",\"hash\":{\"$bytes\":"
	            "\"qg==\"},\"spaceRev\":\"3s1\"},{\"did\":\"did:plc:nohash\","
	            "\"repoRev\":\"3l2\"},{\"repoRev\":\"3l3\"}],\"cursor\":\"3s2\"}");
	assert_int_equal(ss_space_proto_repos_page(&b, &r, &n, &cursor, &err), 0);
	assert_int_equal(n, 2); /* the entry with no DID is not followed */
	assert_string_equal(r[0].did, "did:plc:a");
	assert_string_equal(r[0].rev, "3l1");
	assert_string_equal(r[0].hash, "qg");
	assert_null(r[1].hash);
	assert_string_equal(cursor, "3s2");
	free(cursor);
	/* August: rev, no cursor */
	ss_buf_clear(&b);
	ss_buf_puts(&b, "{\"repos\":[{\"did\":\"did:plc:b\",\"rev\":\"3l9\",\"hash\":\"qg\"}]}");
	assert_int_equal(ss_space_proto_repos_page(&b, &r, &n, &cursor, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(r[2].rev, "3l9");
	assert_string_equal(r[2].hash, "qg");
	assert_null(cursor);
	ss_space_repos_free(r, n);
	ss_buf_clear(&b);
	ss_buf_puts(&b, "{\"cursor\":\"x\"}");
	r = NULL;
	n = 0;
	assert_int_equal(ss_space_proto_repos_page(&b, &r, &n, &cursor, &err), SS_ERROR);
	ss_buf_release(&b);
}

static void test_space_proto__ops_page(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_space_op *ops = NULL;
	size_t n = 0;
	char *cursor, *rev, *hash;
	ss_error err;

	(void)state;
	ss_buf_puts(&b,
	            "{\"ops\":[{\"rev\":\"r1\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":"
	            "\"bafy1\",\"prev\":null,\"value\":{\"a\":1}},{\"rev\":\"r2\",\"collection\":"
	            "\"c\",\"rkey\":\"k\",\"cid\":null,\"prev\":\"bafy1\"}],\"commit\":{\"rev\":"
	            "\"r2\",\"hash\":{\"$bytes\":\"qqo=\"}}}");
	assert_int_equal(ss_space_proto_ops_page(&b, &ops, &n, &cursor, &rev, &hash, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ops[0].value_json, "{\"a\":1}");
	assert_null(ops[0].prev);
	assert_null(ops[1].cid); /* a delete */
	assert_null(ops[1].value_json);
	assert_null(cursor);
	assert_string_equal(rev, "r2");
	assert_string_equal(hash, "qqo");
	free(rev);
	free(hash);
	ss_space_ops_free(ops, n);
	ss_buf_release(&b);
}

static void test_space_proto__space_host_of_a_did_doc(void **state)
{
	const char *both = "{\"id\":\"did:plc:a\",\"service\":[{\"id\":\"#atproto_pds\","
	                   "\"serviceEndpoint\":\"https://pds.example\"},{\"id\":\"did:plc:a#"
	                   "atproto_space_host\",\"serviceEndpoint\":\"https://space.example\"}]}";
	const char *pds = "{\"id\":\"did:plc:a\",\"service\":[{\"id\":\"#atproto_pds\","
	                  "\"serviceEndpoint\":\"https://pds.example\"}]}";
	char *host = NULL;
	ss_error err;

	(void)state;
	assert_int_equal(ss_space_proto_host(both, strlen(both), &host, &err), 0);
	assert_string_equal(host, "https://space.example");
	free(host);
	assert_int_equal(ss_space_proto_host(pds, strlen(pds), &host, &err), 0);
	assert_string_equal(host, "https://pds.example");
	free(host);
	assert_int_equal(ss_space_proto_host("{}", 2, &host, &err), SS_EINVALID);
}

static void test_space_proto__errors_say_what_to_do(void **state)
{
	ss_buf b = SS_BUF_INIT;
	bool renew;
	ss_error err;

	(void)state;
	ss_buf_puts(&b, "{\"error\":\"UserNotAuthorized\",\"message\":\"no\"}");
	assert_int_equal(ss_space_proto_error("m", 400, &b, &renew, &err), SS_EAUTH);
	assert_false(renew);
	assert_non_null(strstr(err.message, "not a member of this space"));
	ss_buf_clear(&b);
	ss_buf_puts(&b, "{\"error\":\"CredentialRevoked\"}");
	assert_int_equal(ss_space_proto_error("m", 401, &b, &renew, &err), SS_EAUTH);
	assert_true(renew); /* a 401: a new credential, once */
	ss_buf_clear(&b);
	ss_buf_puts(&b, "{\"error\":\"SpaceDeleted\"}");
	assert_int_equal(ss_space_proto_error("m", 400, &b, &renew, &err), SS_ENOTFOUND);
	assert_non_null(strstr(err.message, "deleted by its authority"));
	ss_buf_clear(&b);
	ss_buf_puts(&b, "{\"error\":\"JwtExpired\"}");
	ss_space_proto_error("m", 401, &b, &renew, &err);
	assert_non_null(strstr(err.message, "clock"));
	ss_buf_release(&b);
}

int test_space_proto_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_proto__signature_base_is_the_reference_one),
	    cmocka_unit_test(test_space_proto__signed_headers_verify),
	    cmocka_unit_test(test_space_proto__list_repos_both_forms),
	    cmocka_unit_test(test_space_proto__ops_page),
	    cmocka_unit_test(test_space_proto__space_host_of_a_did_doc),
	    cmocka_unit_test(test_space_proto__errors_say_what_to_do),
	};
	return cmocka_run_group_tests_name("sync/space_proto", tests, NULL, NULL);
}
