/* state.c: opening, migrations and transactions of the local state. */
#include "core/state/state_priv.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

/* Schema version 1: config, members, records, view. */
static const char schema_v1[] =
    "CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE members ("
    " did TEXT PRIMARY KEY, handle TEXT, pds TEXT, commit_cid TEXT, rev TEXT,"
    " role INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE records ("
    " did TEXT NOT NULL, rkey TEXT NOT NULL, cid TEXT NOT NULL,"
    " created_at TEXT, updated_at TEXT, updated_us INTEGER NOT NULL DEFAULT 0,"
    " valid INTEGER NOT NULL, reason TEXT, tree TEXT, note TEXT,"
    " sweep INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (did, rkey));"
    "CREATE INDEX records_by_rkey ON records (rkey, did);"
    "CREATE TABLE view ("
    " rkey TEXT PRIMARY KEY, did TEXT NOT NULL, cid TEXT NOT NULL, tree TEXT NOT NULL);";

/*
 * migrations[i] takes the schema from version i to i + 1. Append only; a sibling file's
 * tables come in as an entry pointing at SQL it declares in core/state/state_priv.h.
 */
static const char *const migrations[] = {
    schema_v1,
    ss_state_journal_schema,
    ss_state_journal_notes_schema,
    ss_state_space_schema,     /* v4: each space writer's set hash (core/state/state_space.c) */
    ss_state_ident_schema,     /* v5: the identity cache (core/state/state_ident.c) */
    ss_state_floor_schema,     /* v6: each member's verified revision (core/state/state_floor.c) */
    ss_state_hold_schema,      /* v7: held changes and pins (core/state/state_hold.c) */
    ss_state_hold_seen_schema, /* v8: review's seen, gate facts, trust by DID */
};

#define NMIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

/*
 * The check stamp (state.db.checked): the database file's device, inode, size and times when
 * it last passed PRAGMA quick_check or was last committed to by skillsync. An open whose file
 * still has them skips the check, which reads the whole file (50 ms at 60,000 skills): a
 * file that anything else wrote, truncated or replaced has other times; a damage SQLite
 * reports while in use removes the stamp, so that the next open checks and rebuilds.
 */
static void stamp_path(const ss_state *st, ss_buf *out)
{
	ss_buf_printf(out, "%s.checked", st->path);
}

static bool stamp_of(const ss_state *st, ss_buf *out)
{
	struct stat sb;
	struct timespec m, c;

	if (stat(st->path, &sb) < 0)
		return false;
	m = ss_platform_mtime(&sb);
	c = ss_platform_ctime(&sb);
	ss_buf_printf(out, "%ju %ju %jd %jd.%09ld %jd.%09ld\n", (uintmax_t)sb.st_dev,
	              (uintmax_t)sb.st_ino, (intmax_t)sb.st_size, (intmax_t)m.tv_sec, m.tv_nsec,
	              (intmax_t)c.tv_sec, c.tv_nsec);
	return true;
}

static bool stamp_matches(const ss_state *st)
{
	ss_buf path = SS_BUF_INIT, want = SS_BUF_INIT, have = SS_BUF_INIT;
	ss_error ignored;
	bool same;

	stamp_path(st, &path);
	same = stamp_of(st, &want) && ss_fs_read_file(&have, path.ptr, 256, &ignored) == 0 &&
	       have.len == want.len && !memcmp(have.ptr, want.ptr, want.len);
	ss_buf_release(&path);
	ss_buf_release(&want);
	ss_buf_release(&have);
	return same;
}

