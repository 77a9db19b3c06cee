/*
 * xrpc_heads.c: com.atproto.sync.getLatestCommit for many repos at once (the heads of a
 * space's members), one request each over an ss_http batch: bounded parallelism, the client's
 * shared connections, and each answer judged as ss_xrpc_get_latest_commit judges one.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "sync/xrpc_priv.h"

#define NSID_LATEST "com.atproto.sync.getLatestCommit"

typedef struct head_state {
	ss_xrpc_head_job *job;
	bool ended; /* its callback ran: rc and err are the job's own */
} head_state;

/* Fills job from a 2xx answer: the same checks as ss_xrpc_get_latest_commit. */
static int read_answer(ss_xrpc_head_job *job, const ss_buf *body)
{
	json_t *v = NULL;
	int ret;

	if ((ret = ss_xrpc__parse(NSID_LATEST, body, &v, &job->err)) < 0)
		return ret;
	job->commit.cid = ss_xrpc__str(v, "cid");
	job->commit.rev = ss_xrpc__str(v, "rev");
	json_decref(v);
	if (!job->commit.cid || !job->commit.rev) {
		ss_xrpc_commit_release(&job->commit);
		return ss_error_set(&job->err, SS_ERROR,
		                    "%s: the server's answer has no cid or rev", NSID_LATEST);
	}
	return 0;
}

static int on_head(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err)
{
	head_state *st = payload;
	ss_xrpc_head_job *job = st->job;

	(void)b;
	(void)err;
	st->ended = true;
	if (rc < 0) {
		job->err = *req_err;
		job->rc = rc;
	} else if (resp->status < 200 || resp->status >= 300) {
		job->rc = ss_xrpc__error(NSID_LATEST, resp->status, &resp->body, 0, &job->err);
	} else {
		job->rc = read_answer(job, &resp->body);
	}
	return 0; /* one job's failure does not stop the others */
}

int ss_xrpc_get_latest_commit_many(ss_xrpc_head_job *jobs, size_t n, int max_parallel,
                                   ss_error *err)
{
	ss_http_batch *b = NULL;
	head_state *states;
	ss_error batch_err;
	int ret;

	if (!n)
		return 0;
	states = ss_xcalloc(n, sizeof(*states));
	for (size_t i = 0; i < n; i++) {
		states[i].job = &jobs[i];
		jobs[i].commit.cid = jobs[i].commit.rev = NULL;
		jobs[i].rc = 0;
		ss_error_clear(&jobs[i].err);
	}
	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, ss_xrpc_http(jobs[0].client), max_parallel, &batch_err);
	for (size_t i = 0; i < n && !ret; i++) {
		const char *params[] = {"did", jobs[i].did, NULL};
		ss_buf url = SS_BUF_INIT;
		ss_http_request req = {.method = "GET"};

		ss_xrpc__url(&url, ss_xrpc_service(jobs[i].client), NSID_LATEST, params);
		req.url = url.ptr;
		ret = ss_http_batch_add(b, &req, on_head, &states[i], &batch_err);
		ss_buf_release(&url);
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	/* The batch itself failed (libcurl): the jobs it left unanswered failed with it. */
	for (size_t i = 0; i < n && ret < 0; i++)
		if (!states[i].ended) {
			jobs[i].rc = ret;
			jobs[i].err = batch_err;
		}
	ret = 0;
	for (size_t i = 0; i < n; i++)
		if (jobs[i].rc < 0) {
			*err = jobs[i].err;
			ret = jobs[i].rc;
			break;
		}
	ss_http_batch_free(b);
	free(states);
	return ret;
}
