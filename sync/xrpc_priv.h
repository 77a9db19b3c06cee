/*
 * xrpc_priv.h: what the XRPC module's files share; private to them (with jansson.h).
 */
#ifndef SS_XRPC_PRIV_H
#define SS_XRPC_PRIV_H

#include <jansson.h>

#include "sync/xrpc.h"

/* Sends a call: GET when body is NULL and post is false. bearer: the token to send (NULL: the
 * client's when auth, none otherwise); may_refresh: allowed to use the refresh hook. */
typedef struct ss_xrpc_call {
	const char *nsid;
	const char *const *params;
	bool post;
	const char *body;
	size_t body_len;
	bool auth;
	const char *bearer;
	bool secret; /* the answer holds tokens: its bytes are wiped (core/secret.h) */
	const char *const *headers; /* more header lines (sync/http.h), or NULL */
	bool once; /* never sent twice, not even by libcurl (ss_http_request.once) */
} ss_xrpc_call;

/* Performs call; on success *out (may be NULL) is the parsed answer object (json_decref it). */
int ss_xrpc__call(ss_xrpc *x, const ss_xrpc_call *call, json_t **out, ss_error *err);

/* The URL of nsid on service with params (url-encoded) into url. */
void ss_xrpc__url(ss_buf *url, const char *service, const char *nsid, const char *const *params);

/* Turns a non-2xx answer into err; returns the code. */
int ss_xrpc__error(const char *nsid, long status, const ss_buf *body, size_t request_len,
                   ss_error *err);

/* Parses an answer body into an object; SS_ERROR naming nsid when it is not one. */
int ss_xrpc__parse(const char *nsid, const ss_buf *body, json_t **out, ss_error *err);

/*
 * Walks a listRecords page (sync/xrpc_page.c): every entry of `records` to fn, *count of them,
 * *cursor the next cursor (malloc'd) or NULL. SS_ERROR naming nsid for a page that is not
 * JSON; fn's negative code stops it.
 */
int ss_xrpc__walk_page(const char *nsid, const char *body, size_t len, ss_xrpc_record_fn fn,
                       void *payload, size_t *count, char **cursor, ss_error *err);

/* A describeRepo answer into out (release it). */
void ss_xrpc__repo_info_from(const json_t *v, ss_xrpc_repo_info *out);

/* A malloc'd copy of obj[key] when it is a string, else NULL. */
char *ss_xrpc__str(const json_t *obj, const char *key);

/* Compact JSON text of v (malloc'd), NULs kept as \u0000. */
char *ss_xrpc__dump(const json_t *v, size_t *len);

/* Parses JSON text that must be an object (a record value); SS_EINVALID otherwise. */
int ss_xrpc__load_object(const char *what, const char *json, json_t **out, ss_error *err);

#endif
