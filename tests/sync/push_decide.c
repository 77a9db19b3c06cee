/*
 * push_decide.c: a push's decisions about its journal, without a server (sync/push_priv.h):
 * when a failed request drops the journal and says "pull first", when it keeps the journal
 * for the next run to ask the server, and how recovery tells that a journaled write landed.
 * tests/cmd/push.sh, push_crash.sh, recover.sh and faults.sh run them against the PDS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util/error.h"
#include "sync/push_priv.h"

#define PUSH_TIME "2026-03-01T10:00:00.000Z"

static void test_push_decide__a_refused_swap_is_a_conflict_and_drops_the_journal(void **state)
{
	(void)state;
	assert_int_equal(ss_push__decide(SS_ECONFLICT, 0), SS_PUSH_CONFLICT);
	assert_int_equal(ss_push__reported(SS_PUSH_CONFLICT, SS_ECONFLICT), SS_ECONFLICT);
}

static void test_push_decide__a_refused_request_drops_the_journal_and_says_why(void **state)
{
	static const int codes[] = {SS_EINVALID, SS_EAUTH, SS_ETOOBIG};

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_int_equal(ss_push__decide(codes[i], 0), SS_PUSH_REFUSED);
		assert_int_equal(ss_push__reported(SS_PUSH_REFUSED, codes[i]), codes[i]);
	}
}

static void test_push_decide__a_lost_or_cut_answer_keeps_the_journal(void **state)
{
	static const int codes[] = {SS_ENETWORK, SS_ERROR, SS_ENOTFOUND, SS_EEXISTS};

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_int_equal(ss_push__decide(codes[i], 0), SS_PUSH_INTERRUPTED);
		assert_int_equal(ss_push__reported(SS_PUSH_INTERRUPTED, codes[i]), codes[i]);
	}
}

static void test_push_decide__a_refusal_after_writes_landed_keeps_the_journal(void **state)
{
	static const int codes[] = {SS_EINVALID, SS_EAUTH, SS_ETOOBIG, SS_ENETWORK};

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_int_equal(ss_push__decide(codes[i], 1), SS_PUSH_INTERRUPTED);
		assert_int_equal(ss_push__decide(codes[i], 200), SS_PUSH_INTERRUPTED);
		assert_int_equal(ss_push__reported(SS_PUSH_INTERRUPTED, codes[i]), codes[i]);
	}
}

static void test_push_decide__a_conflict_after_writes_landed_is_a_network_failure(void **state)
{
	(void)state;
	assert_int_equal(ss_push__decide(SS_ECONFLICT, 1), SS_PUSH_INTERRUPTED);
	assert_int_equal(ss_push__decide(SS_ECONFLICT, 200), SS_PUSH_INTERRUPTED);
	assert_int_equal(ss_push__reported(SS_PUSH_INTERRUPTED, SS_ECONFLICT), SS_ENETWORK);
}

static void test_push_decide__a_repo_that_did_not_move_landed_nothing(void **state)
{
	char a[] = "bafyA";
	ss_space_head head = {0};

	(void)state;
	assert_false(ss_push__moved("bafyA", NULL)); /* I am not listed */
	assert_false(ss_push__moved(NULL, NULL));
	assert_false(ss_push__moved(NULL, &head)); /* no commit before, none now */
	head.commit = a;
	assert_false(ss_push__moved("bafyA", &head));
}

static void test_push_decide__a_repo_with_another_commit_moved(void **state)
{
	char b[] = "bafyB";
	ss_space_head head = {0};

	(void)state;
	head.commit = b;
	assert_true(ss_push__moved("bafyA", &head));
	assert_true(ss_push__moved(NULL, &head)); /* the push's first commit */
	head.commit = NULL;
	assert_true(ss_push__moved("bafyA", &head)); /* the repo has no commit any more */
}

static void test_push_decide__a_put_with_this_pushs_time_landed(void **state)
{
	ss_journal_write create = {0}, update = {0};
	ss_push_held held = {true, PUSH_TIME};

	(void)state;
	create.op = SS_WRITE_CREATE;
	update.op = SS_WRITE_UPDATE;
	assert_true(ss_push__landed(&create, PUSH_TIME, &held));
	assert_true(ss_push__landed(&update, PUSH_TIME, &held));
}

static void test_push_decide__a_put_absent_or_of_another_time_did_not_land(void **state)
{
	static const ss_write_op ops[] = {SS_WRITE_CREATE, SS_WRITE_UPDATE};
	ss_journal_write w = {0};
	ss_push_held absent = {false, NULL}, other = {true, "2026-02-28T09:00:00.000Z"},
	             unread = {true, NULL};

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		w.op = ops[i];
		assert_false(ss_push__landed(&w, PUSH_TIME, &absent));
		assert_false(ss_push__landed(&w, PUSH_TIME, &other)); /* someone else wrote */
		assert_false(ss_push__landed(&w, PUSH_TIME, &unread));
	}
}

static void test_push_decide__a_delete_landed_when_the_record_is_gone(void **state)
{
	ss_journal_write w = {0};
	ss_push_held absent = {false, NULL}, present = {true, PUSH_TIME},
	             other = {true, "2026-02-28T09:00:00.000Z"};

	(void)state;
	w.op = SS_WRITE_DELETE;
	assert_true(ss_push__landed(&w, PUSH_TIME, &absent));
	assert_false(ss_push__landed(&w, PUSH_TIME, &present));
	assert_false(ss_push__landed(&w, PUSH_TIME, &other));
}

int test_push_decide_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_push_decide__a_refused_swap_is_a_conflict_and_drops_the_journal),
	    cmocka_unit_test(test_push_decide__a_refused_request_drops_the_journal_and_says_why),
	    cmocka_unit_test(test_push_decide__a_lost_or_cut_answer_keeps_the_journal),
	    cmocka_unit_test(test_push_decide__a_refusal_after_writes_landed_keeps_the_journal),
	    cmocka_unit_test(test_push_decide__a_conflict_after_writes_landed_is_a_network_failure),
	    cmocka_unit_test(test_push_decide__a_repo_that_did_not_move_landed_nothing),
	    cmocka_unit_test(test_push_decide__a_repo_with_another_commit_moved),
	    cmocka_unit_test(test_push_decide__a_put_with_this_pushs_time_landed),
	    cmocka_unit_test(test_push_decide__a_put_absent_or_of_another_time_did_not_land),
	    cmocka_unit_test(test_push_decide__a_delete_landed_when_the_record_is_gone),
	};
	return cmocka_run_group_tests_name("sync/push_decide", tests, NULL, NULL);
}
