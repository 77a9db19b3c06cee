/*
 * space_proto_alpha.c: which alpha of the permissioned-space protocol a URI or an answer
 * belongs to (sync/space/space_proto.h), without a server: the URI spellings (the 2026-10-01
 * at://<authority>/space/<type>/<key>, the newer at:space/... and ats://...), the lines said
 * for them, XRPC's unknown-method error, the newer listRepos shape and describeServer's
 * spacesAlpha. tests/cmd/space_alpha.sh runs them against the test space host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "support/support.h"
#include "sync/space/space_proto.h"

static void test_space_proto_alpha__uri_forms(void **state)
{
	static const struct {
		const char *s;
		ss_space_uri_form form;
	} cases[] = {
	    {"at://did:plc:abc/space/garden.engram.space/k", SS_SPACE_URI_OURS},
	    {"AT://alice.test/space/garden.engram.space/k", SS_SPACE_URI_OURS},
	    {"at://did:plc:abc/app.bsky.feed.post/k", SS_SPACE_URI_OURS}, /* refused later */
	    {"at:space/did:plc:abc/garden.engram.space/k", SS_SPACE_URI_NEWER},
	    {"AT:SPACE/did:plc:abc/garden.engram.space/k", SS_SPACE_URI_NEWER},
	    {"ats://did:plc:abc/garden.engram.space/k", SS_SPACE_URI_NEWER},
	    {"Ats://did:web:example.com/garden.engram.space/k", SS_SPACE_URI_NEWER},
	    {"ats://", SS_SPACE_URI_NEWER},
	    {"at:spaces/did:plc:abc/t/k", SS_SPACE_URI_OTHER},
	    {"at:space", SS_SPACE_URI_OTHER},
	    {"ats:/did:plc:abc/t/k", SS_SPACE_URI_OTHER},
	    {"at:/did:plc:abc", SS_SPACE_URI_OTHER},
	    {"alice.test", SS_SPACE_URI_OTHER},
	    {"did:plc:abc", SS_SPACE_URI_OTHER},
	    {"https://example.com/space", SS_SPACE_URI_OTHER},
	    {"", SS_SPACE_URI_OTHER},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (ss_space_proto_uri_form(cases[i].s) != cases[i].form)
			fail_msg("'%s': form %d, not %d", cases[i].s,
			         (int)ss_space_proto_uri_form(cases[i].s), (int)cases[i].form);
	assert_int_equal(ss_space_proto_uri_form(NULL), SS_SPACE_URI_OTHER);
}

static void test_space_proto_alpha__newer_uri_line(void **state)
{
	const char *uri = "ats://did:plc:abc/garden.engram.space/k";
	ss_error err;

	(void)state;
	assert_true(ss_space_proto_newer_uri(uri, &err) < 0);
	assert_int_equal(err.code, SS_EINVALID);
	assert_string_equal(
	    err.message, "'ats://did:plc:abc/garden.engram.space/k' is a space URI of a newer "
	                 "permissioned-space protocol alpha (after 2026-10-01); skillsync speaks "
	                 "the 2026-10-01 alpha (at://<authority>/space/<type>/<key>)");
	assert_null(strchr(err.message, '\n'));
}

