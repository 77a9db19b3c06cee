/* xrpc_blob.c: uploadBlob and getBlob (see sync/net/xrpc_blob.h). */
#include "sync/net/xrpc_blob.h"

#include <stdlib.h>
#include <string.h>

#include "sync/net/xrpc_call.h"

#define NSID_UPLOAD "com.atproto.repo.uploadBlob"
#define NSID_GET    "com.atproto.sync.getBlob"

int ss_xrpc_upload_blob(ss_xrpc *x, const void *bytes, size_t len, char **cid, char **mime,
                        ss_error *err)
{
	ss_xrpc_call call = {.nsid = NSID_UPLOAD,
	                     .post = true,
	                     .body = len ? bytes : "",
	                     .body_len = len,
	                     .auth = true,
	                     .content_type = "application/octet-stream"};
	json_t *v = NULL, *blob;
	int ret;

	*cid = *mime = NULL;
	if ((ret = ss_xrpc_call_send(x, &call, &v, err)) < 0)
		return ret;
	blob = json_object_get(v, "blob");
	*cid = ss_xrpc_call_str(json_object_get(blob, "ref"), "$link");
	*mime = ss_xrpc_call_str(blob, "mimeType");
	json_decref(v);
	if (*cid && *mime)
		return 0;
	free(*cid);
	free(*mime);
	*cid = *mime = NULL;
	return ss_error_set(err, SS_ERROR, "%s: the server's answer names no blob", NSID_UPLOAD);
}

int ss_xrpc_get_blob(ss_xrpc *x, const char *did, const char *cid, size_t max, ss_buf *out,
                     ss_error *err)
{
	const char *params[] = {"did", did, "cid", cid, NULL};
	ss_xrpc_call call = {
	    .nsid = NSID_GET, .params = params, .raw = out, .max_response = max ? max : 1};

	ss_buf_clear(out);
	return ss_xrpc_call_send(x, &call, NULL, err);
}
