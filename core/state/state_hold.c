/* state_hold.c: the changes held for review and the pinned skills (see
 * core/state/state_hold.h). */
#include "core/state/state_hold.h"

#include <stdlib.h>
#include <string.h>

#include "core/state/state_priv.h"
#include "core/util/mem.h"

/* Schema version 7. */
const char ss_state_hold_schema[] =
    "CREATE TABLE holds (name TEXT PRIMARY KEY, did TEXT, cid TEXT, view_tree TEXT,"
    " kept_tree TEXT, reason TEXT NOT NULL, updated_at TEXT,"
    " rejected INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE pins (name TEXT PRIMARY KEY);";

/* Schema version 8: what review showed of each hold, whether the last pull replaced it, the
 * gate's facts per pair of versions, and review.trust by DID alone: each handle of the list
 * that names a member becomes that member's DID (one the state does not know stays, and
 * reading the setting then says to set it again). */
const char ss_state_hold_seen_schema[] =
    "ALTER TABLE holds ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE holds ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE gate_facts (kept_tree TEXT NOT NULL, view_tree TEXT NOT NULL,"
    " rules TEXT NOT NULL, facts TEXT NOT NULL, PRIMARY KEY (kept_tree, view_tree, rules));"
    "WITH RECURSIVE split (i, word, rest) AS ("
    " SELECT 0, NULL, value || ',' FROM config WHERE key = 'setting.review.trust'"
    " UNION ALL SELECT i + 1, substr(rest, 1, instr(rest, ',') - 1),"
    " substr(rest, instr(rest, ',') + 1) FROM split WHERE rest <> '')"
    " UPDATE config SET value = (SELECT group_concat(coalesce((SELECT did FROM members"
    " WHERE lower(handle) = lower(word) AND word NOT LIKE 'did:%' LIMIT 1), word), ',')"
    " FROM (SELECT word FROM split WHERE i > 0 ORDER BY i))"
    " WHERE key = 'setting.review.trust';";

#define HOLD_COLUMNS                                                                               \
	"name, did, cid, view_tree, kept_tree, reason, updated_at, rejected, seen, replaced"

void ss_state_hold_release(ss_state_hold *h)
{
	if (!h)
		return;
	ss_state__free_str(h->name);
	ss_state__free_str(h->did);
	ss_state__free_str(h->cid);
	ss_state__free_str(h->view_tree);
	ss_state__free_str(h->kept_tree);
	ss_state__free_str(h->reason);
	ss_state__free_str(h->updated_at);
	memset(h, 0, sizeof(*h));
}

static const char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

void ss_state_hold_copy(ss_state_hold *out, const ss_state_hold *h)
{
	out->name = dup_or_null(h->name);
	out->did = dup_or_null(h->did);
	out->cid = dup_or_null(h->cid);
	out->view_tree = dup_or_null(h->view_tree);
	out->kept_tree = dup_or_null(h->kept_tree);
	out->reason = dup_or_null(h->reason);
	out->updated_at = dup_or_null(h->updated_at);
	out->rejected = h->rejected;
	out->seen = h->seen;
	out->replaced = h->replaced;
}

/* The mirror follows every change (written with the transaction's commit). */
static int changed(ss_state *st, int ret, ss_error *err)
{
	return ret < 0 ? ret : ss_state_mirror__changed(st, err);
}

static int put(ss_state *st, const ss_state_hold *h, bool keep_rejected, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (ss_state__prepare(
	        st, &s,
	        "INSERT INTO holds (" HOLD_COLUMNS ")"
	        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11)"
	        " ON CONFLICT (name) DO UPDATE SET did = ?2, cid = ?3, view_tree = ?4,"
	        " kept_tree = ?5, reason = ?6, updated_at = ?7,"
	        " rejected = CASE WHEN ?9 AND holds.cid IS ?3 THEN holds.rejected ELSE ?8 END,"
	        " seen = CASE WHEN NOT ?9 THEN ?10"
	        " WHEN holds.view_tree IS ?4 AND holds.cid IS ?3 THEN holds.seen"
	        " WHEN holds.seen > 0 THEN 2 ELSE 0 END,"
	        " replaced = ?11",
	        err) < 0)
		return -1;
	ss_state__bind_text(s, 1, h->name);
	ss_state__bind_text(s, 2, h->did);
	ss_state__bind_text(s, 3, h->cid);
	ss_state__bind_text(s, 4, h->view_tree);
	ss_state__bind_text(s, 5, h->kept_tree);
	ss_state__bind_text(s, 6, h->reason ? h->reason : "");
	ss_state__bind_text(s, 7, h->updated_at);
	sqlite3_bind_int(s, 8, keep_rejected ? 0 : h->rejected);
	sqlite3_bind_int(s, 9, keep_rejected);
	sqlite3_bind_int(s, 10, keep_rejected ? SS_SEEN_NEVER : (int)h->seen);
	sqlite3_bind_int(s, 11, h->replaced);
	ret = ss_state__step_done(st, s, "cannot record a held change", err);
	sqlite3_finalize(s);
	return changed(st, ret, err);
}

