/*
 * xrpc_sync.c: com.atproto.sync.getRepo (many repos at once) and getBlocks: binary CAR
 * answers, kept as bytes for core/atproto/car.h to read.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_sync.h"

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
		return ss_xrpc_call_error(nsid, resp->status, &resp->body, 0, err);
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

/* The GET of url for job: its answer to the job's file when it has one (then up to
 * SS_XRPC_REPO_FILE_MAX bytes). */
static ss_http_request car_request(const car_job *job, const char *url)
{
	ss_http_request req = {.method = "GET", .url = url, .body_fd = job->fd};

	if (job->fd > 0)
		req.max_response = SS_XRPC_REPO_FILE_MAX;
	return req;
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
		ss_http_request req = car_request(&jobs[i], urls[i].ptr);

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

/* A getRepo job's request: its car_job and its URL. */
static void repo_request(ss_xrpc_repo_job *job, car_job *cj, ss_buf *url)
{
	const char *params[] = {"did", job->did, "since", job->since, NULL};

	*cj = (car_job){NSID_GET_REPO,
	                &job->car,
	                &job->rc,
	                &job->err,
	                false,
	                job->fd,
	                job->fd > 0 ? &job->car_len : NULL};
	ss_buf_init(url);
	ss_xrpc_call_url(url, ss_xrpc_service(job->client), NSID_GET_REPO, params);
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
	for (size_t i = 0; i < n; i++)
		repo_request(&jobs[i], &cj[i], &urls[i]);
	car_many(ss_xrpc_http(jobs[0].client), cj, urls, n, max_parallel);
	release_urls(urls, n);
	free(cj);
	return 0;
}

/*
 * A stream of getRepo jobs: a thread of its own runs them over a client of its own and hands
 * each over as it ends. Everything below the mutex is shared; the jobs' outputs are written by
 * the thread before a job is handed over and read by the caller after.
 */
struct ss_xrpc_repo_stream {
	ss_xrpc_repo_job *jobs;
	size_t n;
	car_job *cj;
	ss_buf *urls;
	size_t *next_of; /* the next job on the same service, or SIZE_MAX */
	struct stream_slot {
		ss_xrpc_repo_stream *s;
		size_t i;
	} * slots;
	ss_http *http;   /* the thread's own */
	ss_http *credit; /* the jobs' client, credited with its requests at the end */
	pthread_t thread;
	bool threaded;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t *ended; /* the jobs in the order they ended */
	size_t nended, taken;
	bool stop, done;
};

static int stream_request(ss_http_batch *b, ss_xrpc_repo_stream *s, size_t i, ss_error *err);

static int on_stream_car(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                         ss_http_response *resp, ss_error *err)
{
	struct stream_slot *slot = payload;
	ss_xrpc_repo_stream *s = slot->s;
	size_t i = slot->i;
	bool stop;

	on_car(b, &s->cj[i], rc, req_err, resp, err);
	pthread_mutex_lock(&s->mu);
	s->ended[s->nended++] = i;
	stop = s->stop;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (stop)
		return ss_error_set(err, SS_ERROR, "stopped");
	return s->next_of[i] != SIZE_MAX ? stream_request(b, s, s->next_of[i], err) : 0;
}

static int stream_request(ss_http_batch *b, ss_xrpc_repo_stream *s, size_t i, ss_error *err)
{
	ss_http_request req = car_request(&s->cj[i], s->urls[i].ptr);

	return ss_http_batch_add(b, &req, on_stream_car, &s->slots[i], err);
}

/* The thread: the first job of each service at once, each next one when the last ended. */
static void *stream_run(void *arg)
{
	ss_xrpc_repo_stream *s = arg;
	ss_http_batch *b = NULL;
	ss_error batch_err;
	bool *second = ss_xcalloc(s->n, sizeof(*second));
	int ret;

	ss_error_clear(&batch_err);
	for (size_t i = 0; i < s->n; i++)
		if (s->next_of[i] != SIZE_MAX)
			second[s->next_of[i]] = true;
	ret = ss_http_batch_new(&b, s->http, (int)s->n, &batch_err);
	for (size_t i = 0; i < s->n && !ret; i++)
		if (!second[i])
			ret = stream_request(b, s, i, &batch_err);
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	ss_http_batch_free(b);
	free(second);
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->n; i++)
		if (!s->cj[i].ended) {
			s->cj[i].ended = true;
			*s->cj[i].rc = ret < 0 ? ret : SS_ERROR;
			*s->cj[i].err = batch_err;
			s->ended[s->nended++] = i;
		}
	s->done = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int ss_xrpc_get_repo_stream(ss_xrpc_repo_job *jobs, size_t n, ss_xrpc_repo_stream **out,
                            ss_error *err)
{
	ss_xrpc_repo_stream *s = ss_xcalloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	s->jobs = jobs;
	s->n = n;
	s->cj = ss_xcalloc(n ? n : 1, sizeof(*s->cj));
	s->urls = ss_xcalloc(n ? n : 1, sizeof(*s->urls));
	s->next_of = ss_xcalloc(n ? n : 1, sizeof(*s->next_of));
	s->slots = ss_xcalloc(n ? n : 1, sizeof(*s->slots));
	s->ended = ss_xcalloc(n ? n : 1, sizeof(*s->ended));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (n)
		s->credit = ss_xrpc_http(jobs[0].client);
	for (size_t i = 0; i < n; i++) {
		repo_request(&jobs[i], &s->cj[i], &s->urls[i]);
		ss_buf_init(&jobs[i].car);
		jobs[i].rc = 0;
		ss_error_clear(&jobs[i].err);
		s->slots[i] = (struct stream_slot){s, i};
		s->next_of[i] = SIZE_MAX;
		/* one request at a time per service: the previous job on it comes first */
		for (size_t j = i; j-- > 0;)
			if (!strcmp(ss_xrpc_service(jobs[j].client),
			            ss_xrpc_service(jobs[i].client))) {
				s->next_of[j] = i;
				break;
			}
	}
	if (n && (ret = ss_http_new(&s->http, ss_http_get_options(s->credit), err)) < 0) {
		ss_xrpc_repo_stream_free(s);
		return ret;
	}
	/* without a thread, every job is run here, before the first is handed over */
	s->threaded = n && pthread_create(&s->thread, NULL, stream_run, s) == 0;
	if (n && !s->threaded)
		stream_run(s);
	if (!n)
		s->done = true;
	*out = s;
	return 0;
}

long ss_xrpc_repo_stream_next(ss_xrpc_repo_stream *s)
{
	long i = -1;

	pthread_mutex_lock(&s->mu);
	while (s->taken == s->nended && !s->done)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->taken < s->nended)
		i = (long)s->ended[s->taken++];
	pthread_mutex_unlock(&s->mu);
	return i;
}

void ss_xrpc_repo_stream_free(ss_xrpc_repo_stream *s)
{
	ss_http_stats st;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_mutex_unlock(&s->mu);
	if (s->threaded)
		pthread_join(s->thread, NULL);
	if (s->http) {
		ss_http_get_stats(s->http, &st);
		ss_http_add_stats(s->credit, &st);
	}
	ss_http_free(s->http);
	release_urls(s->urls, s->n);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->cj);
	free(s->next_of);
	free(s->slots);
	free(s->ended);
	free(s);
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
	ss_xrpc_call_url(url, ss_xrpc_service(x), NSID_GET_BLOCKS, params);
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
