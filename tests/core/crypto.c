#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/base58.h"
#include "core/atproto/crypto.h"
#include "core/atproto/multikey.h"
#include "core/atproto/p256.h"
#include "core/atproto/pubkey.h"
#include "core/util/base64.h"
#include "support/support.h"

static void assert_hex(const uint8_t *got, size_t n, const char *hex)
{
	uint8_t want[64];

	assert_true(n <= sizeof(want));
	ss_test_hex(want, n, hex);
	assert_memory_equal(got, want, n);
}

/* FIPS 180-2, RFC 4231 case 2, RFC 5869 case 1 (its PRK and OKM). */
static void test_crypto__hash_mac_kdf_vectors(void **state)
{
	uint8_t out[42], prk[32], info[10];
	ss_error err;

	ss_crypto_sha256("abc", 3, out);
	assert_hex(out, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ss_crypto_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, out);
	assert_hex(out, 32, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	ss_test_hex(prk, 32, "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
	ss_test_hex(info, 10, "f0f1f2f3f4f5f6f7f8f9");
	assert_int_equal(ss_crypto_hkdf_expand_sha256(prk, 32, info, 10, out, 42, &err), 0);
	assert_hex(out, 42,
	           "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887"
	           "185865");
	SS_ASSERT_FAILS(ss_crypto_hkdf_expand_sha256(prk, 32, info, 10, out, 255 * 32 + 1, &err),
	                err, SS_EINVALID);
}

/* A fresh key signs low-S r||s that its own did:key verifies; another message does not. */
static void test_crypto__p256_sign_verify_round_trip(void **state)
{
	ss_p256_key *key = NULL;
	ss_pubkey *pk = NULL;
	char *did = NULL;
	uint8_t sig[SS_SIG_LEN];
	ss_error err;

	assert_int_equal(ss_p256_key_new(&key, &err), 0);
	assert_int_equal(ss_p256_did_key(key, &did, &err), 0);
	assert_int_equal(strncmp(did, "did:key:zDn", 11), 0);
	assert_int_equal(ss_multikey_from_did_key(&pk, did, &err), 0);
	assert_int_equal(ss_pubkey_curve(pk), SS_CURVE_P256);
	assert_string_equal(ss_pubkey_jwt_alg(pk), "ES256");
	for (int i = 0; i < 32; i++) { /* each signature is random: half would be high-S unmade */
		assert_int_equal(ss_p256_sign(key, "hello", 5, sig, &err), 0);
		assert_int_equal(ss_pubkey_verify(pk, "hello", 5, sig, sizeof(sig), true, &err), 0);
	}
	SS_ASSERT_FAILS(ss_pubkey_verify(pk, "hellO", 5, sig, sizeof(sig), false, &err), err,
	                SS_EINVALID);
	SS_ASSERT_FAILS(ss_pubkey_verify(pk, "hello", 5, sig, 63, false, &err), err, SS_EINVALID);
	/* r or s zero, or past the group order */
	memset(sig, 0, 32);
	SS_ASSERT_FAILS(ss_pubkey_verify(pk, "hello", 5, sig, sizeof(sig), false, &err), err,
	                SS_EINVALID);
	memset(sig, 0xff, sizeof(sig));
	SS_ASSERT_FAILS(ss_pubkey_verify(pk, "hello", 5, sig, sizeof(sig), false, &err), err,
	                SS_EINVALID);
	memset(sig + 32, 0, 32);
	SS_ASSERT_FAILS(ss_pubkey_verify(pk, "hello", 5, sig, sizeof(sig), false, &err), err,
	                SS_EINVALID);
	ss_pubkey_free(pk);
	free(did);
	ss_p256_key_free(key);
	ss_p256_key_free(NULL);
	ss_pubkey_free(NULL);
}

/* atproto-interop-tests crypto/w3c_didkey_P256.json: private key -> did:key. */
static void test_crypto__p256_did_key_interop(void **state)
{
	json_t *cases = ss_test_json("vectors/atproto-w3c_didkey_P256.json");
	size_t i;
	json_t *c;

	assert_true(json_array_size(cases) > 0);
	json_array_foreach(cases, i, c)
	{
		const char *d58 = json_string_value(json_object_get(c, "privateKeyBytesBase58"));
		ss_buf d = SS_BUF_INIT;
		ss_p256_key *key = NULL;
		char *did = NULL;
		ss_error err;

		assert_int_equal(ss_base58_decode(&d, d58, strlen(d58), &err), 0);
		assert_int_equal(d.len, 32);
		assert_int_equal(ss_p256_key_from_private(&key, (const uint8_t *)d.ptr, &err), 0);
		assert_int_equal(ss_p256_did_key(key, &did, &err), 0);
		assert_string_equal(did, json_string_value(json_object_get(c, "publicDidKey")));
		free(did);
		ss_p256_key_free(key);
		ss_buf_release(&d);
	}
	json_decref(cases);
}

/*
 * atproto-interop-tests crypto/signature-fixtures.json: each fixture's key, in both its did:key
 * and its DID-document form, gives the fixture's verdict with low-S required (high-S and DER
 * refused); without the requirement, a high-S signature verifies (space HTTP signatures).
 */
static void test_crypto__signature_fixtures(void **state)
{
	json_t *cases = ss_test_json("vectors/atproto-signature-fixtures.json");
	size_t i;
	json_t *c;

	assert_int_equal(json_array_size(cases), 6);
	json_array_foreach(cases, i, c)
	{
		const char *msg64 = json_string_value(json_object_get(c, "messageBase64"));
		const char *sig64 = json_string_value(json_object_get(c, "signatureBase64"));
		const char *suite = json_string_value(json_object_get(c, "didDocSuite"));
		const char *mb = json_string_value(json_object_get(c, "publicKeyMultibase"));
		const char *did = json_string_value(json_object_get(c, "publicKeyDid"));
		const char *tag = json_string_value(json_array_get(json_object_get(c, "tags"), 0));
		bool valid = json_is_true(json_object_get(c, "validSignature"));
		ss_buf msg = SS_BUF_INIT, sig = SS_BUF_INIT;
		ss_pubkey *pk = NULL, *doc_pk = NULL;
		char *again;
		ss_error err;
		int rc;

		assert_int_equal(ss_base64_decode(&msg, msg64, strlen(msg64), SS_BASE64_STD, &err),
		                 0);
		assert_int_equal(ss_base64_decode(&sig, sig64, strlen(sig64), SS_BASE64_STD, &err),
		                 0);
		assert_int_equal(ss_multikey_from_did_key(&pk, did, &err), 0);
		assert_int_equal(ss_multikey_from_verification_method(&doc_pk, suite, mb, &err), 0);
		assert_memory_equal(ss_pubkey_point(pk), ss_pubkey_point(doc_pk), SS_POINT_LEN);
		assert_string_equal(ss_pubkey_jwt_alg(pk),
		                    json_string_value(json_object_get(c, "algorithm")));
		again = ss_multikey_of_pubkey(doc_pk);
		assert_string_equal(again, did);
		free(again);
		rc = ss_pubkey_verify(pk, msg.ptr, msg.len, (const uint8_t *)sig.ptr, sig.len, true,
		                      &err);
		assert_int_equal(rc == 0, valid);
		if (tag && !strcmp(tag, "high-s"))
			assert_int_equal(ss_pubkey_verify(doc_pk, msg.ptr, msg.len,
			                                  (const uint8_t *)sig.ptr, sig.len, false,
			                                  &err),
			                 0);
		if (tag && !strcmp(tag, "der-encoded"))
			SS_ASSERT_FAILS(ss_pubkey_verify(pk, msg.ptr, msg.len,
			                                 (const uint8_t *)sig.ptr, sig.len, false,
			                                 &err),
			                err, SS_EINVALID);
		ss_pubkey_free(pk);
		ss_pubkey_free(doc_pk);
		ss_buf_release(&msg);
		ss_buf_release(&sig);
	}
	json_decref(cases);
}

/*
 * cocoon's reference-generated space HTTP signatures: each verifies with its P-256 key over the
 * signature base rebuilt from the headers (docs/SPACE-PROTOCOL.md, section 2: one line per covered
 * component, then "@signature-params", joined by newlines); a base with another audience does
 * not. The signature's base64 is unpadded, as the reference writes it.
 */
static void test_crypto__space_http_signatures(void **state)
{
	json_t *v = ss_test_json("vectors/cocoon-space.json");
	json_t *sigs = json_object_get(v, "httpsig");
	size_t i;
	json_t *c;

	assert_int_equal(json_array_size(sigs), 3);
	json_array_foreach(sigs, i, c)
	{
		json_t *h = json_object_get(c, "headers");
		const char *auth = json_string_value(json_object_get(h, "authorization"));
		const char *aud = json_string_value(json_object_get(h, "atproto-space-audience"));
		const char *input = json_string_value(json_object_get(h, "signature-input"));
		const char *sigh = json_string_value(json_object_get(h, "signature"));
		const char *label = "atproto-space=";
		ss_buf base = SS_BUF_INIT, sig = SS_BUF_INIT;
		ss_pubkey *pk = NULL;
		const char *b64;
		ss_error err;

		assert_int_equal(strncmp(input, label, strlen(label)), 0);
		assert_int_equal(strncmp(sigh, "atproto-space=:", 15), 0);
		b64 = sigh + 15;
		assert_int_equal(strlen(b64), 87); /* 86 characters and the closing ':' */
		assert_int_equal(ss_base64_decode(&sig, b64, 86, SS_BASE64_STD, &err), 0);
		ss_buf_printf(&base, "\"authorization\": %s\n", auth);
		if (aud)
			ss_buf_printf(&base, "\"atproto-space-audience\": %s\n", aud);
		ss_buf_printf(&base, "\"@signature-params\": %s", input + strlen(label));
		assert_int_equal(ss_multikey_from_did_key(
		                     &pk, json_string_value(json_object_get(c, "keyDid")), &err),
		                 0);
		assert_int_equal(ss_pubkey_verify(pk, base.ptr, base.len, (const uint8_t *)sig.ptr,
		                                  sig.len, false, &err),
		                 0);
		if (aud) {
			ss_buf_clear(&base);
			ss_buf_printf(&base,
			              "\"authorization\": %s\n\"atproto-space-audience\": %s\n"
			              "\"@signature-params\": %s",
			              auth, "did:example:other", input + strlen(label));
			SS_ASSERT_FAILS(ss_pubkey_verify(pk, base.ptr, base.len,
			                                 (const uint8_t *)sig.ptr, sig.len, false,
			                                 &err),
			                err, SS_EINVALID);
		}
		ss_pubkey_free(pk);
		ss_buf_release(&base);
		ss_buf_release(&sig);
	}
	json_decref(v);
}

/* A point not on the curve, a bad prefix, a wrong length are refused. */
static void test_crypto__pubkey_rejects_bad_points(void **state)
{
	uint8_t point[65] = {0x04};
	ss_pubkey *pk = NULL;
	ss_error err;

	point[1] = 1;
	SS_ASSERT_FAILS(ss_pubkey_from_point(&pk, SS_CURVE_P256, point, 65, &err), err,
	                SS_EINVALID);
	point[0] = 0x05;
	SS_ASSERT_FAILS(ss_pubkey_from_point(&pk, SS_CURVE_K256, point, 33, &err), err,
	                SS_EINVALID);
	point[0] = 0x02;
	SS_ASSERT_FAILS(ss_pubkey_from_point(&pk, SS_CURVE_K256, point, 32, &err), err,
	                SS_EINVALID);
	assert_null(pk);
}

int test_crypto_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crypto__hash_mac_kdf_vectors),
	    cmocka_unit_test(test_crypto__p256_sign_verify_round_trip),
	    cmocka_unit_test(test_crypto__p256_did_key_interop),
	    cmocka_unit_test(test_crypto__signature_fixtures),
	    cmocka_unit_test(test_crypto__space_http_signatures),
	    cmocka_unit_test(test_crypto__pubkey_rejects_bad_points),
	};
	return cmocka_run_group_tests_name("crypto", tests, NULL, NULL);
}