static void test_space_proto_alpha__unknown_method(void **state)
{
	ss_buf body = SS_BUF_INIT;
	ss_error err;

	(void)state;
	assert_true(ss_space_proto_unknown_method(501, NULL));
	assert_true(ss_space_proto_unknown_method(400, "MethodNotImplemented"));
	assert_false(ss_space_proto_unknown_method(400, "InvalidRequest"));
	assert_false(ss_space_proto_unknown_method(404, NULL));
	assert_false(ss_space_proto_unknown_method(500, "InternalServerError"));

	/* another error is left as it was */
	ss_buf_puts(&body, "{\"error\":\"InvalidRequest\",\"message\":\"no\"}");
	ss_error_set(&err, SS_ERROR, "as it was");
	assert_int_equal(
	    ss_space_proto_alpha_unknown("http://h", SS_SPACE_NSID_LIST_REPOS, 400, &body, &err),
	    SS_ERROR);
	assert_string_equal(err.message, "as it was");
	/* the unknown method: one line naming the server, the method and both alphas */
	ss_buf_clear(&body);
	ss_buf_puts(&body,
	            "{\"error\":\"MethodNotImplemented\",\"message\":\"Method Not Implemented\"}");
	assert_int_equal(
	    ss_space_proto_alpha_unknown("http://h", SS_SPACE_NSID_LIST_REPOS, 501, &body, &err),
	    SS_EINVALID);
	assert_non_null(
	    strstr(err.message, "'http://h' does not know com.atproto.space.listRepos"));
	assert_non_null(strstr(err.message, "newer permissioned-space protocol alpha"));
	assert_non_null(strstr(err.message, "skillsync speaks the 2026-10-01 alpha"));
	/* a 501 without a JSON body says the same */
	ss_buf_clear(&body);
	ss_error_set(&err, SS_ERROR, "as it was");
	assert_int_equal(
	    ss_space_proto_alpha_unknown("http://h", SS_SPACE_NSID_CREDENTIAL, 501, &body, &err),
	    SS_EINVALID);
	assert_non_null(strstr(err.message, "com.atproto.space.getSpaceCredential"));
	ss_buf_release(&body);
}

static void test_space_proto_alpha__newer_shape_and_describe(void **state)
{
	static const struct {
		const char *nsid, *body;
		bool newer;
	} shapes[] = {
	    {SS_SPACE_NSID_LIST_REPOS, "{\"writers\":[]}", true},
	    {SS_SPACE_NSID_LIST_REPOS, "{\"writers\":[{\"did\":\"did:plc:a\"}],\"cursor\":\"1\"}",
	     true},
	    {SS_SPACE_NSID_LIST_REPOS, "{\"repos\":[]}", false},
	    {SS_SPACE_NSID_LIST_REPOS, "{\"repos\":[],\"writers\":[]}", false},
	    {SS_SPACE_NSID_LIST_REPOS, "{\"writers\":{}}", false},
	    {SS_SPACE_NSID_LIST_REPOS, "[]", false},
	    {SS_SPACE_NSID_LIST_REPOS, "not json", false},
	    {SS_SPACE_NSID_LIST_REPOS, "", false},
	    {SS_SPACE_NSID_LIST_OPS, "{\"writers\":[]}", false},
	};
	static const struct {
		const char *body, *alpha;
	} describes[] = {
	    {"{\"did\":\"did:web:h\",\"spacesAlpha\":\"2026-11-12\"}", "2026-11-12"},
	    {"{\"spacesAlpha\":\"2026-10-01\"}", "2026-10-01"},
	    {"{\"did\":\"did:web:h\",\"availableUserDomains\":[]}", NULL},
	    {"{\"spacesAlpha\":20261112}", NULL},
	    {"[\"spacesAlpha\"]", NULL},
	    {"<html>", NULL},
	    {"", NULL},
	};
	ss_buf body = SS_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		ss_buf_clear(&body);
		ss_buf_puts(&body, shapes[i].body);
		if (ss_space_proto_newer_shape(shapes[i].nsid, &body) != shapes[i].newer)
			fail_msg("%s '%s': newer shape is not %d", shapes[i].nsid, shapes[i].body,
			         shapes[i].newer);
	}
	assert_false(ss_space_proto_newer_shape(SS_SPACE_NSID_LIST_REPOS, NULL));
	for (size_t i = 0; i < sizeof(describes) / sizeof(describes[0]); i++) {
		char *alpha;

		ss_buf_clear(&body);
		ss_buf_puts(&body, describes[i].body);
		alpha = ss_space_proto_alpha_of(&body);
		if (describes[i].alpha ? !alpha || strcmp(alpha, describes[i].alpha)
		                       : alpha != NULL)
			fail_msg("'%s': spacesAlpha '%s'", describes[i].body,
			         alpha ? alpha : "(none)");
		free(alpha);
	}
	ss_buf_release(&body);
}

int test_space_proto_alpha_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_proto_alpha__uri_forms),
	    cmocka_unit_test(test_space_proto_alpha__newer_uri_line),
	    cmocka_unit_test(test_space_proto_alpha__unknown_method),
	    cmocka_unit_test(test_space_proto_alpha__newer_shape_and_describe),
	};
	return cmocka_run_group_tests_name("sync/space_proto_alpha", tests, NULL, NULL);
}
