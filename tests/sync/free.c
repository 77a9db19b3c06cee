/*
 * Every free and release accepts NULL (docs/CONTRIBUTING.md, "Memory"), as free() does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sync/identity/identity.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"
#include "sync/net/http_priv.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"
#include "sync/net/xrpc_server.h"
#include "sync/pull.h"
#include "sync/push.h"
#include "sync/transport/space.h"

static void test_free__every_free_accepts_null(void **state)
{
	(void)state;
	ss_http_free(NULL);
	ss_http_response_release(NULL);
	ss_http_batch_free(NULL);
	ss_http__xfer_release(NULL);
	ss_identity_release(NULL);
	ss_pull_result_release(NULL);
	ss_push_result_release(NULL);
	ss_push_plan_release(NULL);
	ss_session_info_release(NULL);
	ss_session_list_free(NULL, 3);
	ss_space_heads_free(NULL, 3);
	ss_space_applied_release(NULL);
	ss_space_free(NULL);
	ss_xrpc_free(NULL);
	ss_xrpc_record_release(NULL);
	ss_xrpc_commit_release(NULL);
	ss_xrpc_apply_result_release(NULL);
	ss_xrpc_repo_info_release(NULL);
	ss_xrpc_session_release(NULL);
	ss_xrpc_did_doc_release(NULL);
}

int test_free_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_free__every_free_accepts_null),
	};
	return cmocka_run_group_tests_name("free", tests, NULL, NULL);
}
