/*
 * state_priv.h: what the files of the state module share (core/state/state*.c only).
 *
 * A sibling file (core/state/state_record.c, core/state/state_journal.c, ...) reaches the database
 * through the struct's db (or ss_state__prepare()) and turns SQLite's errors into ss_error with
 * ss_state__sqlite_error().
 * A sibling that needs tables adds a migration: append one entry to the `migrations` list in
 * core/state/state.c pointing at its SQL (declared here), never edit an entry that has shipped.
 */
#ifndef SS_STATE_PRIV_H
#define SS_STATE_PRIV_H

#include <sqlite3.h>

#include "core/util/buf.h"

#include "core/git/repo.h"
#include "core/state/state.h"

/* How many statements ss_state__prepare_cached keeps prepared. */
#define SS_STATE_NCACHED 32

struct ss_state {
	sqlite3 *db;
	char *path;
	bool in_transaction;
	/* ss_state_read_begin's depth; read_open: its BEGIN DEFERRED is the open transaction
	   (not one inside ss_state_begin's) */
	unsigned read_depth;
	bool read_open;
	bool mirror_dirty; /* the member list changed: rewrite the mirror
	                      (core/state/state_mirror.c) */
	char *rebuilt;     /* what the open's rebuild of a damaged state did; NULL: none */
	/* config values read at open (core/state/state_config.c) */
	char *me, *authority; /* NULL when absent */
	ss_oid tracking;      /* zero when absent */
	/* statements kept prepared (ss_state__prepare_cached); in_use: handed out, not given
	   back yet (a walk's, while its callback runs); used: when last handed out */
	struct {
		char *sql;
		sqlite3_stmt *stmt;
		bool in_use;
		unsigned long used;
	} cached[SS_STATE_NCACHED];
	size_t ncached;
	unsigned long uses;
};

/* Frees the cached config values (core/state/state_config.c). */
void ss_state_config__release(ss_state *st);

/* Sets err from the connection's last error: "<what>: <sqlite message>"; returns SS_ERROR. */
int ss_state__sqlite_error(ss_state *st, ss_error *err, const char *what);

/*
 * Prepares sql or sets err; *out NULL on failure. For a statement run once per command (a
 * walk of a whole table, a write of the push journal). Inside a read transaction
 * (ss_state_read_begin) a statement that writes is refused (SS_ERROR).
 */
int ss_state__prepare(ss_state *st, sqlite3_stmt **out, const char *sql, ss_error *err);

/*
 * The same, for a statement run again and again (once per record in a fetch, where preparing
 * it each time was a tenth of the CPU; once per changed skill in a status): kept prepared for
 * the state's life, by its text. Give it back with ss_state__done, never sqlite3_finalize.
 * A statement handed out is not dropped until it is given back, so a walk may run others,
 * itself included, from its callback (the same text while in use is prepared anew and
 * finalized by ss_state__done); to make room, the least recently used one goes.
 */
int ss_state__prepare_cached(ss_state *st, sqlite3_stmt **out, const char *sql, ss_error *err);
/* Gives back a statement of ss_state__prepare_cached (reset, bindings cleared). */
void ss_state__done(ss_state *st, sqlite3_stmt *s);

/* Runs s, which returns no rows; SS_ERROR with "<what>: <sqlite message>" otherwise. */
int ss_state__step_done(ss_state *st, sqlite3_stmt *s, const char *what, ss_error *err);

/* Binds a string or NULL at index i, not copied (a fetch binds eight per record): text must
 * stay as it is until the statement is given back (ss_state__done, sqlite3_finalize). */
int ss_state__bind_text(sqlite3_stmt *s, int i, const char *text);

/* Frees a string held in a const field of a public struct. */
void ss_state__free_str(const char *s);

/* A new copy of column i (NULL stays NULL). */
char *ss_state__column_dup(sqlite3_stmt *s, int i);

/* Runs a statement that returns no rows, with up to 4 text parameters (NULL binds NULL). */
int ss_state__exec(ss_state *st, ss_error *err, const char *sql, int nparams, const char *p1,
                   const char *p2, const char *p3, const char *p4);

/*
 * The member list's plain-text mirror, <gitdir>/skillsync/members (core/state/state_mirror.c).
 * ss_state_mirror__changed: the members, me, authority or transport changed; rewrites the
 * mirror now outside a transaction, else at ss_state_commit (before COMMIT).
 */
int ss_state_mirror__changed(ss_state *st, ss_error *err);
int ss_state_mirror__write(ss_state *st, ss_error *err);
/* Writes the mirror when there is none (a clone made before it existed). */
int ss_state_mirror__write_missing(ss_state *st, ss_error *err);

/* Opens st->path into st (a fresh struct); check: PRAGMA quick_check first. On failure, why
 * gets what damages the file when SQLite found it damaged (not a database, malformed). */
int ss_state__open_db(ss_state *st, bool check, ss_buf *why, ss_error *err);
/* ss_state_open_existing without the rebuild: why gets what damages the file, if that is
 * why it fails. */
int ss_state__try_open(ss_state **out, const char *gitdir, ss_buf *why, ss_error *err);
/* Moves the damaged state aside and builds a fresh one from the mirror (core/state/state_mirror.c).
 */
int ss_state__rebuild(ss_state **out, const char *gitdir, const char *why, ss_error *err);

/* Migrations owned by sibling files (see core/state/state.c's list). */
extern const char ss_state_journal_schema[]; /* core/state/state_journal.c: the push journal */
extern const char ss_state_journal_notes_schema[]; /* core/state/state_journal.c: kept notes */
extern const char ss_state_space_schema[];         /* core/state/state_space.c: space writers */
extern const char ss_state_ident_schema[];         /* core/state/state_ident.c: identities */
extern const char ss_state_floor_schema[];     /* core/state/state_floor.c: verified revisions */
extern const char ss_state_hold_schema[];      /* core/state/state_hold.c: held changes, pins */
extern const char ss_state_hold_seen_schema[]; /* core/state/state_hold.c: seen, gate facts */

/* The holds' and pins' lines of the mirror (core/state/state_hold.c): appended to out, and
 * read back by a rebuild: *taken says whether line was one of them (modified in place). */
int ss_state_hold__mirror(ss_state *st, ss_buf *out, ss_error *err);
int ss_state_hold__restore(ss_state *st, char *line, bool *taken, ss_error *err);

#endif
