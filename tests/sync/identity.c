#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/atproto/syntax.h"
#include "core/util/buf.h"
#include "support/support.h"
#include "sync/identity/identity.h"
#include "sync/net/http.h"
#include "sync/pds.h"

static void test_identity__handle_syntax(void **state)
{
	assert_true(ss_syntax_is_handle("alice.test"));
	assert_true(ss_syntax_is_handle("Alice.Example.COM"));
	assert_true(ss_syntax_is_handle("a-1.b2.io"));
	assert_false(ss_syntax_is_handle("alice"));
	assert_false(ss_syntax_is_handle("-alice.test"));
	assert_false(ss_syntax_is_handle("alice-.test"));
	assert_false(ss_syntax_is_handle("alice..test"));
	assert_false(ss_syntax_is_handle("alice.test."));
	assert_false(ss_syntax_is_handle("alice.123"));
	assert_false(ss_syntax_is_handle("al/ice.test"));
	assert_false(ss_syntax_is_handle("alice.test/../x"));
	assert_false(ss_syntax_is_handle("alice.test?x=1"));
	assert_false(ss_syntax_is_handle(""));
}

static void test_identity__did_syntax(void **state)
{
	assert_true(ss_syntax_is_did("did:plc:ewvi7nxzyoun6zhxrhs64oiz"));
	assert_true(ss_syntax_is_did("did:web:example.com"));
	assert_true(ss_syntax_is_did("did:web:localhost%3A8080"));
	assert_false(ss_syntax_is_did("did:plc:"));
	assert_false(ss_syntax_is_did("did:PLC:abc"));
	assert_false(ss_syntax_is_did("did:plc:abc/../x"));
	assert_false(ss_syntax_is_did("did:plc:abc?x"));
	assert_false(ss_syntax_is_did("did:web:example.com:"));
	assert_false(ss_syntax_is_did("did:web:example.com%"));
	assert_false(ss_syntax_is_did("plc:abc"));
}

static void test_identity__special_use_handles(void **state)
{
	assert_true(ss_identity_is_special_handle("alice.test"));
	assert_true(ss_identity_is_special_handle("x.localhost"));
	assert_true(ss_identity_is_special_handle("x.EXAMPLE"));
	assert_true(ss_identity_is_special_handle("x.local"));
	assert_true(ss_identity_is_special_handle("x.invalid"));
	assert_false(ss_identity_is_special_handle("alice.bsky.social"));
	assert_false(ss_identity_is_special_handle("example.com"));
}

static void test_identity__special_handle_needs_a_resolver(void **state)
{
	char *saved = NULL, *did = NULL;
	const char *v;
	ss_http *http;
	ss_error err;

	ss_test_pds();
	v = getenv("SKILLSYNC_HANDLE_RESOLVER");
	saved = v ? strdup(v) : NULL;
	unsetenv("SKILLSYNC_HANDLE_RESOLVER");
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	SS_ASSERT_FAILS(ss_identity_resolve_handle(http, "alice.test", &did, &err), err,
	                SS_ENOTFOUND);
	assert_string_equal(err.message, "cannot resolve handle 'alice.test': it is under a "
	                                 "special-use domain and SKILLSYNC_HANDLE_RESOLVER is not "
	                                 "set");
	if (saved)
		setenv("SKILLSYNC_HANDLE_RESOLVER", saved, 1);
	free(saved);
	ss_http_free(http);
}

static void test_identity__test_handles_resolve_through_plc(void **state)
{
	const ss_test_account *alice = ss_test_pds_account("alice");
	ss_identity id;
	ss_http *http;
	ss_error err;

	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	/* A handle, in any case, with or without '@'. */
	assert_int_equal(ss_identity_resolve(http, "@Alice.TEST", &id, &err), 0);
	assert_string_equal(id.did, alice->did);
	assert_string_equal(id.handle, "alice.test");
	assert_string_equal(id.pds, ss_test_pds()->pds);
	ss_identity_release(&id);
	/* A DID: the handle comes from its document. */
	assert_int_equal(ss_identity_resolve(http, alice->did, &id, &err), 0);
	assert_string_equal(id.handle, alice->handle);
	assert_string_equal(id.pds, ss_test_pds()->pds);
	ss_identity_release(&id);
	/* Bad syntax never reaches the network. */
	SS_ASSERT_FAILS(ss_identity_resolve(http, "alice.test/../../x", &id, &err), err,
	                SS_EINVALID);
	assert_string_equal(err.message, "'alice.test/../../x' is not a valid handle or DID");
	SS_ASSERT_FAILS(ss_identity_resolve(http, "did:plc:a/b", &id, &err), err, SS_EINVALID);
	/* An unknown handle and an unknown DID. */
	assert_true(ss_identity_resolve(http, "nobody-here.test", &id, &err) < 0);
	assert_non_null(strstr(err.message, "cannot resolve handle 'nobody-here.test'"));
	assert_true(ss_identity_resolve(http, "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", &id, &err) < 0);
	assert_non_null(strstr(err.message, "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa"));
	ss_http_free(http);
}

/* Many names at once (more than one round of threads): each answer in its own slot, as
 * ss_identity_resolve gives it, the failures included, and the requests counted on the
 * caller's client; each answer keeps the document it read. */
