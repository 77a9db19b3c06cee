/* state_space.c: each space writer's verified set hash (see core/state/state_space.h). */
#include "core/state/state_space.h"

#include <string.h>

#include "core/state/state_priv.h"

/* Schema version 4: one row per writer of a permissioned space (its key column went to the
 * identity cache in version 5: core/state/state_ident.c). */
const char ss_state_space_schema[] = "CREATE TABLE space_writers ("
                                     " did TEXT PRIMARY KEY, rev TEXT NOT NULL,"
                                     " lthash BLOB NOT NULL, key TEXT);";

int ss_state_space_writer_get(ss_state *st, const char *did, char **rev, ss_lthash *h,
                              ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = -1;

	*rev = NULL;
	if (ss_state__prepare(st, &s, "SELECT rev, lthash FROM space_writers WHERE did = ?1", err) <
	    0)
		return -1;
	ss_state__bind_text(s, 1, did);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_bytes(s, 1) != SS_LTHASH_LEN) {
			ret = ss_error_set(err, SS_ENOTFOUND,
			                   "local state: the set hash of '%s' has the wrong size",
			                   did);
		} else {
			memcpy(h->state, sqlite3_column_blob(s, 1), SS_LTHASH_LEN);
			*rev = ss_state__column_dup(s, 0);
			ret = 0;
		}
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "local state has no set hash for '%s'", did);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read a writer's set hash");
	}
	sqlite3_finalize(s);
	return ret;
}

int ss_state_space_writer_put(ss_state *st, const char *did, const char *rev, const ss_lthash *h,
                              ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (ss_state__prepare(st, &s,
	                      "INSERT INTO space_writers (did, rev, lthash) VALUES (?1, ?2, ?3) "
	                      "ON CONFLICT (did) DO UPDATE SET rev = ?2, lthash = ?3",
	                      err) < 0)
		return -1;
	ss_state__bind_text(s, 1, did);
	ss_state__bind_text(s, 2, rev);
	sqlite3_bind_blob(s, 3, h->state, SS_LTHASH_LEN, SQLITE_STATIC);
	ret = ss_state__step_done(st, s, "cannot keep a writer's set hash", err);
	sqlite3_finalize(s);
	return ret;
}

int ss_state_space_writer_drop(ss_state *st, const char *did, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM space_writers WHERE did = ?1", 1, did, NULL,
	                      NULL, NULL);
}
