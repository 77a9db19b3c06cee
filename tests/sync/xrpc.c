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
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_repo.h"
#include "sync/net/xrpc_server.h"
#include "sync/pds.h"

#define COLL "garden.engram.skill"

typedef struct fixture {
	ss_http *http;
	ss_xrpc *x;
	ss_test_account *acct;
} fixture;

/* A fresh account and a client signed in to it (tokens from the fixture's tool). */
static int setup(void **state)
{
	fixture *f = ss_xcalloc(1, sizeof(*f));
	ss_error err;

	f->acct = ss_test_pds_new_account("xrpc");
	assert_int_equal(ss_http_new(&f->http, NULL, &err), 0);
	assert_int_equal(ss_xrpc_new(&f->x, f->http, ss_test_pds()->pds, &err), 0);
	ss_xrpc_set_token(f->x, f->acct->access_jwt);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ss_xrpc_free(f->x);
	ss_http_free(f->http);
	ss_test_account_free(f->acct);
	free(f);
	return 0;
}

static char *skill_json(const char *name, const char *text)
{
	ss_buf b = SS_BUF_INIT;

	ss_buf_printf(&b,
	              "{\"$type\":\"" COLL "\",\"name\":\"%s\",\"description\":\"d\","
	              "\"instructions\":\"%s\",\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
	              name, text);
	return ss_buf_detach(&b, NULL);
}

static void test_xrpc__jwt_exp_is_read_from_the_payload(void **state)
{
	/* {"alg":"HS256"}.{"sub":"did:plc:x","exp":1700000000}.sig */
	const char *jwt =
	    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkaWQ6cGxjOngiLCJleHAiOjE3MDAwMDAwMDB9.c2ln";
	long long exp = 0;
	ss_error err;

	assert_int_equal(ss_xrpc_jwt_exp(jwt, &exp, &err), 0);
	assert_int_equal(exp, 1700000000LL);
	SS_ASSERT_FAILS(ss_xrpc_jwt_exp("not-a-jwt", &exp, &err), err, SS_EINVALID);
	/* {"sub":"x"}: no exp */
	SS_ASSERT_FAILS(ss_xrpc_jwt_exp("e30.eyJzdWIiOiJ4In0.c2ln", &exp, &err), err, SS_EINVALID);
	/* An exp at either end of int64 is clamped to what a time can be: no overflow later. */
	assert_int_equal(
	    ss_xrpc_jwt_exp("e30.eyJleHAiOi05MjIzMzcyMDM2ODU0Nzc1ODA3fQ.c2ln", &exp, &err), 0);
	assert_int_equal(exp, 0);
	assert_int_equal(
	    ss_xrpc_jwt_exp("e30.eyJleHAiOjkyMjMzNzIwMzY4NTQ3NzU4MDd9.c2ln", &exp, &err), 0);
	assert_int_equal(exp, 253402300799LL);
}

/* A server's error text is quoted on one line, its escapes written as \xNN. */
static void test_xrpc__server_error_text_is_escaped(void **state)
{
	ss_buf body = SS_BUF_INIT;
	ss_error err;

	ss_buf_puts(&body, "{\"error\":\"Bad\\u001b[2J\",\"message\":\"red \\u001b[31m\\u009b "
	                   "text\\nskillsync: forged\"}");
	SS_ASSERT_FAILS(ss_xrpc_call_error("com.atproto.repo.putRecord", 400, &body, 10, &err), err,
	                SS_ERROR);
	assert_string_equal(err.message, "com.atproto.repo.putRecord: Bad\\x1b[2J: red "
	                                 "\\x1b[31m\\xc2\\x9b text ...");
	ss_buf_release(&body);
}

