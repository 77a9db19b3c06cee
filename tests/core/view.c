#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/view.h"
#include "core/util/time.h"

#define ME        "did:plc:me"
#define AUTHORITY "did:plc:authority"

static int64_t at(const char *s)
{
	int64_t us = 0;

	assert_int_equal(ss_time_parse(s, &us), 0);
	return us;
}

static ss_view_version version(const char *did, const char *when, bool valid)
{
	ss_view_version v = {did, "bafycid", at(when), valid, valid ? NULL : "bad name"};
	return v;
}

static void test_view__mine_wins_over_authority_and_newer(void **state)
{
	ss_view_version v[] = {
	    version("did:plc:zz", "2030-01-01T00:00:00Z", true),
	    version(AUTHORITY, "2029-01-01T00:00:00Z", true),
	    version(ME, "2020-01-01T00:00:00Z", true),
	};
	size_t order[3];

	assert_int_equal(ss_view_rank(v, 3, ME, AUTHORITY, order), 3);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 0);
	assert_int_equal(ss_view_why_of(&v[2], ME, AUTHORITY), SS_VIEW_MINE);
	assert_int_equal(ss_view_why_of(&v[1], ME, AUTHORITY), SS_VIEW_AUTHORITY);
	assert_int_equal(ss_view_why_of(&v[0], ME, AUTHORITY), SS_VIEW_NEWEST);
}

static void test_view__authority_wins_over_newer_member(void **state)
{
	ss_view_version v[] = {
	    version("did:plc:aa", "2030-01-01T00:00:00Z", true),
	    version(AUTHORITY, "2001-01-01T00:00:00Z", true),
	};
	size_t order[2];

	assert_int_equal(ss_view_rank(v, 2, ME, AUTHORITY, order), 2);
	assert_int_equal(order[0], 1);
}

static void test_view__newest_wins_as_an_instant_not_as_text(void **state)
{
	/* As text "...T23:30:00+00:00" > "...T23:00:00-02:00", but the second is later. */
	ss_view_version v[] = {
	    version("did:plc:aa", "2026-11-29T23:30:00+00:00", true),
	    version("did:plc:bb", "2026-11-29T23:00:00-02:00", true),
	    version("did:plc:cc", "2026-11-29T23:29:59.999999Z", true),
	};
	size_t order[3];

	assert_int_equal(ss_view_rank(v, 3, NULL, AUTHORITY, order), 3);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 2);
}

static void test_view__tie_goes_to_smaller_did(void **state)
{
	ss_view_version v[] = {
	    version("did:plc:b", "2026-11-29T22:37:00.000Z", true),
	    version("did:plc:a", "2026-11-29T22:37:00Z", true),
	    version("did:plc:ab", "2026-11-29T23:37:00+01:00", true),
	};
	size_t order[3];

	ss_view_rank(v, 3, NULL, NULL, order);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 0);
}

static void test_view__invalid_own_record_falls_back(void **state)
{
	ss_view_version v[] = {
	    version(ME, "2030-01-01T00:00:00Z", false),
	    version("did:plc:m", "2020-01-01T00:00:00Z", true),
	    version(AUTHORITY, "2019-01-01T00:00:00Z", true),
	};
	size_t order[3];

	assert_int_equal(ss_view_rank(v, 3, ME, AUTHORITY, order), 2);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 0);
	assert_int_equal(ss_view_why_of(&v[0], ME, AUTHORITY), SS_VIEW_INVALID);
	assert_string_equal(ss_view_why_name(SS_VIEW_INVALID), "invalid");
}

static void test_view__only_invalid_versions_have_no_winner(void **state)
{
	ss_view_version v[] = {
	    version(AUTHORITY, "2030-01-01T00:00:00Z", false),
	    version(ME, "2030-01-01T00:00:00Z", false),
	};
	size_t order[2];

	assert_int_equal(ss_view_rank(v, 2, ME, AUTHORITY, order), 0);
	assert_int_equal(order[0], 0); /* invalid ones by DID */
}

static void test_view__read_only_has_no_mine(void **state)
{
	ss_view_version v[] = {
	    version(ME, "2030-01-01T00:00:00Z", true),
	    version(AUTHORITY, "2020-01-01T00:00:00Z", true),
	};
	size_t order[2];

	ss_view_rank(v, 2, NULL, AUTHORITY, order);
	assert_int_equal(order[0], 1);
	ss_view_rank(v, 2, "", AUTHORITY, order);
	assert_int_equal(order[0], 1);
	assert_string_equal(ss_view_why_name(ss_view_why_of(&v[0], "", AUTHORITY)), "newest");
}

static void test_view__me_as_authority_is_mine(void **state)
{
	ss_view_version v[] = {version(AUTHORITY, "2020-01-01T00:00:00Z", true)};
	size_t order[1];

	ss_view_rank(v, 1, AUTHORITY, AUTHORITY, order);
	assert_int_equal(ss_view_why_of(&v[0], AUTHORITY, AUTHORITY), SS_VIEW_MINE);
}

int test_view_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_view__mine_wins_over_authority_and_newer),
	    cmocka_unit_test(test_view__authority_wins_over_newer_member),
	    cmocka_unit_test(test_view__newest_wins_as_an_instant_not_as_text),
	    cmocka_unit_test(test_view__tie_goes_to_smaller_did),
	    cmocka_unit_test(test_view__invalid_own_record_falls_back),
	    cmocka_unit_test(test_view__only_invalid_versions_have_no_winner),
	    cmocka_unit_test(test_view__read_only_has_no_mine),
	    cmocka_unit_test(test_view__me_as_authority_is_mine),
	};
	return cmocka_run_group_tests_name("view", tests, NULL, NULL);
}
