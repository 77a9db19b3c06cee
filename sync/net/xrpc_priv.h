/*
 * xrpc_priv.h: what the XRPC module's files share beyond sync/net/xrpc_call.h; private to them.
 */
#ifndef SS_XRPC_PRIV_H
#define SS_XRPC_PRIV_H

#include <jansson.h>

#include "sync/net/xrpc_call.h"
#include "sync/net/xrpc_repo.h"

/*
 * Walks a listRecords page (sync/net/xrpc_page.c): every entry of `records` to fn, *count of them,
 * *cursor the next cursor (malloc'd) or NULL. SS_ERROR naming nsid for a page that is not
 * JSON; fn's negative code stops it.
 */
int ss_xrpc__walk_page(const char *nsid, const char *body, size_t len, ss_xrpc_record_fn fn,
                       void *payload, size_t *count, char **cursor, ss_error *err);

/* A describeRepo answer into out (release it). */
void ss_xrpc__repo_info_from(const json_t *v, ss_xrpc_repo_info *out);

/* Parses JSON text that must be an object (a record value); SS_EINVALID otherwise. */
int ss_xrpc__load_object(const char *what, const char *json, json_t **out, ss_error *err);

#endif
