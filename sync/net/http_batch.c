/*
 * http_batch.c: many independent requests at once over libcurl's multi interface, with the
 * same checks, caps and retry policy as ss_http_perform().
 */
#include "sync/net/http.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util/mem.h"
#include "core/util/secret.h"
#include "sync/net/http_priv.h"

typedef struct item {
	ss_http_request req; /* points at the owned copies below */
	char *method, *url, *bearer, *content_type, *body;
	char **headers; /* owned copies of req.headers, wiped when freed */
	ss_http_done_fn done;
	void *payload;
	CURL *easy;
	ss_http_xfer x;
	ss_http_response resp;
	int attempt;
	long long not_before_ms;
	struct item *next;
	struct item *run_prev, *run_next; /* in the batch's list of running items */
} item;

struct ss_http_batch {
	ss_http *http;
	CURLM *multi;
	int max_parallel;
	int running;
	item *run;          /* in flight */
	item *queue, *tail; /* waiting to start (new, or a retry after its wait) */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

static void item_free(item *it)
{
	if (!it)
		return;
	if (it->easy)
		ss_curl_fns()->easy_cleanup(it->easy);
	ss_http__xfer_release(&it->x);
	ss_http_response_release(&it->resp);
	free(it->method);
	free(it->url);
	ss_secret_free(it->bearer);
	for (size_t i = 0; it->headers && it->headers[i]; i++)
		ss_secret_free(it->headers[i]);
	free(it->headers);
	free(it->content_type);
	free(it->body);
	free(it);
}

int ss_http_batch_new(ss_http_batch **out, ss_http *http, int max_parallel, ss_error *err)
{
	ss_http_batch *b = ss_xcalloc(1, sizeof(*b));

	b->http = http;
	b->max_parallel = max_parallel > 0 ? max_parallel : 8;
	b->multi = ss_curl_fns()->multi_init();
	if (!b->multi) {
		free(b);
		return ss_error_set(err, SS_ERROR, "cannot initialize libcurl");
	}
	*out = b;
	return 0;
}

static void enqueue(ss_http_batch *b, item *it)
{
	it->next = NULL;
	if (b->tail)
		b->tail->next = it;
	else
		b->queue = it;
	b->tail = it;
}

void ss_http_batch_free(ss_http_batch *b)
{
	item *it, *next;

	if (!b)
		return;
	for (it = b->queue; it; it = next) {
		next = it->next;
		item_free(it);
	}
	for (it = b->run; it; it = next) {
		next = it->run_next;
		ss_curl_fns()->multi_remove_handle(b->multi, it->easy);
		item_free(it);
	}
	if (b->multi)
		ss_curl_fns()->multi_cleanup(b->multi);
	free(b);
}

int ss_http_batch_add(ss_http_batch *b, const ss_http_request *req, ss_http_done_fn done,
                      void *payload, ss_error *err)
{
	item *it = ss_xcalloc(1, sizeof(*it));

	it->req.method = it->method = dup_or_null(req->method);
	it->req.url = it->url = ss_xstrdup(req->url);
	it->req.bearer = it->bearer = dup_or_null(req->bearer);
	it->req.content_type = it->content_type = dup_or_null(req->content_type);
	if (req->headers) {
		size_t n = 0;

		while (req->headers[n])
			n++;
		it->headers = ss_xcalloc(n + 1, sizeof(*it->headers));
		for (size_t i = 0; i < n; i++)
			it->headers[i] = ss_xstrdup(req->headers[i]);
		it->req.headers = (const char *const *)it->headers;
	}
	if (req->body) {
		it->req.body = it->body = ss_xmemdup(req->body, req->body_len);
		it->req.body_len = req->body_len;
	}
	it->req.body_fd = req->body_fd;
	it->req.max_response = req->max_response;
	it->done = done;
	it->payload = payload;
	ss_http_response_init(&it->resp);
	enqueue(b, it);
	return 0;
}

/* Hands a finished item to its callback and frees it. */
static int deliver(ss_http_batch *b, item *it, int rc, const ss_error *req_err, ss_error *err)
{
	int ret = it->done ? it->done(b, it->payload, rc, req_err, &it->resp, err) : 0;

	item_free(it);
	return ret;
}

/* Starts the queued items that are due, up to max_parallel; *next_due_ms: the next wait. */
static int start_due(ss_http_batch *b, long long *next_due_ms, ss_error *err)
{
	item *list = b->queue, *it;
	long long now = now_ms();
	int ret;

	/* Take the queue: what is not started goes back; callbacks may queue more meanwhile. */
	*next_due_ms = -1;
	b->queue = b->tail = NULL;
	while ((it = list)) {
		list = it->next;
		if (b->running >= b->max_parallel || it->not_before_ms > now) {
			if (it->not_before_ms > now &&
			    (*next_due_ms < 0 || it->not_before_ms - now < *next_due_ms))
				*next_due_ms = it->not_before_ms - now;
			enqueue(b, it);
			continue;
		}
		if (!it->easy)
			it->easy = ss_curl_fns()->easy_init();
		else
			ss_curl_fns()->easy_reset(it->easy);
		ss_http__xfer_release(&it->x);
		if (!it->easy) {
			ss_error e;

			ss_error_set(&e, SS_ERROR, "cannot initialize libcurl");
			ret = deliver(b, it, SS_ERROR, &e, err);
		} else if ((ret = ss_http__setup(b->http, it->easy, &it->req, &it->x, &it->resp,
		                                 err)) < 0) {
			ss_error e = *err;

			ret = deliver(b, it, ret, &e, err);
		} else {
			ss_curl_fns()->easy_setopt(it->easy, CURLOPT_PRIVATE, (char *)it);
			ss_curl_fns()->multi_add_handle(b->multi, it->easy);
			it->run_prev = NULL;
			it->run_next = b->run;
			if (b->run)
				b->run->run_prev = it;
			b->run = it;
			b->running++;
		}
		if (ret < 0) {
			while ((it = list)) {
				list = it->next;
				enqueue(b, it);
			}
			return ret;
		}
	}
	return 0;
}

static int finish(ss_http_batch *b, CURLMsg *msg, ss_error *err)
{
	item *it = NULL;
	ss_error req_err;
	long wait_ms;
	int rc;

	ss_curl_fns()->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&it);
	ss_curl_fns()->multi_remove_handle(b->multi, msg->easy_handle);
	if (it->run_prev)
		it->run_prev->run_next = it->run_next;
	else
		b->run = it->run_next;
	if (it->run_next)
		it->run_next->run_prev = it->run_prev;
	b->running--;
	ss_error_clear(&req_err);
	rc = ss_http__decide(b->http, it->easy, &it->req, msg->data.result, &it->x, it->attempt,
	                     &wait_ms, &req_err);
	if (rc == 1) {
		it->attempt++;
		it->not_before_ms = now_ms() + wait_ms;
		enqueue(b, it);
		return 0;
	}
	return deliver(b, it, rc, &req_err, err);
}

int ss_http_batch_run(ss_http_batch *b, ss_error *err)
{
	long long next_due;
	int still = 0, ret;

	for (;;) {
		CURLMsg *msg;
		int left;

		if ((ret = start_due(b, &next_due, err)) < 0)
			return ret;
		if (!b->running && !b->queue)
			return 0;
		if (ss_curl_fns()->multi_perform(b->multi, &still) != CURLM_OK)
			return ss_error_set(err, SS_ERROR, "libcurl's multi interface failed");
		while ((msg = ss_curl_fns()->multi_info_read(b->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			if ((ret = finish(b, msg, err)) < 0)
				return ret;
		}
		if (b->queue && b->running < b->max_parallel && next_due < 0)
			continue; /* room for more, and something due: start it now */
		if (b->running || b->queue) {
			int timeout = 100;

			if (next_due >= 0 && next_due < timeout)
				timeout = (int)next_due;
			ss_curl_fns()->multi_poll(b->multi, NULL, 0, timeout, NULL);
		}
	}
}
