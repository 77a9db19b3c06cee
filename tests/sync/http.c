#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "support/support.h"
#include "sync/net/http.h"
#include "sync/net/url.h"
#include "sync/pds.h"
#include "sync/setting.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A loopback TCP socket bound to a free port; listening when listen_too. */
static int loopback_socket(int *port, int listen_too)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	if (listen_too)
		assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* The timeout setting reaches a command's client through sync/setting.h; the HTTP layer itself
 * reads no setting (its defaults are its own). */
static void test_http__timeout_from_the_environment(void **state)
{
	ss_http *h = NULL;
	ss_error err;

	setenv("SKILLSYNC_TIMEOUT", "5", 1);
	assert_int_equal(ss_setting_http_new(&h, NULL, &err), 0);
	assert_int_equal(ss_http_get_options(h)->timeout_ms, 5000);
	ss_http_free(h);
	h = NULL;
	assert_int_equal(ss_http_new(&h, NULL, &err), 0);
	assert_int_equal(ss_http_get_options(h)->timeout_ms, 60000);
	ss_http_free(h);
	h = NULL;
	setenv("SKILLSYNC_TIMEOUT", "0", 1);
	SS_ASSERT_FAILS(ss_setting_http_new(&h, NULL, &err), err, SS_EINVALID);
	assert_null(h);
	assert_string_equal(err.message,
	                    "SKILLSYNC_TIMEOUT is '0': want whole seconds from 1 to 3600");
	unsetenv("SKILLSYNC_TIMEOUT");
	assert_int_equal(ss_setting_http_new(&h, NULL, &err), 0);
	assert_int_equal(ss_http_get_options(h)->timeout_ms, 60000);
	ss_http_free(h);
}

static void test_http__backoff_doubles_and_is_capped(void **state)
{
	ss_http_options o = {.backoff_ms = 250};

	assert_int_equal(ss_http_backoff_ms(&o, 1), 250);
	assert_int_equal(ss_http_backoff_ms(&o, 2), 500);
	assert_int_equal(ss_http_backoff_ms(&o, 3), 1000);
	assert_int_equal(ss_http_backoff_ms(&o, 30), 8000);
}

static void test_http__retry_wait_from_headers(void **state)
{
	time_t now = 1700000000;

	assert_int_equal(ss_http_retry_wait_s("7", NULL, now), 7);
	assert_int_equal(ss_http_retry_wait_s(" 0 ", NULL, now), 0);
	/* An HTTP date 90 s after now. */
	assert_int_equal(ss_http_retry_wait_s("Tue, 14 Nov 2023 22:14:50 GMT", NULL, now), 90);
	/* ratelimit-reset is an epoch second. */
	assert_int_equal(ss_http_retry_wait_s(NULL, "1700000042", now), 42);
	assert_int_equal(ss_http_retry_wait_s(NULL, "1600000000", now), 0);
	/* Retry-After wins over ratelimit-reset; garbage says nothing. */
	assert_int_equal(ss_http_retry_wait_s("3", "1700000042", now), 3);
	assert_int_equal(ss_http_retry_wait_s("soon", NULL, now), 0);
	assert_int_equal(ss_http_retry_wait_s(NULL, NULL, now), 0);
	/* Huge values are clamped to a year, so that the wait in milliseconds cannot overflow. */
	assert_int_equal(ss_http_retry_wait_s(NULL, "9223372036854775807", now), 86400L * 365);
	assert_int_equal(ss_http_retry_wait_s("9223372036854775807", NULL, now), 86400L * 365);
}

static void test_http__plain_http_to_remote_host_is_refused(void **state)
{
	ss_http_request req = {.url = "http://example.com/xrpc/com.atproto.server.describeServer"};
	ss_http_response resp;
	ss_http_stats st;
	ss_http *http;
	ss_error err;

	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	ss_http_response_init(&resp);
	SS_ASSERT_FAILS(ss_http_perform(http, &req, &resp, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "http://example.com/"));
	assert_non_null(strstr(err.message, "use https"));
	ss_http_get_stats(http, &st);
	assert_int_equal(st.requests, 0);
	ss_http_response_release(&resp);
	ss_http_free(http);
}

