#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/members.h"
#include "core/state/state.h"
#include "core/state/state_member.h"
#include "support/support.h"

#define AUTH "did:plc:auth"
#define ME   "did:plc:me"
#define BOB  "did:plc:bob"

static const ss_state_member authority = {AUTH, "auth.test", "http://pds",
                                          NULL, NULL,        SS_ROLE_MEMBER};
static const ss_state_member me = {ME, "me.test", "http://pds", NULL, NULL, SS_ROLE_MEMBER};
static const ss_state_member bob = {BOB, "Bob.test", "http://pds", NULL, NULL, SS_ROLE_AUTHORITY};

typedef struct space {
	char *dir;
	ss_state *st;
} space;

/* A new clone's state: the authority, me (may be NULL), and bob added as a member. */
static void space_open(space *s, const ss_state_member *my)
{
	ss_error err;
	bool added = false;

	s->dir = ss_test_tmpdir();
	assert_int_equal(ss_state_open(&s->st, s->dir, &err), 0);
	assert_int_equal(ss_members_init(s->st, &authority, my, &err), 0);
	assert_int_equal(ss_members_add(s->st, &bob, &added, NULL, &err), 0);
	assert_true(added);
}

static void space_close(space *s)
{
	ss_state_free(s->st);
	ss_test_tmpdir_free(s->dir);
}

/* The role of did as the list says it; -1 when not listed. */
static int listed_role(ss_state *st, const char *did)
{
	ss_state_member *list = NULL;
	size_t n = 0;
	int role = -1;
	ss_error err;

	assert_int_equal(ss_members_list(st, &list, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].did, did))
			role = (int)list[i].role;
	ss_state_members_free(list, n);
	return role;
}

static size_t count(ss_state *st)
{
	ss_state_member *list = NULL;
	size_t n = 0;
	ss_error err;

	assert_int_equal(ss_members_list(st, &list, &n, &err), 0);
	ss_state_members_free(list, n);
	return n;
}

static void test_members__a_clone_has_the_authority_me_and_its_members(void **state)
{
	space s;
	char *value = NULL;
	ss_error err;

	(void)state;
	space_open(&s, &me);
	assert_int_equal(listed_role(s.st, AUTH), SS_ROLE_AUTHORITY);
	assert_int_equal(listed_role(s.st, ME), SS_ROLE_ME);
	/* the role asked for is the rule's to decide: bob came as a member */
	assert_int_equal(listed_role(s.st, BOB), SS_ROLE_MEMBER);
	assert_int_equal(ss_state_config_get(s.st, "authority", &value, &err), 0);
	assert_string_equal(value, AUTH);
	free(value);
	assert_int_equal(ss_state_config_get(s.st, "me", &value, &err), 0);
	assert_string_equal(value, ME);
	free(value);
	space_close(&s);
}

static void test_members__naming_someone_already_in_the_space_changes_nothing(void **state)
{
	const ss_state_member *who[] = {&authority, &me, &bob};
	const ss_state_role was[] = {SS_ROLE_AUTHORITY, SS_ROLE_ME, SS_ROLE_MEMBER};
	space s;
	ss_error err;

	(void)state;
	space_open(&s, &me);
	for (size_t i = 0; i < 3; i++) {
		bool added = true;
		ss_state_role role = SS_ROLE_MEMBER;

		assert_int_equal(ss_members_add(s.st, who[i], &added, &role, &err), 0);
		assert_false(added);
		assert_int_equal(role, was[i]);
		assert_int_equal(listed_role(s.st, who[i]->did), was[i]);
	}
	assert_int_equal(count(s.st), 3);
	space_close(&s);
}

static void test_members__the_authority_and_me_cannot_be_removed(void **state)
{
	space s;
	char *did = NULL;
	ss_error err;

	(void)state;
	space_open(&s, &me);
	assert_int_equal(ss_members_remove(s.st, AUTH, "auth.test", &err), SS_EINVALID);
	assert_string_equal(err.message, "cannot remove 'auth.test': it is the space's authority");
	assert_int_equal(ss_members_remove(s.st, ME, "me.test", &err), SS_EINVALID);
	assert_string_equal(err.message, "cannot remove 'me.test': it is you");
	assert_int_equal(ss_members_remove(s.st, "did:plc:nobody", "nobody.test", &err),
	                 SS_ENOTFOUND);
	assert_string_equal(err.message, "'nobody.test' is not a member of this space");
	assert_int_equal(count(s.st), 3);
	assert_int_equal(ss_members_remove(s.st, BOB, "bob.test", &err), 0);
	assert_int_equal(listed_role(s.st, BOB), -1);
	assert_int_equal(ss_members_find(s.st, "bob.test", &did, &err), SS_ENOTFOUND);
	assert_string_equal(err.message, "'bob.test' is not a member of this space");
	space_close(&s);
}

