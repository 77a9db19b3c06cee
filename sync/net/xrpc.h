/*
 * xrpc.h: ATProto XRPC calls over ss_http, and the typed calls skillsync needs.
 *
 * An ss_xrpc talks to one service (a PDS, or a handle resolver) with an optional access token.
 * JSON stays inside this module: records travel in and out as JSON text (core/skill/record.c
 * decodes them), everything else as plain C strings.
 *
 * Errors are one line naming the method, the server's error name and message, e.g.
 * `com.atproto.repo.putRecord: InvalidSwap: Record was at bafy...`, with codes a caller can
 * branch on: SS_EAUTH (401, AuthenticationRequired, InvalidToken, ExpiredToken), SS_ECONFLICT
 * (InvalidSwap: changed remotely), SS_ETOOBIG (413, with the request's size), SS_ENOTFOUND
 * (RecordNotFound, 404), SS_ENETWORK (unreachable, 5xx), SS_ERROR for other answers.
 *
 * Token refresh: a client with a refresh hook (ss_xrpc_set_refresh; sync/identity/session.c
 * installs one) calls it before a request whose access token expires within a minute, and once more
 * when the server answers ExpiredToken or InvalidToken; the request is then retried once.
 */
#ifndef SS_XRPC_H
#define SS_XRPC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/http.h"

#define SS_XRPC_LIST_PAGE_SIZE 100
/* What one member's listing may cost: pages and entries (more fails that listing). */
#define SS_XRPC_LIST_MAX_PAGES   10000
#define SS_XRPC_LIST_MAX_RECORDS 100000

typedef struct ss_xrpc ss_xrpc;

/* service: the base URL ("https://pds.example", no /xrpc); http is borrowed, not freed. */
int ss_xrpc_new(ss_xrpc **out, ss_http *http, const char *service, ss_error *err);
void ss_xrpc_free(ss_xrpc *x);
const char *ss_xrpc_service(const ss_xrpc *x);
ss_http *ss_xrpc_http(const ss_xrpc *x);
/* Sets (copies) or clears (NULL) the access token sent as a bearer token. */
void ss_xrpc_set_token(ss_xrpc *x, const char *access_jwt);
const char *ss_xrpc_token(const ss_xrpc *x);

/*
 * The refresh hook: gets a fresh access token and calls ss_xrpc_set_token(); 0 or a negative
 * code with err set. free_payload (may be NULL) is called on payload by ss_xrpc_free().
 */
typedef int (*ss_xrpc_refresh_fn)(ss_xrpc *x, void *payload, ss_error *err);
void ss_xrpc_set_refresh(ss_xrpc *x, ss_xrpc_refresh_fn fn, void *payload,
                         void (*free_payload)(void *));

/* ---- generic calls: JSON text in and out ---- */

/* GET /xrpc/<nsid>?k=v&...; params is k, v, k, v, ..., NULL (values url-encoded, NULL v skipped).
 */
int ss_xrpc_query(ss_xrpc *x, const char *nsid, const char *const *params, ss_buf *out,
                  ss_error *err);
/* POST /xrpc/<nsid> with a JSON body (NULL: no body); out (may be NULL) gets the answer. */
int ss_xrpc_procedure(ss_xrpc *x, const char *nsid, const char *json, size_t len, ss_buf *out,
                      ss_error *err);

/* ---- records ---- */

/* A record as listed or fetched: owned strings when returned, borrowed in callbacks. */
typedef struct ss_xrpc_record {
	char *uri;
	char *rkey;
	char *cid;
	char *value_json; /* the record's value as JSON text; NULL with problem */
	size_t value_len;
	const char *problem; /* listings: why the entry cannot be read (value_json NULL) */
} ss_xrpc_record;
void ss_xrpc_record_release(ss_xrpc_record *rec);

/* A repo commit: both NULL when the server made none (an identical write). */
typedef struct ss_xrpc_commit {
	char *cid;
	char *rev;
} ss_xrpc_commit;
void ss_xrpc_commit_release(ss_xrpc_commit *c);

