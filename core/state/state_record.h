/*
 * state_record.h: the records and view tables of the local state (core/state/state_record.c):
 * every fetched version of a record, the sweep that drops what a member's listing no longer
 * holds, and the view, the winner per name in the tracking commit.
 *
 * Rules: a record version is keyed by (did, rkey), the view by rkey; walks go one row at a
 * time, their rows borrowed for the call. The structs' strings are const so that callers can
 * fill them with borrowed text; the ones the state hands out are the caller's (release the
 * struct). OIDs are 40-hex text.
 */
#ifndef SS_STATE_RECORD_H
#define SS_STATE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state/state.h"
#include "core/util/error.h"

/* One fetched version of a record. */
typedef struct ss_state_record {
	const char *did;
	const char *rkey;
	const char *cid;
	const char *created_at; /* as the record says; NULL when it did not say (or was invalid) */
	const char *updated_at;
	int64_t updated_us; /* updatedAt as an instant; 0 when it could not be parsed */
	bool valid;
	const char *reason; /* why not valid; NULL when valid */
	const char *tree;   /* OID of its rendered subtree; NULL when invalid */
	const char *note;   /* the record's note; NULL when none */
} ss_state_record;

void ss_state_record_release(ss_state_record *r);

/* SS_ENOTFOUND when the state has no version of rkey by did. */
int ss_state_record_get(ss_state *st, const char *did, const char *rkey, ss_state_record *out,
                        ss_error *err);
/* Inserts or replaces, and marks it seen by the current sweep of its member. */
int ss_state_record_put(ss_state *st, const ss_state_record *r, ss_error *err);
int ss_state_record_delete(ss_state *st, const char *did, const char *rkey, ss_error *err);

/*
 * A full listing of a member: ss_state_sweep_begin, then ss_state_record_put (or
 * ss_state_record_touch for an unchanged one) for every record listed, then
 * ss_state_sweep_end, which deletes the member's records the listing did not contain.
 */
int ss_state_sweep_begin(ss_state *st, const char *did, ss_error *err);
int ss_state_record_touch(ss_state *st, const char *did, const char *rkey, ss_error *err);
int ss_state_sweep_end(ss_state *st, const char *did, ss_error *err);

/*
 * Calls fn for every record version (of rkey only, when rkey is not NULL), ordered by rkey,
 * then DID. The record is borrowed for the call. A non-zero return from fn stops the walk
 * and is returned. Memory stays flat: one row at a time.
 */
typedef int (*ss_state_record_fn)(const ss_state_record *r, void *payload);
int ss_state_records_each(ss_state *st, const char *rkey, ss_state_record_fn fn, void *payload,
                          ss_error *err);

/* A name's entry in the view (the tracking commit's tree). */
typedef struct ss_state_view_entry {
	const char *rkey;
	const char *did;
	const char *cid;
	const char *tree;
} ss_state_view_entry;

void ss_state_view_entry_release(ss_state_view_entry *e);
/* Empties the view table (within the caller's transaction, before the new entries). */
int ss_state_view_clear(ss_state *st, ss_error *err);
int ss_state_view_put(ss_state *st, const ss_state_view_entry *e, ss_error *err);
/* Removes rkey from the view table (a missing one is fine): a push deleted its last version. */
int ss_state_view_remove(ss_state *st, const char *rkey, ss_error *err);
/* SS_ENOTFOUND when rkey is not in the view. */
int ss_state_view_get(ss_state *st, const char *rkey, ss_state_view_entry *out, ss_error *err);
/* Every entry ordered by rkey; the entry is borrowed for the call; non-zero from fn stops. */
typedef int (*ss_state_view_fn)(const ss_state_view_entry *e, void *payload);
int ss_state_view_each(ss_state *st, ss_state_view_fn fn, void *payload, ss_error *err);

#endif
