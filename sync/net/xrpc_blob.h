/*
 * xrpc_blob.h: blobs, the files a record names by CID (docs/RECORD-FORMAT.md, blobFiles):
 * uploaded to my repo, read from a member's.
 */
#ifndef SS_XRPC_BLOB_H
#define SS_XRPC_BLOB_H

#include <stddef.h>

#include "sync/net/xrpc.h"

/*
 * com.atproto.repo.uploadBlob with the client's session: len bytes to my repo. *cid and *mime
 * (malloc'd) are what the PDS stored: a record must name this mimeType (the PDS finds its own
 * from the bytes and refuses a record that names another when it first keeps the blob).
 * A blob over the PDS's limit is SS_ETOOBIG.
 */
int ss_xrpc_upload_blob(ss_xrpc *x, const void *bytes, size_t len, char **cid, char **mime,
                        ss_error *err);

/* com.atproto.sync.getBlob?did=&cid=: the blob's bytes into out (cleared), at most max bytes
 * (SS_ETOOBIG beyond); not checked against the CID (the caller does). */
int ss_xrpc_get_blob(ss_xrpc *x, const char *did, const char *cid, size_t max, ss_buf *out,
                     ss_error *err);

#endif
