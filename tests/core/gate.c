/* The review gate's decision (core/diff/gate.c): every rule and the order between them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/gate.h"

#define ME  "did:plc:me"
#define BOB "did:plc:bob"

static const char *const trust_bob[] = {"did:plc:carol", BOB};
static const char *const trust_handle[] = {"bob.example.test"};

static ss_gate_change change(const char *did, bool scripts, bool high)
{
	ss_gate_change c = {did, did && !strcmp(did, BOB) ? "bob.example.test" : NULL, scripts,
	                    high};
	return c;
}

static ss_gate_rules rules(ss_gate_policy p)
{
	ss_gate_rules r = {p, ME, NULL, 0, false};
	return r;
}

static void test_gate__plain_edit_merges_under_scripts(void **state)
{
	ss_gate_change c = change(BOB, false, false);
	ss_gate_rules r = rules(SS_GATE_SCRIPTS);

	(void)state;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_MERGE);
	assert_false(ss_gate_held(SS_GATE_MERGE));
	assert_string_equal(ss_gate_reason(SS_GATE_MERGE), "");
}

static void test_gate__scripts_are_held_under_scripts(void **state)
{
	ss_gate_change c = change(BOB, true, false);
	ss_gate_rules r = rules(SS_GATE_SCRIPTS);

	(void)state;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_SCRIPTS);
	assert_true(ss_gate_held(SS_GATE_HOLD_SCRIPTS));
	assert_string_equal(ss_gate_reason(SS_GATE_HOLD_SCRIPTS), "changes scripts");
}

static void test_gate__a_high_finding_is_held_and_named_first(void **state)
{
	ss_gate_change c = change(BOB, true, true);
	ss_gate_rules r = rules(SS_GATE_SCRIPTS);

	(void)state;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_FINDING);
	c.scripts = false;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_FINDING);
	assert_string_equal(ss_gate_reason(SS_GATE_HOLD_FINDING), "a high audit finding");
}

static void test_gate__all_holds_every_change_of_others(void **state)
{
	ss_gate_change c = change(BOB, false, false);
	ss_gate_change gone = change(NULL, false, false);
	ss_gate_rules r = rules(SS_GATE_ALL);

	(void)state;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_ALL);
	assert_int_equal(ss_gate_decide(&gone, &r), SS_GATE_HOLD_ALL);
	assert_string_equal(ss_gate_reason(SS_GATE_HOLD_ALL), "review.policy is all");
}

static void test_gate__off_merges_scripts_and_findings(void **state)
{
	ss_gate_change c = change(BOB, true, true);
	ss_gate_rules r = rules(SS_GATE_OFF);

	(void)state;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_MERGE);
}

static void test_gate__mine_is_never_held(void **state)
{
	ss_gate_change c = change(ME, true, true);
	ss_gate_rules r = rules(SS_GATE_ALL);

	(void)state;
	r.pinned = true;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_MINE);
	assert_false(ss_gate_held(SS_GATE_MINE));
}

static void test_gate__read_only_clone_has_no_mine(void **state)
{
	ss_gate_change c = change(ME, true, false);
	ss_gate_rules r = rules(SS_GATE_SCRIPTS);

	(void)state;
	r.me = NULL;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_SCRIPTS);
}

static void test_gate__trusted_by_did_only(void **state)
{
	ss_gate_change c = change(BOB, true, true);
	ss_gate_rules r = rules(SS_GATE_ALL);

	(void)state;
	r.trust = trust_bob;
	r.ntrust = 2;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_TRUSTED);
	/* a handle can later name another account: the member's own handle does not trust it */
	r.trust = trust_handle;
	r.ntrust = 1;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_ALL);
	c = change("did:plc:dave", true, false);
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_ALL);
	assert_false(ss_gate_held(SS_GATE_TRUSTED));
}

static void test_gate__a_pin_holds_even_trusted_and_off(void **state)
{
	ss_gate_change c = change(BOB, false, false);
	ss_gate_rules r = rules(SS_GATE_OFF);

	(void)state;
	r.pinned = true;
	r.trust = trust_bob;
	r.ntrust = 2;
	assert_int_equal(ss_gate_decide(&c, &r), SS_GATE_HOLD_PINNED);
	assert_string_equal(ss_gate_reason(SS_GATE_HOLD_PINNED), "pinned");
}

static void test_gate__a_removal_merges_under_scripts(void **state)
{
	ss_gate_change gone = change(NULL, false, false);
	ss_gate_rules r = rules(SS_GATE_SCRIPTS);

	(void)state;
	assert_int_equal(ss_gate_decide(&gone, &r), SS_GATE_MERGE);
	r.pinned = true;
	assert_int_equal(ss_gate_decide(&gone, &r), SS_GATE_HOLD_PINNED);
}

static void test_gate__policy_names(void **state)
{
	ss_gate_policy p = SS_GATE_OFF;

	(void)state;
	assert_true(ss_gate_policy_parse("scripts", &p));
	assert_int_equal(p, SS_GATE_SCRIPTS);
	assert_true(ss_gate_policy_parse("all", &p));
	assert_int_equal(p, SS_GATE_ALL);
	assert_true(ss_gate_policy_parse("off", &p));
	assert_int_equal(p, SS_GATE_OFF);
	assert_false(ss_gate_policy_parse("Off", &p));
	assert_false(ss_gate_policy_parse(NULL, &p));
}

int test_gate_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gate__plain_edit_merges_under_scripts),
	    cmocka_unit_test(test_gate__scripts_are_held_under_scripts),
	    cmocka_unit_test(test_gate__a_high_finding_is_held_and_named_first),
	    cmocka_unit_test(test_gate__all_holds_every_change_of_others),
	    cmocka_unit_test(test_gate__off_merges_scripts_and_findings),
	    cmocka_unit_test(test_gate__mine_is_never_held),
	    cmocka_unit_test(test_gate__read_only_clone_has_no_mine),
	    cmocka_unit_test(test_gate__trusted_by_did_only),
	    cmocka_unit_test(test_gate__a_pin_holds_even_trusted_and_off),
	    cmocka_unit_test(test_gate__a_removal_merges_under_scripts),
	    cmocka_unit_test(test_gate__policy_names),
	};
	return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
