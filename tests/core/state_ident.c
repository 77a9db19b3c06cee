#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/atproto/lthash.h"
#include "core/state/state.h"
#include "core/state/state_ident.h"
#include "core/state/state_space.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "support/support.h"

static void test_state_ident__round_trip(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_state_ident id = {"did:plc:a",    "a.test",  "http://localhost:1", NULL, "did:key:zNew",
	                     "did:key:zOld", 1700000000},
	               got;
	ss_error err;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	SS_ASSERT_FAILS(ss_state_ident_get(st, "did:plc:a", &got, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_ident_put(st, &id, &err), 0);
	assert_int_equal(ss_state_ident_get(st, "did:plc:a", &got, &err), 0);
	assert_string_equal(got.handle, "a.test");
	assert_string_equal(got.pds, "http://localhost:1");
	assert_null(got.space_host);
	assert_string_equal(got.key, "did:key:zNew");
	assert_string_equal(got.prev_key, "did:key:zOld");
	assert_int_equal(got.resolved_at, 1700000000);
	ss_state_ident_release(&got);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

/* A state of schema version 4 (a space writer's key kept in space_writers, the space host in
 * config) opens as version 5: the key moves to the identity cache, read long ago, the column
 * and the config key are gone. */
static void test_state_ident__migrates_version_4(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT;
	ss_state *st = NULL;
	ss_state_ident got;
	ss_lthash h;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char *rev = NULL;
	ss_error err;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	ss_state_free(st);
	/* back to version 4 as it shipped: no identities (nor floors, holds, pins), space_writers
	 * with its key */
	ss_fs_join(&path, dir, "skillsync/state.db");
	assert_int_equal(sqlite3_open(path.ptr, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "DROP TABLE identities;"
	                              "DROP TABLE floors;"
	                              "DROP TABLE holds;"
	                              "DROP TABLE pins;"
	                              "DROP TABLE gate_facts;"
	                              "ALTER TABLE space_writers ADD COLUMN key TEXT;"
	                              "INSERT INTO space_writers VALUES ('did:plc:w', '3kaaa',"
	                              " zeroblob(2048), 'did:key:zKept');"
	                              "INSERT INTO config VALUES ('space_host', 'http://h');"
	                              "PRAGMA user_version = 4;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_ident_get(st, "did:plc:w", &got, &err), 0);
	assert_string_equal(got.key, "did:key:zKept");
	assert_int_equal(got.resolved_at, 0);
	assert_null(got.pds);
	ss_state_ident_release(&got);
	SS_ASSERT_FAILS(ss_state_config_get(st, "space_host", &rev, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_space_writer_get(st, "did:plc:w", &rev, &h, &err), 0);
	assert_string_equal(rev, "3kaaa");
	free(rev);
	ss_state_free(st);

	assert_int_equal(sqlite3_open(path.ptr, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db,
	                       "SELECT (SELECT user_version FROM pragma_user_version),"
	                       " (SELECT count(*) FROM pragma_table_info('space_writers')"
	                       "  WHERE name = 'key')",
	                       -1, &s, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 8); /* and on to the latest, version 8 */
	assert_int_equal(sqlite3_column_int(s, 1), 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
}

int test_state_ident_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_ident__round_trip),
	    cmocka_unit_test(test_state_ident__migrates_version_4),
	};
	return cmocka_run_group_tests_name("state_ident", tests, NULL, NULL);
}
