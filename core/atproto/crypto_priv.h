/*
 * crypto_priv.h: what core/atproto/crypto.c shares with p256.c and pubkey.c, the two key
 * modules over the same libcrypto: its error adapter, EC keys made from their parameters, the
 * compressed form of a point, and the rule of high and low S. Implemented in crypto.c.
 */
#ifndef SS_CRYPTO_PRIV_H
#define SS_CRYPTO_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#include "core/atproto/pubkey.h"
#include "core/util/error.h"

/* The one adapter from libcrypto's error queue to ss_error (SS_ERROR, "what: reason"). */
int ss_crypto__error(ss_error *err, const char *what);
/* An EC EVP_PKEY from parameters (selection: EVP_PKEY_PUBLIC_KEY or EVP_PKEY_KEYPAIR); NULL
 * when they are not a key of the curve. */
EVP_PKEY *ss_crypto__pkey_from(ss_curve curve, const uint8_t *point, size_t len, const BIGNUM *priv,
                               int selection);
/* SEC1 point (33 or 65 bytes) -> compressed form (the point is already known to be on its
 * curve). */
void ss_crypto__compress(const uint8_t *point, size_t len, uint8_t out[SS_POINT_LEN]);
/* s (32 bytes, big-endian) is above half the order of curve. */
bool ss_crypto__high_s(ss_curve curve, const uint8_t s[32]);
/* Subtracts s from the order n of curve in place (big-endian, s < n): high S to low. */
void ss_crypto__order_minus(ss_curve curve, uint8_t s[32]);

#endif
