/*
 * xrpc_sync.c: com.atproto.sync.getRepo (many repos at once) and getBlocks: binary CAR
 * answers, kept as bytes for core/car.h to read.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "sync/xrpc_priv.h"

#define NSID_GET_REPO   "com.atproto.sync.getRepo"
#define NSID_GET_BLOCKS "com.atproto.sync.getBlocks"

typedef struct repo_state {
	ss_xrpc_repo_job *job;
	bool ended;
} repo_state;

static int take_car(const char *nsid, ss_http_response *resp, ss_buf *car, ss_error *err)
{
	if (resp->status < 200 || resp->status >= 300)
		return ss_xrpc__error(nsid, resp->status, &resp->body, 0, err);
	ss_buf_release(car);
	*car = resp->body; /* the body moves to the caller */
	ss_buf_init(&resp->body);
	return 0;
}

static int on_repo(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err)
{
	repo_state *st = payload;
	ss_xrpc_repo_job *job = st->job;

	(void)b;
	(void)err;
	st->ended = true;
	if (rc < 0) {
		job->err = *req_err;
		job->rc = rc;
	} else {
		job->rc = take_car(NSID_GET_REPO, resp, &job->car, &job->err);
	}
	return 0; /* one job's failure does not stop the others */
}

int ss_xrpc_get_repo_many(ss_xrpc_repo_job *jobs, size_t n, int max_parallel, ss_error *err)
{
	ss_http_batch *b = NULL;
	repo_state *states;
	ss_error batch_err;
	int ret;

	(void)err;
	if (!n)
		return 0;
	states = ss_xcalloc(n, sizeof(*states));
	for (size_t i = 0; i < n; i++) {
		states[i].job = &jobs[i];
		ss_buf_init(&jobs[i].car);
		jobs[i].rc = 0;
		ss_error_clear(&jobs[i].err);
	}
	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, ss_xrpc_http(jobs[0].client), max_parallel, &batch_err);
	for (size_t i = 0; i < n && !ret; i++) {
		const char *params[] = {"did", jobs[i].did, "since", jobs[i].since, NULL};
		ss_buf url = SS_BUF_INIT;
		ss_http_request req = {.method = "GET"};

		ss_xrpc__url(&url, ss_xrpc_service(jobs[i].client), NSID_GET_REPO, params);
		req.url = url.ptr;
		ret = ss_http_batch_add(b, &req, on_repo, &states[i], &batch_err);
		ss_buf_release(&url);
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	for (size_t i = 0; i < n && ret < 0; i++)
		if (!states[i].ended) {
			jobs[i].rc = ret;
			jobs[i].err = batch_err;
		}
	ss_http_batch_free(b);
	free(states);
	return 0;
}

int ss_xrpc_get_blocks(ss_xrpc *x, const char *did, const char *const *cids, size_t n, ss_buf *car,
                       ss_error *err)
{
	ss_xrpc_blocks_job job = {.client = x, .did = did, .cids = cids, .ncids = n};

	ss_xrpc_get_blocks_many(&job, 1, 1, err);
	ss_buf_release(car);
	*car = job.car;
	if (job.rc < 0)
		*err = job.err;
	return job.rc;
}

typedef struct blocks_state {
	ss_xrpc_blocks_job *job;
	bool ended;
} blocks_state;

static int on_blocks(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                     ss_http_response *resp, ss_error *err)
{
	blocks_state *st = payload;
	ss_xrpc_blocks_job *job = st->job;

	(void)b;
	(void)err;
	st->ended = true;
	if (rc < 0) {
		job->err = *req_err;
		job->rc = rc;
	} else {
		job->rc = take_car(NSID_GET_BLOCKS, resp, &job->car, &job->err);
	}
	return 0;
}

/* The getBlocks URL of cids for did on x's service. */
static void blocks_url(ss_buf *url, ss_xrpc *x, const char *did, const char *const *cids, size_t n)
{
	const char **params = ss_xcalloc(2 * n + 3, sizeof(*params));

	params[0] = "did";
	params[1] = did;
	for (size_t i = 0; i < n; i++) {
		params[2 + 2 * i] = "cids";
		params[3 + 2 * i] = cids[i];
	}
	ss_xrpc__url(url, ss_xrpc_service(x), NSID_GET_BLOCKS, params);
	free(params);
}

int ss_xrpc_get_blocks_many(ss_xrpc_blocks_job *jobs, size_t n, int max_parallel, ss_error *err)
{
	ss_http_batch *b = NULL;
	blocks_state *states;
	ss_error batch_err;
	int ret;

	(void)err;
	if (!n)
		return 0;
	states = ss_xcalloc(n, sizeof(*states));
	for (size_t i = 0; i < n; i++) {
		states[i].job = &jobs[i];
		ss_buf_init(&jobs[i].car);
		jobs[i].rc = 0;
		ss_error_clear(&jobs[i].err);
	}
	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, ss_xrpc_http(jobs[0].client), max_parallel, &batch_err);
	for (size_t i = 0; i < n && !ret; i++) {
		ss_buf url = SS_BUF_INIT;
		ss_http_request req = {.method = "GET"};

		blocks_url(&url, jobs[i].client, jobs[i].did, jobs[i].cids, jobs[i].ncids);
		req.url = url.ptr;
		ret = ss_http_batch_add(b, &req, on_blocks, &states[i], &batch_err);
		ss_buf_release(&url);
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	for (size_t i = 0; i < n && ret < 0; i++)
		if (!states[i].ended) {
			jobs[i].rc = ret;
			jobs[i].err = batch_err;
		}
	ss_http_batch_free(b);
	free(states);
	return 0;
}
