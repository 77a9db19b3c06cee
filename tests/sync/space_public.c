/*
 * space_public.c: the public-repos transport's heads against the real PDS: every member's
 * head in one call, and the one-line error naming the first member (in the space's order)
 * whose head cannot be read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/mem.h"
#include "support/support.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"
#include "sync/pds.h"
#include "sync/public/space_public.h"

#define UNREACHABLE "http://127.0.0.1:1" /* nothing listens there */
#define NOBODY      "did:plc:nobodyhere000000000000"

typedef struct fixture {
	ss_http *http;
	ss_xrpc *pds;
	ss_test_account *a, *b, *c;
} fixture;

static int setup(void **state)
{
	fixture *f = ss_xcalloc(1, sizeof(*f));
	ss_http_options opts = {.backoff_ms = 5};
	ss_error err;

	assert_int_equal(ss_http_new(&f->http, &opts, &err), 0);
	assert_int_equal(ss_xrpc_new(&f->pds, f->http, ss_test_pds()->pds, &err), 0);
	f->a = ss_test_pds_new_account("spa");
	f->b = ss_test_pds_new_account("spb");
	f->c = ss_test_pds_new_account("spc");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ss_test_account_free(f->a);
	ss_test_account_free(f->b);
	ss_test_account_free(f->c);
	ss_xrpc_free(f->pds);
	ss_http_free(f->http);
	free(f);
	return 0;
}

static ss_space_public_member member(const fixture *f, const ss_test_account *a)
{
	return (ss_space_public_member){a->did, a->handle, ss_test_pds()->pds};
}

static uint64_t requests(const fixture *f)
{
	ss_http_stats st;

	ss_http_get_stats(f->http, &st);
	return st.requests;
}

static void test_space_public__heads_of_every_member_in_one_call(void **state)
{
	fixture *f = *state;
	ss_space_public_member m[3] = {member(f, f->a), member(f, f->b), member(f, f->c)};
	const ss_test_account *accts[3] = {f->a, f->b, f->c};
	ss_space *sp = NULL;
	ss_space_head *heads = NULL;
	size_t n = 0;
	uint64_t before;
	ss_error err;

	assert_int_equal(ss_space_public_new(&sp, f->http, NULL, NULL, m, 3, &err), 0);
	before = requests(f);
	assert_int_equal(ss_space_heads(sp, &heads, &n, &err), 0);
	assert_int_equal(requests(f) - before, 3);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		ss_xrpc_commit c;

		assert_int_equal(ss_xrpc_get_latest_commit(f->pds, accts[i]->did, &c, &err), 0);
		assert_string_equal(heads[i].did, accts[i]->did);
		assert_string_equal(heads[i].handle, accts[i]->handle);
		assert_string_equal(heads[i].commit, c.cid);
		assert_string_equal(heads[i].rev, c.rev);
		ss_xrpc_commit_release(&c);
	}
	ss_space_heads_free(heads, n);
	ss_space_free(sp);
}

static void test_space_public__unreadable_head_names_the_first_member(void **state)
{
	fixture *f = *state;
	ss_space_public_member gone = {f->b->did, "gone.test", UNREACHABLE};
	ss_space_public_member nobody = {NOBODY, "nobody.test", ss_test_pds()->pds};
	ss_space_public_member m[4] = {member(f, f->a), gone, member(f, f->c), nobody};
	ss_space *sp = NULL;
	ss_space_head *heads = NULL;
	size_t n = 0;
	ss_xrpc *x;
	ss_xrpc_commit c;
	ss_error err, gone_err;
	ss_buf want = SS_BUF_INIT;

	/* What the head of the unreachable member says alone. */
	assert_int_equal(ss_xrpc_new(&x, f->http, UNREACHABLE, &err), 0);
	SS_ASSERT_FAILS(ss_xrpc_get_latest_commit(x, f->b->did, &c, &gone_err), gone_err,
	                SS_ENETWORK);
	ss_xrpc_free(x);
	ss_buf_printf(&want, "cannot read the head of 'gone.test': %s", gone_err.message);

	/* Two members fail: the first in the space's order is named, whichever answered first. */
	assert_int_equal(ss_space_public_new(&sp, f->http, NULL, NULL, m, 4, &err), 0);
	SS_ASSERT_FAILS(ss_space_heads(sp, &heads, &n, &err), err, SS_ENETWORK);
	assert_string_equal(err.message, want.ptr);
	ss_buf_release(&want);
	assert_null(heads);
	assert_int_equal(n, 0);
	ss_space_free(sp);

	/* The unknown repo first: it is the one named. */
	m[1] = nobody;
	m[3] = gone;
	assert_int_equal(ss_space_public_new(&sp, f->http, NULL, NULL, m, 4, &err), 0);
	assert_true(ss_space_heads(sp, &heads, &n, &err) < 0);
	assert_non_null(strstr(err.message, "cannot read the head of 'nobody.test': "
	                                    "com.atproto.sync.getLatestCommit: "));
	assert_null(heads);
	ss_space_free(sp);
}

int test_space_public_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_space_public__heads_of_every_member_in_one_call,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_space_public__unreadable_head_names_the_first_member, setup, teardown),
	};
	return cmocka_run_group_tests_name("sync/space_public", tests, NULL, NULL);
}
