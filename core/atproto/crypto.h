/*
 * crypto.h: the hashes, MACs and ECDSA keys of ATProto, over OpenSSL's libcrypto (the only
 * module, with core/git/repo_batch.c's SHA-1, that includes OpenSSL).
 *
 * - SHA-256, HMAC-SHA256 and HKDF-Expand (RFC 5869, Expand only: the PRK is given);
 * - ss_p256_key: a P-256 private key made fresh in memory, never written anywhere, wiped when
 *   freed; it signs ECDSA over SHA-256 as raw r||s (64 bytes, low-S) and names itself as a
 *   did:key ("did:key:zDn...");
 * - ss_pubkey: a P-256 or secp256k1 public key (parse one from its text forms with
 *   core/atproto/multikey.h) and ss_pubkey_verify, the one signature check: SHA-256 of the message,
 * a raw 64-byte r||s signature (DER is refused), high-S refused when asked (ATProto's repo and JWT
 *   signatures are low-S; the space HTTP signatures are not required to be).
 * Errors: SS_EINVALID for malformed input or a signature that does not verify, SS_ERROR when
 * libcrypto itself fails.
 */
#ifndef SS_CRYPTO_H
#define SS_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

#define SS_SHA256_LEN 32
#define SS_SIG_LEN    64 /* raw r||s, 32 bytes each */
#define SS_POINT_LEN  33 /* a compressed curve point: 0x02|0x03, then x */

void ss_crypto_sha256(const void *data, size_t len, uint8_t out[SS_SHA256_LEN]);
void ss_crypto_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
                           uint8_t out[SS_SHA256_LEN]);
/* HKDF-Expand with SHA-256: outlen (at most 255 * 32) bytes from prk and info. */
int ss_crypto_hkdf_expand_sha256(const void *prk, size_t prklen, const void *info, size_t infolen,
                                 uint8_t *out, size_t outlen, ss_error *err);
/* a and b hold the same n bytes, compared in time independent of where they differ (MACs). */
bool ss_crypto_equal(const void *a, const void *b, size_t n);
/* n bytes from the system's random source (through libcrypto's DRBG). */
int ss_crypto_random_bytes(void *out, size_t n, ss_error *err);

typedef enum { SS_CURVE_P256 = 1, SS_CURVE_K256 = 2 } ss_curve;

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
/* The compressed public point. */
int ss_p256_key_point(const ss_p256_key *key, uint8_t point[SS_POINT_LEN], ss_error *err);

typedef struct ss_pubkey ss_pubkey;

/* A public key from its SEC1 encoding: 33 bytes compressed or 65 uncompressed (0x04, x, y);
 * SS_EINVALID when it is not a point of the curve. */
int ss_pubkey_from_point(ss_pubkey **out, ss_curve curve, const uint8_t *point, size_t len,
                         ss_error *err);
void ss_pubkey_free(ss_pubkey *pk);
ss_curve ss_pubkey_curve(const ss_pubkey *pk);
/* The key's compressed point (borrowed, SS_POINT_LEN bytes). */
const uint8_t *ss_pubkey_point(const ss_pubkey *pk);
/* The JWT "alg" that names signatures by this key: "ES256" (P-256) or "ES256K" (secp256k1). */
const char *ss_pubkey_jwt_alg(const ss_pubkey *pk);

/*
 * 0 when sig (siglen bytes: must be 64, raw r||s) is pk's ECDSA signature of SHA-256(msg);
 * SS_EINVALID otherwise, also when require_low_s and s is in the upper half of the order.
 */
int ss_pubkey_verify(const ss_pubkey *pk, const void *msg, size_t len, const uint8_t *sig,
                     size_t siglen, bool require_low_s, ss_error *err);

#endif
