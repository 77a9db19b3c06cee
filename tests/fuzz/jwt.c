/*
 * A compact JWT (core/atproto/jwt.h): parsed, its claims read, its signature checked with a P-256
 * and a secp256k1 key. Properties: what is signed is the token up to its second '.', a prefix of
 * it; the borrowed header fields are the header's strings; no token verifies under a key that
 * did not sign it (the keys here signed none).
 */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/jwt.h"
#include "core/atproto/multikey.h"

/* Two keys of the test data (testdata/), one of each curve. */
static const char *const keys[] = {
    "did:key:zDnaeT6hL2RnTdUhAPLij1QBkhYZnmuKyM7puQLW1tkF4Zkt8",
    "did:key:zQ3shecxUjwMave35yHKj7f5Wya4bJ5mWmrtfx5cMmge8YpGV",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *token = fuzz_cstr(data, size);
	ss_jwt jwt;
	ss_error err;

	if (ss_jwt_parse(&jwt, token, &err) == 0) {
		const char *dot = strchr(token, '.');

		fuzz_check(dot && jwt.signed_part == token && jwt.signed_len < size &&
		               token[jwt.signed_len] == '.' &&
		               memchr(token, '.', jwt.signed_len) == dot,
		           "the signed part is not the token up to its second '.'");
		fuzz_check(json_is_object(jwt.header) && json_is_object(jwt.payload),
		           "a header or payload that is not an object");
		fuzz_check(!jwt.alg ||
		               jwt.alg == json_string_value(json_object_get(jwt.header, "alg")),
		           "alg is not the header's");
		fuzz_check(jwt.sig_len == 0 || jwt.sig_len == SS_SIG_LEN, "a signature length");
		(void)ss_jwt_claim(&jwt, "iss");
		(void)ss_jwt_claim(&jwt, "aud");
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			ss_pubkey *pk = NULL;

			fuzz_check(ss_multikey_from_did_key(&pk, keys[i], &err) == 0, "a test key");
			fuzz_check(ss_jwt_verify(&jwt, pk, &err) < 0,
			           "a token no key signed verifies");
			ss_pubkey_free(pk);
		}
		ss_jwt_release(&jwt);
	}
	free(token);
	return 0;
}