static void test_identity__resolve_many_answers_each_name(void **state)
{
	const ss_test_account *alice = ss_test_pds_account("alice");
	const char *names[11];
	ss_identity ids[11];
	int rcs[11];
	ss_error errs[11];
	ss_http_stats before, after;
	ss_http *http;
	ss_error err;

	(void)state;
	for (size_t i = 0; i < 11; i++)
		names[i] = i % 2 ? alice->did : "alice.test";
	names[3] = "nobody-here.test";
	names[9] = "alice.test/../../x";
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	ss_http_get_stats(http, &before);
	ss_identity_resolve_many(http, names, 11, ids, rcs, errs);
	ss_http_get_stats(http, &after);
	for (size_t i = 0; i < 11; i++) {
		if (i == 3) {
			assert_true(rcs[i] < 0);
			assert_non_null(
			    strstr(errs[i].message, "cannot resolve handle 'nobody-here.test'"));
		} else if (i == 9) {
			assert_int_equal(rcs[i], SS_EINVALID);
			assert_string_equal(errs[i].message,
			                    "'alice.test/../../x' is not a valid handle or DID");
		} else {
			assert_int_equal(rcs[i], 0);
			assert_string_equal(ids[i].did, alice->did);
			assert_string_equal(ids[i].handle, "alice.test");
			assert_string_equal(ids[i].pds, ss_test_pds()->pds);
			assert_non_null(strstr(ids[i].doc, alice->did));
		}
		ss_identity_release(&ids[i]);
	}
	/* at least a handle and a document for each of the 9 that resolved */
	assert_true(after.requests - before.requests >= 18);
	ss_http_free(http);
}

/* A resolver that answers one resolveHandle with a DID that is not the handle's. */
typedef struct liar {
	int fd;
	const char *did;
	pthread_t thread;
	char *saved; /* $SKILLSYNC_HANDLE_RESOLVER before */
	ss_buf url;
} liar;

static void *serve_once(void *p)
{
	liar *l = p;
	char req[4096], resp[1024];
	int c = accept(l->fd, NULL, NULL);
	int body_len;
	char body[256];

	if (c < 0)
		return NULL;
	(void)!read(c, req, sizeof(req));
	body_len = snprintf(body, sizeof(body), "{\"did\":\"%s\"}", l->did);
	snprintf(resp, sizeof(resp),
	         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
	         "Connection: close\r\n\r\n%s",
	         body_len, body);
	(void)!write(c, resp, strlen(resp));
	close(c);
	return NULL;
}

/* Starts l answering one resolveHandle on loopback, as $SKILLSYNC_HANDLE_RESOLVER. */
static void liar_start(liar *l)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	l->saved = strdup(getenv("SKILLSYNC_HANDLE_RESOLVER"));
	ss_buf_init(&l->url);
	l->fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(l->fd, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(listen(l->fd, 1), 0);
	ss_buf_printf(&l->url, "http://127.0.0.1:%d", ntohs(a.sin_port));
	setenv("SKILLSYNC_HANDLE_RESOLVER", l->url.ptr, 1);
	assert_int_equal(pthread_create(&l->thread, NULL, serve_once, l), 0);
}

/* Waits for l's one answer and puts the resolver back. */
static void liar_stop(liar *l)
{
	pthread_join(l->thread, NULL);
	close(l->fd);
	setenv("SKILLSYNC_HANDLE_RESOLVER", l->saved, 1);
	free(l->saved);
	ss_buf_release(&l->url);
}

/* A DID's document claims a handle that resolves to another DID (alice.test "is" bob, says
 * the resolver): the handle is not kept, the DID stands for the account. */
static void test_identity__did_document_handle_must_resolve_back(void **state)
{
	const ss_test_account *alice = ss_test_pds_account("alice");
	const ss_test_account *bob = ss_test_pds_account("bob");
	liar l = {.did = bob->did};
	ss_identity id;
	ss_http *http;
	ss_error err;

	liar_start(&l);
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	assert_int_equal(ss_identity_resolve(http, alice->did, &id, &err), 0);
	assert_string_equal(id.did, alice->did);
	assert_null(id.handle);
	ss_identity_release(&id);
	liar_stop(&l);
	ss_http_free(http);
}

static void test_identity__also_known_as_must_point_back(void **state)
{
	const ss_test_account *alice = ss_test_pds_account("alice");
	liar l = {.did = alice->did};
	ss_identity id;
	ss_http *http;
	ss_error err;

	liar_start(&l);
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	/* mallory.test "is" alice's DID, says the resolver; alice's document disagrees. */
	SS_ASSERT_FAILS(ss_identity_resolve(http, "mallory.test", &id, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "handle 'mallory.test' resolves to"));
	assert_non_null(strstr(err.message, "its DID document names 'alice.test'"));
	liar_stop(&l);
	ss_http_free(http);
}

int test_identity_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_identity__handle_syntax),
	    cmocka_unit_test(test_identity__did_syntax),
	    cmocka_unit_test(test_identity__special_use_handles),
	    cmocka_unit_test(test_identity__special_handle_needs_a_resolver),
	    cmocka_unit_test(test_identity__test_handles_resolve_through_plc),
	    cmocka_unit_test(test_identity__resolve_many_answers_each_name),
	    cmocka_unit_test(test_identity__also_known_as_must_point_back),
	    cmocka_unit_test(test_identity__did_document_handle_must_resolve_back),
	};
	return cmocka_run_group_tests_name("sync/identity", tests, NULL, NULL);
}
