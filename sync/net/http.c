#include "sync/net/http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/time.h"
#include "sync/net/http_priv.h"
#include "sync/net/url.h"

#define DEFAULT_CONNECT_MS   10000L
#define DEFAULT_TIMEOUT_MS   60000L
#define DEFAULT_MAX_RESPONSE (64u * 1024 * 1024)
#define DEFAULT_RETRIES      3
#define DEFAULT_BACKOFF_MS   250L
#define DEFAULT_MAX_WAIT_MS  60000L
#define MAX_BACKOFF_MS       8000L
#define MAX_WAIT_S           (86400L * 365) /* the longest wait a server's headers can ask */

static void fill_defaults(ss_http_options *o)
{
	if (o->connect_timeout_ms <= 0)
		o->connect_timeout_ms = DEFAULT_CONNECT_MS;
	if (o->timeout_ms <= 0)
		o->timeout_ms = DEFAULT_TIMEOUT_MS;
	if (o->connect_timeout_ms > o->timeout_ms)
		o->connect_timeout_ms = o->timeout_ms;
	if (o->low_speed_time_s <= 0) {
		o->low_speed_time_s = o->timeout_ms / 1000;
		if (o->low_speed_time_s > 30)
			o->low_speed_time_s = 30;
		if (o->low_speed_time_s < 1)
			o->low_speed_time_s = 1;
	}
	if (!o->max_response)
		o->max_response = DEFAULT_MAX_RESPONSE;
	if (o->max_retries == 0)
		o->max_retries = DEFAULT_RETRIES;
	else if (o->max_retries < 0)
		o->max_retries = 0;
	if (o->backoff_ms <= 0)
		o->backoff_ms = DEFAULT_BACKOFF_MS;
	if (o->max_wait_ms <= 0)
		o->max_wait_ms = DEFAULT_MAX_WAIT_MS;
}

int ss_http_new(ss_http **out, const ss_http_options *opts, ss_error *err)
{
	ss_http *h;

	if (!ss_curl_load(err))
		return -1;
	h = ss_xcalloc(1, sizeof(*h));
	if (opts)
		h->opts = *opts;
	fill_defaults(&h->opts);
	h->share = ss_curl_fns()->share_init();
	h->easy = ss_curl_fns()->easy_init();
	if (!h->share || !h->easy) {
		ss_http_free(h);
		return ss_error_set(err, SS_ERROR, "cannot initialize libcurl");
	}
	ss_curl_fns()->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	ss_curl_fns()->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	ss_curl_fns()->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	*out = h;
	return 0;
}

void ss_http_free(ss_http *h)
{
	if (!h)
		return;
	if (h->easy)
		ss_curl_fns()->easy_cleanup(h->easy);
	if (h->share)
		ss_curl_fns()->share_cleanup(h->share);
	free(h);
}

void ss_http_get_stats(const ss_http *h, ss_http_stats *out)
{
	*out = h->stats;
}

void ss_http_add_stats(ss_http *h, const ss_http_stats *more)
{
	h->stats.requests += more->requests;
	h->stats.retries += more->retries;
	h->stats.bytes_sent += more->bytes_sent;
	h->stats.bytes_received += more->bytes_received;
}

const ss_http_options *ss_http_get_options(const ss_http *h)
{
	return &h->opts;
}

void ss_http_response_init(ss_http_response *resp)
{
	resp->status = 0;
	ss_buf_init(&resp->body);
	resp->content_type = NULL;
	resp->cut = false;
	resp->dpop_nonce[0] = '\0';
}

void ss_http_response_release(ss_http_response *resp)
{
	if (!resp)
		return;
	ss_buf_release(&resp->body);
	free(resp->content_type);
	resp->content_type = NULL;
	resp->status = 0;
}

long ss_http_backoff_ms(const ss_http_options *opts, int attempt)
{
	long ms = opts->backoff_ms > 0 ? opts->backoff_ms : DEFAULT_BACKOFF_MS;

	for (int i = 1; i < attempt && ms < MAX_BACKOFF_MS; i++)
		ms *= 2;
	return ms < MAX_BACKOFF_MS ? ms : MAX_BACKOFF_MS;
}

