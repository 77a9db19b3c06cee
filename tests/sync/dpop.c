#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/crypto.h"
#include "core/atproto/jwt.h"
#include "core/util/base64.h"
#include "support/support.h"
#include "sync/net/dpop.h"
#include "sync/net/url.h"

/* A proof says the method, the URL without its query, the nonce and the token's hash; two
 * proofs never share a jti. */
static void test_dpop__proof_claims(void **state)
{
	uint8_t hash[SS_SHA256_LEN];
	ss_buf ath = SS_BUF_INIT;
	ss_p256_key *key = NULL;
	char *a = NULL, *b = NULL;
	ss_jwt ja, jb;
	ss_error err;

	assert_int_equal(ss_p256_key_new(&key, &err), 0);
	assert_int_equal(ss_dpop_proof(&a, key, "GET", "http://localhost:1/xrpc/x.y?repo=did%3Aa#f",
	                               "n0nce", "tok", &err),
	                 0);
	assert_int_equal(
	    ss_dpop_proof(&b, key, "POST", "https://as.example/oauth/par", NULL, NULL, &err), 0);
	assert_int_equal(ss_jwt_parse(&ja, a, &err), 0);
	assert_int_equal(ss_jwt_parse(&jb, b, &err), 0);
	assert_string_equal(ja.typ, "dpop+jwt");
	assert_string_equal(ss_jwt_claim(&ja, "htm"), "GET");
	assert_string_equal(ss_jwt_claim(&ja, "htu"), "http://localhost:1/xrpc/x.y");
	assert_string_equal(ss_jwt_claim(&ja, "nonce"), "n0nce");
	ss_crypto_sha256("tok", 3, hash);
	ss_base64_encode(&ath, hash, sizeof(hash), SS_BASE64_URL, false);
	assert_string_equal(ss_jwt_claim(&ja, "ath"), ath.ptr);
	assert_true(ja.has_iat && ja.iat <= (long long)time(NULL) && ja.iat > time(NULL) - 60);
	assert_string_equal(ss_jwt_claim(&jb, "htu"), "https://as.example/oauth/par");
	assert_null(ss_jwt_claim(&jb, "nonce"));
	assert_null(ss_jwt_claim(&jb, "ath"));
	assert_string_not_equal(ss_jwt_claim(&ja, "jti"), ss_jwt_claim(&jb, "jti"));
	ss_jwt_release(&ja);
	ss_jwt_release(&jb);
	ss_buf_release(&ath);
	free(a);
	free(b);
	ss_p256_key_free(key);
}

static void answer(ss_http_response *r, long status, const char *body, const char *nonce)
{
	ss_http_response_init(r);
	r->status = status;
	ss_buf_puts(&r->body, body);
	snprintf(r->dpop_nonce, sizeof(r->dpop_nonce), "%s", nonce);
}

/* Only a use_dpop_nonce refusal that names a nonce asks for another try. */
static void test_dpop__wants_nonce(void **state)
{
	static const struct {
		long status;
		const char *body, *nonce;
		bool wants;
	} cases[] = {
	    {401, "{\"error\":\"use_dpop_nonce\"}", "abc", true},
	    {400, "{\"error\":\"use_dpop_nonce\",\"error_description\":\"x\"}", "abc", true},
	    {401, "{\"error\":\"use_dpop_nonce\"}", "", false},
	    {401, "{\"error\":\"invalid_token\"}", "abc", false},
	    {200, "{\"error\":\"use_dpop_nonce\"}", "abc", false},
	    {400, "not json", "abc", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_http_response r;

		answer(&r, cases[i].status, cases[i].body, cases[i].nonce);
		assert_int_equal(ss_dpop_wants_nonce(&r), cases[i].wants);
		ss_http_response_release(&r);
	}
}

/* The redirect's query: decoded, the first of a name, nothing after '#', NUL refused. */
static void test_dpop__redirect_query(void **state)
{
	static const struct {
		const char *url, *name, *want;
	} cases[] = {
	    {"http://127.0.0.1:5/callback?state=a%2Fb&code=c+d", "state", "a/b"},
	    {"http://127.0.0.1:5/callback?state=a%2Fb&code=c+d", "code", "c d"},
	    {"http://127.0.0.1:5/callback?iss=http%3A%2F%2Fx&iss=other", "iss", "http://x"},
	    {"http://127.0.0.1:5/callback?xstate=1&state=2", "state", "2"},
	    {"http://127.0.0.1:5/callback?code=1#state=2", "state", NULL},
	    {"http://127.0.0.1:5/callback#x?state=2", "state", NULL},
	    {"http://127.0.0.1:5/callback?state=a%00b", "state", NULL},
	    {"http://127.0.0.1:5/callback?state=a%4", "state", NULL},
	    {"http://127.0.0.1:5/callback", "state", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *v;

		ss_url_query_param(cases[i].url, cases[i].name, &v);
		if (cases[i].want)
			assert_string_equal(v, cases[i].want);
		else
			assert_null(v);
		free(v);
	}
}

int test_dpop_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dpop__proof_claims),
	    cmocka_unit_test(test_dpop__wants_nonce),
	    cmocka_unit_test(test_dpop__redirect_query),
	};

	return cmocka_run_group_tests_name("sync/dpop", tests, NULL, NULL);
}
