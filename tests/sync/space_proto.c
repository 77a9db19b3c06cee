/*
 * space_proto.c: the permissioned-space protocol details of sync/space/space_proto.h without a
 * server: the signature base against the reference-generated HTTP signatures (cocoon's
 * vectors, testdata/vectors/cocoon-space.json), the headers it signs, and the answer shapes
 * (listRepos in its August and October forms, listRepoOps, getRepo's CAR, the space host of a
 * DID document) and error lines. tests/cmd/space*.sh run it against the test space host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/atproto/multikey.h"
#include "core/atproto/p256.h"
#include "core/atproto/pubkey.h"
#include "core/util/base64.h"
#include "core/util/buf.h"
#include "support/support.h"
#include "sync/net/xrpc_server.h"
#include "sync/space/space_proto.h"

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
		assert_int_equal(ss_multikey_from_did_key(
		                     &pk, json_string_value(json_object_get(c, "keyDid")), &err),
		                 0);
		assert_int_equal(ss_pubkey_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr,
		                                  sig.len, false, &err),
		                 0);
		/* one byte off in what is covered: the signature no longer holds */
		base.ptr[3] ^= 1;
		assert_int_not_equal(ss_pubkey_verify(pk, base.ptr, base.len,
		                                      (const uint8_t *)sig.ptr, sig.len, false,
		                                      &err),
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
	assert_int_equal(ss_multikey_from_did_key(&pk, keyid, &err), 0);
	assert_int_equal(ss_pubkey_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr, sig.len,
	                                  false, &err),
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

#define CID1 "bafyreidwslb22nkaxoadyaqlhlxgntmiq4jdenhkbrxhcq6avxlt75br5u"
#define CID2 "bafyreib7ytgp45cyodrmbwm7ohzq74dfnsg63va4yhl5hu3wwdn6nbpc6m"
#define REV1 "3m2abcdefgh22"
#define REV2 "3m2abcdefgh23"

static void test_space_proto__ops_page(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_space_op *ops = NULL;
	size_t n = 0;
	char *cursor, *rev, *hash;
	ss_error err;

	(void)state;
	ss_buf_puts(&b,
	            "{\"ops\":[{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"k\","
	            "\"cid\":\"" CID1 "\",\"prev\":null,\"value\":{\"a\":1}},{\"rev\":\"" REV2
	            "\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":null,\"prev\":\"" CID1
	            "\"},{\"rev\":\"" REV2 "\",\"collection\":\"c\",\"rkey\":\"j\",\"cid\":\"" CID2
	            "\"}],\"commit\":{\"rev\":\"" REV2 "\",\"hash\":{\"$bytes\":\"qqo=\"}}}");
	assert_int_equal(ss_space_proto_ops_page(&b, &ops, &n, &cursor, &rev, &hash, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ops[0].rev, REV1);
	assert_string_equal(ops[0].cid, CID1);
	assert_string_equal(ops[0].value_json, "{\"a\":1}");
	assert_null(ops[0].prev);
	assert_null(ops[1].cid); /* a delete */
	assert_string_equal(ops[1].prev, CID1);
	assert_null(ops[1].value_json);
	assert_null(ops[2].prev); /* a prev left out: null, a create */
	assert_null(cursor);
	assert_string_equal(rev, REV2);
	assert_string_equal(hash, "qqo");
	free(rev);
	free(hash);
	ss_space_ops_free(ops, n);
	ss_buf_release(&b);
}

/* An op without a rev, or whose rev, cid or prev is of another shape, refuses the whole page
 * in one line saying which op and what, and hands out none of it (the ops of the pages before
 * it stay as they were). */
static void test_space_proto__ops_page_refuses_a_malformed_op(void **state)
{
	static const struct {
		const char *op, *says;
	} cases[] = {
	    {"{\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1 "\",\"prev\":null}",
	     "has no rev"},
	    {"{\"rev\":null,\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1 "\"}",
	     "rev that is not a TID"},
	    {"{\"rev\":12,\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1 "\"}",
	     "rev that is not a TID"},
	    {"{\"rev\":\"r1\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1 "\"}",
	     "rev that is not a TID"},
	    {"{\"rev\":\"zm2abcdefgh22\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1 "\"}",
	     "rev that is not a TID"}, /* the top bit set */
	    {"{\"rev\":\"3m2abcdefgh2\\u0000\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1
	     "\"}",
	     "rev that is not a TID"},
	    {"{\"rev\":\"" REV1 "\",\"rkey\":\"k\",\"cid\":\"" CID1 "\"}", "names no record"},
	    {"{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"\",\"cid\":\"" CID1 "\"}",
	     "names no record"},
	    {"{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"bafy1\"}",
	     "cid that is neither a CID nor null"},
	    {"{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":{\"$link\":\"" CID1
	     "\"}}",
	     "cid that is neither a CID nor null"},
	    {"{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":\"" CID1
	     "\",\"prev\":7}",
	     "prev that is neither a CID nor null"},
	    {"{\"rev\":\"" REV1
	     "\",\"collection\":\"c\",\"rkey\":\"k\",\"cid\":null,\"prev\":null}",
	     "neither a cid nor a prev"},
	    {"[\"" REV1 "\"]", "is not an object"},
	};
	ss_buf b = SS_BUF_INIT;
	ss_space_op *ops = NULL;
	size_t n = 0;
	char *cursor, *rev, *hash;
	ss_error err;

	(void)state;
	/* a first page, taken */
	ss_buf_puts(&b, "{\"ops\":[{\"rev\":\"" REV1 "\",\"collection\":\"c\",\"rkey\":\"k\","
	                "\"cid\":\"" CID1 "\",\"prev\":null}],\"cursor\":\"" REV1 "/0\"}");
	assert_int_equal(ss_space_proto_ops_page(&b, &ops, &n, &cursor, &rev, &hash, &err), 0);
	assert_int_equal(n, 1);
	free(cursor);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_buf_clear(&b);
		ss_buf_printf(&b,
		              "{\"ops\":[{\"rev\":\"" REV2 "\",\"collection\":\"c\",\"rkey\":\"j\","
		              "\"cid\":\"" CID2 "\",\"prev\":null},%s],\"commit\":{\"rev\":\"" REV2
		              "\",\"hash\":{\"$bytes\":\"qqo=\"}}}",
		              cases[i].op);
		assert_int_equal(ss_space_proto_ops_page(&b, &ops, &n, &cursor, &rev, &hash, &err),
		                 SS_EINVALID);
		if (!strstr(err.message, cases[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, err.message, cases[i].says);
		assert_non_null(strstr(err.message,
		                       "com.atproto.space.listRepoOps: the server's op "
		                       "2 (of 2 on the page)"));
		assert_null(strchr(err.message, '\n'));
		assert_int_equal(n, 1); /* the first page's op alone */
		assert_null(cursor);
		assert_null(rev);
		assert_null(hash);
	}
	assert_string_equal(ops[0].rev, REV1);
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
	assert_int_equal(ss_xrpc_did_doc_space_host(both, strlen(both), &host, &err), 0);
	assert_string_equal(host, "https://space.example");
	free(host);
	assert_int_equal(ss_xrpc_did_doc_space_host(pds, strlen(pds), &host, &err), 0);
	assert_string_equal(host, "https://pds.example");
	free(host);
	assert_int_equal(ss_xrpc_did_doc_space_host("{}", 2, &host, &err), SS_EINVALID);
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

/* ---- getRepo's CAR, built here with core/atproto/cbor.h and core/atproto/cid.h ---- */

struct block {
	ss_cid cid;
	ss_buf bytes;
};

static void block_of(struct block *b, const char *json)
{
	json_t *v = json_loads(json, 0, NULL);
	ss_error err;

	assert_non_null(v);
	ss_buf_init(&b->bytes);
	assert_int_equal(ss_cbor_encode(v, &b->bytes, &err), 0);
	ss_cid_compute(&b->cid, SS_CID_DAG_CBOR, b->bytes.ptr, b->bytes.len);
	json_decref(v);
}

static void put_varint(ss_buf *out, size_t n)
{
	while (n >= 0x80) {
		ss_buf_putc(out, (char)((n & 0x7f) | 0x80));
		n >>= 7;
	}
	ss_buf_putc(out, (char)n);
}

/* A CAR of the roots (nroots CIDs as text) and blocks. */
static void car_of(ss_buf *out, const char *const *roots, size_t nroots, struct block *blocks,
                   size_t n)
{
	ss_buf hj = SS_BUF_INIT;
	struct block header;
	unsigned char cid[SS_CID_BINSZ];

	ss_buf_puts(&hj, "{\"version\":1,\"roots\":[");
	for (size_t i = 0; i < nroots; i++)
		ss_buf_printf(&hj, "%s{\"$link\":\"%s\"}", i ? "," : "", roots[i]);
	ss_buf_puts(&hj, "]}");
	block_of(&header, hj.ptr);
	put_varint(out, header.bytes.len);
	ss_buf_put(out, header.bytes.ptr, header.bytes.len);
	for (size_t i = 0; i < n; i++) {
		ss_cid_to_bytes(cid, &blocks[i].cid);
		put_varint(out, sizeof(cid) + blocks[i].bytes.len);
		ss_buf_put(out, cid, sizeof(cid));
		ss_buf_put(out, blocks[i].bytes.ptr, blocks[i].bytes.len);
	}
	ss_buf_release(&header.bytes);
	ss_buf_release(&hj);
}

/* A repo of two records (a skill and another collection's): blocks commit, index, records. */
static void repo_blocks(struct block b[4], const char *skill_key, bool link)
{
	uint8_t zero[64] = {0};
	ss_buf z32 = SS_BUF_INIT, z64 = SS_BUF_INIT, j = SS_BUF_INIT;
	char c2[SS_CID_STRSZ], c3[SS_CID_STRSZ];

	ss_base64_encode(&z32, zero, 32, SS_BASE64_STD, false);
	ss_base64_encode(&z64, zero, 64, SS_BASE64_STD, false);
	ss_buf_printf(
	    &j,
	    "{\"ver\":1,\"rev\":\"3kabc\",\"hash\":{\"$bytes\":\"%s\"},\"ikm\":"
	    "{\"$bytes\":\"%s\"},\"sig\":{\"$bytes\":\"%s\"},\"mac\":{\"$bytes\":\"%s\"}}",
	    z32.ptr, z32.ptr, z64.ptr, z32.ptr);
	block_of(&b[0], j.ptr);
	block_of(&b[2], "{\"$type\":\"garden.engram.skill\",\"name\":\"a\"}");
	block_of(&b[3], "{\"$type\":\"other.thing\",\"n\":2}");
	ss_cid_fmt(c2, &b[2].cid);
	ss_cid_fmt(c3, &b[3].cid);
	ss_buf_clear(&j);
	ss_buf_printf(&j, "{\"%s\":%s\"%s\"%s,\"other.thing/x\":{\"$link\":\"%s\"}}", skill_key,
	              link ? "{\"$link\":" : "", c2, link ? "}" : "", c3);
	block_of(&b[1], j.ptr);
	ss_buf_release(&z32);
	ss_buf_release(&z64);
	ss_buf_release(&j);
}

/* Parses a CAR of blocks b[0..n) with roots b[0] and b[1]; returns the rc. */
static int parse(struct block *b, size_t n, size_t nroots, ss_space_repo_car *out, ss_buf *car,
                 ss_error *err)
{
	char r0[SS_CID_STRSZ], r1[SS_CID_STRSZ];
	const char *roots[] = {r0, r1};

	ss_cid_fmt(r0, &b[0].cid);
	ss_cid_fmt(r1, &b[1].cid);
	ss_buf_clear(car);
	car_of(car, roots, nroots, b, n);
	return ss_space_proto_repo_car(car->ptr, car->len, out, err);
}

static void test_space_proto__repo_car(void **state)
{
	struct block b[5];
	ss_buf car = SS_BUF_INIT;
	ss_space_repo_car rc;
	ss_error err;

	(void)state;
	repo_blocks(b, "garden.engram.skill/a", true);
	assert_int_equal(parse(b, 4, 2, &rc, &car, &err), 0);
	assert_string_equal(rc.commit.rev, "3kabc");
	assert_int_equal(rc.commit.ver, 1);
	assert_int_equal(rc.n, 2);
	/* in the index's (DAG-CBOR) order: shorter keys first */
	assert_string_equal(rc.entries[0].collection, "other.thing");
	assert_string_equal(rc.entries[0].rkey, "x");
	assert_string_equal(rc.entries[1].collection, "garden.engram.skill");
	assert_string_equal(rc.entries[1].rkey, "a");
	assert_true(ss_cid_equal(&rc.entries[1].cid, &b[2].cid));
	assert_int_equal(rc.entries[1].len, b[2].bytes.len);
	assert_memory_equal(rc.entries[1].data, b[2].bytes.ptr, b[2].bytes.len);
	ss_space_repo_car_release(&rc);
	/* excludeValues: the two roots only, the entries without blocks */
	assert_int_equal(parse(b, 2, 2, &rc, &car, &err), 0);
	assert_int_equal(rc.n, 2);
	assert_null(rc.entries[1].data);
	ss_space_repo_car_release(&rc);
	/* a record's bytes changed under its CID */
	b[2].bytes.ptr[b[2].bytes.len - 1] ^= 1;
	assert_int_equal(parse(b, 4, 2, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "does not hash to its CID"));
	b[2].bytes.ptr[b[2].bytes.len - 1] ^= 1;
	/* a block the index does not name */
	block_of(&b[4], "{\"$type\":\"garden.engram.skill\",\"name\":\"hidden\"}");
	assert_int_equal(parse(b, 5, 2, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "not in the index"));
	ss_buf_release(&b[4].bytes);
	/* one root only */
	assert_int_equal(parse(b, 4, 1, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "roots"));
	for (size_t i = 0; i < 4; i++)
		ss_buf_release(&b[i].bytes);
	/* an index key that is not "<collection>/<rkey>", an index value that is not a link */
	repo_blocks(b, "nokey", true);
	assert_int_equal(parse(b, 4, 2, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "<collection>/<rkey>"));
	for (size_t i = 0; i < 4; i++)
		ss_buf_release(&b[i].bytes);
	repo_blocks(b, "a.b/c", false);
	assert_int_equal(parse(b, 2, 2, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "not a CID link"));
	for (size_t i = 0; i < 4; i++)
		ss_buf_release(&b[i].bytes);
	/* a commit that is not a signed space commit (its roots swapped: the index first) */
	repo_blocks(b, "garden.engram.skill/a", true);
	{
		struct block t = b[0];

		b[0] = b[1];
		b[1] = t;
	}
	assert_int_equal(parse(b, 4, 2, &rc, &car, &err) < 0 ? err.code : 0, SS_EINVALID);
	assert_non_null(strstr(err.message, "signed commit"));
	for (size_t i = 0; i < 4; i++)
		ss_buf_release(&b[i].bytes);
	ss_buf_release(&car);
}

int test_space_proto_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_proto__signature_base_is_the_reference_one),
	    cmocka_unit_test(test_space_proto__signed_headers_verify),
	    cmocka_unit_test(test_space_proto__list_repos_both_forms),
	    cmocka_unit_test(test_space_proto__ops_page),
	    cmocka_unit_test(test_space_proto__ops_page_refuses_a_malformed_op),
	    cmocka_unit_test(test_space_proto__space_host_of_a_did_doc),
	    cmocka_unit_test(test_space_proto__errors_say_what_to_do),
	    cmocka_unit_test(test_space_proto__repo_car),
	};
	return cmocka_run_group_tests_name("sync/space_proto", tests, NULL, NULL);
}
