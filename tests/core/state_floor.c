#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/state/state.h"
#include "core/state/state_floor.h"
#include "core/state/state_member.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "support/support.h"

/* The comparison alone: no floor and a newer revision pass, the verified commit itself is
 * "nothing new", an older revision or another commit at the verified one is refused. */
static void test_state_floor__check(void **state)
{
	ss_state_floor none = {NULL, NULL}, f = {"3kbbb", "bafyB"}, bare = {"3kbbb", NULL};
	ss_error err;

	assert_int_equal(ss_state_floor_check(NULL, "3kaaa", "bafyA", &err), SS_FLOOR_NEWER);
	assert_int_equal(ss_state_floor_check(&none, "3kaaa", "bafyA", &err), SS_FLOOR_NEWER);
	assert_int_equal(ss_state_floor_check(&f, "3kccc", "bafyC", &err), SS_FLOOR_NEWER);
	assert_int_equal(ss_state_floor_check(&f, "3kbbb", "bafyB", &err), SS_FLOOR_SAME);
	assert_int_equal(ss_state_floor_check(&bare, "3kbbb", "bafyX", &err), SS_FLOOR_SAME);
	SS_ASSERT_FAILS(ss_state_floor_check(&f, "3kaaa", "bafyA", &err), err, SS_EINVALID);
	assert_string_equal(err.message, "its commit at rev 3kaaa is older than the verified "
	                                 "revision 3kbbb (a replayed older commit)");
	SS_ASSERT_FAILS(ss_state_floor_check(&f, "3kbbb", "bafyX", &err), err, SS_EINVALID);
	assert_string_equal(err.message,
	                    "its commit bafyX at rev 3kbbb is not the one verified at that "
	                    "revision (bafyB)");
	/* a commit whose id is not known at the verified revision: the same */
	assert_int_equal(ss_state_floor_check(&f, "3kbbb", NULL, &err), SS_FLOOR_SAME);
}

/* The floor only rises: a lower or equal revision leaves it; a member removed takes it. */
static void test_state_floor__only_rises(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_state_floor f;
	ss_state_member m = {"did:plc:a", "a.test", "http://pds",
	                     "bafyLow",   "1aaaa",  SS_ROLE_MEMBER};
	ss_error err;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:a", &f, &err), 0);
	assert_null(f.rev);
	assert_int_equal(ss_state_floor_raise(st, "did:plc:a", "3kbbb", "bafyB", &err), 0);
	assert_int_equal(ss_state_floor_raise(st, "did:plc:a", "3kaaa", "bafyA", &err), 0);
	assert_int_equal(ss_state_floor_raise(st, "did:plc:a", "3kbbb", "bafyX", &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:a", &f, &err), 0);
	assert_string_equal(f.rev, "3kbbb");
	assert_string_equal(f.commit, "bafyB");
	ss_state_floor_release(&f);
	assert_int_equal(ss_state_floor_raise(st, "did:plc:a", "3kccc", "bafyC", &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:a", &f, &err), 0);
	assert_string_equal(f.rev, "3kccc");
	assert_string_equal(f.commit, "bafyC");
	ss_state_floor_release(&f);
	/* what a member row says (a server's answer) is not the floor */
	assert_int_equal(ss_state_member_put(st, &m, &err), 0);
	assert_int_equal(ss_state_member_set_head(st, "did:plc:a", NULL, NULL, &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:a", &f, &err), 0);
	assert_string_equal(f.rev, "3kccc");
	ss_state_floor_release(&f);
	/* a floor seeded without its commit takes the commit verified at that revision */
	assert_int_equal(ss_state_floor_raise(st, "did:plc:b", "3kbbb", NULL, &err), 0);
	assert_int_equal(ss_state_floor_raise(st, "did:plc:b", "3kbbb", "bafyB", &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:b", &f, &err), 0);
	assert_string_equal(f.commit, "bafyB");
	ss_state_floor_release(&f);
	assert_int_equal(ss_state_member_remove(st, "did:plc:a", &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:a", &f, &err), 0);
	assert_null(f.rev);
	assert_int_equal(ss_state_floor_drop(st, "did:plc:b", &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:b", &f, &err), 0);
	assert_null(f.rev);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

/* A state of schema version 5 opens as version 6: each space writer's floor is the revision
 * of the set hash it verified, and a public clone's floors are to come from its node caches
 * (config "floor_seed"); members.rev is never taken. */
static void test_state_floor__migrates_version_5(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT;
	ss_state *st = NULL;
	ss_state_floor f;
	sqlite3 *db = NULL;
	char *seed = NULL;
	ss_error err;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	ss_state_free(st);
	ss_fs_join(&path, dir, "skillsync/state.db");
	assert_int_equal(sqlite3_open(path.ptr, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "DROP TABLE floors;"
	                              "DROP TABLE holds;"
	                              "DROP TABLE pins;"
	                              "DROP TABLE gate_facts;"
	                              "DELETE FROM config WHERE key = 'floor_seed';"
	                              "INSERT INTO space_writers VALUES ('did:plc:w', '3kaaa',"
	                              " zeroblob(2048));"
	                              "INSERT INTO space_writers VALUES ('did:plc:e', '',"
	                              " zeroblob(2048));"
	                              "INSERT INTO members (did, commit_cid, rev) VALUES"
	                              " ('did:plc:p', 'bafyLie', '2222222222222');"
	                              "PRAGMA user_version = 5;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_floor_get(st, "did:plc:w", &f, &err), 0);
	assert_string_equal(f.rev, "3kaaa");
	assert_null(f.commit);
	ss_state_floor_release(&f);
	assert_int_equal(ss_state_floor_get(st, "did:plc:e", &f, &err), 0);
	assert_null(f.rev);
	assert_int_equal(ss_state_floor_get(st, "did:plc:p", &f, &err), 0);
	assert_null(f.rev);
	assert_int_equal(ss_state_config_get(st, "floor_seed", &seed, &err), 0);
	free(seed);
	ss_state_free(st);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
}

int test_state_floor_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_floor__check),
	    cmocka_unit_test(test_state_floor__only_rises),
	    cmocka_unit_test(test_state_floor__migrates_version_5),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
