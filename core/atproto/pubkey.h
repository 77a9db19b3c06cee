/*
 * pubkey.h: a P-256 or secp256k1 public key, over OpenSSL's libcrypto, and ss_pubkey_verify,
 * the one signature check of skillsync. Parse a key from its text forms with
 * core/atproto/multikey.h.
 *
 * - a key is made from its SEC1 point, which must be on its curve, and keeps it compressed;
 * - a signature is raw r||s over SHA-256 of the message (64 bytes; DER is refused), and
 *   high-S is refused when asked (ATProto's repo and JWT signatures are low-S; the space HTTP
 *   signatures are not required to be).
 * Errors: SS_EINVALID for malformed input or a signature that does not verify, SS_ERROR when
 * libcrypto itself fails.
 */
#ifndef SS_PUBKEY_H
#define SS_PUBKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

#define SS_SIG_LEN   64 /* raw r||s, 32 bytes each */
#define SS_POINT_LEN 33 /* a compressed curve point: 0x02|0x03, then x */

typedef enum { SS_CURVE_P256 = 1, SS_CURVE_K256 = 2 } ss_curve;

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
