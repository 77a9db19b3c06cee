/*
 * verify.h: a member's repo believed only once checked against its signed commit: the
 * commit's signature by the member's `#atproto` key (its DID document, through the identity
 * cache: sync/identity/idcache.h), the MST root the commit names, every MST node and block
 * hashing to the CID that names it
 * (core/atproto/car.h, core/atproto/mst.h), each record's CID in that tree under
 * garden.engram.skill/, and each record's value hashing to its CID.
 *
 * Three ways, each keeping the member's node cache (<cache_dir>/<did>.car: the verified commit
 * and every MST node of its skill range) for the next incremental sync:
 *  - whole (clone, or when the incremental way cannot be taken, for a repo holding only skills):
 *    ss_verify_member_full on the getRepo CAR, kept in a file;
 *  - full (the same, for any other repo): ss_verify_tree_fetch reads the
 *    commit and the skill range's MST nodes with com.atproto.sync.getBlocks (one request per
 *    tree level), and the caller checks each listRecords entry with ss_verify_listed: a record
 *    the tree does not hold, with another CID, or whose value does not hash to its CID is
 *    refused alone (the rest of the member syncs); an entry of the tree the listing left out
 *    is the caller's to report (ss_verify_entry.seen);
 *  - incremental: ss_verify_member_sync on the getRepo?since=<rev> CAR (the blocks written
 *    after the state's revision): the previous tree from the node cache, diffed against the
 *    new one (unchanged subtrees never opened), creates and updates from the CAR's verified
 *    record blocks, deletes. A node or record neither holds is fetched with getBlocks. When
 *    the server refused `since`, the cache does not hold the tree at since_rev, or the tree
 *    cannot be completed, it returns 1 and says why: the caller takes the full way.
 * Nothing reaches the sink before every check passed: a member whose commit or tree fails is
 * one error line naming it and what failed, and the caller keeps its last good versions.
 */
#ifndef SS_VERIFY_H
#define SS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/atproto/cid.h"
#include "core/state/state_floor.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/identity/idcache.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_sync.h"

typedef struct ss_verify_sink {
	int (*record)(void *payload, const char *rkey, const char *cid, const unsigned char *block,
	              size_t len, const char *problem, ss_error *err);
	int (*deleted)(void *payload, const char *rkey, ss_error *err);
	void *payload;
} ss_verify_sink;

typedef struct ss_verify_member {
	ss_xrpc *client; /* the member's PDS, no token */
	const char *did;
	const char *who;       /* handle or DID, for messages */
	const char *cache_dir; /* the node and key cache; NULL: none (every sync is full) */
	const char *since_rev; /* the state's revision (incremental way) */
	/* the getRepo?since answer already fetched: its rc, err and bytes */
	int car_rc;
	const ss_error *car_err;
	ss_buf *car;
	ss_idcache *ids; /* the identity cache (sync/identity/idcache.h); NULL: keys read fresh */
	/* the member's highest verified revision (core/state/state_floor.h), NULL: none; every way
	 * refuses a commit below it before anything is handed on */
	const ss_state_floor *floor;
} ss_verify_member;

typedef struct ss_verify_outcome {
	char *commit; /* the verified commit's CID and revision */
	char *rev;
	size_t requests; /* requests made here (getBlocks, DID documents) */
	uint64_t bytes;  /* their answers' bytes */
	char *fallback;  /* why the incremental way could not be taken; NULL otherwise */
	size_t refused;  /* records handed on refused: no block of theirs hashed to their CID */
	/* the first record whose block in the CAR did not hash to its CID, though getBlocks then
	 * served the one that does (taken): what was wrong, naming it; NULL otherwise */
	char *caught;
} ss_verify_outcome;
/* (When records were refused, the node cache is left as it was: the next sync asks again.) */

void ss_verify_outcome_release(ss_verify_outcome *o);

/* The incremental way (see above): 0 done, 1 take the full way (out->fallback says why). */
int ss_verify_member_sync(const ss_verify_member *m, const ss_verify_sink *sink,
                          ss_verify_outcome *out, ss_error *err);

