#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/state/state.h"
#include "core/state/state_hold.h"
#include "core/state/state_member.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "support/support.h"

#define T1   "1111111111111111111111111111111111111111"
#define T2   "2222222222222222222222222222222222222222"
#define KEPT "0000000000000000000000000000000000000000"

static ss_state_seen seen_of(ss_state *st, const char *name)
{
	ss_state_hold h;
	ss_state_seen seen;
	ss_error err;

	assert_int_equal(ss_state_hold_get(st, name, &h, &err), 0);
	seen = h.seen;
	ss_state_hold_release(&h);
	return seen;
}

/* What review showed follows the version: marked only for the version the hold names, kept
 * while the gate puts the same version again (and through a reject), "earlier" once another
 * version is put in its place. */
static void test_state_hold__seen_follows_the_version(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_state_hold v1 = {"tool", "did:plc:b", "bafyV1",      T1,   KEPT, "changes scripts",
	                    NULL,   false,       SS_SEEN_NEVER, false};
	ss_state_hold v2 = v1;
	ss_error err;

	(void)state;
	v2.cid = "bafyV2";
	v2.view_tree = T2;
	v2.replaced = true;
	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_hold_put(st, &v1, &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_NEVER);
	/* review printed another version than the hold names now: nothing marked */
	assert_int_equal(ss_state_hold_shown(st, "tool", T2, "bafyV2", &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_NEVER);
	assert_int_equal(ss_state_hold_shown(st, "tool", T1, "bafyV1", &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_THIS);
	assert_int_equal(ss_state_hold_put(st, &v1, &err), 0);
	assert_int_equal(ss_state_hold_reject(st, "tool", &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_THIS);
	/* the same tree under another record CID is another version too */
	v1.cid = "bafyV1b";
	assert_int_equal(ss_state_hold_put(st, &v1, &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_EARLIER);
	assert_int_equal(ss_state_hold_put(st, &v2, &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_EARLIER);
	{
		ss_state_hold h;

		assert_int_equal(ss_state_hold_get(st, "tool", &h, &err), 0);
		assert_true(h.replaced);
		assert_false(h.rejected);
		ss_state_hold_release(&h);
	}
	assert_int_equal(ss_state_hold_shown(st, "tool", T2, "bafyV2", &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_THIS);
	/* a hold that is gone and comes back was never shown */
	assert_int_equal(ss_state_hold_remove(st, "tool", &err), 0);
	assert_int_equal(ss_state_hold_put(st, &v2, &err), 0);
	assert_int_equal(seen_of(st, "tool"), SS_SEEN_NEVER);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

/* The gate's facts are found by kept subtree (none for a new skill), held subtree and rules
 * key, and forgotten once no hold names their pair. */
static void test_state_hold__facts_by_pair_of_versions(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_state_hold h = {"new", "did:plc:b", "bafyN",       T1,   NULL, "changes scripts",
	                   NULL,  false,       SS_SEEN_NEVER, false};
	char *facts = NULL;
	ss_error err;

	(void)state;
	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_hold_put(st, &h, &err), 0);
	assert_int_equal(ss_state_hold_facts_put(st, NULL, T1, "1:r", "scripts=1", &err), 0);
	assert_int_equal(ss_state_hold_facts_put(st, KEPT, T1, "1:r", "scripts=0", &err), 0);
	assert_int_equal(ss_state_hold_facts_get(st, NULL, T1, "1:r", &facts, &err), 0);
	assert_string_equal(facts, "scripts=1");
	free(facts);
	SS_ASSERT_FAILS(ss_state_hold_facts_get(st, NULL, T1, "1:other", &facts, &err), err,
	                SS_ENOTFOUND);
	assert_null(facts);
	assert_int_equal(ss_state_hold_facts_prune(st, &err), 0);
	assert_int_equal(ss_state_hold_facts_get(st, NULL, T1, "1:r", &facts, &err), 0);
	free(facts);
	SS_ASSERT_FAILS(ss_state_hold_facts_get(st, KEPT, T1, "1:r", &facts, &err), err,
	                SS_ENOTFOUND);
	assert_int_equal(ss_state_hold_remove(st, "new", &err), 0);
	assert_int_equal(ss_state_hold_facts_prune(st, &err), 0);
	SS_ASSERT_FAILS(ss_state_hold_facts_get(st, NULL, T1, "1:r", &facts, &err), err,
	                SS_ENOTFOUND);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

/* Version 8 keeps review.trust by DID: a member's handle (any case) becomes its DID, DIDs and
 * a handle the state does not know stay as they were, in their order. */
static void test_state_hold__migrates_trust_to_dids(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_state_member bob = {"did:plc:bob", "bob.test", NULL, NULL, NULL, SS_ROLE_MEMBER};
	ss_buf path = SS_BUF_INIT;
	sqlite3 *db = NULL;
	char *trust = NULL;
	ss_error err;

	(void)state;
	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_member_put(st, &bob, &err), 0);
	ss_state_free(st);
	ss_fs_join(&path, dir, "skillsync/state.db");
	assert_int_equal(sqlite3_open(path.ptr, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "DROP TABLE gate_facts;"
	                              "ALTER TABLE holds DROP COLUMN seen;"
	                              "ALTER TABLE holds DROP COLUMN replaced;"
	                              "INSERT INTO config VALUES ('setting.review.trust',"
	                              " 'did:plc:x,Bob.Test,eve.test');"
	                              "PRAGMA user_version = 7;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_config_get(st, "setting.review.trust", &trust, &err), 0);
	assert_string_equal(trust, "did:plc:x,did:plc:bob,eve.test");
	free(trust);
	ss_state_free(st);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
}

int test_state_hold_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_hold__seen_follows_the_version),
	    cmocka_unit_test(test_state_hold__facts_by_pair_of_versions),
	    cmocka_unit_test(test_state_hold__migrates_trust_to_dids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
