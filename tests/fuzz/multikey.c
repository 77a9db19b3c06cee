/*
 * The text forms of public keys (core/atproto/multikey.h): a Multikey value, a did:key, each
 * verification method type of a DID document, and a DID document itself (when the input is
 * JSON). Properties: a Multikey value or did:key that is read comes back the same through the
 * writer (one text per key); a key read from any form is one the writer can write.
 */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/multikey.h"
#include "core/atproto/pubkey.h"

static const char *const types[] = {
    "Multikey",
    "EcdsaSecp256r1VerificationKey2019",
    "EcdsaSecp256k1VerificationKey2019",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *text;
	ss_pubkey *pk = NULL;
	json_t *doc;
	ss_error err;

	if (ss_multikey_decode(&pk, s, &err) == 0) {
		text = ss_multikey_encode(ss_pubkey_curve(pk), ss_pubkey_point(pk));
		fuzz_check(!strcmp(text, s), "a Multikey value that does not come back the same");
		free(text);
		ss_pubkey_free(pk);
		pk = NULL;
	}
	if (ss_multikey_from_did_key(&pk, s, &err) == 0) {
		text = ss_multikey_of_pubkey(pk);
		fuzz_check(!strcmp(text, s), "a did:key that does not come back the same");
		free(text);
		ss_pubkey_free(pk);
		pk = NULL;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (ss_multikey_from_verification_method(&pk, types[i], s, &err) == 0) {
			text = ss_multikey_of_pubkey(pk);
			fuzz_check(text && !strncmp(text, "did:key:z", 9),
			           "a key without a did:key");
			free(text);
			ss_pubkey_free(pk);
			pk = NULL;
		}
	}
	if ((doc = json_loadb((const char *)data, size, 0, NULL))) {
		if (ss_multikey_from_did_doc(&pk, doc, "#atproto", &err) == 0)
			ss_pubkey_free(pk);
		json_decref(doc);
	}
	free(s);
	return 0;
}
