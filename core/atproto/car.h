/*
 * car.h: CAR v1 files, the way a PDS hands out repository blocks (com.atproto.sync.getRepo,
 * getBlocks): a header naming the root CIDs, then blocks, each its CID and its bytes.
 *
 * Rules: the reader works on bytes the caller holds (nothing is copied: blocks point into them,
 * so they must outlive the ss_car). Every block's bytes are hashed and must match its CID, so a
 * block got from an ss_car is what its CID names. Everything is bounded by the input: varints
 * of at most 9 bytes in their shortest form, no length beyond the input, a strict DAG-CBOR
 * header {"roots": [links], "version": 1}; anything else is SS_EINVALID with the byte offset.
 * A block that appears twice is kept once. Lookup by CID is a hash table: no quadratic cost.
 */
#ifndef SS_CAR_H
#define SS_CAR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/cid.h"
#include "core/util/error.h"

typedef struct ss_car ss_car;

typedef struct ss_car_block {
	ss_cid cid;
	const unsigned char *data; /* borrowed from the CAR's input */
	size_t len;
} ss_car_block;

/* Reads and checks a whole CAR held in len bytes of data. */
int ss_car_open(ss_car **out, const void *data, size_t len, ss_error *err);
/*
 * The same for a CAR mapped read-only from a file (mmap), as a whole repo is read
 * (sync/public/verify.h): a block that does not hash to its CID is dropped, counted in *dropped, so
 * one bad block costs only itself; the framing must hold all the same. A file larger than
 * SS_CAR_RESIDENT_MAX has its mapped pages released (core/util/platform.h) as the reader moves on,
 * so it is never all resident at once.
 */
int ss_car_open_mapped(ss_car **out, const void *map, size_t len, size_t *dropped, ss_error *err);
/*
 * The same as ss_car_open for bytes in memory, but a block that does not hash to its CID is
 * left out instead of failing the CAR (ss_car_get does not find it), and its CID kept: a
 * caller that knows what the block was (a record of its tree or index) says so
 * (ss_car_is_bad). The framing must hold all the same.
 */
int ss_car_open_keep_bad(ss_car **out, const void *data, size_t len, ss_error *err);
/* The blocks left out by ss_car_open_keep_bad or ss_car_open_mapped: how many, whether cid
 * is one (by halves), the CID of the i-th (in CID order). */
size_t ss_car_bad_count(const ss_car *car);
bool ss_car_is_bad(const ss_car *car, const ss_cid *cid);
const ss_cid *ss_car_bad(const ss_car *car, size_t i);
/*
 * A mapped CAR of at most this many bytes stays resident until it is unmapped: its pages are
 * mapped once. A repo is read twice, its blocks in the file's order, then its tree and records
 * in key order, which is no order in the file: released as the reader moved on, its pages were
 * mapped again and again, a page fault each time (a third of a 3x3000-skill clone's faults,
 * docs/BENCHMARKS.md). They are clean pages of a file, which the kernel can take back under
 * memory pressure.
 */
#define SS_CAR_RESIDENT_MAX (32u * 1024 * 1024)
/* Releases the resident pages of a mapping (map and len as mapped): they are read again from
 * the file when next used. */
void ss_car_release_pages(const void *map, size_t len);
void ss_car_free(ss_car *car);

size_t ss_car_root_count(const ss_car *car);
const ss_cid *ss_car_root(const ss_car *car, size_t i);
/* The blocks in the order of the file. */
size_t ss_car_block_count(const ss_car *car);
const ss_car_block *ss_car_block_at(const ss_car *car, size_t i);
/* The block named cid, NULL when the CAR has none. */
const ss_car_block *ss_car_get(const ss_car *car, const ss_cid *cid);
/*
 * A block getter for core/atproto/mst.h (ctx is the ss_car): the block's bytes, or SS_ENOTFOUND.
 */
int ss_car_get_block(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                     ss_error *err);

#endif
