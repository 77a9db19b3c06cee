/* state_record.c: fetched record versions and the view table of the local state. */
#include "core/state/state_record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/state/state_priv.h"
#include "core/util/mem.h"

#define RECORD_COLUMNS                                                                             \
	"did, rkey, cid, created_at, updated_at, updated_us, valid, reason, tree, note"

void ss_state_record_release(ss_state_record *r)
{
	if (!r)
		return;
	ss_state__free_str(r->did);
	ss_state__free_str(r->rkey);
	ss_state__free_str(r->cid);
	ss_state__free_str(r->created_at);
	ss_state__free_str(r->updated_at);
	ss_state__free_str(r->reason);
	ss_state__free_str(r->tree);
	ss_state__free_str(r->note);
	memset(r, 0, sizeof(*r));
}

/* Column text lent to a callback. */
static const char *col(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

/* Fills r with borrowed pointers into the row (valid until the next step). */
static void record_borrow_row(sqlite3_stmt *s, ss_state_record *r)
{
	r->did = col(s, 0);
	r->rkey = col(s, 1);
	r->cid = col(s, 2);
	r->created_at = col(s, 3);
	r->updated_at = col(s, 4);
	r->updated_us = sqlite3_column_int64(s, 5);
	r->valid = sqlite3_column_int(s, 6) != 0;
	r->reason = col(s, 7);
	r->tree = col(s, 8);
	r->note = col(s, 9);
}

static char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

int ss_state_record_get(ss_state *st, const char *did, const char *rkey, ss_state_record *out,
                        ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_state_record b;
	int rc, ret;

	if (ss_state__prepare_cached(
	        st, &s, "SELECT " RECORD_COLUMNS " FROM records WHERE did = ?1 AND rkey = ?2",
	        err) < 0)
		return -1;
	ss_state__bind_text(s, 1, did);
	ss_state__bind_text(s, 2, rkey);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		record_borrow_row(s, &b);
		out->did = dup_or_null(b.did);
		out->rkey = dup_or_null(b.rkey);
		out->cid = dup_or_null(b.cid);
		out->created_at = dup_or_null(b.created_at);
		out->updated_at = dup_or_null(b.updated_at);
		out->updated_us = b.updated_us;
		out->valid = b.valid;
		out->reason = dup_or_null(b.reason);
		out->tree = dup_or_null(b.tree);
		out->note = dup_or_null(b.note);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "no record '%s' by '%s' in the local state",
		                   rkey, did);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read records");
	}
	ss_state__done(st, s);
	return ret;
}

int ss_state_record_put(ss_state *st, const ss_state_record *r, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret = 0;

	if (ss_state__prepare_cached(st, &s,
	                             "INSERT OR REPLACE INTO records (" RECORD_COLUMNS ", sweep)"
	                             " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1)",
	                             err) < 0)
		return -1;
	ss_state__bind_text(s, 1, r->did);
	ss_state__bind_text(s, 2, r->rkey);
	ss_state__bind_text(s, 3, r->cid);
	ss_state__bind_text(s, 4, r->created_at);
	ss_state__bind_text(s, 5, r->updated_at);
	sqlite3_bind_int64(s, 6, r->updated_us);
	sqlite3_bind_int(s, 7, r->valid ? 1 : 0);
	ss_state__bind_text(s, 8, r->valid ? NULL : r->reason);
	ss_state__bind_text(s, 9, r->valid ? r->tree : NULL);
	ss_state__bind_text(s, 10, r->note);
	ret = ss_state__step_done(st, s, "cannot save a record", err);
	ss_state__done(st, s);
	return ret;
}

int ss_state_record_delete(ss_state *st, const char *did, const char *rkey, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM records WHERE did = ?1 AND rkey = ?2", 2, did,
	                      rkey, NULL, NULL);
}

int ss_state_sweep_begin(ss_state *st, const char *did, ss_error *err)
{
	return ss_state__exec(st, err, "UPDATE records SET sweep = 0 WHERE did = ?1", 1, did, NULL,
	                      NULL, NULL);
}

int ss_state_record_touch(ss_state *st, const char *did, const char *rkey, ss_error *err)
{
	return ss_state__exec(st, err, "UPDATE records SET sweep = 1 WHERE did = ?1 AND rkey = ?2",
	                      2, did, rkey, NULL, NULL);
}

int ss_state_sweep_end(ss_state *st, const char *did, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM records WHERE did = ?1 AND sweep = 0", 1, did,
	                      NULL, NULL, NULL);
}

int ss_state_records_each(ss_state *st, const char *rkey, ss_state_record_fn fn, void *payload,
                          ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_state_record r;
	int rc, ret = 0;

	if (ss_state__prepare_cached(
	        st, &s,
	        rkey ? "SELECT " RECORD_COLUMNS " FROM records WHERE rkey = ?1 ORDER BY rkey, did"
	             : "SELECT " RECORD_COLUMNS " FROM records ORDER BY rkey, did",
	        err) < 0)
		return -1;
	if (rkey)
		ss_state__bind_text(s, 1, rkey);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		record_borrow_row(s, &r);
		ret = fn(&r, payload);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = ss_state__sqlite_error(st, err, "cannot read records");
out:
	ss_state__done(st, s);
	return ret;
}

void ss_state_view_entry_release(ss_state_view_entry *e)
{
	if (!e)
		return;
	ss_state__free_str(e->rkey);
	ss_state__free_str(e->did);
	ss_state__free_str(e->cid);
	ss_state__free_str(e->tree);
	memset(e, 0, sizeof(*e));
}

int ss_state_view_clear(ss_state *st, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM view", 0, NULL, NULL, NULL, NULL);
}

int ss_state_view_put(ss_state *st, const ss_state_view_entry *e, ss_error *err)
{
	return ss_state__exec(st, err,
	                      "INSERT OR REPLACE INTO view (rkey, did, cid, tree)"
	                      " VALUES (?1, ?2, ?3, ?4)",
	                      4, e->rkey, e->did, e->cid, e->tree);
}

int ss_state_view_remove(ss_state *st, const char *rkey, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM view WHERE rkey = ?1", 1, rkey, NULL, NULL,
	                      NULL);
}

int ss_state_view_get(ss_state *st, const char *rkey, ss_state_view_entry *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	if (ss_state__prepare_cached(
	        st, &s, "SELECT rkey, did, cid, tree FROM view WHERE rkey = ?1", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, rkey);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		out->rkey = ss_state__column_dup(s, 0);
		out->did = ss_state__column_dup(s, 1);
		out->cid = ss_state__column_dup(s, 2);
		out->tree = ss_state__column_dup(s, 3);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "skill '%s' is not in the view", rkey);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read the view");
	}
	ss_state__done(st, s);
	return ret;
}

int ss_state_view_each(ss_state *st, ss_state_view_fn fn, void *payload, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_state_view_entry e;
	int rc, ret = 0;

	if (ss_state__prepare(st, &s, "SELECT rkey, did, cid, tree FROM view ORDER BY rkey", err) <
	    0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		e.rkey = col(s, 0);
		e.did = col(s, 1);
		e.cid = col(s, 2);
		e.tree = col(s, 3);
		ret = fn(&e, payload);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = ss_state__sqlite_error(st, err, "cannot read the view");
out:
	sqlite3_finalize(s);
	return ret;
}