int ss_state_hold_put(ss_state *st, const ss_state_hold *h, ss_error *err)
{
	return put(st, h, true, err);
}

static void read_row(sqlite3_stmt *s, ss_state_hold *h)
{
	h->name = ss_state__column_dup(s, 0);
	h->did = ss_state__column_dup(s, 1);
	h->cid = ss_state__column_dup(s, 2);
	h->view_tree = ss_state__column_dup(s, 3);
	h->kept_tree = ss_state__column_dup(s, 4);
	h->reason = ss_state__column_dup(s, 5);
	h->updated_at = ss_state__column_dup(s, 6);
	h->rejected = sqlite3_column_int(s, 7) != 0;
	h->seen = (ss_state_seen)sqlite3_column_int(s, 8);
	h->replaced = sqlite3_column_int(s, 9) != 0;
}

int ss_state_hold_get(ss_state *st, const char *name, ss_state_hold *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if (ss_state__prepare_cached(st, &s, "SELECT " HOLD_COLUMNS " FROM holds WHERE name = ?1",
	                             err) < 0)
		return -1;
	ss_state__bind_text(s, 1, name);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		read_row(s, out);
	else if (rc == SQLITE_DONE)
		ret = ss_error_set(err, SS_ENOTFOUND, "'%s' is not held for review", name);
	else
		ret = ss_state__sqlite_error(st, err, "cannot read a held change");
	ss_state__done(st, s);
	return ret;
}

int ss_state_hold_remove(ss_state *st, const char *name, ss_error *err)
{
	return changed(
	    st,
	    ss_state__exec(st, err, "DELETE FROM holds WHERE name = ?1", 1, name, NULL, NULL, NULL),
	    err);
}

int ss_state_hold_reject(ss_state *st, const char *name, ss_error *err)
{
	ss_state_hold h;

	if (ss_state_hold_get(st, name, &h, err) < 0)
		return -1;
	h.rejected = true;
	{
		int ret = put(st, &h, false, err);

		ss_state_hold_release(&h);
		return ret;
	}
}

int ss_state_hold_shown(ss_state *st, const char *name, const char *view_tree, const char *cid,
                        ss_error *err)
{
	return changed(st,
	               ss_state__exec(st, err,
	                              "UPDATE holds SET seen = 1 WHERE name = ?1"
	                              " AND view_tree IS ?2 AND cid IS ?3",
	                              3, name, view_tree, cid, NULL),
	               err);
}