static void test_xrpc__did_doc_gives_pds_and_handle(void **state)
{
	const char *doc =
	    "{\"id\":\"did:plc:abc\",\"alsoKnownAs\":[\"https://x\",\"at://alice.test\"],"
	    "\"service\":[{\"id\":\"#other\",\"type\":\"X\",\"serviceEndpoint\":\"https://o\"},"
	    "{\"id\":\"#atproto_pds\",\"type\":\"AtprotoPersonalDataServer\","
	    "\"serviceEndpoint\":\"https://pds.example\"}]}";
	ss_xrpc_did_doc d;
	ss_error err;

	assert_int_equal(ss_xrpc_parse_did_doc(doc, strlen(doc), &d, &err), 0);
	assert_string_equal(d.id, "did:plc:abc");
	assert_string_equal(d.pds, "https://pds.example");
	assert_string_equal(d.handle, "alice.test");
	assert_string_equal(d.also_known_as[0], "https://x");
	assert_null(d.also_known_as[2]);
	ss_xrpc_did_doc_release(&d);
	SS_ASSERT_FAILS(ss_xrpc_parse_did_doc("[1]", 3, &d, &err), err, SS_EINVALID);
}

static void test_xrpc__wrong_password_is_an_auth_error(void **state)
{
	fixture *f = *state;
	ss_xrpc_session s;
	ss_error err;

	SS_ASSERT_FAILS(ss_xrpc_create_session(f->x, f->acct->handle, "wrong-password", &s, &err),
	                err, SS_EAUTH);
	assert_string_equal(err.message, "com.atproto.server.createSession: "
	                                 "AuthenticationRequired: Invalid identifier or password");
	assert_null(strstr(err.message, "wrong-password"));
}

static void test_xrpc__session_lifecycle(void **state)
{
	fixture *f = *state;
	ss_xrpc_session s, r, g;
	ss_error err;

	assert_int_equal(ss_xrpc_create_session(f->x, f->acct->did, f->acct->password, &s, &err),
	                 0);
	assert_string_equal(s.did, f->acct->did);
	assert_string_equal(s.handle, f->acct->handle);
	/* This PDS sends no didDoc with the session: the PDS comes from identity resolution. */
	if (s.pds)
		assert_string_equal(s.pds, ss_test_pds()->pds);
	ss_xrpc_set_token(f->x, s.access_jwt);
	assert_int_equal(ss_xrpc_get_session(f->x, &g, &err), 0);
	assert_string_equal(g.did, f->acct->did);
	assert_true(g.active);
	ss_xrpc_session_release(&g);
	/* The refresh token rotates; the old one is then refused. */
	assert_int_equal(ss_xrpc_refresh_session(f->x, s.refresh_jwt, &r, &err), 0);
	assert_string_not_equal(r.refresh_jwt, s.refresh_jwt);
	assert_int_equal(ss_xrpc_delete_session(f->x, r.refresh_jwt, &err), 0);
	SS_ASSERT_FAILS(ss_xrpc_refresh_session(f->x, r.refresh_jwt, &g, &err), err, SS_EAUTH);
	assert_non_null(strstr(err.message, "com.atproto.server.refreshSession: "));
	ss_xrpc_session_release(&s);
	ss_xrpc_session_release(&r);
}

