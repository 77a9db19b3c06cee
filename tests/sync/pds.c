/* pds.c: the test PDS fixture for the sync tests, and a check that it is what it says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/util/buf.h"
#include "core/util/mem.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"
#include "sync/pds.h"

static json_t *info;
static ss_test_pds_info urls;
static ss_test_account shared[3];
static const char *const shared_names[] = {"alice", "bob", "carol"};

static char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? ss_xstrdup(s) : NULL;
}

static void fill(ss_test_account *a, json_t *o)
{
	a->handle = str(o, "handle");
	a->did = str(o, "did");
	a->password = str(o, "password");
	a->access_jwt = str(o, "accessJwt");
	a->refresh_jwt = str(o, "refreshJwt");
}

const ss_test_pds_info *ss_test_pds(void)
{
	const char *path = getenv("SS_PDS_INFO");
	json_error_t je;
	json_t *accounts, *a;
	size_t i;

	if (info)
		return &urls;
	if (!path)
		fail_msg("SS_PDS_INFO is not set: run the tests with ctest (the pds fixture)");
	info = json_load_file(path, 0, &je);
	if (!info)
		fail_msg("cannot read %s: %s", path, je.text);
	urls.pds = json_string_value(json_object_get(info, "pds"));
	urls.plc = json_string_value(json_object_get(info, "plc"));
	assert_non_null(urls.pds);
	assert_non_null(urls.plc);
	accounts = json_object_get(info, "accounts");
	json_array_foreach(accounts, i, a)
	{
		const char *name = json_string_value(json_object_get(a, "name"));

		for (size_t k = 0; name && k < 3; k++)
			if (!strcmp(name, shared_names[k]))
				fill(&shared[k], a);
	}
	setenv("SKILLSYNC_PLC_URL", urls.plc, 1);
	setenv("SKILLSYNC_HANDLE_RESOLVER", urls.pds, 1);
	return &urls;
}

const ss_test_account *ss_test_pds_account(const char *name)
{
	ss_test_pds();
	for (size_t k = 0; k < 3; k++)
		if (!strcmp(name, shared_names[k]) && shared[k].did)
			return &shared[k];
	fail_msg("the test PDS has no account '%s'", name);
	return NULL;
}

ss_test_account *ss_test_pds_new_account(const char *name)
{
	const char *tools = getenv("SS_PDS_TOOLS"), *src = getenv("SS_SOURCE_DIR");
	ss_buf cmd = SS_BUF_INIT, out = SS_BUF_INIT;
	ss_test_account *a;
	char chunk[4096];
	size_t n;
	json_t *o;
	FILE *p;

	ss_test_pds();
	if (tools)
		ss_buf_printf(&cmd, "'%s/account'", tools);
	else
		ss_buf_printf(&cmd, "'%s/tests/pds/account'", src ? src : ".");
	ss_buf_printf(&cmd, " '%s' '%s'", getenv("SS_PDS_INFO"), name);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		ss_buf_put(&out, chunk, n);
	assert_int_equal(pclose(p), 0);
	o = json_loads(out.ptr, 0, NULL);
	assert_non_null(o);
	a = ss_xcalloc(1, sizeof(*a));
	fill(a, o);
	assert_non_null(a->did);
	json_decref(o);
	ss_buf_release(&cmd);
	ss_buf_release(&out);
	return a;
}

void ss_test_account_free(ss_test_account *a)
{
	if (!a)
		return;
	free(a->handle);
	free(a->did);
	free(a->password);
	free(a->access_jwt);
	free(a->refresh_jwt);
	free(a);
}

/* The fixture's accounts exist on its PDS under their handles. */
static void test_pds__fixture_accounts_exist(void **state)
{
	ss_http *http;
	ss_xrpc *x;
	ss_error err;

	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	assert_int_equal(ss_xrpc_new(&x, http, ss_test_pds()->pds, &err), 0);
	for (size_t k = 0; k < 3; k++) {
		const ss_test_account *a = ss_test_pds_account(shared_names[k]);
		ss_xrpc_repo_info ri;

		assert_int_equal(ss_xrpc_describe_repo(x, a->did, &ri, &err), 0);
		assert_string_equal(ri.did, a->did);
		assert_string_equal(ri.handle, a->handle);
		assert_true(ri.handle_is_correct);
		ss_xrpc_repo_info_release(&ri);
	}
	ss_xrpc_free(x);
	ss_http_free(http);
}

int test_pds_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pds__fixture_accounts_exist),
	};
	return cmocka_run_group_tests_name("sync/pds", tests, NULL, NULL);
}