/* A non-negative decimal integer filling all of s (spaces around allowed), or -1. */
static long long parse_whole(const char *s)
{
	char *end;
	long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	return errno || *end ? -1 : v;
}

/* A wait of what - now seconds, 0 when past, at most MAX_WAIT_S (no overflow either way). */
static long until(long long what, time_t now)
{
	if (what <= (long long)now)
		return 0;
	return what - (long long)now > MAX_WAIT_S ? MAX_WAIT_S : (long)(what - (long long)now);
}

long ss_http_retry_wait_s(const char *retry_after, const char *ratelimit_reset, time_t now)
{
	long long v;

	if (retry_after && *retry_after) {
		v = parse_whole(retry_after);
		if (v >= 0)
			return v > MAX_WAIT_S ? MAX_WAIT_S : (long)v;
		/* An HTTP date: the wait is until then. */
		time_t when = ss_curl_fns()->getdate(retry_after, NULL);
		if (when != (time_t)-1)
			return until((long long)when, now);
	}
	if (ratelimit_reset && *ratelimit_reset) {
		v = parse_whole(ratelimit_reset);
		if (v >= 0)
			return until(v, now);
	}
	return 0;
}

/*
 * The bytes of a body kept for its file before they are written: a server may send a CAR in
 * pieces of a few bytes (the reference PDS sends each block's length, CID and bytes as three
 * HTTP chunks, which curl hands over one by one), and a write each was ~37,000 system calls
 * for a 3x3000 clone.
 */
#define FILE_CHUNK (256u * 1024)

/* Writes len bytes to the body's file; -1 (write_errno set) when it cannot. */
static int write_out(ss_http_xfer *x, const void *data, size_t len)
{
	if (len && ss_fs_write_all(x->fd, data, len) < 0) {
		x->write_errno = errno;
		return -1;
	}
	return 0;
}

/* Writes the body's bytes kept so far. */
static int flush_file(ss_http_xfer *x)
{
	size_t n = x->flen;

	x->flen = 0;
	return write_out(x, x->fbuf, n);
}

/* A 2xx body into the request's file: whole, within the cap; 0 when it cannot be. */
static size_t write_file(ss_http_xfer *x, const char *data, size_t len)
{
	if (x->resp->file_len + len > x->cap) {
		x->too_big = 1;
		return 0;
	}
	if (x->flen + len > FILE_CHUNK && flush_file(x) < 0)
		return 0;
	if (len >= FILE_CHUNK) {
		if (write_out(x, data, len) < 0)
			return 0;
	} else {
		if (!x->fbuf)
			x->fbuf = ss_xmalloc(FILE_CHUNK);
		memcpy(x->fbuf + x->flen, data, len);
		x->flen += len;
	}
	x->resp->file_len += len;
	return len;
}

static size_t on_write(char *data, size_t size, size_t n, void *user)
{
	ss_http_xfer *x = user;
	long status = 0;

	if (x->fd > 0 &&
	    ss_curl_fns()->easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
	    status >= 200 && status < 300)
		return write_file(x, data, size * n);
	if (ss_buf_put(&x->resp->body, data, size * n) < 0) {
		x->too_big = 1;
		return 0;
	}
	return size * n;
}

/* Keeps value of "name: value" in dst when line is that header. */
static void keep_header(const char *line, size_t len, const char *name, char *dst, size_t cap)
{
	size_t nlen = strlen(name);
	size_t vlen;

	if (len <= nlen || strncasecmp(line, name, nlen) || line[nlen] != ':')
		return;
	line += nlen + 1;
	len -= nlen + 1;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	vlen = len;
	while (vlen && (line[vlen - 1] == '\r' || line[vlen - 1] == '\n' || line[vlen - 1] == ' '))
		vlen--;
	if (vlen >= cap)
		vlen = cap - 1;
	memcpy(dst, line, vlen);
	dst[vlen] = '\0';
}