static void test_xrpc__put_get_delete_with_swaps(void **state)
{
	fixture *f = *state;
	char *v1 = skill_json("pdf", "one"), *v2 = skill_json("pdf", "two"),
	     *v3 = skill_json("pdf", "three");
	ss_xrpc_put put = {.repo = f->acct->did, .collection = COLL, .rkey = "pdf"};
	ss_xrpc_record r1, r2, got;
	ss_xrpc_commit c = {0};
	ss_error err;

	put.record_json = v1;
	put.must_not_exist = true;
	assert_int_equal(ss_xrpc_put_record(f->x, &put, &r1, &c, &err), 0);
	assert_non_null(r1.cid);
	assert_string_equal(r1.rkey, "pdf");
	assert_non_null(c.rev);
	ss_xrpc_commit_release(&c);
	/* Creating it again (with other content) is refused: it exists now. */
	put.record_json = v2;
	SS_ASSERT_FAILS(ss_xrpc_put_record(f->x, &put, NULL, NULL, &err), err, SS_ECONFLICT);
	assert_non_null(strstr(err.message, "InvalidSwap"));
	/* An update guarded by the right CID works; a stale CID is "changed remotely". */
	put.must_not_exist = false;
	put.record_json = v2;
	put.swap_record = r1.cid;
	assert_int_equal(ss_xrpc_put_record(f->x, &put, &r2, NULL, &err), 0);
	assert_string_not_equal(r2.cid, r1.cid);
	/* (The PDS accepts identical content whatever the swap says: write other content.) */
	put.record_json = v3;
	SS_ASSERT_FAILS(ss_xrpc_put_record(f->x, &put, NULL, NULL, &err), err, SS_ECONFLICT);
	assert_non_null(strstr(err.message, "com.atproto.repo.putRecord: InvalidSwap: "));
	assert_non_null(strstr(err.message, r2.cid));
	assert_non_null(strstr(err.message, "changed remotely"));
	assert_int_equal(ss_xrpc_get_record(f->x, f->acct->did, COLL, "pdf", &got, &err), 0);
	assert_string_equal(got.cid, r2.cid);
	assert_non_null(strstr(got.value_json, "\"instructions\":\"two\""));
	ss_xrpc_record_release(&got);
	/* Delete guarded by a stale CID is refused, by the current one works. */
	SS_ASSERT_FAILS(ss_xrpc_delete_record(f->x, f->acct->did, COLL, "pdf", r1.cid, NULL, &err),
	                err, SS_ECONFLICT);
	assert_int_equal(ss_xrpc_delete_record(f->x, f->acct->did, COLL, "pdf", r2.cid, NULL, &err),
	                 0);
	SS_ASSERT_FAILS(ss_xrpc_get_record(f->x, f->acct->did, COLL, "pdf", &got, &err), err,
	                SS_ENOTFOUND);
	assert_non_null(strstr(err.message, "RecordNotFound"));
	ss_xrpc_record_release(&r1);
	ss_xrpc_record_release(&r2);
	free(v1);
	free(v2);
	free(v3);
}

static void test_xrpc__writes_need_a_token(void **state)
{
	fixture *f = *state;
	char *v = skill_json("anon", "x");
	ss_xrpc_put put = {
	    .repo = f->acct->did, .collection = COLL, .rkey = "anon", .record_json = v};
	ss_error err;

	ss_xrpc_set_token(f->x, NULL);
	SS_ASSERT_FAILS(ss_xrpc_put_record(f->x, &put, NULL, NULL, &err), err, SS_EAUTH);
	assert_non_null(strstr(err.message, "com.atproto.repo.putRecord: AuthMissing"));
	free(v);
}

/* n create writes of records named <prefix>-<i>, each with size bytes of instructions. */
static ss_xrpc_write *creates(const char *prefix, size_t n, size_t size, char ***keep)
{
	ss_xrpc_write *w = ss_xcalloc(n, sizeof(*w));
	char *text = ss_xmalloc(size + 1);

	memset(text, 'a', size);
	text[size] = '\0';
	*keep = ss_xcalloc(2 * n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		ss_buf k = SS_BUF_INIT;

		ss_buf_printf(&k, "%s-%04zu", prefix, i);
		(*keep)[2 * i] = ss_buf_detach(&k, NULL);
		(*keep)[2 * i + 1] = skill_json((*keep)[2 * i], text);
		w[i].op = SS_XRPC_CREATE;
		w[i].collection = COLL;
		w[i].rkey = (*keep)[2 * i];
		w[i].value_json = (*keep)[2 * i + 1];
	}
	free(text);
	return w;
}

static void free_creates(ss_xrpc_write *w, char **keep, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++)
		free(keep[i]);
	free(keep);
	free(w);
}

typedef struct listing {
	size_t count;
	char *last;
	int unordered;
} listing;

static int count_record(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	listing *l = payload;

	/* The PDS lists keys in descending order: each key is smaller than the previous one. */
	if (l->last && strcmp(rec->rkey, l->last) >= 0)
		l->unordered++;
	free(l->last);
	l->last = ss_xstrdup(rec->rkey);
	l->count++;
	return 0;
}

