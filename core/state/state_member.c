/* state_member.c: the members table of the local state. */
#include "core/state/state_member.h"

#include <stdlib.h>
#include <string.h>

#include "core/state/state_priv.h"
#include "core/util/mem.h"

void ss_state_member_release(ss_state_member *m)
{
	if (!m)
		return;
	ss_state__free_str(m->did);
	ss_state__free_str(m->handle);
	ss_state__free_str(m->pds);
	ss_state__free_str(m->commit);
	ss_state__free_str(m->rev);
	memset(m, 0, sizeof(*m));
}

int ss_state_member_put(ss_state *st, const ss_state_member *m, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret = 0;

	if (ss_state__prepare(
	        st, &s,
	        "INSERT OR REPLACE INTO members (did, handle, pds, commit_cid, rev, role)"
	        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	        err) < 0)
		return -1;
	ss_state__bind_text(s, 1, m->did);
	ss_state__bind_text(s, 2, m->handle);
	ss_state__bind_text(s, 3, m->pds);
	ss_state__bind_text(s, 4, m->commit);
	ss_state__bind_text(s, 5, m->rev);
	sqlite3_bind_int(s, 6, (int)m->role);
	ret = ss_state__step_done(st, s, "cannot save a member", err);
	sqlite3_finalize(s);
	return ret < 0 ? ret : ss_state_mirror__changed(st, err);
}

#define MEMBER_SELECT "SELECT did, handle, pds, commit_cid, rev, role FROM members"

static void member_from_row(sqlite3_stmt *s, ss_state_member *m)
{
	m->did = ss_state__column_dup(s, 0);
	m->handle = ss_state__column_dup(s, 1);
	m->pds = ss_state__column_dup(s, 2);
	m->commit = ss_state__column_dup(s, 3);
	m->rev = ss_state__column_dup(s, 4);
	m->role = (ss_state_role)sqlite3_column_int(s, 5);
}

int ss_state_member_get(ss_state *st, const char *did, ss_state_member *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	if (ss_state__prepare_cached(st, &s, MEMBER_SELECT " WHERE did = ?1", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, did);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		member_from_row(s, out);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "'%s' is not a member of this space", did);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read members");
	}
	ss_state__done(st, s);
	return ret;
}

int ss_state_member_remove(ss_state *st, const char *did, ss_error *err)
{
	if (ss_state__exec(st, err, "DELETE FROM records WHERE did = ?1", 1, did, NULL, NULL,
	                   NULL) < 0)
		return -1;
	if (ss_state__exec(st, err, "DELETE FROM members WHERE did = ?1", 1, did, NULL, NULL,
	                   NULL) < 0 ||
	    ss_state__exec(st, err, "DELETE FROM floors WHERE did = ?1", 1, did, NULL, NULL, NULL) <
	        0)
		return -1;
	return ss_state_mirror__changed(st, err);
}

int ss_state_member_set_head(ss_state *st, const char *did, const char *commit, const char *rev,
                             ss_error *err)
{
	return ss_state__exec(st, err,
	                      "UPDATE members SET commit_cid = ?2, rev = ?3 WHERE did = ?1", 3, did,
	                      commit, rev, NULL);
}

int ss_state_members_list(ss_state *st, ss_state_member **out, size_t *n, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	ss_state_member *list = NULL;
	size_t count = 0, alloc = 0;
	int rc;

	if (ss_state__prepare(st, &s, MEMBER_SELECT " ORDER BY did", err) < 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ss_xgrow((void **)&list, sizeof(*list), count + 1, &alloc);
		memset(&list[count], 0, sizeof(*list));
		member_from_row(s, &list[count++]);
	}
	if (rc != SQLITE_DONE) {
		ss_state__sqlite_error(st, err, "cannot read members");
		sqlite3_finalize(s);
		ss_state_members_free(list, count);
		return SS_ERROR;
	}
	sqlite3_finalize(s);
	*out = list;
	*n = count;
	return 0;
}

void ss_state_members_free(ss_state_member *members, size_t n)
{
	for (size_t i = 0; members && i < n; i++)
		ss_state_member_release(&members[i]);
	free(members);
}
