/*
 * space_commit.h: the signed commit of a space repo (@atproto/space, "atproto-space-v1").
 *
 * A writer's repo in a space publishes `{ver, hash, ikm, sig, mac, rev}`:
 *   ctx  = "atproto-space-v1" || u16be(len) || bytes, for each of the space URI, the author's
 *          DID, rev and ikm (a fresh random value per commit);
 *   sig  = the author's `#atproto` key over ctx (ECDSA, SHA-256, raw r||s, low-S);
 *   mac  = HMAC-SHA256(key = HKDF-Expand(PRK = ikm, info = ctx, 32), hash);
 *   hash = the repo's set hash, SHA-256 of its LtHash state (core/atproto/lthash.h).
 * The signature binds the author to (space, rev) only; the MAC binds hash to that signature.
 * So a commit checks out when ver is 1, the rev is the one expected, the MAC matches and the
 * signature verifies; and it vouches for a set of records when the LtHash of those records
 * gives its hash. Each failure is SS_EINVALID with its own message; the checks are also
 * offered one by one, so that a caller can tell a bad signature (re-resolve the author's key
 * once) from a hash that differs (read the whole repo).
 */
#ifndef SS_SPACE_COMMIT_H
#define SS_SPACE_COMMIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/atproto/crypto.h"
#include "core/atproto/pubkey.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_SPACE_COMMIT_VERSION 1
#define SS_SPACE_IKM_MAX        64 /* the reference makes 32 bytes */
#define SS_SPACE_REV_MAX        64 /* a TID is 13 characters */

/* Plain data: fill it from the JSON form (ss_space_commit_from_json) or the DAG-CBOR one. */
typedef struct ss_space_commit {
	long long ver;
	uint8_t hash[SS_SHA256_LEN];
	uint8_t ikm[SS_SPACE_IKM_MAX];
	size_t ikm_len;
	uint8_t sig[SS_SIG_LEN];
	uint8_t mac[SS_SHA256_LEN];
	char rev[SS_SPACE_REV_MAX + 1];
} ss_space_commit;

/*
 * Reads the JSON form: {"ver": 1, "hash": {"$bytes": "<base64>"}, "ikm": {...}, "sig": {...},
 * "mac": {...}, "rev": "<tid>"}; SS_EINVALID when a field is missing or of the wrong size.
 */
int ss_space_commit_from_json(ss_space_commit *out, const json_t *obj, ss_error *err);

/* Appends the ctx bytes (above) to out; SS_EINVALID when a field is over 65535 bytes. */
int ss_space_commit_ctx(ss_buf *out, const char *space, const char *author, const char *rev,
                        const uint8_t *ikm, size_t ikm_len, ss_error *err);

/* The MAC check: hash is the one the author signed for (space, author, c->rev). */
int ss_space_commit_verify_mac(const ss_space_commit *c, const char *space, const char *author,
                               ss_error *err);
/* The signature check with the author's key. */
int ss_space_commit_verify_sig(const ss_space_commit *c, const char *space, const char *author,
                               const ss_pubkey *author_key, ss_error *err);

/*
 * Everything: ver is 1; rev equals want_rev unless it is NULL; MAC; signature; and, unless
 * want_hash is NULL, hash equals want_hash (the digest of the LtHash the caller folded).
 */
int ss_space_commit_verify(const ss_space_commit *c, const char *space, const char *author,
                           const char *want_rev, const ss_pubkey *author_key,
                           const uint8_t *want_hash, ss_error *err);

#endif
