/*
 * xrpc_list.c: com.atproto.repo.listRecords, page after page, many listings at once, within
 * bounds (see ss_xrpc_list_records_many in sync/net/xrpc_repo.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_repo.h"

#define NSID_LIST "com.atproto.repo.listRecords"

typedef struct job_state {
	ss_xrpc_list_job *job;
	char *cursor;
	int limit;      /* the page size asked for: halved after a page over the cap */
	uint64_t *seen; /* hashes of the cursors already followed */
	size_t nseen, aseen;
} job_state;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Remembers cursor; false when it was seen before (the listing would go round forever). */
static bool first_time(job_state *st, const char *cursor)
{
	uint64_t h = hash(cursor);

	for (size_t i = 0; i < st->nseen; i++)
		if (st->seen[i] == h)
			return false;
	ss_xgrow((void **)&st->seen, sizeof(*st->seen), st->nseen + 1, &st->aseen);
	st->seen[st->nseen++] = h;
	return true;
}

static int on_page(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err);

static int queue_page(ss_http_batch *b, job_state *st, ss_error *err)
{
	ss_xrpc_list_job *job = st->job;
	char limit[16];
	const char *params[] = {"repo",   job->repo,  "collection", job->collection, "limit", limit,
	                        "cursor", st->cursor, NULL};
	ss_buf url = SS_BUF_INIT;
	ss_http_request req = {.method = "GET"};
	int ret;

	snprintf(limit, sizeof(limit), "%d", st->limit);
	ss_xrpc_call_url(&url, ss_xrpc_service(job->client), NSID_LIST, params);
	req.url = url.ptr;
	ret = ss_http_batch_add(b, &req, on_page, st, err);
	ss_buf_release(&url);
	return ret;
}

/* Counts the entries of the job on their way to its callback. */
static int on_entry(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	ss_xrpc_list_job *job = payload;

	if (++job->entries > SS_XRPC_LIST_MAX_RECORDS)
		return ss_error_set(err, SS_ERROR,
		                    "%s: the listing holds more than %d records: refusing the rest",
		                    NSID_LIST, SS_XRPC_LIST_MAX_RECORDS);
	return job->fn(job->payload, rec, err);
}

/* After a page: the next one to ask, or why the listing stops (0 when it simply ended). */
static int next_page(ss_http_batch *b, job_state *st, size_t count, char *next, ss_error *err)
{
	ss_xrpc_list_job *job = st->job;

	/* The PDS sends a cursor even with the last page: an empty page ends it. */
	if (!count || !next) {
		free(next);
		return 0;
	}
	if (!first_time(st, next)) {
		free(next);
		return ss_error_set(err, SS_ERROR,
		                    "%s: the server sent a cursor it had sent before (after %zu "
		                    "pages): the listing would not end",
		                    NSID_LIST, job->pages);
	}
	if (job->pages >= SS_XRPC_LIST_MAX_PAGES) {
		free(next);
		return ss_error_set(err, SS_ERROR, "%s: the listing is longer than %d pages",
		                    NSID_LIST, SS_XRPC_LIST_MAX_PAGES);
	}
	free(st->cursor);
	st->cursor = next;
	return queue_page(b, st, err);
}

static int on_page(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err)
{
	job_state *st = payload;
	ss_xrpc_list_job *job = st->job;
	char *next = NULL;
	size_t count = 0;

	(void)err;
	if (rc < 0 && req_err->code == SS_ETOOBIG && st->limit > 1) {
		/* A page of big records: ask again for fewer of them. */
		st->limit /= 2;
		job->rc = queue_page(b, st, &job->err);
		return 0;
	}
	if (rc < 0) {
		job->err = *req_err;
		job->rc = rc;
		return 0;
	}
	if (resp->status < 200 || resp->status >= 300) {
		job->rc = ss_xrpc_call_error(NSID_LIST, resp->status, &resp->body, 0, &job->err);
		return 0;
	}
	job->pages++;
	rc = ss_xrpc__walk_page(NSID_LIST, resp->body.ptr, resp->body.len, on_entry, job, &count,
	                        &next, &job->err);
	if (rc < 0) {
		free(next);
		job->rc = rc;
		return 0;
	}
	job->rc = next_page(b, st, count, next, &job->err);
	return 0;
}

int ss_xrpc_list_records_many(ss_xrpc_list_job *jobs, size_t n, int max_parallel, ss_error *err)
{
	ss_http_batch *b = NULL;
	job_state *states;
	int ret;

	if (!n)
		return 0;
	states = ss_xcalloc(n, sizeof(*states));
	if ((ret = ss_http_batch_new(&b, ss_xrpc_http(jobs[0].client), max_parallel, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		states[i].job = &jobs[i];
		states[i].limit = SS_XRPC_LIST_PAGE_SIZE;
		jobs[i].rc = 0;
		jobs[i].pages = 0;
		jobs[i].entries = 0;
		ss_error_clear(&jobs[i].err);
		if ((ret = queue_page(b, &states[i], err)) < 0)
			goto out;
	}
	/* Listings are public: no token goes to another member's PDS. */
	if ((ret = ss_http_batch_run(b, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (jobs[i].rc < 0) {
			*err = jobs[i].err;
			ret = jobs[i].rc;
			break;
		}
out:
	ss_http_batch_free(b);
	for (size_t i = 0; i < n; i++) {
		free(states[i].cursor);
		free(states[i].seen);
	}
	free(states);
	return ret;
}

int ss_xrpc_list_records(ss_xrpc *x, const char *repo, const char *collection, ss_xrpc_record_fn fn,
                         void *payload, ss_error *err)
{
	ss_xrpc_list_job job = {
	    .client = x, .repo = repo, .collection = collection, .fn = fn, .payload = payload};

	return ss_xrpc_list_records_many(&job, 1, 1, err);
}
