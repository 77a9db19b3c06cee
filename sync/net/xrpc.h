/*
 * xrpc.h: the XRPC client over ss_http: one service, its token, the generic calls, the errors
 * every call makes, and the types the typed calls share.
 *
 * An ss_xrpc talks to one service (a PDS, or a handle resolver) with an optional access token.
 * JSON stays inside this module: records travel in and out as JSON text (core/skill/record.c
 * decodes them), everything else as plain C strings. The typed calls are by family:
 * sync/net/xrpc_repo.h (one repo's records, listings and writes), sync/net/xrpc_sync.h (many
 * repos at once: heads, descriptions, CARs), sync/net/xrpc_server.h (sessions, handles, DID
 * documents); the call level other lexicons use is sync/net/xrpc_call.h.
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
#include "core/atproto/p256.h"
#include "sync/net/http.h"

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
 * Makes the client's token DPoP-bound (an OAuth session): each request carries
 * "Authorization: DPoP <token>" and a proof signed with key (sync/net/dpop.h), and a request
 * refused for want of a DPoP nonce is sent once more with the server's. x takes key.
 */
void ss_xrpc_set_dpop(ss_xrpc *x, ss_p256_key *key);

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

/* ---- the types the typed calls share ---- */

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

/* ---- tokens ---- */

/* The exp claim (seconds since the epoch, clamped to 0 .. year 9999) of a JWT, not verified;
 * SS_EINVALID if none. */
int ss_xrpc_jwt_exp(const char *jwt, long long *exp, ss_error *err);

#endif
