/*
 * push_decide.c: a push's decisions about its journal, without a server (sync/push_priv.h):
 * when a failed request drops the journal and says "pull first", and when it keeps the
 * journal for the next run to ask the server. tests/cmd/push.sh and faults.sh run them against
 * the PDS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util/error.h"
#include "sync/push_priv.h"

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

int test_push_decide_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_push_decide__a_refused_swap_is_a_conflict_and_drops_the_journal),
	    cmocka_unit_test(test_push_decide__a_refused_request_drops_the_journal_and_says_why),
	    cmocka_unit_test(test_push_decide__a_lost_or_cut_answer_keeps_the_journal),
	    cmocka_unit_test(test_push_decide__a_refusal_after_writes_landed_keeps_the_journal),
	    cmocka_unit_test(test_push_decide__a_conflict_after_writes_landed_is_a_network_failure),
	};
	return cmocka_run_group_tests_name("sync/push_decide", tests, NULL, NULL);
}
