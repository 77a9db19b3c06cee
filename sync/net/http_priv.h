/*
 * http_priv.h: what http.c and http_batch.c share; private to the HTTP module (libcurl's
 * functions through curl_priv.h).
 */
#ifndef SS_HTTP_PRIV_H
#define SS_HTTP_PRIV_H

#include "sync/net/curl_priv.h"
#include "sync/net/http.h"

struct ss_http {
	ss_http_options opts;
	CURLSH *share; /* connection cache, DNS cache, TLS sessions, shared by every handle */
	CURL *easy;    /* reused for one-at-a-time requests */
	ss_http_stats stats;
};

/* One transfer's state: what the callbacks fill in. */
typedef struct ss_http_xfer {
	ss_http_response *resp;
	struct curl_slist *headers;
	char errbuf[CURL_ERROR_SIZE];
	char retry_after[64];
	char ratelimit_reset[64];
	int too_big;
	/* the body to a file (ss_http_request.body_fd): the transfer, the file, its cap, the
	 * errno of a write that failed, and the bytes not written yet (fbuf: flen of them) */
	CURL *curl;
	int fd;
	size_t cap;
	int write_errno;
	unsigned char *fbuf;
	size_t flen;
} ss_http_xfer;

/* Sets up c (freshly reset) for req into x/resp; SS_EINVALID for a refused URL. */
int ss_http__setup(ss_http *http, CURL *c, const ss_http_request *req, ss_http_xfer *x,
                   ss_http_response *resp, ss_error *err);
/* Frees what setup and the transfer allocated (not resp). */
void ss_http__xfer_release(ss_http_xfer *x);

/*
 * After a transfer ended with rc (the body's last bytes written to its file first: a write
 * that fails fails the transfer): 0 to hand the response over, 1 to retry after *wait_ms, or
 * a negative code with err set. Counts the attempt in http's stats.
 */
int ss_http__decide(ss_http *http, CURL *c, const ss_http_request *req, CURLcode rc,
                    ss_http_xfer *x, int attempt, long *wait_ms, ss_error *err);

#endif