int ss_state_hold_each(ss_state *st, ss_state_hold_fn fn, void *payload, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	if (ss_state__prepare(st, &s, "SELECT " HOLD_COLUMNS " FROM holds ORDER BY name", err) < 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ss_state_hold h;

		memset(&h, 0, sizeof(h));
		read_row(s, &h);
		ret = fn(&h, payload);
		ss_state_hold_release(&h);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = ss_state__sqlite_error(st, err, "cannot list the held changes");
	sqlite3_finalize(s);
	return ret;
}

int ss_state_hold_waiting(ss_state *st, size_t *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int ret = 0;

	*out = 0;
	if (ss_state__prepare(st, &s, "SELECT count(*) FROM holds WHERE rejected = 0", err) < 0)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		*out = (size_t)sqlite3_column_int64(s, 0);
	else
		ret = ss_state__sqlite_error(st, err, "cannot count the held changes");
	sqlite3_finalize(s);
	return ret;
}

int ss_state_hold_facts_get(ss_state *st, const char *kept, const char *view, const char *rules,
                            char **facts, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	*facts = NULL;
	if (ss_state__prepare_cached(st, &s,
	                             "SELECT facts FROM gate_facts WHERE kept_tree = ?1"
	                             " AND view_tree = ?2 AND rules = ?3",
	                             err) < 0)
		return -1;
	ss_state__bind_text(s, 1, kept ? kept : "");
	ss_state__bind_text(s, 2, view);
	ss_state__bind_text(s, 3, rules);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*facts = ss_state__column_dup(s, 0);
	else if (rc == SQLITE_DONE)
		ret = ss_error_set(err, SS_ENOTFOUND, "no facts kept for this change");
	else
		ret = ss_state__sqlite_error(st, err, "cannot read the gate's facts");
	ss_state__done(st, s);
	return ret;
}

int ss_state_hold_facts_put(ss_state *st, const char *kept, const char *view, const char *rules,
                            const char *facts, ss_error *err)
{
	return ss_state__exec(
	    st, err,
	    "INSERT OR REPLACE INTO gate_facts (kept_tree, view_tree, rules, facts)"
	    " VALUES (?1, ?2, ?3, ?4)",
	    4, kept ? kept : "", view, rules, facts);
}

int ss_state_hold_facts_prune(ss_state *st, ss_error *err)
{
	return ss_state__exec(st, err,
	                      "DELETE FROM gate_facts WHERE NOT EXISTS (SELECT 1 FROM holds"
	                      " WHERE holds.view_tree = gate_facts.view_tree"
	                      " AND coalesce(holds.kept_tree, '') = gate_facts.kept_tree)",
	                      0, NULL, NULL, NULL, NULL);
}

int ss_state_pin_set(ss_state *st, const char *name, bool on, ss_error *err)
{
	return changed(st,
	               ss_state__exec(st, err,
	                              on ? "INSERT OR IGNORE INTO pins (name) VALUES (?1)"
	                                 : "DELETE FROM pins WHERE name = ?1",
	                              1, name, NULL, NULL, NULL),
	               err);
}

int ss_state_pin_get(ss_state *st, const char *name, bool *out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	*out = false;
	if (ss_state__prepare_cached(st, &s, "SELECT 1 FROM pins WHERE name = ?1", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, name);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = true;
	else if (rc != SQLITE_DONE)
		ret = ss_state__sqlite_error(st, err, "cannot read the pins");
	ss_state__done(st, s);
	return ret;
}

int ss_state_pin_each(ss_state *st, ss_state_pin_fn fn, void *payload, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	if (ss_state__prepare(st, &s, "SELECT name FROM pins ORDER BY name", err) < 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if ((ret = fn((const char *)sqlite3_column_text(s, 0), payload)))
			break;
	if (!ret && rc != SQLITE_DONE)
		ret = ss_state__sqlite_error(st, err, "cannot list the pins");
	sqlite3_finalize(s);
	return ret;
}

/* ---- the mirror's lines (core/state/state_mirror.c) ---- */

static const char *field(const char *s)
{
	return s && *s && !strpbrk(s, "\t\r\n") ? s : "-";
}

static int mirror_hold(const ss_state_hold *h, void *payload)
{
	ss_buf_printf(payload, "hold\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\n", field(h->name),
	              field(h->did), field(h->cid), field(h->view_tree), field(h->kept_tree),
	              h->rejected ? 1 : 0, field(h->updated_at), field(h->reason), (int)h->seen);
	return 0;
}

static int mirror_pin(const char *name, void *payload)
{
	ss_buf_printf(payload, "pin\t%s\n", field(name));
	return 0;
}

int ss_state_hold__mirror(ss_state *st, ss_buf *out, ss_error *err)
{
	if (ss_state_hold_each(st, mirror_hold, out, err) < 0)
		return -1;
	return ss_state_pin_each(st, mirror_pin, out, err) < 0 ? -1 : 0;
}

static const char *opt(const char *s)
{
	return strcmp(s, "-") ? s : NULL;
}

int ss_state_hold__restore(ss_state *st, char *line, bool *taken, ss_error *err)
{
	char *f[10] = {NULL};
	size_t nf = 0;

	*taken = false;
	if (strncmp(line, "hold\t", 5) && strncmp(line, "pin\t", 4))
		return 0;
	*taken = true;
	for (char *p = line; p && nf < 10; nf++) {
		f[nf] = p;
		if ((p = strchr(p, '\t')))
			*p++ = '\0';
	}
	if (!strcmp(f[0], "pin") && nf == 2)
		return ss_state_pin_set(st, f[1], true, err);
	if (!strcmp(f[0], "hold") && (nf == 9 || nf == 10)) { /* a mirror before version 8: 9 */
		ss_state_hold h = {f[1],      opt(f[2]), opt(f[3]),      opt(f[4]),     opt(f[5]),
		                   opt(f[8]), opt(f[7]), f[6][0] == '1', SS_SEEN_NEVER, false};

		if (nf == 10 && f[9][0] >= '0' && f[9][0] <= '2' && !f[9][1])
			h.seen = (ss_state_seen)(f[9][0] - '0');
		return put(st, &h, false, err);
	}
	return ss_error_set(err, SS_EINVALID, "not a held change or a pin");
}
