#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/jwt.h"
#include "core/atproto/multikey.h"
#include "core/util/base64.h"
#include "support/support.h"

static ss_pubkey *key_of(const char *did)
{
	ss_pubkey *pk = NULL;
	ss_error err;

	assert_int_equal(ss_multikey_from_did_key(&pk, did, &err), 0);
	return pk;
}

/*
 * cocoon's reference-generated delegation token and credentials: each parses to the claims it
 * was made with and verifies with its signing key (ES256K and ES256), not with another key;
 * a changed payload no longer verifies.
 */
static void test_jwt__reference_tokens_verify(void **state)
{
	json_t *v = ss_test_json("vectors/cocoon-space.json");
	json_t *tokens = json_object_get(v, "tokens");
	size_t i;
	json_t *t;

	assert_int_equal(json_array_size(tokens), 4);
	json_array_foreach(tokens, i, t)
	{
		const char *token = json_string_value(json_object_get(t, "jwt"));
		const char *type = json_string_value(json_object_get(t, "type"));
		json_t *opts = json_object_get(t, "opts");
		const char *kid = json_string_value(json_object_get(opts, "kid"));
		json_t *ttl = json_object_get(opts, "expiresInSec");
		ss_pubkey *pk = key_of(json_string_value(json_object_get(t, "signingKey")));
		ss_pubkey *other = key_of(json_string_value(
		    json_object_get(json_array_get(tokens, i ? 0 : 1), "signingKey")));
		ss_buf typ = SS_BUF_INIT;
		ss_jwt j;
		ss_error err;

		assert_int_equal(ss_jwt_parse(&j, token, &err), 0);
		ss_buf_printf(&typ, "atproto-space-%s+jwt", type);
		assert_string_equal(j.typ, typ.ptr);
		assert_string_equal(j.kid, kid ? kid : "#atproto");
		assert_string_equal(ss_jwt_claim(&j, "iss"),
		                    json_string_value(json_object_get(opts, "iss")));
		assert_string_equal(ss_jwt_claim(&j, "sub"),
		                    json_string_value(json_object_get(opts, "sub")));
		assert_true(j.has_iat && j.has_exp);
		assert_int_equal(j.iat, json_integer_value(json_object_get(v, "now")));
		if (!strcmp(type, "delegation")) {
			assert_string_equal(ss_jwt_claim(&j, "aud"),
			                    json_string_value(json_object_get(opts, "aud")));
			assert_int_equal(j.exp - j.iat, 60);
		} else {
			assert_null(ss_jwt_claim(&j, "aud"));
			assert_string_equal(json_string_value(json_object_get(
			                        json_object_get(j.payload, "cnf"), "kid")),
			                    json_string_value(json_object_get(opts, "keyId")));
			assert_int_equal(j.exp - j.iat, ttl ? json_integer_value(ttl) : 600);
		}
		assert_int_equal(ss_jwt_verify(&j, pk, &err), 0);
		SS_ASSERT_FAILS(ss_jwt_verify(&j, other, &err), err, SS_EINVALID);
		ss_jwt_release(&j);

		/* the same token with one claim changed: "iat":1790000000 -> 1790000001 */
		{
			const char *d1 = strchr(token, '.'), *d2 = strchr(d1 + 1, '.');
			ss_buf payload = SS_BUF_INIT, forged = SS_BUF_INIT;
			char *at;

			assert_int_equal(ss_base64_decode(&payload, d1 + 1, (size_t)(d2 - d1 - 1),
			                                  SS_BASE64_URL, &err),
			                 0);
			at = strstr(payload.ptr, "1790000000");
			assert_non_null(at);
			at[9] = '1';
			ss_buf_put(&forged, token, (size_t)(d1 + 1 - token));
			ss_base64_encode(&forged, payload.ptr, payload.len, SS_BASE64_URL, false);
			ss_buf_puts(&forged, d2);
			assert_int_equal(ss_jwt_parse(&j, forged.ptr, &err), 0);
			assert_int_equal(j.iat, 1790000001);
			SS_ASSERT_FAILS(ss_jwt_verify(&j, pk, &err), err, SS_EINVALID);
			ss_jwt_release(&j);
			ss_buf_release(&payload);
			ss_buf_release(&forged);
		}
		ss_pubkey_free(pk);
		ss_pubkey_free(other);
		ss_buf_release(&typ);
	}
	json_decref(v);
}

/* A token made here verifies with the maker's did:key and says what it was given. */
static void test_jwt__sign_es256_round_trip(void **state)
{
	ss_p256_key *key = NULL;
	ss_pubkey *pk = NULL;
	json_t *claims =
	    json_pack("{s:s, s:I}", "iss", "did:plc:me", "exp", (json_int_t)2000000000);
	char *did = NULL, *token = NULL;
	ss_jwt j;
	ss_error err;

	assert_int_equal(ss_p256_key_new(&key, &err), 0);
	assert_int_equal(ss_p256_did_key(key, &did, &err), 0);
	assert_int_equal(ss_multikey_from_did_key(&pk, did, &err), 0);
	assert_int_equal(ss_jwt_sign_es256(&token, key, "test+jwt", "#k", claims, &err), 0);
	assert_int_equal(ss_jwt_parse(&j, token, &err), 0);
	assert_string_equal(j.alg, "ES256");
	assert_string_equal(j.typ, "test+jwt");
	assert_string_equal(j.kid, "#k");
	assert_string_equal(ss_jwt_claim(&j, "iss"), "did:plc:me");
	assert_true(j.has_exp && !j.has_iat);
	assert_int_equal(j.exp, 2000000000);
	assert_int_equal(ss_jwt_verify(&j, pk, &err), 0);
	ss_jwt_release(&j);
	ss_jwt_release(NULL);
	free(token);
	free(did);
	json_decref(claims);
	ss_pubkey_free(pk);
	ss_p256_key_free(key);
}

