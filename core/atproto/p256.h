/*
 * p256.h: the P-256 private key that signs, over OpenSSL's libcrypto.
 *
 * - a key is made fresh in memory, never written anywhere, and wiped when freed;
 * - it signs ECDSA over SHA-256 as raw r||s (SS_SIG_LEN bytes, s always in the low half) and
 *   names itself as a did:key ("did:key:zDn...").
 * Its signatures are checked with core/atproto/pubkey.h. Errors: SS_EINVALID for a scalar that
 * is not a key, SS_ERROR when libcrypto itself fails.
 */
#ifndef SS_P256_H
#define SS_P256_H

#include <stddef.h>
#include <stdint.h>

#include "core/atproto/pubkey.h"
#include "core/util/error.h"

typedef struct ss_p256_key ss_p256_key;

/* A fresh random key. */
int ss_p256_key_new(ss_p256_key **out, ss_error *err);
/* The key with the 32-byte big-endian private scalar d (for tests and test hosts). */
int ss_p256_key_from_private(ss_p256_key **out, const uint8_t d[32], ss_error *err);
/* Wipes and frees the key; NULL is fine. */
void ss_p256_key_free(ss_p256_key *key);
/* ECDSA P-256 over SHA-256(msg): sig = r||s, s normalised to the low half. */
int ss_p256_sign(const ss_p256_key *key, const void *msg, size_t len, uint8_t sig[SS_SIG_LEN],
                 ss_error *err);
/* "did:key:zDn..." of the key's public half (*out malloc'd). */
int ss_p256_did_key(const ss_p256_key *key, char **out, ss_error *err);
/* The 32-byte big-endian private scalar (to keep the key in a private file). */
int ss_p256_key_private(const ss_p256_key *key, uint8_t d[32], ss_error *err);
/* The public point's x and y, 32 bytes each, big-endian (a JWK's "x" and "y"). */
int ss_p256_key_xy(const ss_p256_key *key, uint8_t xy[64], ss_error *err);
/* The compressed public point. */
int ss_p256_key_point(const ss_p256_key *key, uint8_t point[SS_POINT_LEN], ss_error *err);

#endif
