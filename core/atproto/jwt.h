/*
 * jwt.h: compact JWTs as ATProto uses them (RFC 7519): read the header and claims, check an
 * ES256 or ES256K signature, and make an ES256 one.
 *
 * Parsing only decodes: "<header>.<payload>.<signature>", each base64url without padding,
 * header and payload JSON objects (duplicate keys refused), the whole token at most
 * SS_JWT_MAX bytes. Nothing in a parsed token is trusted until ss_jwt_verify() has checked it
 * with the key the caller resolved for its issuer; ss_jwt_verify() checks the signature only:
 * the claims (typ, iss, aud, exp, ...) are the caller's protocol rules. Signatures are raw
 * r||s (JWS, RFC 7518 section 3.4) and must be low-S, as ATProto requires.
 */
#ifndef SS_JWT_H
#define SS_JWT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/atproto/p256.h"
#include "core/atproto/pubkey.h"
#include "core/util/error.h"

#define SS_JWT_MAX (64 * 1024)

typedef struct ss_jwt {
	json_t *header;  /* owned */
	json_t *payload; /* owned: the claims */
	/* borrowed from header, NULL when absent or not a string */
	const char *alg, *typ, *kid;
	/* exp and iat when they are integers (has_exp, has_iat), else 0 */
	long long exp, iat;
	bool has_exp, has_iat;
	/* what the signature covers: the token up to its second '.' (borrowed: the caller's
	 * token must outlive this struct) */
	const char *signed_part;
	size_t signed_len;
	uint8_t sig[SS_SIG_LEN];
	size_t sig_len; /* 0 when the signature is not 64 bytes: such a token never verifies */
} ss_jwt;

/* Splits and decodes token into out (release it with ss_jwt_release); SS_EINVALID when it is
 * not a compact JWT of JSON objects. */
int ss_jwt_parse(ss_jwt *out, const char *token, ss_error *err);
void ss_jwt_release(ss_jwt *jwt);

/* A string claim of the payload (borrowed), or NULL. */
const char *ss_jwt_claim(const ss_jwt *jwt, const char *name);

/*
 * 0 when jwt is signed by pk: its alg names pk's curve (ES256 for P-256, ES256K for
 * secp256k1) and its signature verifies, low-S; SS_EINVALID otherwise.
 */
int ss_jwt_verify(const ss_jwt *jwt, const ss_pubkey *pk, ss_error *err);

/*
 * A new ES256 token (*out malloc'd): header {"alg":"ES256","typ":typ[,"kid":kid]} (kid may be
 * NULL) and payload claims (a JSON object, written compact), signed with key.
 */
int ss_jwt_sign_es256(char **out, const ss_p256_key *key, const char *typ, const char *kid,
                      const json_t *claims, ss_error *err);

/*
 * The same with the key's public half in the header as a JWK (RFC 7517: kty EC, crv P-256,
 * x, y) instead of a kid: a DPoP proof (RFC 9449) names the key that signs it this way.
 */
int ss_jwt_sign_es256_jwk(char **out, const ss_p256_key *key, const char *typ, const json_t *claims,
                          ss_error *err);

#endif
