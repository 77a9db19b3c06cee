/*
 * blake3.h: BLAKE3 (the hash mode), with output of any length (the XOF), portable C.
 *
 * Written from the BLAKE3 specification (O'Connor, Aumasson, Neves, Wilcox-O'Hearn, 2020):
 * 1 KiB chunks of 64-byte blocks, a 7-round compression function, a binary tree of chaining
 * values merged as chunks complete, and the root node's compression run with an increasing
 * output counter for as many bytes as asked. No SIMD, no threads: LtHash needs one short input
 * expanded to 2 KiB per record. Held to the official test vectors (testdata/vectors/).
 * Keyed hashing and key derivation are not offered (nothing here needs them).
 *
 * Usage: `ss_blake3 h; ss_blake3_init(&h); ss_blake3_update(&h, p, n)...;
 * ss_blake3_finalize(&h, out, outlen);`, or ss_blake3_xof() for bytes in one piece. The state
 * lives on the stack and owns nothing; finalize does not change it (update may go on).
 */
#ifndef SS_BLAKE3_H
#define SS_BLAKE3_H

#include <stddef.h>
#include <stdint.h>

#define SS_BLAKE3_LEN 32 /* the default output length */

typedef struct ss_blake3 {
	uint32_t cv[8];        /* the current chunk's chaining value */
	uint64_t chunk;        /* the current chunk's index */
	uint8_t block[64];     /* input not yet compressed */
	uint8_t block_len;     /* bytes in block */
	uint8_t blocks_done;   /* blocks of the current chunk compressed */
	uint8_t stack_len;     /* chaining values waiting for a sibling */
	uint32_t stack[54][8]; /* 54 levels: 2^54 chunks, the most a 64-bit length allows */
} ss_blake3;

void ss_blake3_init(ss_blake3 *h);
void ss_blake3_update(ss_blake3 *h, const void *data, size_t len);
/* Writes outlen bytes of the hash (its first 32 are the default BLAKE3 hash). */
void ss_blake3_finalize(const ss_blake3 *h, uint8_t *out, size_t outlen);
/* outlen bytes of BLAKE3's extended output of len bytes at data. */
void ss_blake3_xof(const void *data, size_t len, uint8_t *out, size_t outlen);

#endif
