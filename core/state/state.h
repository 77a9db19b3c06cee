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
 * Many writes belong in one ss_state_begin/ss_state_commit: each commit is an fsync. Many
 * reads belong in one ss_state_read_begin/ss_state_read_end: outside a transaction each
 * statement takes the file's lock and checks its journal again.
 * This header opens the state, holds its transactions, its config and the three values every
 * run needs; the members are in core/state/state_member.h, the records and the view in
 * core/state/state_record.h, the other tables in core/state/state_*.h.
 */
#ifndef SS_STATE_H
#define SS_STATE_H

#include <stdbool.h>

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

/*
 * One read transaction (BEGIN DEFERRED) around many reads, as a status makes once per changed
 * skill: one snapshot, and one lock, journal check and cache check for all of them instead of
 * one per statement. Nests: only the outermost begin and end count; inside ss_state_begin's
 * transaction it adds nothing. Nothing writes inside it: a statement that writes fails
 * (SS_ERROR) and so does ss_state_begin; end it first. Keep it short and never across a wait
 * (the clone's lock, a prompt, the network, output that may block): while it holds the file,
 * another process's commit waits. Each begin that returned 0 has its one end; an end with no
 * transaction begun is harmless.
 */
int ss_state_read_begin(ss_state *st, ss_error *err);
void ss_state_read_end(ss_state *st);

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

#endif
