#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/lthash.h"
#include "core/atproto/multikey.h"
#include "core/atproto/space_commit.h"
#include "core/util/base64.h"
#include "support/support.h"

/* {"$bytes": base64 of the hex field of v} */
static json_t *bytes_of(const json_t *v, const char *field)
{
	const char *hex = json_string_value(json_object_get(v, field));
	size_t n = strlen(hex) / 2;
	uint8_t raw[64];
	ss_buf b = SS_BUF_INIT;
	json_t *out;

	assert_true(n <= sizeof(raw));
	ss_test_hex(raw, n, hex);
	ss_base64_encode(&b, raw, n, SS_BASE64_STD, false);
	out = json_pack("{s:s}", "$bytes", b.ptr);
	ss_buf_release(&b);
	return out;
}

/* The commit of vector v in the JSON form a host serves. */
static json_t *commit_json(const json_t *v)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:s}", "ver", 1, "hash", bytes_of(v, "hash"),
	                 "ikm", bytes_of(v, "ikm"), "sig", bytes_of(v, "sig"), "mac",
	                 bytes_of(v, "mac"), "rev",
	                 json_string_value(json_object_get(json_object_get(v, "ctx"), "rev")));
}

/*
 * cocoon's reference-generated commits (secp256k1 and P-256 authors): the ctx bytes are the
 * reference's, the MAC and signature check out, and the LtHash of the listed records gives the
 * commit's hash.
 */
static void test_space_commit__reference_commits_verify(void **state)
{
	json_t *vectors = ss_test_json("vectors/cocoon-space.json");
	json_t *commits = json_object_get(vectors, "commits");
	size_t i, k;
	json_t *v, *r;

	assert_int_equal(json_array_size(commits), 3);
	json_array_foreach(commits, i, v)
	{
		json_t *ctxv = json_object_get(v, "ctx");
		const char *space = json_string_value(json_object_get(ctxv, "space"));
		const char *author = json_string_value(json_object_get(ctxv, "author"));
		const char *rev = json_string_value(json_object_get(ctxv, "rev"));
		const char *ctx_hex = json_string_value(json_object_get(v, "ctxBytes"));
		json_t *obj = commit_json(v);
		uint8_t want_ctx[256], digest[SS_SHA256_LEN];
		ss_space_commit c;
		ss_pubkey *pk = NULL;
		ss_buf ctx = SS_BUF_INIT;
		ss_lthash set;
		ss_error err;

		assert_int_equal(ss_space_commit_from_json(&c, obj, &err), 0);
		assert_string_equal(c.rev, rev);
		assert_int_equal(c.ikm_len, 32);
		assert_int_equal(
		    ss_space_commit_ctx(&ctx, space, author, c.rev, c.ikm, c.ikm_len, &err), 0);
		assert_int_equal(ctx.len, strlen(ctx_hex) / 2);
		ss_test_hex(want_ctx, ctx.len, ctx_hex);
		assert_memory_equal(ctx.ptr, want_ctx, ctx.len);

		ss_lthash_init(&set);
		json_array_foreach(json_object_get(v, "records"), k, r)
		{
			ss_lthash_add_record(&set,
			                     json_string_value(json_object_get(r, "collection")),
			                     json_string_value(json_object_get(r, "rkey")),
			                     json_string_value(json_object_get(r, "cid")));
		}
		ss_lthash_digest(&set, digest);
		assert_int_equal(ss_multikey_from_did_key(
		                     &pk, json_string_value(json_object_get(v, "didKey")), &err),
		                 0);
		assert_int_equal(ss_space_commit_verify(&c, space, author, rev, pk, digest, &err),
		                 0);
		assert_int_equal(ss_space_commit_verify(&c, space, author, NULL, pk, NULL, &err),
		                 0);
		ss_pubkey_free(pk);
		ss_buf_release(&ctx);
		json_decref(obj);
	}
	json_decref(vectors);
}