/* The base64url field of a JWK, decoded: n bytes into out. */
static void jwk_coord(const json_t *jwk, const char *name, uint8_t *out, size_t n)
{
	const char *v = json_string_value(json_object_get(jwk, name));
	ss_buf b = SS_BUF_INIT;
	ss_error err;

	assert_non_null(v);
	assert_int_equal(ss_base64_decode(&b, v, strlen(v), SS_BASE64_URL, &err), 0);
	assert_int_equal(b.len, n);
	memcpy(out, b.ptr, n);
	ss_buf_release(&b);
}

/* A DPoP-style token names its key as a JWK whose x and y are the key's point: it verifies
 * with that point; the key kept as its private scalar is the same key again. */
static void test_jwt__sign_es256_jwk_names_the_key(void **state)
{
	ss_p256_key *key = NULL, *again = NULL;
	ss_pubkey *pk = NULL;
	json_t *claims = json_pack("{s:s}", "htm", "POST"), *jwk;
	char *did = NULL, *did_again = NULL, *token = NULL;
	uint8_t point[SS_POINT_LEN], y[32], d[32];
	ss_jwt j;
	ss_error err;

	assert_int_equal(ss_p256_key_new(&key, &err), 0);
	assert_int_equal(ss_jwt_sign_es256_jwk(&token, key, "dpop+jwt", claims, &err), 0);
	assert_int_equal(ss_jwt_parse(&j, token, &err), 0);
	assert_string_equal(j.typ, "dpop+jwt");
	assert_null(j.kid);
	jwk = json_object_get(j.header, "jwk");
	assert_string_equal(json_string_value(json_object_get(jwk, "kty")), "EC");
	assert_string_equal(json_string_value(json_object_get(jwk, "crv")), "P-256");
	assert_null(json_object_get(jwk, "d"));
	jwk_coord(jwk, "x", point + 1, 32);
	jwk_coord(jwk, "y", y, 32);
	point[0] = (uint8_t)(2 + (y[31] & 1));
	assert_int_equal(ss_pubkey_from_point(&pk, SS_CURVE_P256, point, sizeof(point), &err), 0);
	assert_int_equal(ss_jwt_verify(&j, pk, &err), 0);
	assert_int_equal(ss_p256_key_private(key, d, &err), 0);
	assert_int_equal(ss_p256_key_from_private(&again, d, &err), 0);
	assert_int_equal(ss_p256_did_key(key, &did, &err), 0);
	assert_int_equal(ss_p256_did_key(again, &did_again, &err), 0);
	assert_string_equal(did, did_again);
	ss_jwt_release(&j);
	free(token);
	free(did);
	free(did_again);
	json_decref(claims);
	ss_pubkey_free(pk);
	ss_p256_key_free(key);
	ss_p256_key_free(again);
}

static void test_jwt__malformed_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "e30.e30",                                   /* two parts */
	    "e30.e30.c2ln.c2ln",                         /* four */
	    "WzFd.e30.c2ln",                             /* header [1] */
	    "e30.bnVsbA.c2ln",                           /* payload null */
	    "e30=.e30.c2ln",                             /* padding */
	    "e30.e30.c2ln+",                             /* std alphabet in the signature */
	    "e30.eyJhIjoxLCJhIjoyfQ.c2ln",               /* {"a":1,"a":2} */
	    "eyJhbGciOiJFUzI1NiJ9.e30.c2lnbmF0dXJl\xff", /* not base64url at all */
	};
	ss_jwt j;
	ss_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		SS_ASSERT_FAILS(ss_jwt_parse(&j, bad[i], &err), err, SS_EINVALID);
}

/* alg must be the key's: "none", HS256 or the other curve's name do not pass. */
static void test_jwt__alg_must_match_key(void **state)
{
	ss_pubkey *pk = key_of("did:key:zDnaeac1d5FeLM37Ww6tEwbrqyzfoNdJXynZXEzVhjYQGDYs9");
	static const char *const tokens[] = {"eyJhbGciOiJub25lIn0.e30.",
	                                     "eyJhbGciOiJIUzI1NiJ9.e30.c2ln",
	                                     "eyJhbGciOiJFUzI1NksifQ.e30.c2ln", "e30.e30.c2ln"};
	ss_jwt j;
	ss_error err;

	for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
		assert_int_equal(ss_jwt_parse(&j, tokens[i], &err), 0);
		SS_ASSERT_FAILS(ss_jwt_verify(&j, pk, &err), err, SS_EINVALID);
		ss_jwt_release(&j);
	}
	ss_pubkey_free(pk);
}

int test_jwt_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jwt__reference_tokens_verify),
	    cmocka_unit_test(test_jwt__sign_es256_round_trip),
	    cmocka_unit_test(test_jwt__sign_es256_jwk_names_the_key),
	    cmocka_unit_test(test_jwt__malformed_refused),
	    cmocka_unit_test(test_jwt__alg_must_match_key),
	};
	return cmocka_run_group_tests_name("jwt", tests, NULL, NULL);
}
