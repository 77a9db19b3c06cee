#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include "core/diff/provenance.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/state/state_member.h"
#include "core/state/state_priv.h" /* the connection, for a writer that does not wait */
#include "core/state/state_record.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/time.h"
#include "support/support.h"

static ss_state *open_state(const char *dir)
{
	ss_state *st = NULL;
	ss_error err;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	return st;
}

static void put_record(ss_state *st, const char *did, const char *rkey, const char *cid, bool valid)
{
	ss_state_record r = {did,
	                     rkey,
	                     cid,
	                     "2026-01-01T00:00:00Z",
	                     "2026-02-01T00:00:00Z",
	                     42,
	                     valid,
	                     valid ? NULL : "bad name",
	                     valid ? "0123456789012345678901234567890123456789" : NULL,
	                     "a note"};
	ss_error err;

	assert_int_equal(ss_state_record_put(st, &r, &err), 0);
}

static void test_state__config_survives_reopen(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_buf path = SS_BUF_INIT;
	struct stat sb;
	char *value = NULL;
	ss_error err;

	SS_ASSERT_FAILS(ss_state_config_get(st, "me", &value, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_config_set(st, "authority", "did:plc:auth", &err), 0);
	assert_int_equal(ss_state_config_set(st, "me", "did:plc:me", &err), 0);
	assert_int_equal(ss_state_config_set(st, "me", NULL, &err), 0);
	ss_state_free(st);

	st = open_state(dir);
	assert_int_equal(ss_state_config_get(st, "authority", &value, &err), 0);
	assert_string_equal(value, "did:plc:auth");
	free(value);
	SS_ASSERT_FAILS(ss_state_config_get(st, "me", &value, &err), err, SS_ENOTFOUND);
	ss_state_free(st);

	ss_fs_join(&path, dir, "skillsync/state.db");
	assert_int_equal(stat(path.ptr, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
}

/* The check stamp (state.db.checked) is the file's stat data after a commit or a clean
 * check: an open of an unchanged file skips PRAGMA quick_check; one the file changed under
 * checks it and stamps it again. */
static char *read_stamp(const char *dir)
{
	ss_buf path = SS_BUF_INIT, v = SS_BUF_INIT;
	ss_error err;

	ss_fs_join(&path, dir, "skillsync/state.db.checked");
	if (ss_fs_read_file(&v, path.ptr, 0, &err) < 0) {
		ss_buf_release(&path);
		return NULL;
	}
	ss_buf_release(&path);
	return ss_buf_detach(&v, NULL);
}

static void test_state__check_stamp_follows_the_file(void **state)
{
	char *dir = ss_test_tmpdir(), *a, *b;
	ss_state *st = open_state(dir);
	ss_buf db = SS_BUF_INIT, stamp = SS_BUF_INIT;
	time_t back;
	struct stat sb;
	ss_error err;

	(void)state;
	assert_int_equal(ss_state_begin(st, &err), 0);
	assert_int_equal(ss_state_config_set(st, "authority", "did:plc:auth", &err), 0);
	assert_int_equal(ss_state_commit(st, &err), 0);
	ss_state_free(st);
	a = read_stamp(dir);
	assert_non_null(a);
	/* an open that finds its stamp leaves it as it is: not written again */
	ss_fs_join(&stamp, dir, "skillsync/state.db.checked");
	back = ss_test_backdate(stamp.ptr, 3600);
	assert_int_equal(ss_state_open_existing(&st, dir, &err), 0);
	ss_state_free(st);
	b = read_stamp(dir);
	assert_string_equal(a, b); /* unchanged */
	free(b);
	assert_int_equal(stat(stamp.ptr, &sb), 0);
	assert_int_equal(sb.st_mtime, back);

	/* the file's times moved under it: checked, and stamped with its new times */
	ss_fs_join(&db, dir, "skillsync/state.db");
	ss_test_backdate(db.ptr, 7200);
	assert_int_equal(ss_state_open_existing(&st, dir, &err), 0);
	ss_state_free(st);
	b = read_stamp(dir);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	ss_buf_release(&db);
	ss_buf_release(&stamp);
	ss_test_tmpdir_free(dir);
}

static void test_state__refuses_a_newer_schema(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_error err;

	ss_state_free(st);
	/* A future skillsync raised user_version (big-endian at byte 60 of the file header). */
	{
		static const unsigned char v99[4] = {0, 0, 0, 99};
		ss_buf path = SS_BUF_INIT;
		FILE *f;

		ss_fs_join(&path, dir, "skillsync/state.db");
		f = fopen(path.ptr, "r+b");
		assert_non_null(f);
		assert_int_equal(fseek(f, 60, SEEK_SET), 0);
		assert_int_equal(fwrite(v99, 1, 4, f), 4);
		fclose(f);
		ss_buf_release(&path);
	}
	st = NULL;
	SS_ASSERT_FAILS(ss_state_open(&st, dir, &err), err, SS_EINVALID);
	assert_null(st);
	assert_non_null(strstr(err.message, "schema version 99"));
	ss_test_tmpdir_free(dir);
}

static void test_state__members_and_their_records(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_state_member alice = {"did:plc:alice",  "alice.test", "http://localhost:1", NULL, NULL,
	                         SS_ROLE_AUTHORITY};
	ss_state_member bob = {"did:plc:bob", NULL, NULL, NULL, NULL, SS_ROLE_MEMBER};
	ss_state_member *list = NULL, got;
	ss_state_record r;
	size_t n = 0;
	ss_error err;

	assert_int_equal(ss_state_member_put(st, &bob, &err), 0);
	assert_int_equal(ss_state_member_put(st, &alice, &err), 0);
	assert_int_equal(ss_state_member_set_head(st, "did:plc:bob", "bafyc", "3kabc", &err), 0);
	assert_int_equal(ss_state_members_list(st, &list, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].did, "did:plc:alice");
	assert_string_equal(list[0].handle, "alice.test");
	assert_int_equal(list[0].role, SS_ROLE_AUTHORITY);
	assert_null(list[0].rev);
	assert_string_equal(list[1].rev, "3kabc");
	assert_string_equal(list[1].commit, "bafyc");
	assert_null(list[1].handle);
	ss_state_members_free(list, n);

	put_record(st, "did:plc:bob", "pdf", "cid1", true);
	put_record(st, "did:plc:alice", "pdf", "cid2", true);
	assert_int_equal(ss_state_member_remove(st, "did:plc:bob", &err), 0);
	SS_ASSERT_FAILS(ss_state_member_get(st, "did:plc:bob", &got, &err), err, SS_ENOTFOUND);
	assert_non_null(strstr(err.message, "did:plc:bob"));
	SS_ASSERT_FAILS(ss_state_record_get(st, "did:plc:bob", "pdf", &r, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_record_get(st, "did:plc:alice", "pdf", &r, &err), 0);
	assert_string_equal(r.cid, "cid2");
	assert_string_equal(r.created_at, "2026-01-01T00:00:00Z");
	assert_int_equal(r.updated_us, 42);
	assert_true(r.valid);
	assert_null(r.reason);
	assert_string_equal(r.note, "a note");
	ss_state_record_release(&r);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

struct walk {
	ss_buf seen;
};

static int collect(const ss_state_record *r, void *payload)
{
	struct walk *w = payload;

	ss_buf_printf(&w->seen, "%s/%s=%s%s;", r->rkey, r->did, r->cid,
	              r->valid ? "" : "(invalid)");
	return 0;
}

static void test_state__sweep_drops_what_a_listing_missed(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	struct walk w = {SS_BUF_INIT};
	ss_error err;

	assert_int_equal(ss_state_begin(st, &err), 0);
	put_record(st, "did:plc:b", "zeta", "c1", true);
	put_record(st, "did:plc:b", "alpha", "c2", false);
	put_record(st, "did:plc:b", "gone", "c3", true);
	put_record(st, "did:plc:a", "zeta", "c4", true);
	assert_int_equal(ss_state_commit(st, &err), 0);

	/* A new full listing of b holds zeta unchanged and alpha changed, not gone. */
	assert_int_equal(ss_state_begin(st, &err), 0);
	assert_int_equal(ss_state_sweep_begin(st, "did:plc:b", &err), 0);
	assert_int_equal(ss_state_record_touch(st, "did:plc:b", "zeta", &err), 0);
	put_record(st, "did:plc:b", "alpha", "c5", true);
	assert_int_equal(ss_state_sweep_end(st, "did:plc:b", &err), 0);
	assert_int_equal(ss_state_commit(st, &err), 0);

	assert_int_equal(ss_state_records_each(st, NULL, collect, &w, &err), 0);
	assert_string_equal(w.seen.ptr, "alpha/did:plc:b=c5;zeta/did:plc:a=c4;zeta/did:plc:b=c1;");
	ss_buf_clear(&w.seen);
	assert_int_equal(ss_state_records_each(st, "zeta", collect, &w, &err), 0);
	assert_string_equal(w.seen.ptr, "zeta/did:plc:a=c4;zeta/did:plc:b=c1;");
	ss_buf_release(&w.seen);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

static void test_state__rollback_keeps_the_old_state(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_state_view_entry e = {"pdf", "did:plc:a", "cid1", "tree1"}, got;
	ss_error err;

	assert_int_equal(ss_state_view_put(st, &e, &err), 0);
	assert_int_equal(ss_state_begin(st, &err), 0);
	SS_ASSERT_FAILS(ss_state_begin(st, &err), err, SS_ERROR);
	assert_int_equal(ss_state_view_clear(st, &err), 0);
	ss_state_rollback(st);
	assert_int_equal(ss_state_view_get(st, "pdf", &got, &err), 0);
	assert_string_equal(got.did, "did:plc:a");
	assert_string_equal(got.tree, "tree1");
	ss_state_view_entry_release(&got);
	SS_ASSERT_FAILS(ss_state_view_get(st, "nope", &got, &err), err, SS_ENOTFOUND);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

static void test_state__me_authority_tracking_follow_the_table(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir), *other;
	ss_oid t, got;
	ss_error err;

	assert_null(ss_state_me(st));
	assert_null(ss_state_authority(st));
	assert_false(ss_state_tracking(st, &got));
	assert_true(ss_oid_is_zero(&got));
	assert_int_equal(ss_oid_parse(&t, "0123456789abcdef0123456789abcdef01234567", &err), 0);
	assert_int_equal(ss_state_set_me(st, "did:plc:me", &err), 0);
	assert_int_equal(ss_state_set_authority(st, "did:plc:auth", &err), 0);
	assert_int_equal(ss_state_set_tracking(st, &t, &err), 0);
	assert_string_equal(ss_state_me(st), "did:plc:me");
	assert_true(ss_state_tracking(st, &got));
	assert_true(ss_oid_equal(&got, &t));

	/* a rolled back change does not stay in the cached values */
	assert_int_equal(ss_state_begin(st, &err), 0);
	assert_int_equal(ss_state_set_me(st, NULL, &err), 0);
	assert_int_equal(ss_state_set_tracking(st, NULL, &err), 0);
	assert_null(ss_state_me(st));
	ss_state_rollback(st);
	assert_string_equal(ss_state_me(st), "did:plc:me");
	assert_true(ss_state_tracking(st, &got));
	ss_state_free(st);

	/* read from the table at open, and again on reload (another run changed it) */
	st = open_state(dir);
	assert_string_equal(ss_state_me(st), "did:plc:me");
	assert_string_equal(ss_state_authority(st), "did:plc:auth");
	assert_true(ss_state_tracking(st, &got));
	assert_true(ss_oid_equal(&got, &t));
	other = open_state(dir);
	assert_int_equal(ss_state_set_tracking(other, NULL, &err), 0);
	ss_state_free(other);
	assert_true(ss_state_tracking(st, &got));
	assert_int_equal(ss_state_reload(st, &err), 0);
	assert_false(ss_state_tracking(st, &got));
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

static void put_version(ss_state *st, const char *did, const char *when, bool valid)
{
	ss_state_record r = {did,
	                     "pdf",
	                     "cid",
	                     NULL,
	                     when,
	                     0,
	                     valid,
	                     valid ? NULL : "bad path",
	                     valid ? "0123456789012345678901234567890123456789" : NULL,
	                     NULL};
	ss_error err;

	assert_int_equal(ss_time_parse(when, &r.updated_us), 0);
	assert_int_equal(ss_state_record_put(st, &r, &err), 0);
}

static void test_state__provenance_ranks_the_versions_of_a_name(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_provenance p;
	ss_error err;

	put_version(st, "did:plc:new", "2026-05-01T00:00:00Z", true);
	put_version(st, "did:plc:auth", "2020-01-01T00:00:00Z", true);
	put_version(st, "did:plc:me", "2027-01-01T00:00:00Z", false);
	put_version(st, "did:plc:old", "2025-01-01T00:00:00Z", true);
	assert_int_equal(ss_state_set_me(st, "did:plc:me", &err), 0);
	assert_int_equal(ss_state_set_authority(st, "did:plc:auth", &err), 0);
	assert_int_equal(ss_provenance_load(st, "pdf", &p, &err), 0);
	assert_int_equal(p.count, 4);
	assert_int_equal(p.nvalid, 3);
	assert_string_equal(p.versions[0].did, "did:plc:auth");
	assert_int_equal(p.versions[0].why, SS_VIEW_AUTHORITY);
	assert_string_equal(p.versions[1].did, "did:plc:new");
	assert_string_equal(p.versions[1].updated_at, "2026-05-01T00:00:00Z");
	assert_string_equal(p.versions[2].did, "did:plc:old");
	assert_string_equal(p.versions[3].did, "did:plc:me");
	assert_int_equal(p.versions[3].why, SS_VIEW_INVALID);
	assert_string_equal(p.versions[3].reason, "bad path");
	ss_provenance_release(&p);
	assert_int_equal(ss_provenance_load(st, "other", &p, &err), 0);
	assert_int_equal(p.count, 0);
	ss_provenance_release(&p);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

static void assert_config(ss_state *st, const char *key, const char *want)
{
	char *value = NULL;
	ss_error err;

	assert_int_equal(ss_state_config_get(st, key, &value, &err), 0);
	assert_string_equal(value, want);
	free(value);
}

/*
 * A read transaction is one snapshot: another connection cannot commit a change under it
 * until its outermost end (here at once, with SQLite's busy wait turned off, where skillsync
 * would wait up to 5 s), and then it can.
 */
static void test_state__read_transaction_is_one_snapshot(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir), *other = open_state(dir);
	ss_error err;

	sqlite3_busy_timeout(other->db, 0);
	assert_int_equal(ss_state_config_set(st, "k", "1", &err), 0);
	assert_int_equal(ss_state_read_begin(st, &err), 0);
	assert_int_equal(ss_state_read_begin(st, &err), 0); /* nested: the same transaction */
	assert_config(st, "k", "1");
	assert_false(sqlite3_get_autocommit(st->db));
	SS_ASSERT_FAILS(ss_state_config_set(other, "k", "2", &err), err, SS_ELOCKED);
	assert_config(st, "k", "1");
	ss_state_read_end(st); /* the inner end: still open */
	assert_false(sqlite3_get_autocommit(st->db));
	SS_ASSERT_FAILS(ss_state_config_set(other, "k", "2", &err), err, SS_ELOCKED);
	ss_state_read_end(st);
	assert_true(sqlite3_get_autocommit(st->db));
	assert_int_equal(ss_state_config_set(other, "k", "2", &err), 0);
	assert_config(st, "k", "2");
	ss_state_free(other);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

/* Nothing writes inside a read transaction (a write statement and ss_state_begin are refused,
 * nothing is written); inside a write transaction it adds nothing, and the writes stay. */
static void test_state__nothing_writes_inside_a_read_transaction(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	ss_state_view_entry e = {"pdf", "did:plc:a", "cid1", "tree1"};
	ss_error err;

	assert_int_equal(ss_state_config_set(st, "k", "1", &err), 0);
	assert_int_equal(ss_state_read_begin(st, &err), 0);
	SS_ASSERT_FAILS(ss_state_config_set(st, "k", "2", &err), err, SS_ERROR);
	assert_non_null(strstr(err.message, "read transaction"));
	SS_ASSERT_FAILS(ss_state_view_put(st, &e, &err), err, SS_ERROR);
	SS_ASSERT_FAILS(ss_state_begin(st, &err), err, SS_ERROR);
	assert_config(st, "k", "1");
	ss_state_read_end(st);
	ss_state_read_end(st); /* harmless without one */
	assert_config(st, "k", "1");

	assert_int_equal(ss_state_begin(st, &err), 0);
	assert_int_equal(ss_state_read_begin(st, &err), 0);
	assert_int_equal(ss_state_config_set(st, "k", "3", &err), 0);
	ss_state_read_end(st);
	assert_false(sqlite3_get_autocommit(st->db)); /* still the write transaction */
	assert_int_equal(ss_state_commit(st, &err), 0);
	ss_state_free(st);
	st = open_state(dir);
	assert_config(st, "k", "3");
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

typedef struct walk_run {
	ss_state *st;
	size_t rows, inner;
} walk_run;

static int count_row(const ss_state_record *r, void *payload)
{
	(void)r;
	(*(size_t *)payload)++;
	return 0;
}

/* From a walk's callback: the same walk again, and more cached statements than the cache
 * holds, each run once. */
static int walk_runs_others(const ss_state_record *r, void *payload)
{
	walk_run *w = payload;
	ss_error err;

	assert_int_equal(ss_state_records_each(w->st, r->rkey, count_row, &w->inner, &err), 0);
	for (int i = 0; i < SS_STATE_NCACHED + 4; i++) {
		char sql[32];
		sqlite3_stmt *s = NULL;

		snprintf(sql, sizeof(sql), "SELECT %d", i);
		assert_int_equal(ss_state__prepare_cached(w->st, &s, sql, &err), 0);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(s, 0), i);
		ss_state__done(w->st, s);
	}
	w->rows++;
	return 0;
}

/* A cached statement in use (a walk's) is never dropped to make room, nor handed out twice. */
static void test_state__a_walk_keeps_its_statement(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = open_state(dir);
	walk_run w = {st, 0, 0};
	ss_error err;

	put_record(st, "did:plc:a", "pdf", "cid1", true);
	put_record(st, "did:plc:b", "pdf", "cid2", true);
	put_record(st, "did:plc:c", "pdf", "cid3", false);
	assert_int_equal(ss_state_records_each(st, "pdf", walk_runs_others, &w, &err), 0);
	assert_int_equal(w.rows, 3);
	assert_int_equal(w.inner, 9);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

int test_state_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state__config_survives_reopen),
	    cmocka_unit_test(test_state__check_stamp_follows_the_file),
	    cmocka_unit_test(test_state__refuses_a_newer_schema),
	    cmocka_unit_test(test_state__members_and_their_records),
	    cmocka_unit_test(test_state__sweep_drops_what_a_listing_missed),
	    cmocka_unit_test(test_state__rollback_keeps_the_old_state),
	    cmocka_unit_test(test_state__me_authority_tracking_follow_the_table),
	    cmocka_unit_test(test_state__provenance_ranks_the_versions_of_a_name),
	    cmocka_unit_test(test_state__read_transaction_is_one_snapshot),
	    cmocka_unit_test(test_state__nothing_writes_inside_a_read_transaction),
	    cmocka_unit_test(test_state__a_walk_keeps_its_statement),
	};
	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
