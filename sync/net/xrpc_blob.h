/*
 * xrpc_blob.h: blobs, the files a record names by CID (docs/RECORD-FORMAT.md, blobFiles):
 * uploaded to my repo, read from a member's.
 */
#ifndef SS_XRPC_BLOB_H
#define SS_XRPC_BLOB_H

#include <stddef.h>

#include "core/atproto/cid.h"
#include "sync/net/xrpc.h"

/*
 * com.atproto.repo.uploadBlob with the client's session: len bytes to my repo. *cid and *mime
 * (malloc'd) are what the PDS stored: a record must name this mimeType (the PDS finds its own
 * from the bytes and refuses a record that names another when it first keeps the blob).
 * A blob over the PDS's limit is SS_ETOOBIG.
 */
int ss_xrpc_upload_blob(ss_xrpc *x, const void *bytes, size_t len, char **cid, char **mime,
                        ss_error *err);

/* com.atproto.sync.getBlob?did=&cid= for each read, max_parallel at once (0: the batch's
 * default) over the client's connections, no token; each read ends with its own rc and err
 * (SS_ETOOBIG beyond its max). */
void ss_xrpc_get_blobs(ss_xrpc *x, const char *did, ss_cid_read *reads, size_t n, int max_parallel);

#endif