static void test_xrpc__apply_writes_split_and_paged_listing(void **state)
{
	fixture *f = *state;
	char **keep;
	ss_xrpc_write *w = creates("s", 450, 10, &keep);
	ss_xrpc_apply_result res;
	ss_xrpc_commit latest = {0};
	listing l = {0};
	ss_error err;

	assert_int_equal(ss_xrpc_apply_writes(f->x, f->acct->did, w, 450, NULL, &res, &err), 0);
	assert_int_equal(res.nrequests, 3); /* 200 + 200 + 50 */
	assert_int_equal(res.nresults, 450);
	assert_string_equal(res.results[449].rkey, "s-0449");
	assert_non_null(strstr(res.results[449].uri, "/" COLL "/s-0449"));
	assert_non_null(res.results[0].cid);
	/* The last commit is the repo's current one. */
	assert_int_equal(ss_xrpc_get_latest_commit(f->x, f->acct->did, &latest, &err), 0);
	assert_string_equal(latest.cid, res.commit.cid);
	assert_string_equal(latest.rev, res.commit.rev);
	ss_xrpc_commit_release(&latest);
	/* Listing pages through all 450 (five pages of 100 at most). */
	assert_int_equal(ss_xrpc_list_records(f->x, f->acct->did, COLL, count_record, &l, &err), 0);
	assert_int_equal(l.count, 450);
	assert_int_equal(l.unordered, 0);
	free(l.last);
	ss_xrpc_apply_result_release(&res);
	free_creates(w, keep, 450);
}

static void test_xrpc__apply_writes_split_by_body_size(void **state)
{
	fixture *f = *state;
	char **keep;
	/* Three records of ~400 kB: together past 1,000,000 bytes, so two requests. */
	ss_xrpc_write *w = creates("big", 3, 400000, &keep);
	ss_xrpc_apply_result res;
	ss_xrpc_record got;
	ss_error err;

	assert_int_equal(ss_xrpc_apply_writes(f->x, f->acct->did, w, 3, NULL, &res, &err), 0);
	assert_int_equal(res.nrequests, 2);
	assert_int_equal(res.nresults, 3);
	assert_int_equal(ss_xrpc_get_record(f->x, f->acct->did, COLL, "big-0002", &got, &err), 0);
	assert_true(got.value_len > 400000);
	ss_xrpc_record_release(&got);
	ss_xrpc_apply_result_release(&res);
	free_creates(w, keep, 3);
}

static void test_xrpc__apply_writes_guarded_by_swap_commit(void **state)
{
	fixture *f = *state;
	char **keep;
	ss_xrpc_write *w = creates("g", 2, 10, &keep);
	ss_xrpc_apply_result first, second;
	ss_error err;

	assert_int_equal(ss_xrpc_apply_writes(f->x, f->acct->did, w, 1, NULL, &first, &err), 0);
	/* A commit that is no longer the head: refused as a conflict, nothing applied. */
	assert_int_equal(
	    ss_xrpc_apply_writes(f->x, f->acct->did, w + 1, 1, first.commit.cid, &second, &err), 0);
	ss_xrpc_apply_result_release(&second);
	w[1].op = SS_XRPC_DELETE;
	SS_ASSERT_FAILS(
	    ss_xrpc_apply_writes(f->x, f->acct->did, w + 1, 1, first.commit.cid, &second, &err),
	    err, SS_ECONFLICT);
	assert_non_null(strstr(err.message, "com.atproto.repo.applyWrites: InvalidSwap"));
	assert_int_equal(second.nresults, 0);
	ss_xrpc_apply_result_release(&second);
	ss_xrpc_apply_result_release(&first);
	free_creates(w, keep, 2);
}

static void test_xrpc__oversized_body_reports_its_size(void **state)
{
	fixture *f = *state;
	size_t size = 1100000;
	char *text = ss_xmalloc(size + 1), *v;
	ss_xrpc_put put = {.repo = f->acct->did, .collection = COLL, .rkey = "huge"};
	ss_buf want = SS_BUF_INIT;
	ss_error err;

	memset(text, 'b', size);
	text[size] = '\0';
	v = skill_json("huge", text);
	put.record_json = v;
	SS_ASSERT_FAILS(ss_xrpc_put_record(f->x, &put, NULL, NULL, &err), err, SS_ETOOBIG);
	/* The body is the record plus the envelope: its exact size is in the message. */
	ss_buf_printf(&want, "com.atproto.repo.putRecord: the request of %zu bytes",
	              strlen(v) +
	                  strlen("{\"repo\":\"\",\"collection\":\"" COLL
	                         "\",\"rkey\":\"huge\",\"record\":}") +
	                  strlen(f->acct->did));
	assert_non_null(strstr(err.message, want.ptr));
	ss_buf_release(&want);
	free(text);
	free(v);
}

