/*
 * lthash.h: the set hash of a space repo (LtHash, as @atproto/space's lthash.ts).
 *
 * The state is 2048 bytes: 1024 lanes of 16-bit little-endian integers, all zero for the empty
 * set. Adding an element expands it with BLAKE3's XOF to 2048 bytes and adds those lanes to the
 * state's, each mod 2^16; removing subtracts them. So the state depends on the set only, not on
 * the order of the operations, and one record's change costs one remove and one add. An
 * element is the UTF-8 string "<collection>/<rkey>/<cid>". The published `hash` is
 * SHA-256(state) (the empty set's is e5a00aa9...36b183ad).
 * The state is plain bytes so that it can be saved and loaded as they are.
 */
#ifndef SS_LTHASH_H
#define SS_LTHASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/atproto/crypto.h"

#define SS_LTHASH_LEN 2048

typedef struct ss_lthash {
	uint8_t state[SS_LTHASH_LEN];
} ss_lthash;

/* The empty set. */
void ss_lthash_init(ss_lthash *h);
void ss_lthash_add(ss_lthash *h, const void *element, size_t len);
void ss_lthash_remove(ss_lthash *h, const void *element, size_t len);
/* The same for the record element "<collection>/<rkey>/<cid>". */
void ss_lthash_add_record(ss_lthash *h, const char *collection, const char *rkey, const char *cid);
void ss_lthash_remove_record(ss_lthash *h, const char *collection, const char *rkey,
                             const char *cid);
/* SHA-256 of the state: the `hash` of a space commit. */
void ss_lthash_digest(const ss_lthash *h, uint8_t out[SS_SHA256_LEN]);

#endif