/* Best effort: without the stamp, the next open checks the file again. */
static void stamp_write(const ss_state *st)
{
	ss_buf path = SS_BUF_INIT, v = SS_BUF_INIT;
	int fd;

	stamp_path(st, &path);
	if (stamp_of(st, &v) &&
	    (fd = open(path.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) >=
	        0) {
		if (ss_fs_write_all(fd, v.ptr, v.len) < 0)
			(void)ftruncate(fd, 0);
		close(fd);
	}
	ss_buf_release(&path);
	ss_buf_release(&v);
}

static void stamp_drop(const ss_state *st)
{
	ss_buf path = SS_BUF_INIT;

	stamp_path(st, &path);
	unlink(path.ptr);
	ss_buf_release(&path);
}

/*
 * The one place SQLite's failures become ss_error. Another process holding the database
 * (SQLITE_BUSY past the busy timeout) is SS_ELOCKED; a damaged file names itself.
 */
static int sqlite_fail(ss_state *st, ss_error *err, const char *what, const char *msg)
{
	int rc = st && st->db ? sqlite3_errcode(st->db) & 0xff : SQLITE_NOMEM;
	const char *path = st && st->path ? st->path : "state.db";

	if (!msg)
		msg = rc == SQLITE_NOMEM ? "out of memory" : "unknown";
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return ss_error_set(err, SS_ELOCKED,
		                    "local state '%s' is locked by another process (%s): try again "
		                    "once it is done",
		                    path, what);
	if ((rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) && st && st->path)
		stamp_drop(st);
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		return ss_error_set(err, SS_ERROR,
		                    "local state '%s' is damaged (%s): the next skillsync command "
		                    "rebuilds it",
		                    path, msg);
	if (rc == SQLITE_FULL || rc == SQLITE_IOERR)
		return ss_error_set(err, SS_ERROR, "local state '%s': %s: %s (is the disk full?)",
		                    path, what, msg);
	return ss_error_set(err, SS_ERROR, "local state '%s': %s: %s", path, what, msg);
}

int ss_state__sqlite_error(ss_state *st, ss_error *err, const char *what)
{
	return sqlite_fail(st, err, what, st && st->db ? sqlite3_errmsg(st->db) : NULL);
}

int ss_state__step_done(ss_state *st, sqlite3_stmt *s, const char *what, ss_error *err)
{
	return sqlite3_step(s) == SQLITE_DONE ? 0 : ss_state__sqlite_error(st, err, what);
}

/*
 * A statement that writes, inside a read transaction: refused. The read's end would commit
 * it, and the write lock it needs may wait on the very readers the transaction holds off.
 */
static int refuse_write(ss_state *st, sqlite3_stmt *s, ss_error *err)
{
	if (!st->read_open || sqlite3_stmt_readonly(s))
		return 0;
	return ss_error_set(
	    err, SS_ERROR, "local state '%s': a write inside a read transaction (a bug)", st->path);
}

int ss_state__prepare(ss_state *st, sqlite3_stmt **out, const char *sql, ss_error *err)
{
	*out = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return ss_state__sqlite_error(st, err, "cannot prepare a query");
	if (refuse_write(st, *out, err) < 0) {
		sqlite3_finalize(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A slot for a new cached statement: a free one, else the least recently used one not in
 * use (finalized); SS_STATE_NCACHED when every one is in use. */
static size_t cache_slot(ss_state *st)
{
	size_t lru = SS_STATE_NCACHED;

	if (st->ncached < SS_STATE_NCACHED)
		return st->ncached++;
	for (size_t i = 0; i < st->ncached; i++)
		if (!st->cached[i].in_use &&
		    (lru == SS_STATE_NCACHED || st->cached[i].used < st->cached[lru].used))
			lru = i;
	if (lru < SS_STATE_NCACHED) {
		sqlite3_finalize(st->cached[lru].stmt);
		free(st->cached[lru].sql);
		memset(&st->cached[lru], 0, sizeof(st->cached[lru]));
	}
	return lru;
}

int ss_state__prepare_cached(ss_state *st, sqlite3_stmt **out, const char *sql, ss_error *err)
{
	size_t slot = SS_STATE_NCACHED;
	bool taken = false; /* the same text is in use (a walk's callback runs it again) */

	*out = NULL;
	for (size_t i = 0; i < st->ncached; i++)
		if (st->cached[i].sql && !strcmp(st->cached[i].sql, sql)) {
			taken = st->cached[i].in_use;
			slot = taken ? SS_STATE_NCACHED : i;
			break;
		}
	if (slot == SS_STATE_NCACHED) {
		if (sqlite3_prepare_v3(st->db, sql, -1, taken ? 0 : SQLITE_PREPARE_PERSISTENT, out,
		                       NULL) != SQLITE_OK)
			return ss_state__sqlite_error(st, err, "cannot prepare a query");
		if (!taken && (slot = cache_slot(st)) < SS_STATE_NCACHED) {
			st->cached[slot].sql = ss_xstrdup(sql);
			st->cached[slot].stmt = *out;
		}
	}
	if (slot < SS_STATE_NCACHED) { /* else *out is not cached: ss_state__done finalizes it */
		*out = st->cached[slot].stmt;
		st->cached[slot].in_use = true;
		st->cached[slot].used = ++st->uses;
	}
	if (refuse_write(st, *out, err) < 0) {
		ss_state__done(st, *out);
		*out = NULL;
		return -1;
	}
	return 0;
}

void ss_state__done(ss_state *st, sqlite3_stmt *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < st->ncached; i++)
		if (st->cached[i].stmt == s) {
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			st->cached[i].in_use = false;
			return;
		}
	sqlite3_finalize(s);
}

int ss_state__bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}

void ss_state__free_str(const char *s)
{
	free((void *)(uintptr_t)s);
}

char *ss_state__column_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? ss_xstrdup((const char *)t) : NULL;
}

int ss_state__exec(ss_state *st, ss_error *err, const char *sql, int nparams, const char *p1,
                   const char *p2, const char *p3, const char *p4)
{
	const char *params[4] = {p1, p2, p3, p4};
	sqlite3_stmt *s = NULL;
	int ret;

	if (ss_state__prepare_cached(st, &s, sql, err) < 0)
		return -1;
	for (int i = 0; i < nparams && i < 4; i++)
		ss_state__bind_text(s, i + 1, params[i]);
	ret = ss_state__step_done(st, s, "cannot write", err);
	ss_state__done(st, s);
	return ret;
}

static int exec_script(ss_state *st, const char *sql, ss_error *err)
{
	char *msg = NULL;

	int rc;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		rc = sqlite_fail(st, err, "cannot run a query", msg);
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int migrate(ss_state *st, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_buf sql = SS_BUF_INIT;
	int version, ret = -1;

	if (exec_script(st, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (ss_state__prepare(st, &s, "PRAGMA user_version", err) < 0)
		goto out;
	if (sqlite3_step(s) != SQLITE_ROW) {
		ss_state__sqlite_error(st, err, "cannot read the schema version");
		goto out;
	}
	version = sqlite3_column_int(s, 0);
	if (version < 0 || (size_t)version > NMIGRATIONS) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "local state '%s' was made by a newer skillsync (schema version "
		                   "%d, this one knows up to %zu): upgrade skillsync",
		                   st->path, version, NMIGRATIONS);
		goto out;
	}
	for (size_t i = (size_t)version; i < NMIGRATIONS; i++)
		if (exec_script(st, migrations[i], err) < 0)
			goto out;
	if ((size_t)version < NMIGRATIONS) {
		ss_buf_printf(&sql, "PRAGMA user_version = %zu", NMIGRATIONS);
		if (exec_script(st, sql.ptr, err) < 0)
			goto out;
	}
	ret = exec_script(st, "COMMIT", err);
out:
	sqlite3_finalize(s);
	ss_buf_release(&sql);
	if (ret < 0)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/* Appends to why what makes the file damaged when SQLite's last error says it is. */
static void damage_from_sqlite(const ss_state *st, ss_buf *why)
{
	int rc = st->db ? sqlite3_errcode(st->db) & 0xff : SQLITE_OK;

	if (!why->len && (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB))
		ss_buf_puts(why, sqlite3_errmsg(st->db));
}

/* PRAGMA quick_check: "ok", or its first finding in why (and err). */
static int quick_check(ss_state *st, ss_buf *why, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	const unsigned char *v;
	int ret = 0;

	if (ss_state__prepare(st, &s, "PRAGMA quick_check(1)", err) < 0)
		return -1;
	if (sqlite3_step(s) != SQLITE_ROW) {
		ret = ss_state__sqlite_error(st, err, "cannot check the database");
	} else if ((v = sqlite3_column_text(s, 0)) && strcmp((const char *)v, "ok")) {
		ss_buf_puts(why, (const char *)v);
		ret = ss_error_set(err, SS_ERROR, "local state '%s' is damaged (%s)", st->path,
		                   why->ptr);
	}
	sqlite3_finalize(s);
	return ret;
}

int ss_state__open_db(ss_state *st, bool check, ss_buf *why, ss_error *err)
{
	struct stat sb;
	bool checked;

	if (sqlite3_open_v2(st->path, &st->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
	                    NULL) != SQLITE_OK)
		return ss_error_set(err, SS_ERROR, "cannot open local state '%s': %s", st->path,
		                    st->db ? sqlite3_errmsg(st->db) : "out of memory");
	/* only when needed: a chmod moves the file's ctime, which the check stamp keeps */
	if (stat(st->path, &sb) == 0 && (sb.st_mode & 07777) != 0600)
		chmod(st->path, 0600);
	sqlite3_busy_timeout(st->db, 5000);
	checked = check && stamp_matches(st);
	if ((check && !checked && quick_check(st, why, err) < 0) ||
	    exec_script(st, "PRAGMA foreign_keys = ON", err) < 0 || migrate(st, err) < 0 ||
	    ss_state_reload(st, err) < 0) {
		damage_from_sqlite(st, why);
		return -1;
	}
	/* written when the file passed the check now, or a migration wrote it since */
	if (check && !(checked && stamp_matches(st)))
		stamp_write(st);
	return 0;
}

/* A new struct for <gitdir>/skillsync/state.db (create: its directory created). */
static ss_state *state_new(const char *gitdir, bool create, ss_error *err)
{
	ss_buf dir = SS_BUF_INIT;
	ss_state *st = NULL;

	ss_fs_join(&dir, gitdir, "skillsync");
	if (!create || ss_fs_mkdir_p(dir.ptr, 0700, err) == 0) {
		st = ss_xcalloc(1, sizeof(*st));
		ss_buf_puts(&dir, "/state.db");
		st->path = ss_buf_detach(&dir, NULL);
	}
	ss_buf_release(&dir);
	return st;
}

int ss_state_open(ss_state **out, const char *gitdir, ss_error *err)
{
	ss_state *st = state_new(gitdir, true, err);
	ss_buf why = SS_BUF_INIT;
	int rc;

	if (!st)
		return -1;
	rc = ss_state__open_db(st, false, &why, err);
	ss_buf_release(&why);
	if (rc < 0) {
		ss_state_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

void ss_state_free(ss_state *st)
{
	if (!st)
		return;
	if (st->in_transaction)
		ss_state_rollback(st);
	if (st->read_depth) {
		st->read_depth = 1;
		ss_state_read_end(st);
	}
	for (size_t i = 0; i < st->ncached; i++) {
		sqlite3_finalize(st->cached[i].stmt);
		free(st->cached[i].sql);
	}
	sqlite3_close(st->db);
	ss_state_config__release(st);
	free(st->rebuilt);
	free(st->path);
	free(st);
}

int ss_state_begin(ss_state *st, ss_error *err)
{
	if (st->in_transaction)
		return ss_error_set(err, SS_ERROR, "local state: a transaction is already open");
	if (st->read_open)
		return ss_error_set(err, SS_ERROR,
		                    "local state: a read transaction is open (a bug: writes come "
		                    "after its end)");
	if (exec_script(st, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	st->in_transaction = true;
	return 0;
}

int ss_state_commit(ss_state *st, ss_error *err)
{
	if (!st->in_transaction)
		return ss_error_set(err, SS_ERROR, "local state: no transaction to commit");
	if ((st->mirror_dirty && ss_state_mirror__write(st, err) < 0) ||
	    exec_script(st, "COMMIT", err) < 0)
		return -1;
	st->in_transaction = false;
	stamp_write(st); /* what skillsync itself committed needs no check */
	return 0;
}

void ss_state_rollback(ss_state *st)
{
	ss_error ignored; /* on failure the cache keeps what it had */

	if (!st || !st->in_transaction)
		return;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->in_transaction = false;
	st->mirror_dirty = false;
	ss_state_reload(st, &ignored); /* the cached values as the table has them again */
}

int ss_state_read_begin(ss_state *st, ss_error *err)
{
	if (!st->read_depth && !st->in_transaction) {
		/* DEFERRED: no lock until the first read, and only a shared one */
		if (exec_script(st, "BEGIN DEFERRED", err) < 0)
			return -1;
		st->read_open = true;
	}
	st->read_depth++;
	return 0;
}

void ss_state_read_end(ss_state *st)
{
	if (!st || !st->read_depth || --st->read_depth || !st->read_open)
		return;
	/* Nothing was written (refuse_write): COMMIT only lets go of the shared lock; should it
	 * fail, ROLLBACK does the same, so that no transaction is left open. */
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->read_open = false;
}

int ss_state__try_open(ss_state **out, const char *gitdir, ss_buf *why, ss_error *err)
{
	ss_state *st;
	struct stat sb;
	int rc;

	if (!(st = state_new(gitdir, false, err)))
		return -1;
	if (lstat(st->path, &sb) < 0) {
		rc = ss_error_set(err, SS_ENOTFOUND, "no local state '%s'", st->path);
	} else if (S_ISREG(sb.st_mode) && sb.st_size == 0) { /* SQLite would take it as new */
		ss_buf_puts(why, "an empty file");
		rc = ss_error_set(err, SS_ERROR, "local state '%s' is an empty file", st->path);
	} else {
		rc = ss_state__open_db(st, true, why, err);
	}
	if (rc == 0 && ss_state_mirror__write_missing(st, err) < 0) /* a clone from before it */
		rc = -1;
	if (rc == 0)
		*out = st;
	else
		ss_state_free(st);
	return rc;
}

int ss_state_open_existing(ss_state **out, const char *gitdir, ss_error *err)
{
	ss_buf why = SS_BUF_INIT;
	int rc = ss_state__try_open(out, gitdir, &why, err);

	if (rc < 0 && why.len)
		rc = ss_state__rebuild(out, gitdir, why.ptr, err);
	ss_buf_release(&why);
	return rc;
}

const char *ss_state_rebuilt(const ss_state *st)
{
	return st->rebuilt;
}