static void test_http__userinfo_cannot_hide_a_remote_host(void **state)
{
	ss_error err;

	(void)state;
	/* The host of this URL is evil.invalid: "localhost:1" is a user name and password. */
	assert_int_equal(ss_url_check("http://localhost:1@evil.invalid/xrpc/x", &err), SS_EINVALID);
	assert_non_null(strstr(err.message, "user name or password"));
	assert_int_equal(ss_url_check("https://user@pds.example/", &err), SS_EINVALID);
	assert_int_equal(ss_url_check("http://127.0.0.1:2583/xrpc/x", &err), 0);
	assert_int_equal(ss_url_check("http://[::1]:2583/", &err), 0);
	assert_int_equal(ss_url_check("https://pds.example", &err), 0);
	assert_int_equal(ss_url_check("http://127.0.0.1.evil.invalid/", &err), SS_EINVALID);
	assert_int_equal(ss_url_check("ftp://127.0.0.1/", &err), SS_EINVALID);
	assert_int_equal(ss_url_check("https:///x", &err), SS_EINVALID);
	/* spellings curl itself would read as https URLs (found by fuzzing) */
	assert_int_equal(ss_url_check("https:/pds.example", &err), SS_EINVALID);
	assert_int_equal(ss_url_check("https:pds.example", &err), SS_EINVALID);
}

static void test_http__closed_port_fails_fast_with_one_line(void **state)
{
	ss_http_request req = {0};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_http_stats st;
	ss_http *http;
	ss_error err;
	double t0;
	int port, fd = loopback_socket(&port, 0);

	close(fd); /* nobody listens there now */
	ss_buf_printf(&url, "http://127.0.0.1:%d/xrpc/com.atproto.server.describeServer", port);
	req.url = url.ptr;
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	ss_http_response_init(&resp);
	t0 = now_s();
	SS_ASSERT_FAILS(ss_http_perform(http, &req, &resp, &err), err, SS_ENETWORK);
	assert_true(now_s() - t0 < 5.0);
	assert_non_null(strstr(err.message, url.ptr));
	assert_null(strchr(err.message, '\n'));
	ss_http_get_stats(http, &st);
	assert_int_equal(st.requests, 4); /* the first try and three retries */
	ss_http_response_release(&resp);
	ss_http_free(http);
	ss_buf_release(&url);
}

static void test_http__silent_server_times_out(void **state)
{
	ss_http_options o = {.timeout_ms = 1000};
	ss_http_request req = {0};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_http *http;
	ss_error err;
	double t0, took;
	int port, fd = loopback_socket(&port, 1);

	/* The kernel completes the handshake; nobody ever answers. */
	ss_buf_printf(&url, "http://127.0.0.1:%d/slow", port);
	req.url = url.ptr;
	assert_int_equal(ss_http_new(&http, &o, &err), 0);
	ss_http_response_init(&resp);
	t0 = now_s();
	SS_ASSERT_FAILS(ss_http_perform(http, &req, &resp, &err), err, SS_ENETWORK);
	took = now_s() - t0;
	assert_true(took >= 0.9 && took < 3.0);
	assert_non_null(strstr(err.message, "/slow"));
	ss_http_response_release(&resp);
	ss_http_free(http);
	ss_buf_release(&url);
	close(fd);
}

static void test_http__response_over_cap_is_refused(void **state)
{
	ss_http_options o = {.max_response = 16};
	ss_http_request req = {0};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_http *http;
	ss_error err;

	ss_buf_printf(&url, "%s/xrpc/com.atproto.server.describeServer", ss_test_pds()->pds);
	req.url = url.ptr;
	assert_int_equal(ss_http_new(&http, &o, &err), 0);
	ss_http_response_init(&resp);
	SS_ASSERT_FAILS(ss_http_perform(http, &req, &resp, &err), err, SS_ETOOBIG);
	assert_non_null(strstr(err.message, "16-byte limit"));
	ss_http_response_release(&resp);
	ss_http_free(http);
	ss_buf_release(&url);
}

static void test_http__get_counts_requests_and_bytes(void **state)
{
	ss_http_request req = {0};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_http_stats st;
	ss_http *http;
	ss_error err;

	ss_buf_printf(&url, "%s/xrpc/com.atproto.server.describeServer", ss_test_pds()->pds);
	req.url = url.ptr;
	assert_int_equal(ss_http_new(&http, NULL, &err), 0);
	ss_http_response_init(&resp);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ss_http_perform(http, &req, &resp, &err), 0);
		assert_int_equal(resp.status, 200);
		assert_non_null(strstr(resp.body.ptr, "availableUserDomains"));
		assert_non_null(resp.content_type);
		assert_non_null(strstr(resp.content_type, "json"));
	}
	ss_http_get_stats(http, &st);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.retries, 0);
	assert_int_equal(st.bytes_received, 2 * resp.body.len);
	ss_http_response_release(&resp);
	ss_http_free(http);
	ss_buf_release(&url);
}

