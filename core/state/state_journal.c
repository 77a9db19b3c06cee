/* state_journal.c: the push journal (see core/state/state_journal.h). */
#include "core/state/state_journal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/state/state_priv.h"
#include "core/util/mem.h"

/* Schema: the migration core/state/state.c runs (see its list). */
const char ss_state_journal_schema[] =
    "CREATE TABLE push_journal ("
    " id INTEGER PRIMARY KEY CHECK (id = 1), base_commit TEXT, base_tracking TEXT NOT NULL,"
    " head TEXT NOT NULL, push_time TEXT NOT NULL, nbatches INTEGER NOT NULL,"
    " sent INTEGER NOT NULL DEFAULT 0, landed INTEGER NOT NULL DEFAULT 0,"
    " commit_cid TEXT, rev TEXT);"
    "CREATE TABLE push_journal_writes ("
    " seq INTEGER PRIMARY KEY, batch INTEGER NOT NULL, op INTEGER NOT NULL,"
    " rkey TEXT NOT NULL, swap_cid TEXT, created_at TEXT, tree TEXT, note TEXT, cid TEXT);";

/* Schema version 3: the notes of writes an interrupted push did not land (see the header). */
const char ss_state_journal_notes_schema[] =
    "CREATE TABLE push_notes ("
    " rkey TEXT NOT NULL, tree TEXT NOT NULL, note TEXT NOT NULL, PRIMARY KEY (rkey, tree));";

void ss_state_journal_release(ss_journal *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nwrites; i++) {
		ss_journal_write *w = &j->writes[i];
		ss_state__free_str(w->rkey);
		ss_state__free_str(w->swap_cid);
		ss_state__free_str(w->created_at);
		ss_state__free_str(w->tree);
		ss_state__free_str(w->note);
		ss_state__free_str(w->cid);
	}
	free(j->writes);
	ss_state__free_str(j->base_commit);
	ss_state__free_str(j->base_tracking);
	ss_state__free_str(j->head);
	ss_state__free_str(j->push_time);
	ss_state__free_str(j->commit);
	ss_state__free_str(j->rev);
	memset(j, 0, sizeof(*j));
}

static int journal_exists(ss_state *st, bool *exists, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (ss_state__prepare(st, &s, "SELECT 1 FROM push_journal", err) < 0)
		return -1;
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ss_state__sqlite_error(st, err, "cannot read the push journal");
	*exists = rc == SQLITE_ROW;
	return 0;
}

int ss_state_journal_begin(ss_state *st, const ss_journal *j, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	bool exists = false;
	int ret = -1;

	if (journal_exists(st, &exists, err) < 0)
		return -1;
	if (exists)
		return ss_error_set(err, SS_EEXISTS, "an interrupted push is still in the journal");
	if (ss_state__prepare(st, &s,
	                      "INSERT INTO push_journal (id, base_commit, base_tracking, head,"
	                      " push_time, nbatches) VALUES (1, ?1, ?2, ?3, ?4, ?5)",
	                      err) < 0)
		return -1;
	ss_state__bind_text(s, 1, j->base_commit);
	ss_state__bind_text(s, 2, j->base_tracking);
	ss_state__bind_text(s, 3, j->head);
	ss_state__bind_text(s, 4, j->push_time);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)j->nbatches);
	if (ss_state__step_done(st, s, "cannot write the push journal", err) < 0)
		goto out;
	sqlite3_finalize(s);
	if (ss_state__prepare(st, &s,
	                      "INSERT INTO push_journal_writes (seq, batch, op, rkey, swap_cid,"
	                      " created_at, tree, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                      err) < 0)
		goto out;
	for (size_t i = 0; i < j->nwrites; i++) {
		const ss_journal_write *w = &j->writes[i];

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)w->batch);
		sqlite3_bind_int(s, 3, (int)w->op);
		ss_state__bind_text(s, 4, w->rkey);
		ss_state__bind_text(s, 5, w->swap_cid);
		ss_state__bind_text(s, 6, w->created_at);
		ss_state__bind_text(s, 7, w->tree);
		ss_state__bind_text(s, 8, w->note);
		if (ss_state__step_done(st, s, "cannot write the push journal", err) < 0)
			goto out;
	}
	/* a kept note this push does not send as is (same name, same tree) is superseded */
	ret = ss_state__exec(st, err,
	                     "DELETE FROM push_notes WHERE NOT EXISTS (SELECT 1 FROM"
	                     " push_journal_writes w WHERE w.rkey = push_notes.rkey"
	                     " AND w.tree = push_notes.tree)",
	                     0, NULL, NULL, NULL, NULL);
out:
	sqlite3_finalize(s);
	return ret;
}

