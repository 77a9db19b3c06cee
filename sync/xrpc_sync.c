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

/* One CAR request of a batch: where its answer goes. */
typedef struct car_job {
	const char *nsid;
	ss_buf *car;
	int *rc;
	ss_error *err;
	bool ended;
	int fd;            /* > 0: the CAR goes to this file */
	uint64_t *car_len; /* ... and its size here */
} car_job;

static int take_car(const char *nsid, ss_http_response *resp, ss_buf *car, uint64_t *car_len,
                    ss_error *err)
{
	if (resp->status < 200 || resp->status >= 300)
		return ss_xrpc__error(nsid, resp->status, &resp->body, 0, err);
	if (car_len) { /* the CAR is in the job's file */
		*car_len = resp->file_len;
		return 0;
	}
	ss_buf_release(car);
	*car = resp->body; /* the body moves to the caller */
	ss_buf_init(&resp->body);
	return 0;
}

static int on_car(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                  ss_http_response *resp, ss_error *err)
{
	car_job *job = payload;

	(void)b;
	(void)err;
	job->ended = true;
	if (rc < 0) {
		*job->err = *req_err;
		*job->rc = rc;
	} else {
		*job->rc = take_car(job->nsid, resp, job->car, job->car_len, job->err);
	}
	return 0; /* one job's failure does not stop the others */
}

/* GETs the n urls at once on http (at most max_parallel in flight); each answer, or why there
 * is none, goes to its job. A batch that cannot run fails the jobs it did not end. */
static void car_many(ss_http *http, car_job *jobs, ss_buf *urls, size_t n, int max_parallel)
{
	ss_http_batch *b = NULL;
	ss_error batch_err;
	int ret;

	for (size_t i = 0; i < n; i++) {
		ss_buf_init(jobs[i].car);
		*jobs[i].rc = 0;
		ss_error_clear(jobs[i].err);
	}
	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, http, max_parallel, &batch_err);
	for (size_t i = 0; i < n && !ret; i++) {
		ss_http_request req = {.method = "GET", .url = urls[i].ptr, .body_fd = jobs[i].fd};

		if (jobs[i].fd > 0)
			req.max_response = SS_XRPC_REPO_FILE_MAX;
		ret = ss_http_batch_add(b, &req, on_car, &jobs[i], &batch_err);
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	for (size_t i = 0; i < n && ret < 0; i++)
		if (!jobs[i].ended) {
			*jobs[i].rc = ret;
			*jobs[i].err = batch_err;
		}
	ss_http_batch_free(b);
}

static void release_urls(ss_buf *urls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ss_buf_release(&urls[i]);
	free(urls);
}

int ss_xrpc_get_repo_many(ss_xrpc_repo_job *jobs, size_t n, int max_parallel, ss_error *err)
{
	car_job *cj;
	ss_buf *urls;

	(void)err;
	if (!n)
		return 0;
	cj = ss_xcalloc(n, sizeof(*cj));
	urls = ss_xcalloc(n, sizeof(*urls));
	for (size_t i = 0; i < n; i++) {
		const char *params[] = {"did", jobs[i].did, "since", jobs[i].since, NULL};

		cj[i] = (car_job){NSID_GET_REPO,
		                  &jobs[i].car,
		                  &jobs[i].rc,
		                  &jobs[i].err,
		                  false,
		                  jobs[i].fd,
		                  jobs[i].fd > 0 ? &jobs[i].car_len : NULL};
		ss_buf_init(&urls[i]);
		ss_xrpc__url(&urls[i], ss_xrpc_service(jobs[i].client), NSID_GET_REPO, params);
	}
	car_many(ss_xrpc_http(jobs[0].client), cj, urls, n, max_parallel);
	release_urls(urls, n);
	free(cj);
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
	car_job *cj;
	ss_buf *urls;

	(void)err;
	if (!n)
		return 0;
	cj = ss_xcalloc(n, sizeof(*cj));
	urls = ss_xcalloc(n, sizeof(*urls));
	for (size_t i = 0; i < n; i++) {
		cj[i] = (car_job){
		    NSID_GET_BLOCKS, &jobs[i].car, &jobs[i].rc, &jobs[i].err, false, 0, NULL};
		ss_buf_init(&urls[i]);
		blocks_url(&urls[i], jobs[i].client, jobs[i].did, jobs[i].cids, jobs[i].ncids);
	}
	car_many(ss_xrpc_http(jobs[0].client), cj, urls, n, max_parallel);
	release_urls(urls, n);
	free(cj);
	return 0;
}