/* A loopback server that answers every connection with the same canned bytes (or closes it
 * at once when answer is NULL), counting connections, until told to stop. It stands for a
 * misbehaving server in front of a PDS, to see what the client's retry policy does. */
typedef struct canned {
	int fd;
	int port;
	const char *answer;
	int connections;
	int stop;
	pthread_t thread;
} canned;

static void *canned_serve(void *p)
{
	canned *c = p;

	for (;;) {
		char req[65536];
		int conn = accept(c->fd, NULL, NULL);

		if (conn < 0 || __atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
			if (conn >= 0)
				close(conn);
			return NULL;
		}
		__atomic_add_fetch(&c->connections, 1, __ATOMIC_SEQ_CST);
		(void)!read(conn, req, sizeof(req));
		if (c->answer)
			(void)!write(conn, c->answer, strlen(c->answer));
		close(conn);
	}
}

static void canned_start(canned *c, const char *answer)
{
	memset(c, 0, sizeof(*c));
	c->answer = answer;
	c->fd = loopback_socket(&c->port, 1);
	assert_int_equal(pthread_create(&c->thread, NULL, canned_serve, c), 0);
}

static int canned_stop(canned *c)
{
	int unblock, port;

	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	unblock = loopback_socket(&port, 0);
	{
		struct sockaddr_in a;

		memset(&a, 0, sizeof(a));
		a.sin_family = AF_INET;
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons((uint16_t)c->port);
		(void)!connect(unblock, (struct sockaddr *)&a, sizeof(a));
	}
	pthread_join(c->thread, NULL);
	close(unblock);
	close(c->fd);
	return c->connections;
}

/*
 * An answer to a file (body_fd, as getRepo's CAR) sent in HTTP chunks of a few bytes, as the
 * reference PDS sends a CAR (each block's length, CID and bytes), with one chunk larger than
 * the client's write buffer among them: the file holds exactly the body, and file_len says
 * its size. Then the same answer where the file cannot take it (a file size limit): one line
 * saying so, not a truncated answer taken for whole.
 */
static void test_http__chunked_answer_to_a_file_whole_or_an_error(void **state)
{
	ss_buf answer = SS_BUF_INIT, body = SS_BUF_INIT, url = SS_BUF_INIT, path = SS_BUF_INIT;
	const char *tmp = getenv("TMPDIR");
	ss_http_options o = {.backoff_ms = 10, .max_retries = -1};
	ss_http_request req = {0};
	ss_http_response resp;
	struct rlimit was, small;
	struct stat st;
	ss_http *http;
	ss_error err;
	canned c;
	char *got;
	int fd;

	(void)state;
	ss_buf_puts(&answer, "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.ipld.car\r\n"
	                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
	for (size_t i = 0; body.len < 700 * 1024; i++) {
		size_t len = i == 100 ? 300 * 1024 : (size_t[]){2, 36, 1500}[i % 3];
		size_t at = body.len;

		for (size_t k = 0; k < len; k++)
			ss_buf_putc(&body, (char)('a' + (at + k) % 26));
		ss_buf_printf(&answer, "%zx\r\n", len);
		ss_buf_put(&answer, body.ptr + at, len);
		ss_buf_puts(&answer, "\r\n");
	}
	ss_buf_puts(&answer, "0\r\n\r\n");
	ss_buf_printf(&path, "%s/ss-http-file-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path.ptr);
	assert_true(fd > 0);
	unlink(path.ptr);
	canned_start(&c, answer.ptr);
	ss_buf_printf(&url, "http://127.0.0.1:%d/xrpc/com.atproto.sync.getRepo", c.port);
	req.url = url.ptr;
	req.body_fd = fd;
	assert_int_equal(ss_http_new(&http, &o, &err), 0);
	ss_http_response_init(&resp);
	assert_int_equal(ss_http_perform(http, &req, &resp, &err), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.file_len, body.len);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, body.len);
	got = malloc(body.len);
	assert_int_equal(pread(fd, got, body.len, 0), body.len);
	assert_memory_equal(got, body.ptr, body.len);
	free(got);

	/* The same answer where the file may not grow past 100,000 bytes. */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	small = was;
	small.rlim_cur = 100000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	SS_ASSERT_FAILS(ss_http_perform(http, &req, &resp, &err), err, SS_ERROR);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err.message, "cannot keep the answer of"));
	assert_non_null(strstr(err.message, strerror(EFBIG)));
	canned_stop(&c);
	ss_http_response_release(&resp);
	ss_http_free(http);
	close(fd);
	ss_buf_release(&answer);
	ss_buf_release(&body);
	ss_buf_release(&url);
	ss_buf_release(&path);
}