/* Each thing the commit binds, changed, is caught by the check that guards it. */
static void test_space_commit__tampering_caught(void **state)
{
	json_t *vectors = ss_test_json("vectors/cocoon-space.json");
	json_t *v = json_array_get(json_object_get(vectors, "commits"), 0);
	json_t *other = json_array_get(json_object_get(vectors, "commits"), 2);
	json_t *ctxv = json_object_get(v, "ctx");
	const char *space = json_string_value(json_object_get(ctxv, "space"));
	const char *author = json_string_value(json_object_get(ctxv, "author"));
	json_t *obj = commit_json(v);
	ss_pubkey *pk = NULL, *wrong = NULL;
	ss_space_commit c, t;
	uint8_t empty[SS_SHA256_LEN];
	ss_lthash set;
	ss_error err;

	assert_int_equal(ss_space_commit_from_json(&c, obj, &err), 0);
	assert_int_equal(
	    ss_multikey_from_did_key(&pk, json_string_value(json_object_get(v, "didKey")), &err),
	    0);
	assert_int_equal(ss_multikey_from_did_key(
	                     &wrong, json_string_value(json_object_get(other, "didKey")), &err),
	                 0);
	assert_int_equal(ss_space_commit_verify(&c, space, author, NULL, pk, NULL, &err), 0);

	/* a hash changed: the MAC no longer matches */
	t = c;
	t.hash[0] ^= 1;
	SS_ASSERT_FAILS(ss_space_commit_verify_mac(&t, space, author, &err), err, SS_EINVALID);
	assert_int_equal(ss_space_commit_verify_sig(&t, space, author, pk, &err), 0);
	/* another ikm with the MAC remade by whoever changed the hash: the signature fails */
	t = c;
	t.ikm[0] ^= 1;
	SS_ASSERT_FAILS(ss_space_commit_verify_sig(&t, space, author, pk, &err), err, SS_EINVALID);
	/* the commit presented as another author's, another space's, or another rev */
	SS_ASSERT_FAILS(ss_space_commit_verify(&c, space, "did:example:bob", NULL, pk, NULL, &err),
	                err, SS_EINVALID);
	SS_ASSERT_FAILS(ss_space_commit_verify(&c, "at://did:example:space/space/app.bsky.group/x",
	                                       author, NULL, pk, NULL, &err),
	                err, SS_EINVALID);
	SS_ASSERT_FAILS(ss_space_commit_verify(&c, space, author, "3kbcq3p7ad401", pk, NULL, &err),
	                err, SS_EINVALID);
	t = c;
	memcpy(t.rev, "3kbcq3p7ad401", 14);
	SS_ASSERT_FAILS(ss_space_commit_verify(&t, space, author, NULL, pk, NULL, &err), err,
	                SS_EINVALID);
	/* signed by someone else's key */
	SS_ASSERT_FAILS(ss_space_commit_verify(&c, space, author, NULL, wrong, NULL, &err), err,
	                SS_EINVALID);
	/* an unknown version */
	t = c;
	t.ver = 2;
	SS_ASSERT_FAILS(ss_space_commit_verify(&t, space, author, NULL, pk, NULL, &err), err,
	                SS_EINVALID);
	/* a genuine commit, but the records we hold do not give its hash */
	ss_lthash_init(&set);
	ss_lthash_digest(&set, empty);
	SS_ASSERT_FAILS(ss_space_commit_verify(&c, space, author, NULL, pk, empty, &err), err,
	                SS_EINVALID);
	assert_non_null(strstr(err.message, "hash"));

	ss_pubkey_free(pk);
	ss_pubkey_free(wrong);
	json_decref(obj);
	json_decref(vectors);
}

static void test_space_commit__json_form_checked(void **state)
{
	static const char *const bad[] = {
	    "{}",
	    "{\"ver\":1,\"rev\":\"3kbcq3p7ad400\"}",
	    /* hash of 31 bytes */
	    "{\"ver\":1,\"rev\":\"r\",\"hash\":{\"$bytes\":"
	    "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"},"
	    "\"ikm\":{\"$bytes\":\"AA\"},\"sig\":{\"$bytes\":\"AA\"},\"mac\":{\"$bytes\":\"AA\"}}",
	    /* a hash as a plain string */
	    "{\"ver\":1,\"rev\":\"r\",\"hash\":\"AAAA\"}",
	    "{\"ver\":\"1\",\"rev\":\"r\"}",
	    "{\"ver\":1,\"rev\":\"\"}",
	};
	ss_space_commit c;
	ss_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *obj = json_loads(bad[i], 0, NULL);

		assert_non_null(obj);
		SS_ASSERT_FAILS(ss_space_commit_from_json(&c, obj, &err), err, SS_EINVALID);
		json_decref(obj);
	}
}

int test_space_commit_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_commit__reference_commits_verify),
	    cmocka_unit_test(test_space_commit__tampering_caught),
	    cmocka_unit_test(test_space_commit__json_form_checked),
	};
	return cmocka_run_group_tests_name("space_commit", tests, NULL, NULL);
}
