/* state_floor.c: each member's highest verified revision (see core/state/state_floor.h). */
#include "core/state/state_floor.h"

#include <string.h>

#include "core/state/state_priv.h"

/*
 * Schema version 6: one row per member. A permissioned space's clone made by an earlier build
 * starts from the revisions of the set hashes it verified (space_writers); a public clone's
 * floors come from its node caches, the verified commits, at its first read (config
 * "floor_seed", see sync/public/space_public.c). members.rev, which the servers' answers set, is
 * never taken.
 */
const char ss_state_floor_schema[] =
    "CREATE TABLE floors (did TEXT PRIMARY KEY, rev TEXT NOT NULL, commit_id TEXT);"
    "INSERT INTO floors (did, rev) SELECT did, rev FROM space_writers WHERE rev <> '';"
    "INSERT OR REPLACE INTO config (key, value) VALUES ('floor_seed', 'node-cache');";

void ss_state_floor_release(ss_state_floor *f)
{
	if (!f)
		return;
	ss_state__free_str(f->rev);
	ss_state__free_str(f->commit);
	memset(f, 0, sizeof(*f));
}

int ss_state_floor_get(ss_state *st, const char *did, ss_state_floor *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if (ss_state__prepare(st, &s, "SELECT rev, commit_id FROM floors WHERE did = ?1", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, did);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->rev = ss_state__column_dup(s, 0);
		out->commit = ss_state__column_dup(s, 1);
	} else if (rc != SQLITE_DONE) {
		ret = ss_state__sqlite_error(st, err, "cannot read a member's verified revision");
	}
	sqlite3_finalize(s);
	return ret;
}

int ss_state_floor_raise(ss_state *st, const char *did, const char *rev, const char *commit,
                         ss_error *err)
{
	return ss_state__exec(
	    st, err,
	    "INSERT INTO floors (did, rev, commit_id) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (did) DO UPDATE SET rev = ?2, commit_id = ?3"
	    " WHERE ?2 > floors.rev OR (?2 = floors.rev AND floors.commit_id IS NULL)",
	    3, did, rev, commit, NULL);
}

int ss_state_floor_drop(ss_state *st, const char *did, ss_error *err)
{
	return ss_state__exec(st, err, "DELETE FROM floors WHERE did = ?1", 1, did, NULL, NULL,
	                      NULL);
}

int ss_state_floor_check(const ss_state_floor *f, const char *rev, const char *commit,
                         ss_error *err)
{
	int c;

	if (!f || !f->rev)
		return SS_FLOOR_NEWER;
	c = strcmp(rev, f->rev);
	if (c > 0)
		return SS_FLOOR_NEWER;
	if (c < 0)
		return ss_error_set(
		    err, SS_EINVALID,
		    "its commit at rev %s is older than the verified revision %s (a "
		    "replayed older commit)",
		    rev, f->rev);
	if (!f->commit || !commit || !strcmp(commit, f->commit))
		return SS_FLOOR_SAME;
	return ss_error_set(err, SS_EINVALID,
	                    "its commit %s at rev %s is not the one verified at that revision (%s)",
	                    commit, rev, f->commit);
}
