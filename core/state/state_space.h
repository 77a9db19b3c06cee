/*
 * state_space.h: what a permissioned-space clone keeps to verify each writer incrementally
 * (core/state/state_space.c, table space_writers of schema version 4).
 *
 * Per writer (by DID): the repo revision its verified set hash is at, and the 2048-byte LtHash
 * state (core/atproto/lthash.h) of its whole repo at that revision, so that the next listRepoOps
 * can be folded into it and checked against the writer's signed commit (sync/space/space_verify.c).
 * The author's #atproto key that signs those commits is in the identity cache
 * (core/state/state_ident.h). Rules: the caller holds the clone's lock and wraps writes in
 * ss_state_begin/ss_state_commit with the records they vouch for.
 */
#ifndef SS_STATE_SPACE_H
#define SS_STATE_SPACE_H

#include "core/atproto/lthash.h"
#include "core/state/state.h"
#include "core/util/error.h"

/* The kept state of did: *rev (malloc'd) and h; SS_ENOTFOUND when none is kept. */
int ss_state_space_writer_get(ss_state *st, const char *did, char **rev, ss_lthash *h,
                              ss_error *err);
/* Keeps (rev, h) for did, replacing what was kept. */
int ss_state_space_writer_put(ss_state *st, const char *did, const char *rev, const ss_lthash *h,
                              ss_error *err);
/* Forgets did (its next listing is a full one). */
int ss_state_space_writer_drop(ss_state *st, const char *did, ss_error *err);

#endif
