/*
 * pds.h: the PDS's limits on one write request (com.atproto.repo.applyWrites), and the one
 * rule that splits a list of writes into requests by them. push assigns its journaled writes
 * to requests with it (sync/push.c) and the XRPC client sends them the same way
 * (sync/net/xrpc_apply.c); core/skill/validate.h sizes the largest record from the byte limit.
 */
#ifndef SS_PDS_H
#define SS_PDS_H

#include <stddef.h>

/* The PDS refuses a request with more writes, or a body of more bytes. */
#define SS_PDS_MAX_WRITES  200
#define SS_PDS_MAX_REQUEST 1000000

/*
 * How many of the writes sizes[0..n) (bytes each, separators included), from the first, go in
 * one request that has room bytes for them: at most SS_PDS_MAX_WRITES, and at least one when
 * n > 0 (a write too large goes alone; the server then refuses it with its size).
 */
size_t ss_pds_batch_fit(const size_t *sizes, size_t n, size_t room);

#endif
