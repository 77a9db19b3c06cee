/*
 * mst_priv.h: a decoded MST node, shared by core/atproto/mst.c (reading), core/atproto/mst_walk.c
 * (walks and diffs) and core/atproto/mst_build.c, and visible to the unit tests.
 */
#ifndef SS_MST_PRIV_H
#define SS_MST_PRIV_H

#include "core/atproto/mst.h"

typedef struct ss_mst_entry {
	const char *key; /* NUL-terminated, in the node's keys */
	size_t key_len;
	ss_cid value;
	bool has_tree;
	ss_cid tree;
} ss_mst_entry;

typedef struct ss_mst_node {
	bool has_left;
	ss_cid left;
	ss_mst_entry *e;
	size_t n;
	char *keys;
	int layer; /* the entries' layer; -1 without entries */
} ss_mst_node;

/* Decodes one node's block (checks the shape, key order and one layer; not the hash). */
int ss_mst__node_decode(ss_mst_node *nd, const unsigned char *data, size_t len, ss_error *err);
void ss_mst__node_release(ss_mst_node *nd);
/* Byte order of keys (a prefix sorts first). */
int ss_mst__keycmp(const char *a, size_t alen, const char *b, size_t blen);

#endif
