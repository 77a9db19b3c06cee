/*
 * mst.h: ATProto's Merkle Search Tree, the map from record keys ("<collection>/<rkey>") to
 * record CIDs that a repository commit signs through its root CID.
 *
 * A node is DAG-CBOR {"e": [entries], "l": link|null}; an entry {"k": bytes, "p": int, "t":
 * link|null, "v": link} holds a key (its first p bytes shared with the entry before it), the
 * record's CID v, and the subtree t of keys between this entry and the next one; l is the
 * subtree of keys before the first entry. A key's layer is the number of leading zero bits of
 * SHA-256(key) divided by 2 (ss_mst_key_height).
 *
 * Nodes are read through a block getter (from a CAR, a local store, the network: the caller's
 * choice) and every node's bytes are hashed against the CID that named it, so a tree read from
 * here is the tree its root names. Reading is strict: the node shape above and nothing else,
 * keys of 1 to SS_MST_MAX_KEY bytes without NUL, sorted and within their parent's bounds, one
 * layer per node and lower in subtrees, at most SS_MST_MAX_DEPTH levels; SS_EINVALID otherwise.
 *
 * Walks and diffs look at one key range, given as a prefix (e.g. "garden.engram.skill/"; ""
 * for all), and open only the nodes that can hold keys in it; a diff never opens a subtree
 * whose CID is the same on both sides. Neither recurses on the C stack.
 */
#ifndef SS_MST_H
#define SS_MST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/cid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_MST_MAX_KEY   1024
#define SS_MST_MAX_DEPTH 130

/*
 * A block getter: sets *data and *len to the bytes of the block cid names (borrowed: they must
 * stay valid until the next call of the getter), or fails with SS_ENOTFOUND (or another error,
 * which stops the walk). core/atproto/car.h's ss_car_get_block is one.
 */
typedef int (*ss_mst_get_fn)(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                             ss_error *err);

/* Where nodes come from, and what reading them found. */
typedef struct ss_mst_source {
	ss_mst_get_fn get;
	void *ctx;
	/* When true, a node the getter does not have (SS_ENOTFOUND) is added to missing and
	 * skipped instead of failing: a walk or diff then lists every node it still needs (the
	 * caller fetches them, e.g. with getBlocks, and runs it again; its results are incomplete
	 * while missing is not empty). */
	bool collect_missing;
	ss_cid *missing;
	size_t nmissing, missing_alloc;
	size_t opened; /* nodes read so far */
} ss_mst_source;

void ss_mst_source_init(ss_mst_source *src, ss_mst_get_fn get, void *ctx);
void ss_mst_source_release(ss_mst_source *src);

/* The layer of a key: leading zero bits of its SHA-256, divided by 2. */
int ss_mst_key_height(const char *key, size_t len);

/* Called for each key of a walk, in key order; a negative return stops the walk with it. */
typedef int (*ss_mst_leaf_fn)(void *ctx, const char *key, size_t key_len, const ss_cid *value,
                              ss_error *err);
/* Calls fn for every key starting with prefix in the tree root names, in order. */
int ss_mst_walk(ss_mst_source *src, const ss_cid *root, const char *prefix, ss_mst_leaf_fn fn,
                void *fctx, ss_error *err);

typedef enum ss_mst_op { SS_MST_CREATE, SS_MST_UPDATE, SS_MST_DELETE } ss_mst_op;
/* A change from the old tree to the new one: old is NULL for a create, new for a delete. */
typedef int (*ss_mst_diff_fn)(void *ctx, ss_mst_op op, const char *key, size_t key_len,
                              const ss_cid *old_value, const ss_cid *new_value, ss_error *err);
/*
 * Calls fn for every key starting with prefix that differs between the tree old_root names and
 * the one new_root names (NULL: an empty tree), in key order.
 */
int ss_mst_diff(ss_mst_source *src, const ss_cid *old_root, const ss_cid *new_root,
                const char *prefix, ss_mst_diff_fn fn, void *fctx, ss_error *err);

/* A key and its record CID, to build a tree from. */
typedef struct ss_mst_leaf {
	const char *key;
	size_t key_len;
	ss_cid value;
} ss_mst_leaf;
/* Receives each node block a build writes (with its CID). */
typedef int (*ss_mst_put_fn)(void *ctx, const ss_cid *cid, const unsigned char *data, size_t len,
                             ss_error *err);
/*
 * Builds the tree of n leaves (any order; keys must be distinct) the way the reference
 * implementation does, handing each node to put (children before parents), and sets *root to
 * its root's CID. For tests and test servers: a client only reads trees.
 */
int ss_mst_build(const ss_mst_leaf *leaves, size_t n, ss_mst_put_fn put, void *pctx, ss_cid *root,
                 ss_error *err);

#endif
