/*
 * http.h: every byte skillsync sends to or receives from the network goes through here.
 *
 * One client object (ss_http) holds the connection cache, shared by all requests made with it,
 * so that talking to the same PDS reuses one kept-alive connection. Rules that always hold:
 * - a URL is checked with ss_url_check() first: https anywhere, plain http only to loopback;
 * - a request is bounded in time (connect, whole transfer, low speed) and a response in size
 *   (ss_http_options.max_response), so a slow or hostile server cannot hang or exhaust us;
 * - network failures and 5xx answers are retried a few times with exponential backoff; a 429
 *   is retried after the wait the server asks for (Retry-After, or ratelimit-reset), unless that
 *   wait is longer than max_wait_ms: then the request fails with SS_ENETWORK and one line;
 * - no header, token or body is ever logged or put in an error message.
 * A response with any HTTP status is a success of the transport: ss_http_perform() returns 0
 * and the caller reads resp->status (the XRPC layer turns statuses into errors).
 *
 * Besides one request at a time there is a batch mode (ss_http_batch) that performs many
 * independent requests at once and calls back as each completes; a callback may add further
 * requests (the next page of a listing) to the running batch.
 */
#ifndef SS_HTTP_H
#define SS_HTTP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/util/buf.h"
#include "core/util/error.h"

typedef struct ss_http ss_http;
typedef struct ss_http_batch ss_http_batch;

/* Zero in any field means its default (shown in brackets). */
typedef struct ss_http_options {
	long connect_timeout_ms; /* [10 s] */
	long timeout_ms;         /* whole request [60 s; the timeout setting: sync/setting.h] */
	long low_speed_time_s;   /* abort below 1 byte/s for this long [min(30, timeout)] */
	size_t max_response;     /* cap on a response body [64 MiB] */
	int max_retries;         /* retries after the first attempt [3]; -1: none */
	long backoff_ms;         /* first backoff, doubled for each retry [250 ms] */
	long max_wait_ms;        /* longest 429 wait we accept [60 s] */
} ss_http_options;

/* Counters for benchmarks and progress: totals over the client's life. */
typedef struct ss_http_stats {
	uint64_t requests; /* attempts put on the wire, retries included */
	uint64_t retries;
	uint64_t bytes_sent;     /* request bodies */
	uint64_t bytes_received; /* response bodies */
} ss_http_stats;

typedef struct ss_http_request {
	const char *method; /* "GET" (default when NULL) or "POST" */
	const char *url;
	const char *bearer;       /* "Authorization: Bearer <bearer>", or NULL */
	const char *content_type; /* for the body, e.g. "application/json" */
	/* More header lines ("Name: value"), NULL-terminated, or NULL; treated as secrets (they may
	 * carry a credential): copied only into memory that is wiped before it is freed. */
	const char *const *headers;
	const void *body;
	size_t body_len;
	/* Never sent twice (a one-time token): on a fresh connection, since libcurl sends a
	 * request again on its own when a reused connection closes without an answer, and not
	 * retried once it may have reached the server (a 502 or 503 is answered as it is; only a
	 * connection that could not be made is tried again): the caller sends a new one. */
	bool once;
	/* > 0: a 2xx answer's body is written to this file (emptied first, at each attempt)
	 * instead of resp->body, so a large answer is not held in memory; any other answer's
	 * body stays in resp->body. */
	int body_fd;
	size_t max_response; /* this request's cap on the body; 0: the client's max_response */
} ss_http_request;

typedef struct ss_http_response {
	long status;
	ss_buf body;        /* capped at the client's max_response */
	char *content_type; /* NULL when the server sent none */
	/* The request failed after it went out (the connection closed or reset, the answer cut
	 * short): the server may have acted on it. */
	bool cut;
	uint64_t file_len; /* the bytes written to the request's body_fd */
	/* The DPoP-Nonce header's value (RFC 9449: the nonce the next DPoP proof must carry), or
	 * "" when the server sent none. */
	char dpop_nonce[256];
} ss_http_response;

/* opts may be NULL for every default. */
int ss_http_new(ss_http **out, const ss_http_options *opts, ss_error *err);
void ss_http_free(ss_http *http);
void ss_http_get_stats(const ss_http *http, ss_http_stats *out);
/* Adds another client's counters to http's (the requests a helper client made for it). */
void ss_http_add_stats(ss_http *http, const ss_http_stats *more);
/* The effective options (defaults filled in). */
const ss_http_options *ss_http_get_options(const ss_http *http);

void ss_http_response_init(ss_http_response *resp);
void ss_http_response_release(ss_http_response *resp);

/*
 * Performs req with retries. 0 when a response arrived (any status; see resp->status);
 * SS_EINVALID for a refused URL, SS_ETOOBIG for a response over the cap, SS_ENETWORK when the
 * server could not be reached, timed out or kept failing (one line naming the URL).
 */
int ss_http_perform(ss_http *http, const ss_http_request *req, ss_http_response *resp,
                    ss_error *err);

/*
 * Pure helpers behind the retry policy (exported for the tests).
 * ss_http_backoff_ms: the wait before retry number attempt (1, 2, ...).
 * ss_http_retry_wait_s: the wait a 429 asks for, from the values of the Retry-After header
 * (delta seconds or an HTTP date) and the ratelimit-reset header (epoch seconds), either NULL;
 * 0 when they say nothing usable (then backoff applies).
 */
long ss_http_backoff_ms(const ss_http_options *opts, int attempt);
long ss_http_retry_wait_s(const char *retry_after, const char *ratelimit_reset, time_t now);

/*
 * A completed batch request. rc is 0 when a response arrived (resp filled, any status) or the
 * ss_http_perform error code with req_err saying why. The callback may add requests to the
 * batch. Returning a negative code (with err set) stops the batch: ss_http_batch_run returns it.
 */
typedef int (*ss_http_done_fn)(ss_http_batch *batch, void *payload, int rc, const ss_error *req_err,
                               ss_http_response *resp, ss_error *err);

/* A batch running at most max_parallel transfers at once (0: 8) over http's connections. */
int ss_http_batch_new(ss_http_batch **out, ss_http *http, int max_parallel, ss_error *err);
void ss_http_batch_free(ss_http_batch *batch);
/* Queues req (copied) with its callback; allowed before and during ss_http_batch_run. */
int ss_http_batch_add(ss_http_batch *batch, const ss_http_request *req, ss_http_done_fn done,
                      void *payload, ss_error *err);
/* Runs until no request is queued or in flight; 0, or the first callback's negative code. */
int ss_http_batch_run(ss_http_batch *batch, ss_error *err);

#endif
