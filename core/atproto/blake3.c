#include "core/atproto/blake3.h"

#include <string.h>

enum {
	CHUNK_START = 1 << 0,
	CHUNK_END = 1 << 1,
	PARENT = 1 << 2,
	ROOT = 1 << 3,
};

#define CHUNK_LEN 1024

static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* The message word order of each round after the first. */
static const uint8_t permutation[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The quarter-round mixing function G on state words a, b, c, d with message words x, y. */
static void mix(uint32_t s[16], int a, int b, int c, int d, uint32_t x, uint32_t y)
{
	s[a] = s[a] + s[b] + x;
	s[d] = rotr(s[d] ^ s[a], 16);
	s[c] = s[c] + s[d];
	s[b] = rotr(s[b] ^ s[c], 12);
	s[a] = s[a] + s[b] + y;
	s[d] = rotr(s[d] ^ s[a], 8);
	s[c] = s[c] + s[d];
	s[b] = rotr(s[b] ^ s[c], 7);
}

/* The compression function: out gets all 16 words (the first 8 are the chaining value). */
static void compress(const uint32_t cv[8], const uint8_t block[64], uint64_t counter,
                     uint32_t block_len, uint32_t flags, uint32_t out[16])
{
	uint32_t m[16], next[16], s[16];

	for (int i = 0; i < 16; i++)
		m[i] = load32(block + 4 * i);
	memcpy(s, cv, 8 * sizeof(uint32_t));
	memcpy(s + 8, iv, 4 * sizeof(uint32_t));
	s[12] = (uint32_t)counter;
	s[13] = (uint32_t)(counter >> 32);
	s[14] = block_len;
	s[15] = flags;
	for (int round = 0; round < 7; round++) {
		/* columns, then diagonals */
		mix(s, 0, 4, 8, 12, m[0], m[1]);
		mix(s, 1, 5, 9, 13, m[2], m[3]);
		mix(s, 2, 6, 10, 14, m[4], m[5]);
		mix(s, 3, 7, 11, 15, m[6], m[7]);
		mix(s, 0, 5, 10, 15, m[8], m[9]);
		mix(s, 1, 6, 11, 12, m[10], m[11]);
		mix(s, 2, 7, 8, 13, m[12], m[13]);
		mix(s, 3, 4, 9, 14, m[14], m[15]);
		for (int i = 0; i < 16; i++)
			next[i] = m[permutation[i]];
		memcpy(m, next, sizeof(m));
	}
	for (int i = 0; i < 8; i++) {
		out[i] = s[i] ^ s[i + 8];
		out[i + 8] = s[i + 8] ^ cv[i];
	}
}

/* What a node needs to give either its chaining value or, as the root, output bytes. */
typedef struct node {
	uint32_t cv[8];
	uint8_t block[64];
	uint64_t counter;
	uint32_t block_len;
	uint32_t flags;
} node;

static void node_cv(const node *n, uint32_t cv[8])
{
	uint32_t out[16];

	compress(n->cv, n->block, n->counter, n->block_len, n->flags, out);
	memcpy(cv, out, 8 * sizeof(uint32_t));
}

static void parent_node(node *n, const uint32_t left[8], const uint32_t right[8])
{
	memcpy(n->cv, iv, sizeof(n->cv));
	for (int i = 0; i < 8; i++) {
		store32(n->block + 4 * i, left[i]);
		store32(n->block + 32 + 4 * i, right[i]);
	}
	n->counter = 0;
	n->block_len = 64;
	n->flags = PARENT;
}

/* The current chunk's last (possibly partial or empty) block, as a node. */
static void chunk_node(const ss_blake3 *h, node *n)
{
	memcpy(n->cv, h->cv, sizeof(n->cv));
	memset(n->block, 0, sizeof(n->block));
	memcpy(n->block, h->block, h->block_len);
	n->counter = h->chunk;
	n->block_len = h->block_len;
	n->flags = CHUNK_END | (h->blocks_done == 0 ? CHUNK_START : 0);
}

void ss_blake3_init(ss_blake3 *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->cv, iv, sizeof(h->cv));
}

/* Ends the current (full) chunk: its chaining value joins the tree, merging every subtree
 * the new chunk count completes (one per trailing zero bit of the count). */
static void end_chunk(ss_blake3 *h)
{
	uint32_t cv[8];
	uint64_t total;
	node n;

	chunk_node(h, &n);
	node_cv(&n, cv);
	total = h->chunk + 1;
	while ((total & 1) == 0) {
		parent_node(&n, h->stack[--h->stack_len], cv);
		node_cv(&n, cv);
		total >>= 1;
	}
	memcpy(h->stack[h->stack_len++], cv, sizeof(cv));
	memcpy(h->cv, iv, sizeof(h->cv));
	h->chunk++;
	h->block_len = 0;
	h->blocks_done = 0;
}

void ss_blake3_update(ss_blake3 *h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 0) {
		size_t take;

		/* A full block is compressed only once more input shows it is not the last. */
		if (h->block_len == 64) {
			if (h->blocks_done == CHUNK_LEN / 64 - 1) {
				end_chunk(h);
			} else {
				uint32_t out[16];
				uint32_t flags = h->blocks_done == 0 ? CHUNK_START : 0;

				compress(h->cv, h->block, h->chunk, 64, flags, out);
				memcpy(h->cv, out, sizeof(h->cv));
				h->blocks_done++;
				h->block_len = 0;
			}
		}
		take = 64 - h->block_len;
		if (take > len)
			take = len;
		memcpy(h->block + h->block_len, p, take);
		h->block_len = (uint8_t)(h->block_len + take);
		p += take;
		len -= take;
	}
}

void ss_blake3_finalize(const ss_blake3 *h, uint8_t *out, size_t outlen)
{
	uint32_t cv[8], words[16];
	uint64_t counter = 0;
	node n;

	chunk_node(h, &n);
	for (int i = h->stack_len; i > 0; i--) {
		node_cv(&n, cv);
		parent_node(&n, h->stack[i - 1], cv);
	}
	n.flags |= ROOT;
	while (outlen > 0) {
		uint8_t block[64];
		size_t take = outlen < 64 ? outlen : 64;

		compress(n.cv, n.block, counter++, n.block_len, n.flags, words);
		for (int i = 0; i < 16; i++)
			store32(block + 4 * i, words[i]);
		memcpy(out, block, take);
		out += take;
		outlen -= take;
	}
}

void ss_blake3_xof(const void *data, size_t len, uint8_t *out, size_t outlen)
{
	ss_blake3 h;

	ss_blake3_init(&h);
	ss_blake3_update(&h, data, len);
	ss_blake3_finalize(&h, out, outlen);
}
