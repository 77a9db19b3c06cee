/*
 * dpop.h: DPoP proofs (RFC 9449), the per-request JWTs that bind an OAuth token to a key.
 *
 * A proof is an ES256 JWT of type dpop+jwt naming its key as a JWK in its header, with the
 * claims jti (random), htm and htu (the request's method and URL without query), iat, the
 * server's nonce when it gave one, and ath (the SHA-256 of the access token) when it goes with
 * one. A server that wants a nonce answers use_dpop_nonce with a DPoP-Nonce header: the
 * request is sent once more with a proof carrying it (ss_dpop_wants_nonce).
 */
#ifndef SS_DPOP_H
#define SS_DPOP_H

#include <stdbool.h>

#include "core/atproto/p256.h"
#include "core/util/error.h"
#include "sync/net/http.h"

/* A proof for method on url (*out malloc'd); nonce and access_token may be NULL or "". */
int ss_dpop_proof(char **out, const ss_p256_key *key, const char *method, const char *url,
                  const char *nonce, const char *access_token, ss_error *err);

/* resp refuses a proof for want of a nonce (use_dpop_nonce) and names the nonce to use. */
bool ss_dpop_wants_nonce(const ss_http_response *resp);

#endif
