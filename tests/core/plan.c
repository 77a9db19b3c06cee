#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/plan.h"
#include "support/support.h"

#define T_PUSH "2026-11-29T22:37:00.000Z"
#define T_MINE "2026-01-02T03:04:05.000Z"

/* What the state says, name by name: mine (CID), view owner, next winner. */
static const struct fake_owner {
	const char *name, *my_cid, *view_from, *next_from;
} owners[] = {
    {"mine-edited", "cid-mine-edited", NULL, NULL},
    {"bobs-edited", NULL, "did:plc:bob", "did:plc:bob"},
    {"mine-deleted", "cid-mine-deleted", NULL, NULL},
    {"shared-deleted", "cid-shared", NULL, "did:plc:carol"},
    {"bobs-deleted", NULL, "did:plc:bob", "did:plc:bob"},
    {"old-name", "cid-old", NULL, NULL},
    {"invalid-mine", "cid-invalid", "did:plc:bob", "did:plc:bob"},
};

static int lookup(void *payload, const char *name, ss_plan_owner *out, ss_error *err)
{
	int *calls = payload;

	(*calls)++;
	if (!strcmp(name, "broken"))
		return ss_error_set(err, SS_ERROR, "state unreadable");
	for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
		if (strcmp(owners[i].name, name))
			continue;
		out->my_cid = owners[i].my_cid;
		out->my_created_at = owners[i].my_cid ? T_MINE : NULL;
		out->view_from = owners[i].view_from;
		out->next_from = owners[i].next_from;
	}
	return 0;
}

static const ss_plan_write *find(const ss_plan *plan, const char *name)
{
	for (size_t i = 0; i < ss_plan_count(plan); i++)
		if (!strcmp(ss_plan_get(plan, i)->name, name))
			return ss_plan_get(plan, i);
	return NULL;
}

static void test_plan__each_kind_of_change(void **state)
{
	const ss_plan_change changes[] = {
	    {"mine-edited", true, true, NULL},     {"bobs-edited", true, true, NULL},
	    {"brand-new", false, true, NULL},      {"mine-deleted", true, false, NULL},
	    {"shared-deleted", true, false, NULL}, {"bobs-deleted", true, false, NULL},
	    {"old-name", true, false, NULL},       {"new-name", false, true, "old-name"},
	    {"invalid-mine", true, true, NULL},
	};
	ss_plan *plan = NULL;
	const ss_plan_write *w;
	const ss_plan_notice *n;
	ss_error err;
	int calls = 0;

	assert_int_equal(ss_plan_new(&plan, changes, 9, lookup, &calls, T_PUSH, &err), 0);
	assert_int_equal(calls, 9); /* one lookup per change, none for the rest of the space */
	assert_int_equal(ss_plan_count(plan), 8);

	w = find(plan, "mine-edited");
	assert_int_equal(w->op, SS_WRITE_UPDATE);
	assert_string_equal(w->swap_cid, "cid-mine-edited");
	assert_string_equal(w->created_at, T_MINE);
	assert_string_equal(w->updated_at, T_PUSH);

	w = find(plan, "bobs-edited"); /* someone else's, edited: my own version */
	assert_int_equal(w->op, SS_WRITE_CREATE);
	assert_null(w->swap_cid);
	assert_string_equal(w->created_at, T_PUSH);
	assert_string_equal(w->based_on, "did:plc:bob");

	w = find(plan, "brand-new");
	assert_int_equal(w->op, SS_WRITE_CREATE);
	assert_null(w->based_on);
	assert_string_equal(w->created_at, T_PUSH);

	w = find(plan, "mine-deleted");
	assert_int_equal(w->op, SS_WRITE_DELETE);
	assert_string_equal(w->swap_cid, "cid-mine-deleted");

	w = find(plan, "shared-deleted");
	assert_int_equal(w->op, SS_WRITE_DELETE);
	assert_null(find(plan, "bobs-deleted")); /* never another member's */

	assert_int_equal(find(plan, "old-name")->op, SS_WRITE_DELETE);
	w = find(plan, "new-name");
	assert_int_equal(w->op, SS_WRITE_CREATE);
	assert_string_equal(w->renamed_from, "old-name");

	w = find(plan, "invalid-mine"); /* my record exists (invalid): update it, not create */
	assert_int_equal(w->op, SS_WRITE_UPDATE);
	assert_string_equal(w->swap_cid, "cid-invalid");

	/* writes in name order */
	for (size_t i = 1; i < ss_plan_count(plan); i++)
		assert_true(strcmp(ss_plan_get(plan, i - 1)->name, ss_plan_get(plan, i)->name) < 0);

	assert_int_equal(ss_plan_notice_count(plan), 2);
	n = ss_plan_notice_get(plan, 0);
	assert_int_equal(n->kind, SS_PLAN_NOT_MINE);
	assert_string_equal(n->name, "bobs-deleted");
	assert_string_equal(n->who, "did:plc:bob");
	n = ss_plan_notice_get(plan, 1);
	assert_int_equal(n->kind, SS_PLAN_NEXT_APPLIES);
	assert_string_equal(n->name, "shared-deleted");
	assert_string_equal(n->who, "did:plc:carol");
	assert_null(ss_plan_notice_get(plan, 2));
	ss_plan_free(plan);
}

static void test_plan__nothing_changed_nothing_to_send(void **state)
{
	ss_plan *plan = NULL;
	ss_error err;
	int calls = 0;

	assert_int_equal(ss_plan_new(&plan, NULL, 0, lookup, &calls, T_PUSH, &err), 0);
	assert_int_equal(ss_plan_count(plan), 0);
	assert_int_equal(ss_plan_notice_count(plan), 0);
	assert_int_equal(calls, 0);
	ss_plan_free(plan);
}

static void test_plan__lookup_failure_is_passed_on(void **state)
{
	const ss_plan_change changes[] = {{"brand-new", false, true, NULL},
	                                  {"broken", true, true, NULL}};
	ss_plan *plan = NULL;
	ss_error err;
	int calls = 0;

	SS_ASSERT_FAILS(ss_plan_new(&plan, changes, 2, lookup, &calls, T_PUSH, &err), err,
	                SS_ERROR);
	assert_null(plan);
	assert_string_equal(err.message, "state unreadable");
	assert_string_equal(ss_plan_op_name(SS_WRITE_DELETE), "delete");
}

int test_plan_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan__each_kind_of_change),
	    cmocka_unit_test(test_plan__nothing_changed_nothing_to_send),
	    cmocka_unit_test(test_plan__lookup_failure_is_passed_on),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
