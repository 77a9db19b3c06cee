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

static int on_blob(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                   ss_http_response *resp, ss_error *err)
{
	ss_cid_read *r = payload;

	(void)b;
	(void)err;
	if (rc < 0) {
		r->err = *req_err;
		r->rc = rc;
	} else if (resp->status < 200 || resp->status >= 300) {
		r->rc = ss_xrpc_call_error(NSID_GET, resp->status, &resp->body, 0, &r->err);
	} else {
		r->rc = ss_buf_put(r->out, resp->body.ptr, resp->body.len);
	}
	return 0; /* one blob's failure does not stop the others */
}

void ss_xrpc_get_blobs(ss_xrpc *x, const char *did, ss_cid_read *reads, size_t n, int max_parallel)
{
	ss_http_batch *b = NULL;
	ss_error err;
	int rc;

	for (size_t i = 0; i < n; i++) {
		ss_buf_clear(reads[i].out);
		reads[i].rc = 1; /* not ended */
		ss_error_clear(&reads[i].err);
	}
	ss_error_clear(&err);
	rc = ss_http_batch_new(&b, ss_xrpc_http(x), max_parallel, &err);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *params[] = {"did", did, "cid", reads[i].cid, NULL};
		ss_buf url = SS_BUF_INIT;
		ss_http_request req = {.method = "GET",
		                       .max_response = reads[i].max ? reads[i].max : 1};

		ss_xrpc_call_url(&url, ss_xrpc_service(x), NSID_GET, params);
		req.url = url.ptr;
		rc = ss_http_batch_add(b, &req, on_blob, &reads[i], &err);
		ss_buf_release(&url);
	}
	if (rc == 0)
		rc = ss_http_batch_run(b, &err);
	ss_http_batch_free(b);
	/* the batch itself failed: the reads it left unanswered failed with it */
	for (size_t i = 0; i < n; i++)
		if (reads[i].rc > 0) {
			reads[i].rc = rc < 0 ? rc : SS_ERROR;
			reads[i].err = err;
		}
}
