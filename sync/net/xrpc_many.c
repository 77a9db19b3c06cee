/*
 * xrpc_many.c: one XRPC query for each of many repos at once (the heads of a space's members,
 * their collections), one request each over an ss_http batch: bounded parallelism, the
 * clients' shared connections, no token, and each answer judged as the one-at-a-time call
 * judges it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_sync.h"

#define NSID_LATEST   "com.atproto.sync.getLatestCommit"
#define NSID_DESCRIBE "com.atproto.repo.describeRepo"

/* One query of a batch: where it goes, how its 2xx answer is read, where its outcome goes. */
typedef struct query {
	ss_xrpc *client;
	const char *nsid;
	const char *repo_param; /* "did" or "repo" */
	const char *repo;
	int (*read)(void *out, const json_t *v, ss_error *err);
	void *out;
	int *rc;
	ss_error *err;
	bool ended; /* its callback ran: rc and err are its own */
} query;

static int on_answer(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                     ss_http_response *resp, ss_error *err)
{
	query *q = payload;
	json_t *v = NULL;

	(void)b;
	(void)err;
	q->ended = true;
	if (rc < 0) {
		*q->err = *req_err;
		*q->rc = rc;
	} else if (resp->status < 200 || resp->status >= 300) {
		*q->rc = ss_xrpc_call_error(q->nsid, resp->status, &resp->body, 0, q->err);
	} else if ((*q->rc = ss_xrpc_call_parse(q->nsid, &resp->body, &v, q->err)) == 0) {
		*q->rc = q->read(q->out, v, q->err);
	}
	json_decref(v);
	return 0; /* one query's failure does not stop the others */
}

/* Runs the n queries, then frees qs; each ends with its rc and err. Returns the first failed
 * one's rc (with its err in *err), in order, after all ended. */
static int run_queries(query *qs, size_t n, int max_parallel, ss_error *err)
{
	ss_http_batch *b = NULL;
	ss_error batch_err;
	int ret;

	if (!n) {
		free(qs);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		*qs[i].rc = 0;
		ss_error_clear(qs[i].err);
	}
	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, ss_xrpc_http(qs[0].client), max_parallel, &batch_err);
	for (size_t i = 0; i < n && !ret; i++) {
		const char *params[] = {qs[i].repo_param, qs[i].repo, NULL};
		ss_buf url = SS_BUF_INIT;
		ss_http_request req = {.method = "GET"};

		ss_xrpc_call_url(&url, ss_xrpc_service(qs[i].client), qs[i].nsid, params);
		req.url = url.ptr;
		ret = ss_http_batch_add(b, &req, on_answer, &qs[i], &batch_err);
		ss_buf_release(&url);
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	/* The batch itself failed (libcurl): the queries it left unanswered failed with it. */
	for (size_t i = 0; i < n && ret < 0; i++)
		if (!qs[i].ended) {
			*qs[i].rc = ret;
			*qs[i].err = batch_err;
		}
	ss_http_batch_free(b);
	ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		if (*qs[i].rc < 0) {
			*err = *qs[i].err;
			ret = *qs[i].rc;
		}
	free(qs);
	return ret;
}

/* A getLatestCommit answer: the same checks as ss_xrpc_get_latest_commit. */
static int read_head(void *out, const json_t *v, ss_error *err)
{
	ss_xrpc_commit *c = out;

	c->cid = ss_xrpc_call_str(v, "cid");
	c->rev = ss_xrpc_call_str(v, "rev");
	if (!c->cid || !c->rev) {
		ss_xrpc_commit_release(c);
		return ss_error_set(err, SS_ERROR, "%s: the server's answer has no cid or rev",
		                    NSID_LATEST);
	}
	return 0;
}

static int read_info(void *out, const json_t *v, ss_error *err)
{
	(void)err;
	ss_xrpc__repo_info_from(v, out);
	return 0;
}

int ss_xrpc_heads_describe_many(ss_xrpc_head_job *heads, size_t nh, ss_xrpc_describe_job *descs,
                                size_t nd, int max_parallel, ss_error *err)
{
	query *qs = ss_xcalloc(nh + nd ? nh + nd : 1, sizeof(*qs));

	for (size_t i = 0; i < nh; i++) {
		heads[i].commit.cid = heads[i].commit.rev = NULL;
		qs[i] =
		    (query){heads[i].client,  NSID_LATEST,  "did",         heads[i].did, read_head,
		            &heads[i].commit, &heads[i].rc, &heads[i].err, false};
	}
	for (size_t i = 0; i < nd; i++) {
		memset(&descs[i].info, 0, sizeof(descs[i].info));
		qs[nh + i] =
		    (query){descs[i].client, NSID_DESCRIBE, "repo",        descs[i].did, read_info,
		            &descs[i].info,  &descs[i].rc,  &descs[i].err, false};
	}
	return run_queries(qs, nh + nd, max_parallel, err);
}

int ss_xrpc_get_latest_commit_many(ss_xrpc_head_job *jobs, size_t n, int max_parallel,
                                   ss_error *err)
{
	return ss_xrpc_heads_describe_many(jobs, n, NULL, 0, max_parallel, err);
}

int ss_xrpc_describe_repo_many(ss_xrpc_describe_job *jobs, size_t n, int max_parallel,
                               ss_error *err)
{
	return ss_xrpc_heads_describe_many(NULL, 0, jobs, n, max_parallel, err);
}