/* Performs method on the canned server (once: a one-time request); returns the code, fills
 * status and cut. */
static int canned_send(canned *c, const char *method, bool once, long *status, bool *cut,
                       ss_error *err)
{
	ss_http_options o = {.backoff_ms = 10};
	ss_http_request req = {.method = method,
	                       .content_type = "application/json",
	                       .body = "{}",
	                       .body_len = 2,
	                       .once = once};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_http *http;
	int ret;

	ss_buf_printf(&url, "http://127.0.0.1:%d/xrpc/x", c->port);
	req.url = url.ptr;
	assert_int_equal(ss_http_new(&http, &o, err), 0);
	ss_http_response_init(&resp);
	ret = ss_http_perform(http, &req, &resp, err);
	*status = resp.status;
	*cut = resp.cut;
	ss_http_response_release(&resp);
	ss_http_free(http);
	ss_buf_release(&url);
	return ret;
}

static int canned_request(canned *c, const char *method, long *status, ss_error *err)
{
	bool cut;

	return canned_send(c, method, false, status, &cut, err);
}

static void test_http__5xx_retried_for_get_not_for_post(void **state)
{
	const char *answer = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
	                     "Connection: close\r\n\r\n";
	canned c;
	long status;
	ss_error err;

	canned_start(&c, answer);
	assert_int_equal(canned_request(&c, "GET", &status, &err), 0);
	assert_int_equal(status, 500);
	assert_int_equal(canned_stop(&c), 4); /* a try and three retries, then the answer */
	canned_start(&c, answer);
	assert_int_equal(canned_request(&c, "POST", &status, &err), 0);
	assert_int_equal(status, 500);
	assert_int_equal(canned_stop(&c), 1); /* a write is never sent twice */
}

static void test_http__dropped_connection_retried_for_get_only(void **state)
{
	canned c;
	long status;
	ss_error err;

	canned_start(&c, NULL);
	SS_ASSERT_FAILS(canned_request(&c, "GET", &status, &err), err, SS_ENETWORK);
	assert_int_equal(canned_stop(&c), 4);
	canned_start(&c, NULL);
	SS_ASSERT_FAILS(canned_request(&c, "POST", &status, &err), err, SS_ENETWORK);
	assert_non_null(strstr(err.message, "cannot reach 'http://127.0.0.1:"));
	assert_int_equal(canned_stop(&c), 1);
}

/* A one-time request (a delegation token) is never sent again once it may have reached the
 * server: not on a 502 or 503 (a plain POST is), not after a cut connection (said by cut). */
static void test_http__once_is_never_sent_twice(void **state)
{
	const char *answer = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
	                     "Connection: close\r\n\r\n";
	canned c;
	long status;
	bool cut;
	ss_error err;

	canned_start(&c, answer);
	assert_int_equal(canned_send(&c, "POST", false, &status, &cut, &err), 0);
	assert_int_equal(canned_stop(&c), 4);
	canned_start(&c, answer);
	assert_int_equal(canned_send(&c, "POST", true, &status, &cut, &err), 0);
	assert_int_equal(status, 502);
	assert_false(cut);
	assert_int_equal(canned_stop(&c), 1);
	canned_start(&c, NULL);
	SS_ASSERT_FAILS(canned_send(&c, "POST", true, &status, &cut, &err), err, SS_ENETWORK);
	assert_true(cut);
	assert_int_equal(canned_stop(&c), 1);
}

