/*
 * provenance.h: where a skill's version comes from: every version of one name in the local
 * state, ranked by the precedence rule (core/diff/view.h), for `ls` and `show`.
 *
 * The ranking is the one fetch used to build the view from the same state, so the first
 * valid version is the one in the tracking commit. Everything is owned by the struct.
 */
#ifndef SS_PROVENANCE_H
#define SS_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diff/view.h"
#include "core/state/state.h"
#include "core/util/error.h"

typedef struct ss_provenance_version {
	char *did;
	char *cid;
	char *updated_at; /* as the record says; NULL when unknown */
	int64_t updated_us;
	bool valid;
	char *reason; /* why it is not a candidate (invalid only) */
	ss_view_why why;
} ss_provenance_version;

typedef struct ss_provenance {
	ss_provenance_version *versions; /* best first: the winner, then what it shadows */
	size_t count;
	size_t nvalid; /* the first nvalid versions are candidates; the rest are invalid */
} ss_provenance;

/* Loads the versions of rkey (count 0 when the state has none), ranked for the state's me and
 * authority. */
int ss_provenance_load(ss_state *st, const char *rkey, ss_provenance *out, ss_error *err);
void ss_provenance_release(ss_provenance *p);

#endif
