/*
 * space_admin.c: the requests an authority sends for its space and how it reads the answers
 * (sync/space/space_admin.h), without a server: tests/cmd/space_admin.sh runs them against the test
 * space host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/mem.h"
#include "support/support.h"
#include "sync/space/space_admin.h"

#define DID "did:plc:abcdefghijklmnopqrstuvwx"

static void test_space_admin__create_body_is_the_october_form(void **state)
{
	ss_buf b = SS_BUF_INIT;

	(void)state;
	ss_space_admin_create_body(&b, "team-skills", SS_SPACE_POLICY_MEMBERS,
	                           SS_SPACE_POLICY_MEMBERS);
	assert_string_equal(
	    b.ptr,
	    "{\"spaceType\":\"garden.engram.space\",\"skey\":\"team-skills\","
	    "\"readPolicy\":{\"$type\":\"com.atproto.simplespace.defs#memberListPolicy\"},"
	    "\"writePolicy\":{\"$type\":\"com.atproto.simplespace.defs#memberListPolicy\"}}");
	ss_space_admin_create_body(&b, "k", SS_SPACE_POLICY_PUBLIC, SS_SPACE_POLICY_MEMBERS);
	assert_string_equal(
	    b.ptr,
	    "{\"spaceType\":\"garden.engram.space\",\"skey\":\"k\","
	    "\"readPolicy\":{\"$type\":\"com.atproto.simplespace.defs#publicPolicy\"},"
	    "\"writePolicy\":{\"$type\":\"com.atproto.simplespace.defs#memberListPolicy\"}}");
	ss_buf_release(&b);
}

static void test_space_admin__policies_by_name(void **state)
{
	ss_space_admin_policy p = SS_SPACE_POLICY_PUBLIC;
	ss_error err;

	(void)state;
	assert_int_equal(ss_space_admin_policy_parse("members", &p, &err), 0);
	assert_int_equal(p, SS_SPACE_POLICY_MEMBERS);
	assert_int_equal(ss_space_admin_policy_parse("public", &p, &err), 0);
	assert_int_equal(p, SS_SPACE_POLICY_PUBLIC);
	SS_ASSERT_FAILS(ss_space_admin_policy_parse("Members", &p, &err), err, SS_EINVALID);
	assert_string_equal(err.message, "'Members' is not a policy: use 'members' or 'public'");
	assert_string_equal(ss_space_admin_policy_name(SS_SPACE_POLICY_PUBLIC), "public");
}

static void test_space_admin__space_keys_follow_record_key_syntax(void **state)
{
	char long_key[SS_SPACE_ADMIN_SKEY_MAX + 2];
	const char *good[] = {"team", "3jzfcijpj2z2a", "a.b-c_d:e~f", "..."};
	const char *bad[] = {"", ".", "..", "a/b", "a b", "caf\xc3\xa9", "a?b", "a#b"};
	ss_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(ss_space_admin_check_skey(good[i], &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		SS_ASSERT_FAILS(ss_space_admin_check_skey(bad[i], &err), err, SS_EINVALID);
	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[SS_SPACE_ADMIN_SKEY_MAX] = '\0';
	assert_int_equal(ss_space_admin_check_skey(long_key, &err), 0);
	long_key[SS_SPACE_ADMIN_SKEY_MAX] = 'k';
	long_key[SS_SPACE_ADMIN_SKEY_MAX + 1] = '\0';
	SS_ASSERT_FAILS(ss_space_admin_check_skey(long_key, &err), err, SS_EINVALID);
	assert_string_equal(err.message, "the space key is 513 characters long: at most 512");
}

static void test_space_admin__space_named_by_key_or_uri(void **state)
{
	ss_space_admin_ref r;
	ss_error err;

	(void)state;
	assert_int_equal(ss_space_admin_ref_parse("team", DID, &r, &err), 0);
	assert_string_equal(r.uri, "at://" DID "/space/garden.engram.space/team");
	assert_string_equal(r.authority, DID);
	assert_string_equal(r.type, "garden.engram.space");
	assert_string_equal(r.skey, "team");
	ss_space_admin_ref_release(&r);

	assert_int_equal(
	    ss_space_admin_ref_parse("at://" DID "/space/garden.engram.space/t1", NULL, &r, &err),
	    0);
	assert_string_equal(r.uri, "at://" DID "/space/garden.engram.space/t1");
	assert_string_equal(r.authority, DID);
	assert_string_equal(r.skey, "t1");
	ss_space_admin_ref_release(&r);

	/* A handle may stand for the authority: the caller resolves it. */
	assert_int_equal(
	    ss_space_admin_ref_parse("at://alice.test/space/garden.engram.space/t", NULL, &r, &err),
	    0);
	assert_string_equal(r.authority, "alice.test");
	ss_space_admin_ref_release(&r);

	/* Refused, with nothing allocated. */
	SS_ASSERT_FAILS(ss_space_admin_ref_parse("team", NULL, &r, &err), err, SS_EINVALID);
	SS_ASSERT_FAILS(ss_space_admin_ref_parse("a/b", DID, &r, &err), err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_space_admin_ref_parse("at://" DID "/garden.engram.space/t", NULL, &r, &err), err,
	    SS_EINVALID);
	SS_ASSERT_FAILS(ss_space_admin_ref_parse("at://" DID "/space/engram/t", NULL, &r, &err),
	                err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_space_admin_ref_parse("at://" DID "/space/garden.engram.space/a/b", NULL, &r, &err),
	    err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_space_admin_ref_parse("at://" DID "/space/garden.engram.space/", NULL, &r, &err),
	    err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_space_admin_ref_parse("at://not a did/space/garden.engram.space/t", NULL, &r, &err),
	    err, SS_EINVALID);
	assert_null(r.uri);
}