static size_t on_header(char *data, size_t size, size_t n, void *user)
{
	ss_http_xfer *x = user;

	keep_header(data, size * n, "retry-after", x->retry_after, sizeof(x->retry_after));
	keep_header(data, size * n, "ratelimit-reset", x->ratelimit_reset,
	            sizeof(x->ratelimit_reset));
	keep_header(data, size * n, "dpop-nonce", x->resp->dpop_nonce, sizeof(x->resp->dpop_nonce));
	return size * n;
}

static bool is_post(const ss_http_request *req)
{
	return req->method && !strcmp(req->method, "POST");
}

int ss_http__setup(ss_http *h, CURL *c, const ss_http_request *req, ss_http_xfer *x,
                   ss_http_response *resp, ss_error *err)
{
	ss_buf line = SS_BUF_INIT;
	int ret;

	ss_buf_secret(&line); /* the Authorization header */
	if ((ret = ss_url_check(req->url, err)) < 0)
		return ret;
	memset(x, 0, sizeof(*x));
	x->resp = resp;
	x->curl = c;
	x->fd = req->body_fd;
	x->cap = req->max_response ? req->max_response : h->opts.max_response;
	ss_buf_clear(&resp->body);
	resp->body.max = x->cap;
	resp->status = 0;
	resp->cut = false;
	resp->file_len = 0;
	if (x->fd > 0 && (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0))
		return ss_error_set(err, SS_ERROR,
		                    "cannot empty the file for the answer of '%s': %s", req->url,
		                    strerror(errno));
	ss_curl_fns()->easy_setopt(c, CURLOPT_URL, req->url);
	ss_curl_fns()->easy_setopt(c, CURLOPT_SHARE, h->share);
	ss_curl_fns()->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	ss_curl_fns()->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	ss_curl_fns()->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	ss_curl_fns()->easy_setopt(c, CURLOPT_FRESH_CONNECT, req->once ? 1L : 0L);
	ss_curl_fns()->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
	ss_curl_fns()->easy_setopt(c, CURLOPT_TIMEOUT_MS, h->opts.timeout_ms);
	ss_curl_fns()->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	ss_curl_fns()->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, h->opts.low_speed_time_s);
	ss_curl_fns()->easy_setopt(c, CURLOPT_ERRORBUFFER, x->errbuf);
	ss_curl_fns()->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
	ss_curl_fns()->easy_setopt(c, CURLOPT_WRITEDATA, x);
	ss_curl_fns()->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	ss_curl_fns()->easy_setopt(c, CURLOPT_HEADERDATA, x);
	ss_curl_fns()->easy_setopt(c, CURLOPT_USERAGENT, "skillsync/" SS_VERSION);
	/* Compression pays across a network, costs CPU on loopback (plain http is loopback). */
	if (!strncasecmp(req->url, "https:", 6))
		ss_curl_fns()->easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	x->headers = ss_curl_fns()->slist_append(x->headers, "Expect:");
	if (req->bearer) {
		ss_buf_printf(&line, "Authorization: Bearer %s", req->bearer);
		x->headers = ss_curl_fns()->slist_append(x->headers, line.ptr);
		/* The token leaves no copy behind in freed memory we own. */
		ss_buf_clear(&line);
	}
	for (size_t i = 0; req->headers && req->headers[i]; i++)
		x->headers = ss_curl_fns()->slist_append(x->headers, req->headers[i]);
	if (is_post(req)) {
		ss_curl_fns()->easy_setopt(c, CURLOPT_POST, 1L);
		ss_curl_fns()->easy_setopt(c, CURLOPT_POSTFIELDS,
		                           req->body ? (const char *)req->body : "");
		ss_curl_fns()->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		                           (curl_off_t)(req->body ? req->body_len : 0));
		if (req->content_type) {
			ss_buf_printf(&line, "Content-Type: %s", req->content_type);
			x->headers = ss_curl_fns()->slist_append(x->headers, line.ptr);
		}
	} else {
		ss_curl_fns()->easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	ss_buf_release(&line);
	ss_curl_fns()->easy_setopt(c, CURLOPT_HTTPHEADER, x->headers);
	return 0;
}

