/*
 * xrpc_heads.c: many getLatestCommit (and describeRepo) at once against the real PDS, judged
 * against the one-by-one answers, with an unreachable PDS and an unknown repo among them.
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
#include "sync/net/xrpc_sync.h"
#include "sync/pds.h"

#define NACCOUNTS 4
/* Nothing listens on port 1 of loopback: connections are refused at once. */
#define UNREACHABLE "http://127.0.0.1:1"
#define NOBODY      "did:plc:nobodyhere000000000000"

typedef struct fixture {
	ss_http *http;
	ss_xrpc *pds;  /* the test PDS, no token: heads are public */
	ss_xrpc *gone; /* a PDS that cannot be reached */
	ss_test_account *accts[NACCOUNTS];
} fixture;

static int setup(void **state)
{
	fixture *f = ss_xcalloc(1, sizeof(*f));
	ss_http_options opts = {.backoff_ms = 5}; /* retries as usual, without the long waits */
	ss_error err;

	assert_int_equal(ss_http_new(&f->http, &opts, &err), 0);
	assert_int_equal(ss_xrpc_new(&f->pds, f->http, ss_test_pds()->pds, &err), 0);
	assert_int_equal(ss_xrpc_new(&f->gone, f->http, UNREACHABLE, &err), 0);
	for (int i = 0; i < NACCOUNTS; i++)
		f->accts[i] = ss_test_pds_new_account("heads");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	for (int i = 0; i < NACCOUNTS; i++)
		ss_test_account_free(f->accts[i]);
	ss_xrpc_free(f->gone);
	ss_xrpc_free(f->pds);
	ss_http_free(f->http);
	free(f);
	return 0;
}

static uint64_t requests(const fixture *f)
{
	ss_http_stats st;

	ss_http_get_stats(f->http, &st);
	return st.requests;
}

static void release_jobs(ss_xrpc_head_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ss_xrpc_commit_release(&jobs[i].commit);
}

static void test_xrpc_heads__many_equal_the_one_by_one_answers(void **state)
{
	fixture *f = *state;
	ss_xrpc_head_job jobs[NACCOUNTS];
	ss_xrpc_commit one[NACCOUNTS];
	ss_error err;
	uint64_t before;

	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < NACCOUNTS; i++) {
		jobs[i].client = f->pds;
		jobs[i].did = f->accts[i]->did;
	}
	before = requests(f);
	assert_int_equal(ss_xrpc_get_latest_commit_many(jobs, NACCOUNTS, 0, &err), 0);
	assert_int_equal(requests(f) - before, NACCOUNTS); /* one request per repo */
	for (int i = 0; i < NACCOUNTS; i++) {
		assert_int_equal(jobs[i].rc, 0);
		assert_int_equal(ss_xrpc_get_latest_commit(f->pds, f->accts[i]->did, &one[i], &err),
		                 0);
		assert_string_equal(jobs[i].commit.cid, one[i].cid);
		assert_string_equal(jobs[i].commit.rev, one[i].rev);
		ss_xrpc_commit_release(&one[i]);
	}
	/* Each answer is its own repo's: the accounts' commits all differ. */
	for (int i = 1; i < NACCOUNTS; i++)
		assert_string_not_equal(jobs[i].commit.cid, jobs[0].commit.cid);
	release_jobs(jobs, NACCOUNTS);

	/* Two at a time: the same answers. */
	for (int i = 0; i < NACCOUNTS; i++) {
		jobs[i].client = f->pds;
		jobs[i].did = f->accts[NACCOUNTS - 1 - i]->did;
	}
	assert_int_equal(ss_xrpc_get_latest_commit_many(jobs, NACCOUNTS, 2, &err), 0);
	for (int i = 0; i < NACCOUNTS; i++) {
		assert_int_equal(ss_xrpc_get_latest_commit(f->pds, jobs[i].did, &one[i], &err), 0);
		assert_string_equal(jobs[i].commit.cid, one[i].cid);
		ss_xrpc_commit_release(&one[i]);
	}
	release_jobs(jobs, NACCOUNTS);
	assert_int_equal(ss_xrpc_get_latest_commit_many(NULL, 0, 0, &err), 0);
}

/* describeRepo of many repos at once: each job's answer is its repo's own, as one by one; an
 * unknown repo fails alone. */
static void test_xrpc_heads__describe_many(void **state)
{
	fixture *f = *state;
	ss_xrpc_describe_job jobs[NACCOUNTS + 1];
	ss_xrpc_repo_info one;
	ss_error err;
	uint64_t before;

	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < NACCOUNTS; i++) {
		jobs[i].client = f->pds;
		jobs[i].did = f->accts[i]->did;
	}
	jobs[NACCOUNTS].client = f->pds;
	jobs[NACCOUNTS].did = NOBODY;
	before = requests(f);
	assert_int_not_equal(ss_xrpc_describe_repo_many(jobs, NACCOUNTS + 1, 0, &err), 0);
	assert_int_equal(requests(f) - before, NACCOUNTS + 1);
	for (int i = 0; i < NACCOUNTS; i++) {
		assert_int_equal(jobs[i].rc, 0);
		assert_int_equal(ss_xrpc_describe_repo(f->pds, f->accts[i]->did, &one, &err), 0);
		assert_string_equal(jobs[i].info.did, f->accts[i]->did);
		assert_string_equal(jobs[i].info.handle, one.handle);
		for (size_t k = 0; one.collections[k] || jobs[i].info.collections[k]; k++) {
			assert_non_null(one.collections[k]);
			assert_non_null(jobs[i].info.collections[k]);
			assert_string_equal(jobs[i].info.collections[k], one.collections[k]);
		}
		ss_xrpc_repo_info_release(&one);
		ss_xrpc_repo_info_release(&jobs[i].info);
	}
	assert_true(jobs[NACCOUNTS].rc < 0);
	assert_null(jobs[NACCOUNTS].info.did);
}

