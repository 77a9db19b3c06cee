/*
 * crypto.h: the hashes and MACs of ATProto and the random bytes skillsync uses, over OpenSSL's
 * libcrypto (with core/atproto/p256.c, core/atproto/pubkey.c and the SHA-1 of git's formats in
 * core/gitfmt/, the only code that includes OpenSSL).
 *
 * - SHA-256, HMAC-SHA256 and HKDF-Expand (RFC 5869, Expand only: the PRK is given);
 * - a comparison of MACs in constant time, and the system's random bytes.
 * The keys are elsewhere: core/atproto/p256.h (the private key that signs) and
 * core/atproto/pubkey.h (public keys and the one signature check).
 * Errors: SS_EINVALID for malformed input, SS_ERROR when libcrypto itself fails.
 */
#ifndef SS_CRYPTO_H
#define SS_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

#define SS_SHA256_LEN 32

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

#endif