/*
 * The full way from the member's whole repo (com.atproto.sync.getRepo without since): its CAR
 * in the file fd, len bytes, mapped and never all resident (core/atproto/car.h). The commit and its
 * signature, the revision against m->floor, the tree over the skill range (a node
 * the CAR lacks is fetched with getBlocks) are checked before anything is handed on; then every
 * record goes to the sink, in key order, as its block (DAG-CBOR). A record whose block is
 * missing or does not hash to its CID is handed on with a problem, alone (out->refused counts
 * them; the rest of the member syncs), as a listing refuses one record. The node cache is kept
 * as by the incremental way. 0 done, < 0 a check or a request failed (nothing handed on).
 */
int ss_verify_member_full(const ss_verify_member *m, int fd, uint64_t len,
                          const ss_verify_sink *sink, ss_verify_outcome *out, ss_error *err);

/*
 * After writes of mine landed (my repo now at commit): brings m's node cache from the tree it
 * holds up to commit, read and checked as the incremental way reads it (getRepo?since=<the
 * cache's revision>, the commit's signature, the tree completed from the CAR, the cache, else
 * getBlocks), no record handed on; m's since_rev and car are not used. 0 done (or nothing to
 * do), 1 not done (no cache to start from, or the repo is no longer at commit: out->fallback
 * says why), < 0 a request or a check failed. The cache changes only when it ends at commit:
 * whatever happens, the next sync is at worst a full one.
 */
int ss_verify_member_refresh(const ss_verify_member *m, const char *commit, ss_verify_outcome *out,
                             ss_error *err);

/* A record of a member's signed tree. */
typedef struct ss_verify_entry {
	char *rkey;
	char cid[SS_CID_STRSZ];
	bool seen; /* ss_verify_listed saw it */
} ss_verify_entry;

typedef struct ss_verify_tree {
	char *commit, *rev;
	ss_verify_entry *entries; /* sorted by rkey */
	size_t n;
	size_t requests; /* getBlocks and DID documents */
	uint64_t bytes;
} ss_verify_tree;

/* The signed tree of the commit whose CID is commit (the member's head), checked; the blocks
 * the node cache holds are not fetched again (offline when it holds them all). */
int ss_verify_tree_fetch(const ss_verify_member *m, const char *commit, ss_verify_tree *out,
                         ss_error *err);
/*
 * The same for n members at once: each round asks every member's missing blocks of one tree
 * level in one batch (sync/net/xrpc_sync.h: ss_xrpc_get_blocks_many), so n trees cost the round
 * trips of the deepest. Member i ends with rcs[i] (0, or < 0 with errs[i]); returns 0.
 */
int ss_verify_trees_fetch(const ss_verify_member *ms, const char *const *commits, size_t n,
                          ss_verify_tree *out, int *rcs, ss_error *errs);
void ss_verify_tree_release(ss_verify_tree *t);
ss_verify_entry *ss_verify_tree_find(const ss_verify_tree *t, const char *rkey);
/*
 * Why a listed record (its key, the CID the listing names, its value's JSON text or NULL) is
 * not the version t signs, or NULL when it is; marks the tree's entry seen.
 */
const char *ss_verify_listed(const ss_verify_tree *t, const char *rkey, const char *cid,
                             const char *json, size_t len);
/* Drops did's node cache: its next sync is a full one. */
void ss_verify_forget(const char *cache_dir, const char *did);
/* The commit did's node cache holds (written only once verified): its revision and CID
 * (*rev and *commit, the caller's to free); 1 when there is no usable cache. */
int ss_verify_cache_commit(const char *cache_dir, const char *did, char **rev, char **commit);

/*
 * Checks that sig (64 bytes) is did's signature of msg with its `#atproto` key, through the
 * identity cache ids (NULL: one for this call; sync/identity/idcache.h: the kept key while
 * fresh, else or when it fails the key its DID document names now; a signature by a previous
 * key only is refused saying so). requests counts the DID documents read.
 */
int ss_verify_signature(ss_idcache *ids, ss_http *http, const char *did, const void *msg,
                        size_t len, const uint8_t *sig, size_t siglen, size_t *requests,
                        ss_error *err);

/* The cache's directory for the clone whose state is at state_path: <dir of it>/verified. */
void ss_verify_cache_dir(ss_buf *out, const char *state_path);

/* The cache's file for did in cache_dir with extension ext ("car": its nodes). */
void ss_verify_cache_path(ss_buf *out, const char *cache_dir, const char *did, const char *ext);

#endif