static void test_xrpc__describe_repo(void **state)
{
	fixture *f = *state;
	ss_xrpc_repo_info ri;
	ss_error err;

	assert_int_equal(ss_xrpc_describe_repo(f->x, f->acct->handle, &ri, &err), 0);
	assert_string_equal(ri.did, f->acct->did);
	assert_string_equal(ri.handle, f->acct->handle);
	assert_true(ri.handle_is_correct);
	ss_xrpc_repo_info_release(&ri);
	SS_ASSERT_FAILS(ss_xrpc_describe_repo(f->x, "did:plc:nobodyhere000000000000", &ri, &err),
	                err, SS_ERROR);
	assert_non_null(strstr(err.message, "com.atproto.repo.describeRepo: "));
}

static void test_xrpc__many_listings_at_once(void **state)
{
	fixture *f = *state;
	ss_test_account *other = ss_test_pds_new_account("xrpc2");
	ss_xrpc *x2;
	char **keep1, **keep2;
	ss_xrpc_write *w1 = creates("m", 230, 10, &keep1), *w2 = creates("n", 30, 10, &keep2);
	ss_xrpc_apply_result res;
	listing l1 = {0}, l2 = {0}, l3 = {0};
	ss_xrpc_list_job jobs[3];
	ss_error err;

	assert_int_equal(ss_xrpc_new(&x2, f->http, ss_test_pds()->pds, &err), 0);
	ss_xrpc_set_token(x2, other->access_jwt);
	assert_int_equal(ss_xrpc_apply_writes(f->x, f->acct->did, w1, 230, NULL, &res, &err), 0);
	ss_xrpc_apply_result_release(&res);
	assert_int_equal(ss_xrpc_apply_writes(x2, other->did, w2, 30, NULL, &res, &err), 0);
	ss_xrpc_apply_result_release(&res);
	memset(jobs, 0, sizeof(jobs));
	jobs[0] = (ss_xrpc_list_job){.client = f->x,
	                             .repo = f->acct->did,
	                             .collection = COLL,
	                             .fn = count_record,
	                             .payload = &l1};
	jobs[1] = (ss_xrpc_list_job){.client = x2,
	                             .repo = other->did,
	                             .collection = COLL,
	                             .fn = count_record,
	                             .payload = &l2};
	jobs[2] = (ss_xrpc_list_job){.client = x2,
	                             .repo = "did:plc:nobodyhere000000000000",
	                             .collection = COLL,
	                             .fn = count_record,
	                             .payload = &l3};
	SS_ASSERT_FAILS(ss_xrpc_list_records_many(jobs, 3, 0, &err), err, SS_ERROR);
	assert_int_equal(jobs[0].rc, 0);
	assert_int_equal(l1.count, 230);
	assert_int_equal(l1.unordered, 0);
	assert_int_equal(jobs[0].pages, 4); /* 100 + 100 + 30 + the empty last page */
	assert_int_equal(jobs[1].rc, 0);
	assert_int_equal(l2.count, 30);
	assert_int_equal(jobs[2].rc, SS_ERROR);
	assert_non_null(strstr(jobs[2].err.message, "com.atproto.repo.listRecords: "));
	assert_string_equal(err.message, jobs[2].err.message);
	free(l1.last);
	free(l2.last);
	ss_xrpc_free(x2);
	ss_test_account_free(other);
	free_creates(w1, keep1, 230);
	free_creates(w2, keep2, 30);
}

int test_xrpc_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xrpc__jwt_exp_is_read_from_the_payload),
	    cmocka_unit_test(test_xrpc__server_error_text_is_escaped),
	    cmocka_unit_test(test_xrpc__did_doc_gives_pds_and_handle),
	    cmocka_unit_test_setup_teardown(test_xrpc__wrong_password_is_an_auth_error, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__session_lifecycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__put_get_delete_with_swaps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__writes_need_a_token, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__apply_writes_split_and_paged_listing, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__apply_writes_split_by_body_size, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__apply_writes_guarded_by_swap_commit, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__oversized_body_reports_its_size, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__describe_repo, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xrpc__many_listings_at_once, setup, teardown),
	};
	return cmocka_run_group_tests_name("sync/xrpc", tests, NULL, NULL);
}
