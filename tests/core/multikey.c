#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/multikey.h"
#include "support/support.h"

/* atproto-interop-tests crypto/w3c_didkey_K256.json's first key, as the reference PLC publishes
 * such a key: EcdsaSecp256k1VerificationKey2019, "z" + base58btc of the uncompressed point. */
#define K256_DID "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"
#define K256_LEGACY                                                                                \
	"zQBL1VZCdC6hs61fqgwdoNjwh93UBcTg7imvRF9qShKfHR4DQ4RjKyqupL4f2mKduhzF5SzWzDbxKgGwnTsN2zSk" \
	"g"

/* Every did:key of the interop files parses and prints back the same. */
static void test_multikey__did_key_round_trip(void **state)
{
	static const char *const files[] = {"vectors/atproto-w3c_didkey_K256.json",
	                                    "vectors/atproto-w3c_didkey_P256.json"};

	for (size_t f = 0; f < 2; f++) {
		json_t *cases = ss_test_json(files[f]);
		size_t i;
		json_t *c;

		json_array_foreach(cases, i, c)
		{
			const char *did = json_string_value(json_object_get(c, "publicDidKey"));
			ss_pubkey *pk = NULL;
			char *again;
			ss_error err;

			assert_int_equal(ss_multikey_from_did_key(&pk, did, &err), 0);
			assert_int_equal(ss_pubkey_curve(pk),
			                 f == 0 ? SS_CURVE_K256 : SS_CURVE_P256);
			again = ss_multikey_of_pubkey(pk);
			assert_string_equal(again, did);
			free(again);
			again = ss_multikey_encode(ss_pubkey_curve(pk), ss_pubkey_point(pk));
			assert_string_equal(again, did + strlen("did:key:"));
			free(again);
			ss_pubkey_free(pk);
		}
		json_decref(cases);
	}
}

static void test_multikey__legacy_uncompressed_form(void **state)
{
	ss_pubkey *pk = NULL;
	char *did;
	ss_error err;

	assert_int_equal(ss_multikey_from_verification_method(
	                     &pk, "EcdsaSecp256k1VerificationKey2019", K256_LEGACY, &err),
	                 0);
	did = ss_multikey_of_pubkey(pk);
	assert_string_equal(did, K256_DID);
	free(did);
	ss_pubkey_free(pk);
	/* the same bytes read as the other curve are not a point of it */
	SS_ASSERT_FAILS(ss_multikey_from_verification_method(
	                    &pk, "EcdsaSecp256r1VerificationKey2019", K256_LEGACY, &err),
	                err, SS_EINVALID);
	/* a Multikey needs its multicodec */
	SS_ASSERT_FAILS(ss_multikey_from_verification_method(&pk, "Multikey", K256_LEGACY, &err),
	                err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_multikey_from_verification_method(&pk, "JsonWebKey2020", K256_LEGACY, &err), err,
	    SS_EINVALID);
}

static void test_multikey__refuses_malformed(void **state)
{
	ss_pubkey *pk = NULL;
	ss_error err;

	SS_ASSERT_FAILS(ss_multikey_from_did_key(&pk, "did:plc:ewvi7nxzyoun6zhxrhs64oiz", &err),
	                err, SS_EINVALID);
	/* base58btc only ('z'), not base32 ('b') */
	SS_ASSERT_FAILS(ss_multikey_from_did_key(&pk, "did:key:bafy", &err), err, SS_EINVALID);
	SS_ASSERT_FAILS(ss_multikey_from_did_key(&pk, "did:key:z", &err), err, SS_EINVALID);
	/* an ed25519 did:key (multicodec 0xed) */
	SS_ASSERT_FAILS(ss_multikey_from_did_key(
	                    &pk, "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", &err),
	                err, SS_EINVALID);
	/* a did:key cut short */
	SS_ASSERT_FAILS(ss_multikey_from_did_key(
	                    &pk, "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBm", &err),
	                err, SS_EINVALID);
	assert_null(pk);
}

/* The #atproto key of a DID document, by relative or absolute id, in either form. */
static void test_multikey__from_did_doc(void **state)
{
	static const char *const docs[] = {
	    "{\"id\":\"did:plc:abc\",\"verificationMethod\":[{\"id\":\"did:plc:abc#other\","
	    "\"type\":\"Multikey\",\"publicKeyMultibase\":\"zx\"},{\"id\":\"did:plc:abc#atproto\","
	    "\"type\":\"EcdsaSecp256k1VerificationKey2019\",\"controller\":\"did:plc:abc\","
	    "\"publicKeyMultibase\":\"" K256_LEGACY "\"}]}",
	    "{\"id\":\"did:plc:abc\",\"verificationMethod\":[{\"id\":\"#atproto\","
	    "\"type\":\"Multikey\",\"controller\":\"did:plc:abc\","
	    "\"publicKeyMultibase\":\"zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme\"}]}",
	};
	ss_pubkey *pk = NULL;
	json_t *doc;
	ss_error err;

	for (size_t i = 0; i < 2; i++) {
		char *did;

		doc = json_loads(docs[i], 0, NULL);
		assert_non_null(doc);
		assert_int_equal(ss_multikey_from_did_doc(&pk, doc, "#atproto", &err), 0);
		did = ss_multikey_of_pubkey(pk);
		assert_string_equal(did, K256_DID);
		free(did);
		ss_pubkey_free(pk);
		pk = NULL;
		SS_ASSERT_FAILS(ss_multikey_from_did_doc(&pk, doc, "#atproto_space", &err), err,
		                SS_ENOTFOUND);
		json_decref(doc);
	}
	/* another DID's key does not stand for this one's */
	doc = json_loads("{\"id\":\"did:plc:abc\",\"verificationMethod\":[{\"id\":"
	                 "\"did:plc:evil#atproto\",\"type\":\"Multikey\",\"publicKeyMultibase\":"
	                 "\"zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme\"}]}",
	                 0, NULL);
	SS_ASSERT_FAILS(ss_multikey_from_did_doc(&pk, doc, "#atproto", &err), err, SS_ENOTFOUND);
	json_decref(doc);
}

int test_multikey_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_multikey__did_key_round_trip),
	    cmocka_unit_test(test_multikey__legacy_uncompressed_form),
	    cmocka_unit_test(test_multikey__refuses_malformed),
	    cmocka_unit_test(test_multikey__from_did_doc),
	};
	return cmocka_run_group_tests_name("multikey", tests, NULL, NULL);
}
