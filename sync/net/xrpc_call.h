/*
 * xrpc_call.h: the call level of the XRPC client (sync/net/xrpc.h), for the modules that speak
 * other lexicons over XRPC (the permissioned space: sync/space/space_proto.c,
 * sync/space/space_admin.c): one call with its parameters, headers and body, its answer parsed as
 * jansson JSON, and the one way a non-2xx answer becomes an ss_error. Everything else stays behind
 * sync/net/xrpc.h.
 */
#ifndef SS_XRPC_CALL_H
#define SS_XRPC_CALL_H

#include <jansson.h>

#include "sync/net/xrpc.h"

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
	bool secret; /* the answer holds tokens: its bytes are wiped (core/util/secret.h) */
	const char *const *headers; /* more header lines (sync/net/http.h), or NULL */
	bool once;                /* never sent twice, not even by libcurl (ss_http_request.once) */
	const char *content_type; /* the body's type; NULL: application/json */
	ss_buf *raw;         /* when set, a 2xx answer's bytes go here as they are, not parsed */
	size_t max_response; /* the answer's cap (0: the client's, sync/net/http.h) */
} ss_xrpc_call;

/* Performs call; on success *out (may be NULL) is the parsed answer object (json_decref it). */
int ss_xrpc_call_send(ss_xrpc *x, const ss_xrpc_call *call, json_t **out, ss_error *err);

/* The URL of nsid on service with params (url-encoded) into url. */
void ss_xrpc_call_url(ss_buf *url, const char *service, const char *nsid,
                      const char *const *params);

/* Turns a non-2xx answer into err; returns the code. */
int ss_xrpc_call_error(const char *nsid, long status, const ss_buf *body, size_t request_len,
                       ss_error *err);

/* Parses an answer body into an object; SS_ERROR naming nsid when it is not one. */
int ss_xrpc_call_parse(const char *nsid, const ss_buf *body, json_t **out, ss_error *err);

/* A malloc'd copy of obj[key] when it is a string, else NULL. */
char *ss_xrpc_call_str(const json_t *obj, const char *key);

/* Compact JSON text of v (malloc'd), NULs kept as \u0000. */
char *ss_xrpc_call_dump(const json_t *v, size_t *len);

#endif