static void test_space_admin__members_pages(void **state)
{
	const char *p1 =
	    "{\"members\":[{\"did\":\"did:plc:aaa\",\"read\":true,\"write\":true},"
	    "{\"did\":\"did:plc:bbb\",\"read\":true,\"write\":false}],\"cursor\":\"c1\"}";
	/* The August form had no flags: a member then reads and writes. */
	const char *p2 = "{\"members\":[{\"did\":\"did:web:ccc.test\"}]}";
	const char *nodid = "{\"members\":[{\"did\":\"bob\"}]}";
	ss_space_admin_member *list = NULL;
	size_t n = 0, alloc = 0;
	char *cursor = NULL;
	ss_error err;

	(void)state;
	assert_int_equal(
	    ss_space_admin_members_page(p1, strlen(p1), &list, &n, &alloc, &cursor, &err), 0);
	assert_string_equal(cursor, "c1");
	free(cursor);
	assert_int_equal(
	    ss_space_admin_members_page(p2, strlen(p2), &list, &n, &alloc, &cursor, &err), 0);
	assert_null(cursor);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].did, "did:plc:aaa");
	assert_true(list[0].read && list[0].write);
	assert_string_equal(list[1].did, "did:plc:bbb");
	assert_true(list[1].read && !list[1].write);
	assert_string_equal(list[2].did, "did:web:ccc.test");
	assert_true(list[2].read && list[2].write);

	/* Not a page, or an entry without a DID: refused. */
	SS_ASSERT_FAILS(ss_space_admin_members_page("[]", 2, &list, &n, &alloc, &cursor, &err), err,
	                SS_ERROR);
	SS_ASSERT_FAILS(
	    ss_space_admin_members_page(nodid, strlen(nodid), &list, &n, &alloc, &cursor, &err),
	    err, SS_ERROR);
	assert_int_equal(n, 3);
	assert_null(cursor);
	ss_space_admin_members_free(list, n);
}

int test_space_admin_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_admin__create_body_is_the_october_form),
	    cmocka_unit_test(test_space_admin__policies_by_name),
	    cmocka_unit_test(test_space_admin__space_keys_follow_record_key_syntax),
	    cmocka_unit_test(test_space_admin__space_named_by_key_or_uri),
	    cmocka_unit_test(test_space_admin__members_pages),
	};
	return cmocka_run_group_tests_name("sync/space_admin", tests, NULL, NULL);
}