/*
 * Called for each entry of a listing (borrowed for the call); negative stops the listing. An
 * entry the page reader could not read has problem set and no value (rkey and cid when it
 * had them): the record is skipped with that reason, the rest of the page goes on.
 */
typedef int (*ss_xrpc_record_fn)(void *payload, const ss_xrpc_record *rec, ss_error *err);

/* Every record of collection in repo, in the server's order (one listing of the kind below). */
int ss_xrpc_list_records(ss_xrpc *x, const char *repo, const char *collection, ss_xrpc_record_fn fn,
                         void *payload, ss_error *err);

/*
 * Many listings at once (the members of a space, each possibly on its own PDS): every job's
 * client must share one ss_http. Each job's pages run one after the other, jobs in parallel
 * (max_parallel, 0: 8). A job's failure is kept in its rc/err and does not stop the others;
 * the call returns the first job's negative rc (with err) after all have ended.
 *
 * Bounds, whatever the server sends: a page is read in one pass without a JSON tree
 * (sync/net/xrpc_page.c); a page over the response cap is asked again with half the `limit`
 * (down to 1); a cursor that comes back, more than SS_XRPC_LIST_MAX_PAGES pages or more than
 * SS_XRPC_LIST_MAX_RECORDS entries end that job with an error. No token is sent.
 */
typedef struct ss_xrpc_list_job {
	ss_xrpc *client;
	const char *repo;
	const char *collection;
	ss_xrpc_record_fn fn;
	void *payload;
	int rc;         /* out: 0 or the job's error code */
	ss_error err;   /* out: why, when rc < 0 */
	size_t pages;   /* out: pages fetched */
	size_t entries; /* out: entries received */
} ss_xrpc_list_job;
int ss_xrpc_list_records_many(ss_xrpc_list_job *jobs, size_t n, int max_parallel, ss_error *err);

/* One record; SS_ENOTFOUND when it does not exist. */
int ss_xrpc_get_record(ss_xrpc *x, const char *repo, const char *collection, const char *rkey,
                       ss_xrpc_record *out, ss_error *err);

typedef struct ss_xrpc_put {
	const char *repo;
	const char *collection;
	const char *rkey;
	const char *record_json; /* the value, JSON text */
	const char *swap_record; /* the CID it must have now, or NULL */
	bool must_not_exist;     /* swapRecord: null (create only); ignored with swap_record */
	const char *swap_commit; /* the commit the repo must be at now, or NULL */
} ss_xrpc_put;

/* putRecord; out gets uri and cid (rkey/value left NULL), commit (may be NULL) the commit. */
int ss_xrpc_put_record(ss_xrpc *x, const ss_xrpc_put *put, ss_xrpc_record *out,
                       ss_xrpc_commit *commit, ss_error *err);

/* deleteRecord, guarded by swap_record when not NULL; a missing record is not an error. */
int ss_xrpc_delete_record(ss_xrpc *x, const char *repo, const char *collection, const char *rkey,
                          const char *swap_record, ss_xrpc_commit *commit, ss_error *err);

enum { SS_XRPC_CREATE, SS_XRPC_UPDATE, SS_XRPC_DELETE };

typedef struct ss_xrpc_write {
	int op; /* SS_XRPC_CREATE / UPDATE / DELETE */
	const char *collection;
	const char *rkey;
	const char *value_json; /* create and update */
} ss_xrpc_write;

typedef struct ss_xrpc_apply_result {
	ss_xrpc_record
	    *results;          /* one per applied write, in order: uri and cid (NULL for deletes) */
	size_t nresults;       /* writes applied, also when a later request failed */
	ss_xrpc_commit commit; /* the last commit made */
	size_t nrequests;      /* applyWrites requests sent */
} ss_xrpc_apply_result;
void ss_xrpc_apply_result_release(ss_xrpc_apply_result *r);

/*
 * applyWrites, split into requests by the PDS's limits (core/atproto/pds.h: ss_pds_batch_fit). The
 * first request is guarded by swap_commit (NULL: unguarded), each next one by the commit the
 * previous one made, so nobody's write can slip in between. On failure out still says what was
 * applied before it.
 */