static void test_http__429_waits_as_asked_or_fails(void **state)
{
	canned c;
	long status;
	ss_error err;
	double t0;

	canned_start(&c, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
	                 "Content-Length: 0\r\nConnection: close\r\n\r\n");
	t0 = now_s();
	SS_ASSERT_FAILS(canned_request(&c, "POST", &status, &err), err, SS_ENETWORK);
	assert_true(now_s() - t0 >= 2.9); /* three waits of one second */
	assert_non_null(strstr(err.message, "is rate limited, try again later"));
	assert_int_equal(canned_stop(&c), 4);
	canned_start(&c, "HTTP/1.1 429 Too Many Requests\r\nratelimit-reset: 4102444800\r\n"
	                 "Content-Length: 0\r\nConnection: close\r\n\r\n");
	t0 = now_s();
	SS_ASSERT_FAILS(canned_request(&c, "GET", &status, &err), err, SS_ENETWORK);
	assert_true(now_s() - t0 < 2.0);
	assert_non_null(strstr(err.message, "the server asks to wait"));
	assert_int_equal(canned_stop(&c), 1);
}

typedef struct batch_state {
	int done;
	int ok;
	int failed;
	int added;
	const char *url;
} batch_state;

static int on_done(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err)
{
	batch_state *st = payload;

	st->done++;
	if (rc == 0 && resp->status == 200 && strstr(resp->body.ptr, "availableUserDomains"))
		st->ok++;
	else if (rc == SS_ENETWORK && strstr(req_err->message, "127.0.0.1"))
		st->failed++;
	/* Like a next page: the first completions each queue one more request. */
	if (st->added < 3) {
		ss_http_request next = {.url = st->url};

		st->added++;
		return ss_http_batch_add(b, &next, on_done, st, err);
	}
	return 0;
}

static void test_http__batch_runs_requests_added_while_running(void **state)
{
	batch_state st = {0};
	ss_http_request req = {0}, bad = {0};
	ss_buf url = SS_BUF_INIT, dead = SS_BUF_INIT;
	ss_http_options o = {.max_retries = -1};
	ss_http_batch *b;
	ss_http_stats hs;
	ss_http *http;
	ss_error err;
	int port, fd = loopback_socket(&port, 0);

	close(fd);
	ss_buf_printf(&url, "%s/xrpc/com.atproto.server.describeServer", ss_test_pds()->pds);
	ss_buf_printf(&dead, "http://127.0.0.1:%d/", port);
	st.url = url.ptr;
	req.url = url.ptr;
	bad.url = dead.ptr;
	assert_int_equal(ss_http_new(&http, &o, &err), 0);
	assert_int_equal(ss_http_batch_new(&b, http, 2, &err), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ss_http_batch_add(b, &req, on_done, &st, &err), 0);
	assert_int_equal(ss_http_batch_add(b, &bad, on_done, &st, &err), 0);
	assert_int_equal(ss_http_batch_run(b, &err), 0);
	assert_int_equal(st.done, 8);
	assert_int_equal(st.ok, 7);
	assert_int_equal(st.failed, 1);
	ss_http_get_stats(http, &hs);
	assert_int_equal(hs.requests, 8);
	ss_http_batch_free(b);
	ss_http_free(http);
	ss_buf_release(&url);
	ss_buf_release(&dead);
}

int test_http_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_http__timeout_from_the_environment),
	    cmocka_unit_test(test_http__backoff_doubles_and_is_capped),
	    cmocka_unit_test(test_http__retry_wait_from_headers),
	    cmocka_unit_test(test_http__userinfo_cannot_hide_a_remote_host),
	    cmocka_unit_test(test_http__plain_http_to_remote_host_is_refused),
	    cmocka_unit_test(test_http__closed_port_fails_fast_with_one_line),
	    cmocka_unit_test(test_http__silent_server_times_out),
	    cmocka_unit_test(test_http__response_over_cap_is_refused),
	    cmocka_unit_test(test_http__get_counts_requests_and_bytes),
	    cmocka_unit_test(test_http__chunked_answer_to_a_file_whole_or_an_error),
	    cmocka_unit_test(test_http__batch_runs_requests_added_while_running),
	    cmocka_unit_test(test_http__5xx_retried_for_get_not_for_post),
	    cmocka_unit_test(test_http__dropped_connection_retried_for_get_only),
	    cmocka_unit_test(test_http__once_is_never_sent_twice),
	    cmocka_unit_test(test_http__429_waits_as_asked_or_fails),
	};
	return cmocka_run_group_tests_name("sync/http", tests, NULL, NULL);
}
