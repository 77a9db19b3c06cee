/*
 * xrpc_repo.h: the com.atproto.repo calls (sync/net/xrpc_repo.c, xrpc_apply.c, xrpc_list.c):
 * a record read, written or deleted, applyWrites, listings (of one repo, or many at once),
 * describeRepo, and a repo's head (com.atproto.sync.getLatestCommit).
 *
 * Rules: a write to a public repo can be guarded (swapRecord, swapCommit) so that nobody's
 * write slips in between a read and a write; applyWrites is split into requests by the PDS's
 * limits; a listing is bounded whatever the server sends (pages, entries, the response cap).
 * Errors as sync/net/xrpc.h says.
 */
#ifndef SS_XRPC_REPO_H
#define SS_XRPC_REPO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/error.h"
#include "sync/net/xrpc.h"

#define SS_XRPC_LIST_PAGE_SIZE 100
/* What one member's listing may cost: pages and entries (more fails that listing). */
#define SS_XRPC_LIST_MAX_PAGES   10000
#define SS_XRPC_LIST_MAX_RECORDS 100000

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
/* com.atproto.sync.getLatestCommit: the repo's current commit cid and rev. */
int ss_xrpc_get_latest_commit(ss_xrpc *x, const char *did, ss_xrpc_commit *out, ss_error *err);

#endif