/* msg with curl's "after <n> ms" taken out: the same failure twice may take another millisecond. */
static void untimed(char *out, size_t size, const char *msg)
{
	const char *at = strstr(msg, " after ");
	const char *ms = at ? strstr(at, " ms") : NULL;

	if (!ms)
		snprintf(out, size, "%s", msg);
	else
		snprintf(out, size, "%.*s after _%s", (int)(at - msg), msg, ms);
}

/* a and b say the same, but for how long each took. */
static void assert_same_failure(const char *a, const char *b)
{
	char x[SS_ERROR_MSG_MAX + 8], y[SS_ERROR_MSG_MAX + 8];

	untimed(x, sizeof(x), a);
	untimed(y, sizeof(y), b);
	assert_string_equal(x, y);
}

static void test_xrpc_heads__failures_are_each_jobs_own(void **state)
{
	fixture *f = *state;
	ss_xrpc_head_job jobs[4];
	ss_xrpc_commit c0, c2;
	ss_error err, gone_err, nobody_err;

	/* What one-by-one calls say for the two that fail. */
	SS_ASSERT_FAILS(ss_xrpc_get_latest_commit(f->gone, f->accts[1]->did, &c0, &gone_err),
	                gone_err, SS_ENETWORK);
	assert_non_null(strstr(gone_err.message, "127.0.0.1:1"));
	assert_true(ss_xrpc_get_latest_commit(f->pds, NOBODY, &c0, &nobody_err) < 0);
	assert_non_null(strstr(nobody_err.message, "com.atproto.sync.getLatestCommit: "));

	memset(jobs, 0, sizeof(jobs));
	jobs[0] = (ss_xrpc_head_job){.client = f->pds, .did = f->accts[0]->did};
	jobs[1] = (ss_xrpc_head_job){.client = f->gone, .did = f->accts[1]->did};
	jobs[2] = (ss_xrpc_head_job){.client = f->pds, .did = f->accts[2]->did};
	jobs[3] = (ss_xrpc_head_job){.client = f->pds, .did = NOBODY};
	/*
	 * The unknown repo's answer comes back first, the unreachable one's only after its
	 * retries: the call still reports the first failed job in job order.
	 */
	SS_ASSERT_FAILS(ss_xrpc_get_latest_commit_many(jobs, 4, 0, &err), err, SS_ENETWORK);
	assert_same_failure(err.message, gone_err.message);
	assert_int_equal(jobs[1].rc, SS_ENETWORK);
	assert_same_failure(jobs[1].err.message, gone_err.message);
	assert_null(jobs[1].commit.cid);
	assert_int_equal(jobs[3].rc, nobody_err.code);
	assert_string_equal(jobs[3].err.message, nobody_err.message);
	assert_null(jobs[3].commit.cid);

	/* The others got their own heads, not a neighbour's nor an error. */
	assert_int_equal(ss_xrpc_get_latest_commit(f->pds, f->accts[0]->did, &c0, &err), 0);
	assert_int_equal(ss_xrpc_get_latest_commit(f->pds, f->accts[2]->did, &c2, &err), 0);
	assert_int_equal(jobs[0].rc, 0);
	assert_string_equal(jobs[0].commit.cid, c0.cid);
	assert_string_equal(jobs[0].commit.rev, c0.rev);
	assert_int_equal(jobs[2].rc, 0);
	assert_string_equal(jobs[2].commit.cid, c2.cid);
	assert_string_equal(jobs[2].commit.rev, c2.rev);
	ss_xrpc_commit_release(&c0);
	ss_xrpc_commit_release(&c2);
	release_jobs(jobs, 4);

	/* The unknown repo first in order: its error is the one reported. */
	jobs[0] = (ss_xrpc_head_job){.client = f->pds, .did = NOBODY};
	jobs[1] = (ss_xrpc_head_job){.client = f->gone, .did = f->accts[1]->did};
	assert_int_equal(ss_xrpc_get_latest_commit_many(jobs, 2, 0, &err), nobody_err.code);
	assert_string_equal(err.message, nobody_err.message);
	release_jobs(jobs, 2);
}

int test_xrpc_heads_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_xrpc_heads__many_equal_the_one_by_one_answers,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc_heads__describe_many, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc_heads__failures_are_each_jobs_own, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests_name("sync/xrpc_heads", tests, NULL, NULL);
}
