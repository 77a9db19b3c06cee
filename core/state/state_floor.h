/*
 * state_floor.h: the highest revision verified of each member's repo (core/state/state_floor.c,
 * table floors of schema version 6): the floor no commit may go below.
 *
 * Per member (by DID): the revision of the newest commit a transport verified (signature, tree
 * or set hash) and that commit's id (public repos: its CID; a permissioned space: its set hash,
 * base64), NULL when a clone made by an earlier build seeded the floor with a revision only.
 * Rules: only a verified commit raises it (ss_state_floor_raise keeps the higher of the two);
 * nothing a server answers (getLatestCommit, listRepos), no refused read, no incomplete one
 * lowers or clears it; a member removed from the space takes its floor with it. Every read of a
 * member checks its commit with ss_state_floor_check before anything of it is believed.
 * The caller holds the clone's lock; writes go with the state's transaction when one is open.
 */
#ifndef SS_STATE_FLOOR_H
#define SS_STATE_FLOOR_H

#include "core/state/state.h"
#include "core/util/error.h"

typedef struct ss_state_floor {
	const char *rev; /* NULL: no floor kept (ss_state_floor_check then lets every commit in) */
	const char *commit; /* NULL: not known */
} ss_state_floor;

void ss_state_floor_release(ss_state_floor *f);

/* The floor of did into *out (strings owned, freed by ss_state_floor_release); a member
 * without one gets rev NULL and 0. */
int ss_state_floor_get(ss_state *st, const char *did, ss_state_floor *out, ss_error *err);

/* Raises did's floor to (rev, commit) when rev is higher than the kept one (or none is kept);
 * a lower or equal rev changes nothing. commit may be NULL. */
int ss_state_floor_raise(ss_state *st, const char *did, const char *rev, const char *commit,
                         ss_error *err);

/* Forgets did's floor (the member left the space: if it comes back, it starts fresh). */
int ss_state_floor_drop(ss_state *st, const char *did, ss_error *err);

/* The outcome of ss_state_floor_check. */
enum { SS_FLOOR_NEWER = 0, SS_FLOOR_SAME = 1 };

/*
 * Whether a verified commit (its rev and id, commit NULL when not known) may be taken over
 * floor f: SS_FLOOR_NEWER (no floor, or above it), SS_FLOOR_SAME (the verified commit itself:
 * nothing new), else SS_EINVALID with one line: "its commit at rev X is older than the verified
 * revision Y", or "its commit C at rev X is not the one verified at that revision (D)" (the
 * caller names the member). Revisions are TIDs: they compare as strings. No I/O.
 */
int ss_state_floor_check(const ss_state_floor *f, const char *rev, const char *commit,
                         ss_error *err);

#endif