int ss_xrpc_apply_writes(ss_xrpc *x, const char *repo, const ss_xrpc_write *writes, size_t n,
                         const char *swap_commit, ss_xrpc_apply_result *out, ss_error *err);

/*
 * The same in a permissioned space (com.atproto.space.applyWrites, named by nsid from
 * sync/space/space_proto.h): the body names the space's URI, nothing guards it (the space has no
 * swapCommit), and the answer carries no commit (out->commit stays empty).
 */
int ss_xrpc_apply_writes_space(ss_xrpc *x, const char *nsid, const char *space, const char *repo,
                               const ss_xrpc_write *writes, size_t n, ss_xrpc_apply_result *out,
                               ss_error *err);

typedef struct ss_xrpc_repo_info {
	char *did;
	char *handle;
	bool handle_is_correct;
	char **collections; /* NULL-terminated */
} ss_xrpc_repo_info;
void ss_xrpc_repo_info_release(ss_xrpc_repo_info *info);
int ss_xrpc_describe_repo(ss_xrpc *x, const char *repo, ss_xrpc_repo_info *out, ss_error *err);
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

/* com.atproto.sync.getLatestCommit: the repo's current commit cid and rev. */
int ss_xrpc_get_latest_commit(ss_xrpc *x, const char *did, ss_xrpc_commit *out, ss_error *err);

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

/* ---- sessions and identity ---- */

typedef struct ss_xrpc_session {
	char *did;
	char *handle;
	char *access_jwt;  /* NULL from getSession */
	char *refresh_jwt; /* NULL from getSession */
	char *pds;         /* the PDS endpoint in the session's DID document, when sent */
	bool active;
} ss_xrpc_session;
void ss_xrpc_session_release(ss_xrpc_session *s);

/* createSession: identifier is a handle or DID; a wrong password is SS_EAUTH. */
int ss_xrpc_create_session(ss_xrpc *x, const char *identifier, const char *password,
                           ss_xrpc_session *out, ss_error *err);
/* refreshSession with refresh_jwt (the client's own token is not used nor changed). */
int ss_xrpc_refresh_session(ss_xrpc *x, const char *refresh_jwt, ss_xrpc_session *out,
                            ss_error *err);
int ss_xrpc_delete_session(ss_xrpc *x, const char *refresh_jwt, ss_error *err);
/* getSession with the client's access token (did, handle, active). */
int ss_xrpc_get_session(ss_xrpc *x, ss_xrpc_session *out, ss_error *err);

/* com.atproto.identity.resolveHandle: *did is malloc'd. */
int ss_xrpc_resolve_handle(ss_xrpc *x, const char *handle, char **did, ss_error *err);

/* ---- pure helpers (JSON stays here) ---- */

/* The exp claim (seconds since the epoch, clamped to 0 .. year 9999) of a JWT, not verified;
 * SS_EINVALID if none. */
int ss_xrpc_jwt_exp(const char *jwt, long long *exp, ss_error *err);

/*
 * From a DID document (JSON text): its id, the `#atproto_pds` service endpoint and the first
 * alsoKnownAs `at://` handle (NULL when none). All malloc'd; SS_EINVALID when malformed.
 */
typedef struct ss_xrpc_did_doc {
	char *id;
	char *pds;
	char *handle;
	char **also_known_as; /* NULL-terminated, every entry */
} ss_xrpc_did_doc;
int ss_xrpc_parse_did_doc(const char *json, size_t len, ss_xrpc_did_doc *out, ss_error *err);
void ss_xrpc_did_doc_release(ss_xrpc_did_doc *doc);
/*
 * The space host of a DID document (JSON text): its `#atproto_space_host` service, else its
 * `#atproto_pds` (malloc'd); SS_EINVALID when it names neither.
 */
int ss_xrpc_did_doc_space_host(const char *doc, size_t len, char **host, ss_error *err);

#endif
