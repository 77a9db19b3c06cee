/* state_ident.c: the identity cache's table (see core/state/state_ident.h). */
#include "core/state/state_ident.h"

#include <string.h>

#include "core/state/state_priv.h"

/*
 * Schema version 5: one identity cache for both transports. The author keys space_writers
 * kept (version 4) move here, read long ago (resolved_at 0): the next use reads the DID
 * document again, and a key found changed keeps the moved one as the previous key. The space
 * host the config kept ("space_host") is the cache's too now: found again at the next read.
 */
const char ss_state_ident_schema[] =
    "CREATE TABLE identities ("
    " did TEXT PRIMARY KEY, handle TEXT, pds TEXT, space_host TEXT, key TEXT, prev_key TEXT,"
    " resolved_at INTEGER NOT NULL DEFAULT 0);"
    "INSERT INTO identities (did, key) SELECT did, key FROM space_writers"
    " WHERE key IS NOT NULL;"
    "ALTER TABLE space_writers DROP COLUMN key;"
    "DELETE FROM config WHERE key = 'space_host';";

void ss_state_ident_release(ss_state_ident *id)
{
	if (!id)
		return;
	ss_state__free_str(id->did);
	ss_state__free_str(id->handle);
	ss_state__free_str(id->pds);
	ss_state__free_str(id->space_host);
	ss_state__free_str(id->key);
	ss_state__free_str(id->prev_key);
	memset(id, 0, sizeof(*id));
}

int ss_state_ident_get(ss_state *st, const char *did, ss_state_ident *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if (ss_state__prepare(st, &s,
	                      "SELECT did, handle, pds, space_host, key, prev_key, resolved_at"
	                      " FROM identities WHERE did = ?1",
	                      err) < 0)
		return -1;
	ss_state__bind_text(s, 1, did);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->did = ss_state__column_dup(s, 0);
		out->handle = ss_state__column_dup(s, 1);
		out->pds = ss_state__column_dup(s, 2);
		out->space_host = ss_state__column_dup(s, 3);
		out->key = ss_state__column_dup(s, 4);
		out->prev_key = ss_state__column_dup(s, 5);
		out->resolved_at = sqlite3_column_int64(s, 6);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "local state has no identity for '%s'", did);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read an identity");
	}
	sqlite3_finalize(s);
	return ret;
}

int ss_state_ident_put(ss_state *st, const ss_state_ident *id, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (ss_state__prepare(st, &s,
	                      "INSERT OR REPLACE INTO identities"
	                      " (did, handle, pds, space_host, key, prev_key, resolved_at)"
	                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	                      err) < 0)
		return -1;
	ss_state__bind_text(s, 1, id->did);
	ss_state__bind_text(s, 2, id->handle);
	ss_state__bind_text(s, 3, id->pds);
	ss_state__bind_text(s, 4, id->space_host);
	ss_state__bind_text(s, 5, id->key);
	ss_state__bind_text(s, 6, id->prev_key);
	sqlite3_bind_int64(s, 7, id->resolved_at);
	ret = ss_state__step_done(st, s, "cannot keep an identity", err);
	sqlite3_finalize(s);
	return ret;
}
