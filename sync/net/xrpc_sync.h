/*
 * xrpc_sync.h: the calls that read many repos at once: their heads and descriptions
 * (sync/net/xrpc_many.c), and their blocks as CAR files, com.atproto.sync's getRepo and
 * getBlocks (sync/net/xrpc_sync.c; getBlocks also for one repo).
 *
 * Rules: every job's client shares one ss_http (a stream makes its own from its options); jobs
 * run in parallel, without a token (what they read is public); a job's failure is kept in its
 * own rc and err and does not stop the others. A CAR is bytes as the server sent them: nothing here
 * checks them (sync/public/verify.c does).
 */
#ifndef SS_XRPC_SYNC_H
#define SS_XRPC_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"

/* ---- heads and descriptions (sync/net/xrpc_many.c) ---- */

/*
 * Many describeRepo at once (sync/net/xrpc_many.c), as ss_xrpc_get_latest_commit_many: one request
 * per job, in parallel, without a token; each job ends with its info (release it) and rc 0, or
 * rc < 0 and err. Returns the first failed job's rc (with its err) after all ended.
 */
typedef struct ss_xrpc_describe_job {
	ss_xrpc *client;
	const char *did;
	ss_xrpc_repo_info info; /* out */
	int rc;                 /* out */
	ss_error err;           /* out */
} ss_xrpc_describe_job;
int ss_xrpc_describe_repo_many(ss_xrpc_describe_job *jobs, size_t n, int max_parallel,
                               ss_error *err);

/*
 * Many getLatestCommit at once (sync/net/xrpc_many.c), one request per job, in parallel
 * (max_parallel, 0: 8) over the one ss_http every job's client shares, without a token (heads
 * are public). Each job ends with the answer in commit (release it) and rc 0, or rc < 0 and
 * err as ss_xrpc_get_latest_commit would have said. A job's failure does not stop the others;
 * the call returns the first failed job's rc (with its err), in job order, after all ended.
 */
typedef struct ss_xrpc_head_job {
	ss_xrpc *client;
	const char *did;
	ss_xrpc_commit commit; /* out */
	int rc;                /* out: 0 or the job's error code */
	ss_error err;          /* out: why, when rc < 0 */
} ss_xrpc_head_job;
int ss_xrpc_get_latest_commit_many(ss_xrpc_head_job *jobs, size_t n, int max_parallel,
                                   ss_error *err);
/* Both at once, in one batch (one round trip instead of two): the nh heads, then the nd
 * describeRepo; returns the first failed job's rc, heads first. */
int ss_xrpc_heads_describe_many(ss_xrpc_head_job *heads, size_t nh, ss_xrpc_describe_job *descs,
                                size_t nd, int max_parallel, ss_error *err);

/* ---- com.atproto.sync: repository blocks as CAR files (sync/net/xrpc_sync.c) ---- */

/*
 * Many com.atproto.sync.getRepo at once, one request per job (since: NULL for the whole repo,
 * else the blocks written after that revision), in parallel (max_parallel, 0: 8) over the one
 * ss_http every job's client shares, without a token. Each job ends with the CAR's bytes in car
 * (release it) and rc 0, or rc < 0 and err naming the method; a refused `since` is an answer
 * like any other (the caller falls back). A job with an fd gets its CAR written to that file
 * instead (up to SS_XRPC_REPO_FILE_MAX bytes; its size in car_len), so that a whole repo is not
 * held in memory. Returns 0 once every job ended.
 */
#define SS_XRPC_REPO_FILE_MAX ((size_t)1 << 30)
typedef struct ss_xrpc_repo_job {
	ss_xrpc *client;
	const char *did;
	const char *since;
	int fd;           /* > 0: the CAR to this file, not to car */
	ss_buf car;       /* out */
	uint64_t car_len; /* out, with fd: the CAR's bytes in the file */
	int rc;           /* out */
	ss_error err;     /* out */
} ss_xrpc_repo_job;
int ss_xrpc_get_repo_many(ss_xrpc_repo_job *jobs, size_t n, int max_parallel, ss_error *err);

/*
 * The same jobs, each with an fd, run by a thread of their own over a client of their own (the
 * options of the jobs' one, credited with its requests and bytes when the stream is freed), so
 * that the caller reads each CAR as soon as it has arrived while the others are on their way:
 * ss_xrpc_repo_stream_next waits for the next job to end and returns its index (jobs end in
 * any order, each once), -1 once all were returned. One request at a time per service (a
 * PDS's getRepo is its CPU's work: asked one after the other, the first repo arrives whole
 * sooner, the last no later), services in parallel. The jobs are the caller's, not to be
 * freed or read before they are handed over, nor freed before the stream. Freeing the stream
 * stops it after the requests in flight (the jobs not handed over then end with rc < 0).
 * Without a thread, every job ends before this returns. Fails only when no client can be
 * made.
 */
typedef struct ss_xrpc_repo_stream ss_xrpc_repo_stream;
int ss_xrpc_get_repo_stream(ss_xrpc_repo_job *jobs, size_t n, ss_xrpc_repo_stream **out,
                            ss_error *err);
long ss_xrpc_repo_stream_next(ss_xrpc_repo_stream *s);
void ss_xrpc_repo_stream_free(ss_xrpc_repo_stream *s);

/*
 * Many com.atproto.sync.getBlocks at once (each job: the CAR holding the ncids blocks its cids
 * name, string form), in parallel over the one ss_http the clients share; each job ends with
 * its own rc, err and car, as for ss_xrpc_get_repo_many. Returns 0 once every job ended.
 */
typedef struct ss_xrpc_blocks_job {
	ss_xrpc *client;
	const char *did;
	const char *const *cids;
	size_t ncids;
	ss_buf car;   /* out */
	int rc;       /* out */
	ss_error err; /* out */
} ss_xrpc_blocks_job;
int ss_xrpc_get_blocks_many(ss_xrpc_blocks_job *jobs, size_t n, int max_parallel, ss_error *err);

/* com.atproto.sync.getBlocks: the CAR holding the n blocks cids (string form) names, into car. */
int ss_xrpc_get_blocks(ss_xrpc *x, const char *did, const char *const *cids, size_t n, ss_buf *car,
                       ss_error *err);

#endif