static int read_writes(ss_state *st, ss_journal *j, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	size_t alloc = 0;
	int rc;

	if (ss_state__prepare(st, &s,
	                      "SELECT batch, op, rkey, swap_cid, created_at, tree, note, cid"
	                      " FROM push_journal_writes ORDER BY seq",
	                      err) < 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ss_journal_write *w;

		ss_xgrow((void **)&j->writes, sizeof(*j->writes), j->nwrites + 1, &alloc);
		w = &j->writes[j->nwrites++];
		w->batch = (size_t)sqlite3_column_int64(s, 0);
		w->op = (ss_write_op)sqlite3_column_int(s, 1);
		w->rkey = ss_state__column_dup(s, 2);
		w->swap_cid = ss_state__column_dup(s, 3);
		w->created_at = ss_state__column_dup(s, 4);
		w->tree = ss_state__column_dup(s, 5);
		w->note = ss_state__column_dup(s, 6);
		w->cid = ss_state__column_dup(s, 7);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return ss_state__sqlite_error(st, err, "cannot read the push journal");
	return 0;
}

int ss_state_journal_get(ss_state *st, ss_journal *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_journal j;
	int rc, ret = -1;

	memset(&j, 0, sizeof(j));
	if (ss_state__prepare(st, &s,
	                      "SELECT base_commit, base_tracking, head, push_time, nbatches, sent,"
	                      " landed, commit_cid, rev FROM push_journal WHERE id = 1",
	                      err) < 0)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "no push journal");
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ss_state__sqlite_error(st, err, "cannot read the push journal");
		goto out;
	}
	j.base_commit = ss_state__column_dup(s, 0);
	j.base_tracking = ss_state__column_dup(s, 1);
	j.head = ss_state__column_dup(s, 2);
	j.push_time = ss_state__column_dup(s, 3);
	j.nbatches = (size_t)sqlite3_column_int64(s, 4);
	j.sent = (size_t)sqlite3_column_int64(s, 5);
	j.landed = (size_t)sqlite3_column_int64(s, 6);
	j.commit = ss_state__column_dup(s, 7);
	j.rev = ss_state__column_dup(s, 8);
	if (read_writes(st, &j, err) < 0)
		goto out;
	*out = j;
	memset(&j, 0, sizeof(j));
	ret = 0;
out:
	sqlite3_finalize(s);
	ss_state_journal_release(&j);
	return ret;
}

int ss_state_journal_sending(ss_state *st, size_t batch, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret = 0;

	if (ss_state__prepare(st, &s, "UPDATE push_journal SET sent = ?1 WHERE id = 1", err) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)batch + 1);
	ret = ss_state__step_done(st, s, "cannot write the push journal", err);
	sqlite3_finalize(s);
	return ret;
}

int ss_state_journal_landed(ss_state *st, size_t batch, char *const *cids, size_t ncids,
                            const char *commit, const char *rev, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (ss_state__prepare(st, &s,
	                      "UPDATE push_journal_writes SET cid = ?1 WHERE seq = (SELECT seq"
	                      " FROM push_journal_writes WHERE batch = ?2 ORDER BY seq"
	                      " LIMIT 1 OFFSET ?3)",
	                      err) < 0)
		return -1;
	for (size_t i = 0; i < ncids; i++) {
		sqlite3_reset(s);
		ss_state__bind_text(s, 1, cids[i]);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)batch);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)i);
		if (ss_state__step_done(st, s, "cannot write the push journal", err) < 0)
			goto out;
	}
	sqlite3_finalize(s);
	if (ss_state__prepare(st, &s,
	                      "UPDATE push_journal SET landed = ?1, commit_cid = ?2, rev = ?3"
	                      " WHERE id = 1",
	                      err) < 0)
		goto out;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)batch + 1);
	ss_state__bind_text(s, 2, commit);
	ss_state__bind_text(s, 3, rev);
	if (ss_state__step_done(st, s, "cannot write the push journal", err) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int ss_state_journal_clear(ss_state *st, ss_error *err)
{
	if (ss_state__exec(st, err, "DELETE FROM push_journal_writes", 0, NULL, NULL, NULL, NULL) <
	    0)
		return -1;
	return ss_state__exec(st, err, "DELETE FROM push_journal", 0, NULL, NULL, NULL, NULL);
}

int ss_state_journal_keep_note(ss_state *st, const ss_journal_write *w, ss_error *err)
{
	if (w->op == SS_WRITE_DELETE || !w->tree || !w->note)
		return 0;
	return ss_state__exec(
	    st, err, "INSERT OR REPLACE INTO push_notes (rkey, tree, note) VALUES (?1, ?2, ?3)", 3,
	    w->rkey, w->tree, w->note, NULL);
}

int ss_state_journal_kept_note(ss_state *st, const char *rkey, const char *tree, char **note,
                               ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	*note = NULL;
	if (ss_state__prepare_cached(
	        st, &s, "SELECT note FROM push_notes WHERE rkey = ?1 AND tree = ?2", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, rkey);
	ss_state__bind_text(s, 2, tree);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*note = ss_state__column_dup(s, 0);
	else if (rc == SQLITE_DONE)
		ret = ss_error_set(err, SS_ENOTFOUND, "no kept note for '%s'", rkey);
	else
		ret = ss_state__sqlite_error(st, err, "cannot read the push journal");
	ss_state__done(st, s);
	return ret;
}

int ss_state_journal_drop_note(ss_state *st, const char *rkey, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM push_notes WHERE rkey = ?1", 1, rkey, NULL,
	                      NULL, NULL);
}