void ss_http__xfer_release(ss_http_xfer *x)
{
	if (!x)
		return;
	/* The bearer header line lives in this list: wipe it before freeing. */
	for (struct curl_slist *l = x->headers; l; l = l->next)
		ss_secret_wipe(l->data, strlen(l->data));
	ss_curl_fns()->slist_free_all(x->headers);
	x->headers = NULL;
	free(x->fbuf);
	x->fbuf = NULL;
	x->flen = 0;
}

/* Failures where the server surely did not act on the request: safe to send again. */
static bool not_sent(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST;
}

static bool transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

int ss_http__decide(ss_http *h, CURL *c, const ss_http_request *req, CURLcode rc, ss_http_xfer *x,
                    int attempt, long *wait_ms, ss_error *err)
{
	bool can_retry = attempt < h->opts.max_retries;
	bool post = is_post(req);
	curl_off_t up = 0;
	char *ct = NULL;
	long status = 0;

	if (flush_file(x) < 0 && rc == CURLE_OK)
		rc = CURLE_WRITE_ERROR;
	h->stats.requests++;
	if (attempt > 0)
		h->stats.retries++;
	ss_curl_fns()->easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up);
	h->stats.bytes_sent += (uint64_t)up;
	h->stats.bytes_received += x->resp->body.len + x->resp->file_len;
	*wait_ms = 0;
	if (rc != CURLE_OK) {
		if (x->too_big)
			return ss_error_set(err, SS_ETOOBIG,
			                    "response from '%s' is over the %zu-byte limit",
			                    req->url, x->cap);
		if (x->write_errno)
			return ss_error_set(err, SS_ERROR, "cannot keep the answer of '%s': %s",
			                    req->url, strerror(x->write_errno));
		if (can_retry && (post ? not_sent(rc) : transient(rc))) {
			*wait_ms = ss_http_backoff_ms(&h->opts, attempt + 1);
			return 1;
		}
		x->resp->cut = transient(rc) && !not_sent(rc);
		return ss_error_set(err, SS_ENETWORK, "cannot reach '%s': %s", req->url,
		                    x->errbuf[0] ? x->errbuf : ss_curl_fns()->easy_strerror(rc));
	}
	ss_curl_fns()->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	x->resp->status = status;
	if (status == 429) {
		long wait_s = ss_http_retry_wait_s(x->retry_after, x->ratelimit_reset, time(NULL));

		if (wait_s * 1000 > h->opts.max_wait_ms)
			return ss_error_set(err, SS_ENETWORK,
			                    "'%s' is rate limited: the server asks to wait %ld s, "
			                    "try again later",
			                    req->url, wait_s);
		if (can_retry) {
			*wait_ms =
			    wait_s ? wait_s * 1000 : ss_http_backoff_ms(&h->opts, attempt + 1);
			return 1;
		}
		return ss_error_set(err, SS_ENETWORK, "'%s' is rate limited, try again later",
		                    req->url);
	}
	/* a POST on a 502 or 503 (a gateway's answer, usually), never a one-time token */
	if (status >= 500 && can_retry &&
	    (post ? (status == 502 || status == 503) && !req->once : status != 501)) {
		*wait_ms = ss_http_backoff_ms(&h->opts, attempt + 1);
		return 1;
	}
	free(x->resp->content_type);
	x->resp->content_type = NULL;
	if (ss_curl_fns()->easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
		x->resp->content_type = ss_xstrdup(ct);
	return 0;
}

int ss_http_perform(ss_http *h, const ss_http_request *req, ss_http_response *resp, ss_error *err)
{
	ss_http_xfer x;
	long wait_ms;
	int ret;

	for (int attempt = 0;; attempt++) {
		CURLcode rc;

		ss_curl_fns()->easy_reset(h->easy);
		if ((ret = ss_http__setup(h, h->easy, req, &x, resp, err)) < 0)
			return ret;
		rc = ss_curl_fns()->easy_perform(h->easy);
		ret = ss_http__decide(h, h->easy, req, rc, &x, attempt, &wait_ms, err);
		ss_http__xfer_release(&x);
		if (ret <= 0)
			return ret;
		ss_time_sleep_ms(wait_ms);
	}
}
