/*
 * state.h: the clone's local state, one SQLite database at <gitdir>/skillsync/state.db.
 *
 * What it holds (schema in docs/CLONE.md):
 *   config   key -> value: "authority" (DID), "me" (DID or absent: read-only), "transport"
 *            ("public"), "tracking" (the OID of the tracking commit the view table describes),
 *            "view_stale" (set: the next fetch computes the view even if no member moved)
 *   members  who writes in the space: DID, handle, PDS URL, role, last seen commit + revision
 *   records  every fetched version: (did, rkey) -> cid, createdAt, updatedAt (text and
 *            microseconds), valid + reason, the OID of its rendered subtree, its note
 *   view     the winner per name in the tracking commit: rkey -> did, cid, subtree OID
 * Rules: sqlite3.h appears only in core/state/state*.c; every value is a bound parameter; the
 * schema version is `PRAGMA user_version`, raised by a list of migrations run in one transaction at
 * open; the database uses SQLite's default rollback journal (one file, nothing beside it
 * after a clean close; the clone's lock, not SQLite, keeps two skillsync runs apart; another
 * process holding the file past the 5 s busy timeout is SS_ELOCKED naming it).
 * Many writes belong in one ss_state_begin/ss_state_commit: each commit is an fsync.
 * The structs' strings are const so that callers can fill them with borrowed text; the ones
 * the state hands out are the caller's (release the struct). OIDs are 40-hex text.
 */
#ifndef SS_STATE_H
#define SS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/util/error.h"

typedef struct ss_state ss_state;

/* Opens (creating when missing) <gitdir>/skillsync/state.db and brings its schema up to date. */
int ss_state_open(ss_state **out, const char *gitdir, ss_error *err);
/*
 * The same for a clone's existing state: SS_ENOTFOUND, with nothing created, when it has none
 * (a git repository that is not a clone). A damaged file (not a database, malformed, empty:
 * PRAGMA quick_check at open) is moved aside and a fresh state is built from the member list's
 * mirror <gitdir>/skillsync/members (core/state/state_mirror.c): members, me, authority, transport;
 * no records, no view, config "rebuilt" and "view_stale" set so that the next fetch lists
 * every member again. Without a mirror: SS_ERROR asking to clone again, the file left as is.
 */
int ss_state_open_existing(ss_state **out, const char *gitdir, ss_error *err);
/* One line saying what the open's rebuild did (the damage, where the damaged file went);
 * NULL when the state was not rebuilt. */
const char *ss_state_rebuilt(const ss_state *st);
void ss_state_free(ss_state *st);

/* One transaction; nested begin is an error. rollback is harmless without a transaction. */
int ss_state_begin(ss_state *st, ss_error *err);
int ss_state_commit(ss_state *st, ss_error *err);
void ss_state_rollback(ss_state *st);

/* config. get: *out is a new string (free()), SS_ENOTFOUND when the key is absent. */
int ss_state_config_get(ss_state *st, const char *key, char **out, ss_error *err);
/* value NULL removes the key. */
int ss_state_config_set(ss_state *st, const char *key, const char *value, ss_error *err);

/*
 * The three values every run needs, read once when the state opens (core/state/state_config.c) and
 * kept in step by their setters (and by ss_state_config_set, and a rollback): read them
 * through these, never through ss_state_config_get. Strings are borrowed from st and live
 * until the next change of that value.
 */
/* My DID; NULL in a read-only clone. */
const char *ss_state_me(const ss_state *st);
/* The database file's path (<gitdir>/skillsync/state.db): its directory holds caches too. */
const char *ss_state_path(const ss_state *st);
/* The space's authority (DID); NULL only in a state that is not a clone's yet. */
const char *ss_state_authority(const ss_state *st);
/* The tracking commit (the one the view describes) into *out; false, and zero, when none. */
struct ss_oid;
bool ss_state_tracking(const ss_state *st, struct ss_oid *out);
int ss_state_set_me(ss_state *st, const char *did, ss_error *err);
int ss_state_set_authority(ss_state *st, const char *did, ss_error *err);
/* commit NULL or zero removes it. */
int ss_state_set_tracking(ss_state *st, const struct ss_oid *commit, ss_error *err);
/* Reads the three again: after taking the clone's lock (another run may have changed them
 * while this one waited) and after a rollback (done by ss_state_rollback). */
int ss_state_reload(ss_state *st, ss_error *err);

typedef enum ss_state_role {
	SS_ROLE_MEMBER = 0, /* listed with --member / `members add` */
	SS_ROLE_AUTHORITY,  /* the space's owner */
	SS_ROLE_ME,         /* the signed-in account, when not listed otherwise */
} ss_state_role;

typedef struct ss_state_member {
	const char *did;
	const char *handle; /* NULL when unknown */
	const char *pds;    /* service URL; NULL when not resolved yet */
	const char *commit; /* the repo commit CID whose records are in the state; NULL: never */
	const char *rev;    /* that commit's revision; NULL: never listed */
	ss_state_role role;
} ss_state_member;

void ss_state_member_release(ss_state_member *m);

/* Inserts or replaces a member (its records stay). */
int ss_state_member_put(ss_state *st, const ss_state_member *m, ss_error *err);
/* SS_ENOTFOUND when did is not a member. */
int ss_state_member_get(ss_state *st, const char *did, ss_state_member *out, ss_error *err);
/* Removes a member, all its records and its verified revision (core/state/state_floor.h: a member
 * added again starts fresh); a missing member is fine. */
int ss_state_member_remove(ss_state *st, const char *did, ss_error *err);
/* Records that the state now holds the member's records as of commit/rev. */
int ss_state_member_set_head(ss_state *st, const char *did, const char *commit, const char *rev,
                             ss_error *err);
/* All members, ordered by DID; *out is an array of *n members (ss_state_members_free). */
int ss_state_members_list(ss_state *st, ss_state_member **out, size_t *n, ss_error *err);
void ss_state_members_free(ss_state_member *members, size_t n);

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
