#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/state/state.h"
#include "core/state/state_journal.h"
#include "support/support.h"

static void test_state_journal__round_trip_and_progress(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_journal j, got;
	ss_journal_write w[3];
	ss_error err;
	char cid_a[] = "cid-a";
	char *cids[2] = {cid_a, NULL};

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	memset(&j, 0, sizeof(j));
	memset(w, 0, sizeof(w));
	w[0] = (ss_journal_write){SS_WRITE_CREATE, "a", NULL, "T0", "1111", "note a", 0, NULL};
	w[1] = (ss_journal_write){SS_WRITE_DELETE, "b", "cid-b", NULL, NULL, NULL, 0, NULL};
	w[2] = (ss_journal_write){SS_WRITE_UPDATE, "c", "cid-c", "T1", "2222", "note c", 1, NULL};
	j.base_commit = "commit-0";
	j.base_tracking = "tracking-0";
	j.head = "head-0";
	j.push_time = "2026-11-29T22:37:00.000Z";
	j.nbatches = 2;
	j.writes = w;
	j.nwrites = 3;

	SS_ASSERT_FAILS(ss_state_journal_get(st, &got, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_journal_begin(st, &j, &err), 0);
	SS_ASSERT_FAILS(ss_state_journal_begin(st, &j, &err), err, SS_EEXISTS);
	assert_int_equal(ss_state_journal_sending(st, 0, &err), 0);
	assert_int_equal(ss_state_journal_landed(st, 0, cids, 2, "commit-1", "rev-1", &err), 0);
	/* a new connection sees it: it survives the process */
	ss_state_free(st);
	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	assert_int_equal(ss_state_journal_get(st, &got, &err), 0);
	assert_string_equal(got.base_commit, "commit-0");
	assert_string_equal(got.head, "head-0");
	assert_int_equal(got.nbatches, 2);
	assert_int_equal(got.sent, 1);
	assert_int_equal(got.landed, 1);
	assert_string_equal(got.commit, "commit-1");
	assert_int_equal(got.nwrites, 3);
	assert_string_equal(got.writes[0].cid, "cid-a");
	assert_null(got.writes[1].cid);
	assert_int_equal(got.writes[1].op, SS_WRITE_DELETE);
	assert_string_equal(got.writes[1].swap_cid, "cid-b");
	assert_null(got.writes[2].cid);
	assert_int_equal(got.writes[2].batch, 1);
	assert_string_equal(got.writes[2].note, "note c");
	ss_state_journal_release(&got);
	assert_int_equal(ss_state_journal_clear(st, &err), 0);
	SS_ASSERT_FAILS(ss_state_journal_get(st, &got, &err), err, SS_ENOTFOUND);
	assert_int_equal(ss_state_journal_begin(st, &j, &err), 0);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

static void test_state_journal__kept_notes(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_state *st = NULL;
	ss_journal j;
	ss_journal_write w[3], again[1];
	ss_error err;
	char *note = NULL;

	assert_int_equal(ss_state_open(&st, dir, &err), 0);
	w[0] = (ss_journal_write){SS_WRITE_CREATE, "a", NULL, "T0", "1111", "note a", 0, NULL};
	w[1] = (ss_journal_write){SS_WRITE_DELETE, "b", "cid-b", NULL, NULL, NULL, 0, NULL};
	w[2] = (ss_journal_write){SS_WRITE_UPDATE, "c", "cid-c", "T1", "2222", "note c", 1, NULL};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(ss_state_journal_keep_note(st, &w[i], &err), 0);
	/* by name and tree; a delete keeps nothing */
	assert_int_equal(ss_state_journal_kept_note(st, "a", "1111", &note, &err), 0);
	assert_string_equal(note, "note a");
	free(note);
	SS_ASSERT_FAILS(ss_state_journal_kept_note(st, "a", "9999", &note, &err), err,
	                SS_ENOTFOUND);
	SS_ASSERT_FAILS(ss_state_journal_kept_note(st, "b", "1111", &note, &err), err,
	                SS_ENOTFOUND);
	/* a new journal that sends "a" as it was keeps its note and supersedes "c"'s */
	memset(&j, 0, sizeof(j));
	again[0] = w[0];
	j.base_tracking = "tracking-0";
	j.head = "head-0";
	j.push_time = "2026-11-29T22:37:00.000Z";
	j.nbatches = 1;
	j.writes = again;
	j.nwrites = 1;
	assert_int_equal(ss_state_journal_begin(st, &j, &err), 0);
	assert_int_equal(ss_state_journal_kept_note(st, "a", "1111", &note, &err), 0);
	free(note);
	SS_ASSERT_FAILS(ss_state_journal_kept_note(st, "c", "2222", &note, &err), err,
	                SS_ENOTFOUND);
	/* clearing the journal keeps it; its write landing drops it */
	assert_int_equal(ss_state_journal_clear(st, &err), 0);
	assert_int_equal(ss_state_journal_kept_note(st, "a", "1111", &note, &err), 0);
	free(note);
	assert_int_equal(ss_state_journal_drop_note(st, "a", &err), 0);
	SS_ASSERT_FAILS(ss_state_journal_kept_note(st, "a", "1111", &note, &err), err,
	                SS_ENOTFOUND);
	ss_state_free(st);
	ss_test_tmpdir_free(dir);
}

int test_state_journal_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_journal__round_trip_and_progress),
	    cmocka_unit_test(test_state_journal__kept_notes),
	};
	return cmocka_run_group_tests_name("state_journal", tests, NULL, NULL);
}