static void test_members__me_may_be_the_authority(void **state)
{
	space s;
	char *value = NULL;
	bool added = true;
	ss_state_role role = SS_ROLE_MEMBER;
	ss_state_member as_authority = me;
	ss_error err;

	(void)state;
	as_authority.did = AUTH;
	space_open(&s, &as_authority);
	assert_int_equal(count(s.st), 2);
	assert_int_equal(listed_role(s.st, AUTH), SS_ROLE_AUTHORITY);
	assert_int_equal(ss_state_config_get(s.st, "me", &value, &err), 0);
	assert_string_equal(value, AUTH);
	free(value);
	assert_int_equal(ss_members_add(s.st, &authority, &added, &role, &err), 0);
	assert_false(added);
	assert_int_equal(role, SS_ROLE_AUTHORITY);
	assert_int_equal(ss_members_remove(s.st, AUTH, "auth.test", &err), SS_EINVALID);
	assert_string_equal(err.message, "cannot remove 'auth.test': it is the space's authority");
	space_close(&s);
}

static void test_members__a_read_only_clone_has_no_me(void **state)
{
	space s;
	char *value = NULL;
	bool added = false;
	ss_state_role role = SS_ROLE_AUTHORITY;
	ss_error err;

	(void)state;
	space_open(&s, NULL);
	assert_int_equal(ss_state_config_get(s.st, "me", &value, &err), SS_ENOTFOUND);
	/* my account is then one member among others */
	assert_int_equal(ss_members_add(s.st, &me, &added, &role, &err), 0);
	assert_true(added);
	assert_int_equal(role, SS_ROLE_MEMBER);
	assert_int_equal(ss_members_remove(s.st, ME, "me.test", &err), 0);
	space_close(&s);
}

/* A clone made before the rule held me in a member's row when --member named me. */
static void test_members__config_me_outranks_an_older_member_row(void **state)
{
	space s;
	ss_state_member row = me;
	bool added = true;
	ss_state_role role = SS_ROLE_MEMBER;
	ss_error err;

	(void)state;
	space_open(&s, &me);
	row.role = SS_ROLE_MEMBER;
	assert_int_equal(ss_state_member_put(s.st, &row, &err), 0);
	assert_int_equal(listed_role(s.st, ME), SS_ROLE_ME);
	assert_int_equal(ss_members_add(s.st, &me, &added, &role, &err), 0);
	assert_false(added);
	assert_int_equal(role, SS_ROLE_ME);
	assert_int_equal(ss_members_remove(s.st, ME, "me.test", &err), SS_EINVALID);
	assert_string_equal(err.message, "cannot remove 'me.test': it is you");
	space_close(&s);
}

static void test_members__found_by_did_or_handle_without_the_network(void **state)
{
	const char *names[] = {BOB, "bob.test", "@BOB.TEST", "Bob.test"};
	space s;
	ss_error err;

	(void)state;
	space_open(&s, &me);
	for (size_t i = 0; i < 4; i++) {
		char *did = NULL;

		assert_int_equal(ss_members_find(s.st, names[i], &did, &err), 0);
		assert_string_equal(did, BOB);
		free(did);
	}
	space_close(&s);
}

int test_members_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members__a_clone_has_the_authority_me_and_its_members),
	    cmocka_unit_test(test_members__naming_someone_already_in_the_space_changes_nothing),
	    cmocka_unit_test(test_members__the_authority_and_me_cannot_be_removed),
	    cmocka_unit_test(test_members__me_may_be_the_authority),
	    cmocka_unit_test(test_members__a_read_only_clone_has_no_me),
	    cmocka_unit_test(test_members__config_me_outranks_an_older_member_row),
	    cmocka_unit_test(test_members__found_by_did_or_handle_without_the_network),
	};
	return cmocka_run_group_tests_name("members", tests, NULL, NULL);
}
