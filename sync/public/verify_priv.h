/*
 * verify_priv.h: the blocks a member's verification reads (sync/public/verify_sources.c), shared
 * with the verification itself (sync/public/verify.c); private to sync/public/.
 *
 * Rules: a block is looked up in the CARs newest first; a CAR's bytes, and so every block
 * pointer it gave, live until ss_verify__sources_release.
 */
#ifndef SS_VERIFY_PRIV_H
#define SS_VERIFY_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/car.h"
#include "core/atproto/cid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* Every CAR a run reads blocks from, newest first; their bytes live as long as they do. */
typedef struct ss_verify__sources {
	ss_car **cars;
	ss_buf *bytes;
	size_t n, alloc, balloc;
	/* with recording on, the blocks the getter served (for the node cache) */
	bool recording;
	ss_car_block *seen;
	size_t nseen, aseen;
	/* a whole repo's CAR mapped from its file (ss_verify_member_full) larger than
	 * SS_CAR_RESIDENT_MAX, else NULL: the pages read are released every RELEASE_EVERY blocks
	 * served (the kernel maps a read's neighbours too, so a walk would otherwise map most of
	 * the file) */
	const void *map;
	size_t map_len, served;
} ss_verify__sources;

void ss_verify__sources_release(ss_verify__sources *s);
/* Adds a CAR (its bytes move in); lenient: a block that does not hash to its CID is left out
 * and remembered (see verify_sources.c). */
int ss_verify__sources_add(ss_verify__sources *s, ss_buf *bytes, ss_car **car, bool lenient,
                           ss_error *err);
/* Adds a CAR opened on bytes the caller holds (a mapped file). */
void ss_verify__sources_put(ss_verify__sources *s, ss_car *car);
/* Whether a CAR of the sources held a block named cid that did not hash to it. */
bool ss_verify__sources_bad(const ss_verify__sources *s, const ss_cid *cid);
/* The block named cid, from the newest CAR that holds it; NULL when none does. */
const ss_car_block *ss_verify__sources_get(const ss_verify__sources *s, const ss_cid *cid);
/* One more block served: now and then the mapped pages are released. */
void ss_verify__sources_served(ss_verify__sources *s);
/* The MST walk's block getter (ss_mst_source_init) over the sources ctx: SS_ENOTFOUND when no
 * CAR holds cid; records the block served when recording is on. */
int ss_verify__get_block(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                         ss_error *err);

#endif
