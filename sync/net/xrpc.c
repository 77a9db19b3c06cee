#include "sync/net/xrpc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/atproto/jwt.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/utf8.h"
#include "sync/net/dpop.h"
#include "sync/net/url.h"
#include "sync/net/xrpc_priv.h"

/* A token that expires within this many seconds is refreshed before use. */
#define REFRESH_MARGIN_S 60
/* Longest part of a server's message we repeat. */
#define MAX_SERVER_MESSAGE 300

struct ss_xrpc {
	ss_http *http;
	char *service;
	char *token;
	ss_xrpc_refresh_fn refresh;
	void *refresh_payload;
	void (*free_payload)(void *);
	ss_p256_key *dpop;
	char dpop_nonce[256]; /* the service's last DPoP nonce */
};

int ss_xrpc_new(ss_xrpc **out, ss_http *http, const char *service, ss_error *err)
{
	ss_xrpc *x;
	size_t len = strlen(service);
	int ret;

	if ((ret = ss_url_check(service, err)) < 0)
		return ret;
	while (len && service[len - 1] == '/')
		len--;
	x = ss_xcalloc(1, sizeof(*x));
	x->http = http;
	x->service = ss_xstrndup(service, len);
	*out = x;
	return 0;
}

void ss_xrpc_free(ss_xrpc *x)
{
	if (!x)
		return;
	if (x->free_payload)
		x->free_payload(x->refresh_payload);
	ss_secret_free(x->token);
	ss_p256_key_free(x->dpop);
	free(x->service);
	free(x);
}

const char *ss_xrpc_service(const ss_xrpc *x)
{
	return x->service;
}

ss_http *ss_xrpc_http(const ss_xrpc *x)
{
	return x->http;
}

void ss_xrpc_set_token(ss_xrpc *x, const char *access_jwt)
{
	ss_secret_free(x->token);
	x->token = access_jwt ? ss_xstrdup(access_jwt) : NULL;
}

const char *ss_xrpc_token(const ss_xrpc *x)
{
	return x->token;
}

void ss_xrpc_set_dpop(ss_xrpc *x, ss_p256_key *key)
{
	ss_p256_key_free(x->dpop);
	x->dpop = key;
}

void ss_xrpc_set_refresh(ss_xrpc *x, ss_xrpc_refresh_fn fn, void *payload,
                         void (*free_payload)(void *))
{
	if (x->free_payload)
		x->free_payload(x->refresh_payload);
	x->refresh = fn;
	x->refresh_payload = payload;
	x->free_payload = free_payload;
}

void ss_xrpc_call_url(ss_buf *url, const char *service, const char *nsid, const char *const *params)
{
	char sep = '?';

	ss_buf_printf(url, "%s/xrpc/%s", service, nsid);
	for (size_t i = 0; params && params[i]; i += 2) {
		if (!params[i + 1])
			continue;
		ss_buf_putc(url, sep);
		ss_url_encode(url, params[i]);
		ss_buf_putc(url, '=');
		ss_url_encode(url, params[i + 1]);
		sep = '&';
	}
}

char *ss_xrpc_call_str(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? ss_xmemdup(json_string_value(v), json_string_length(v)) : NULL;
}

char *ss_xrpc_call_dump(const json_t *v, size_t *len)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	if (!s) /* only when out of memory */
		abort();
	if (len)
		*len = strlen(s);
	return s;
}

int ss_xrpc__load_object(const char *what, const char *json, json_t **out, ss_error *err)
{
	json_error_t je;
	json_t *v = json_loads(json, JSON_ALLOW_NUL, &je);

	if (!v)
		return ss_error_set(err, SS_EINVALID, "%s is not valid JSON: %s", what, je.text);
	if (!json_is_object(v)) {
		json_decref(v);
		return ss_error_set(err, SS_EINVALID, "%s is not a JSON object", what);
	}
	*out = v;
	return 0;
}

int ss_xrpc_call_parse(const char *nsid, const ss_buf *body, json_t **out, ss_error *err)
{
	json_error_t je;
	json_t *v = json_loadb(body->ptr, body->len, JSON_ALLOW_NUL, &je);

	if (!v || !json_is_object(v)) {
		json_decref(v);
		return ss_error_set(err, SS_ERROR, "%s: the server's answer is not a JSON object",
		                    nsid);
	}
	*out = v;
	return 0;
}

int ss_xrpc_call_error(const char *nsid, long status, const ss_buf *body, size_t request_len,
                       ss_error *err)
{
	ss_buf name = SS_BUF_INIT, message = SS_BUF_INIT;
	json_t *v = json_loadb(body->ptr, body->len, JSON_ALLOW_NUL, NULL);
	int code = SS_ERROR, ret;

	/* The server's words, on one line through core/util/utf8.h's escape rule, cut. */
	if (json_is_object(v)) {
		json_t *e = json_object_get(v, "error"), *m = json_object_get(v, "message");

		if (json_is_string(e))
			ss_utf8_escape_line(&name, json_string_value(e), MAX_SERVER_MESSAGE);
		if (json_is_string(m))
			ss_utf8_escape_line(&message, json_string_value(m), MAX_SERVER_MESSAGE);
	}
	json_decref(v);
	if (status == 413) {
		ret = ss_error_set(err, SS_ETOOBIG,
		                   "%s: the request of %zu bytes is too large for the server "
		                   "(HTTP 413%s%s)",
		                   nsid, request_len, name.len ? ": " : "", name.ptr);
		goto out;
	}
	if (status == 401 || !strcmp(name.ptr, "AuthenticationRequired") ||
	    !strcmp(name.ptr, "AuthMissing") || !strcmp(name.ptr, "InvalidToken") ||
	    !strcmp(name.ptr, "ExpiredToken"))
		code = SS_EAUTH;
	else if (!strcmp(name.ptr, "InvalidSwap"))
		code = SS_ECONFLICT;
	else if (!strcmp(name.ptr, "RecordNotFound") || status == 404)
		code = SS_ENOTFOUND;
	else if (status >= 500)
		code = SS_ENETWORK;
	if (!name.len)
		ret = ss_error_set(err, code, "%s: the server answered HTTP %ld", nsid, status);
	else
		ret =
		    ss_error_set(err, code, "%s: %s%s%s%s", nsid, name.ptr, message.len ? ": " : "",
		                 message.ptr, code == SS_ECONFLICT ? " (changed remotely)" : "");
out:
	ss_buf_release(&name);
	ss_buf_release(&message);
	return ret;
}

static bool expiring(const char *token)
{
	ss_error ignored;
	long long exp = 0;

	if (ss_xrpc_jwt_exp(token, &exp, &ignored) < 0)
		return false; /* opaque to us: let the server judge */
	return exp - REFRESH_MARGIN_S <= (long long)time(NULL);
}

static bool token_refused(const ss_buf *body)
{
	json_t *v = json_loadb(body->ptr, body->len, 0, NULL);
	const char *e = json_string_value(json_object_get(v, "error"));
	bool refused = e && (!strcmp(e, "ExpiredToken") || !strcmp(e, "InvalidToken") ||
	                     !strcmp(e, "invalid_token"));

	json_decref(v);
	return refused;
}

/* A call's header lines (the call's own, then, with dpop, the DPoP authorization and its
 * proof): lines is a NULL-terminated array in the call's memory, its DPoP lines in own. */
typedef struct call_lines {
	const char *lines[16];
	ss_buf auth, proof;
} call_lines;

static void call_lines_release(call_lines *l)
{
	ss_buf_release(&l->auth);
	ss_buf_release(&l->proof);
}

/* Fills l for a request of call to url; bearer is what the plain request would send. */
static int call_lines_make(ss_xrpc *x, const ss_xrpc_call *call, const char *method,
                           const char *url, bool dpop, call_lines *l, ss_error *err)
{
	char *proof = NULL;
	size_t n = 0;

	ss_buf_clear(&l->auth);
	ss_buf_clear(&l->proof);
	for (size_t i = 0; call->headers && call->headers[i] && n < 13; i++)
		l->lines[n++] = call->headers[i];
	if (dpop) {
		if (ss_dpop_proof(&proof, x->dpop, method, url, x->dpop_nonce, x->token, err) < 0)
			return -1;
		ss_buf_secret(&l->auth);
		ss_buf_printf(&l->auth, "Authorization: DPoP %s", x->token);
		ss_buf_printf(&l->proof, "DPoP: %s", proof);
		free(proof);
		l->lines[n++] = l->auth.ptr;
		l->lines[n++] = l->proof.ptr;
	}
	l->lines[n] = NULL;
	return 0;
}

int ss_xrpc_call_send(ss_xrpc *x, const ss_xrpc_call *call, json_t **out, ss_error *err)
{
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	bool hook = call->auth && !call->bearer && x->refresh;
	bool dpop = call->auth && !call->bearer && x->dpop && x->token;
	bool nonce_retried = false;
	const char *method = call->post ? "POST" : "GET";
	call_lines lines = {.auth = SS_BUF_INIT, .proof = SS_BUF_INIT};
	int ret;

	ss_http_response_init(&resp);
	if (call->secret)
		ss_buf_secret(&resp.body);
	ss_xrpc_call_url(&url, x->service, call->nsid, call->params);
	if (hook && x->token && expiring(x->token) &&
	    (ret = x->refresh(x, x->refresh_payload, err)) < 0)
		goto out;
	for (int attempt = 0;; attempt++) {
		if ((ret = call_lines_make(x, call, method, url.ptr, dpop, &lines, err)) < 0)
			goto out;
		ss_http_request req = {
		    .method = method,
		    .url = url.ptr,
		    .bearer = call->bearer          ? call->bearer
		              : call->auth && !dpop ? x->token
		                                    : NULL,
		    .content_type = !call->body          ? NULL
		                    : call->content_type ? call->content_type
		                                         : "application/json",
		    .headers = lines.lines,
		    .body = call->body,
		    .body_len = call->body_len,
		    .once = call->once,
		};

		if ((ret = ss_http_perform(x->http, &req, &resp, err)) < 0)
			goto out;
		if (dpop && resp.dpop_nonce[0])
			memcpy(x->dpop_nonce, resp.dpop_nonce, sizeof(x->dpop_nonce));
		if (resp.status >= 200 && resp.status < 300)
			break;
		if (dpop && !nonce_retried && ss_dpop_wants_nonce(&resp)) {
			nonce_retried = true;
			attempt--;
			continue;
		}
		if (hook && attempt == 0 && x->token && token_refused(&resp.body)) {
			if ((ret = x->refresh(x, x->refresh_payload, err)) < 0)
				goto out;
			continue;
		}
		ret = ss_xrpc_call_error(call->nsid, resp.status, &resp.body, call->body_len, err);
		goto out;
	}
	ret = 0;
	if (out)
		ret = ss_xrpc_call_parse(call->nsid, &resp.body, out, err);
out:
	call_lines_release(&lines);
	ss_http_response_release(&resp);
	ss_buf_release(&url);
	return ret;
}

/* Runs call and appends the response's JSON text to out (NULL: the response is dropped). */
static int call_to_buf(ss_xrpc *x, const ss_xrpc_call *call, ss_buf *out, ss_error *err)
{
	json_t *v = NULL;
	int ret = ss_xrpc_call_send(x, call, out ? &v : NULL, err);

	if (!ret && out) {
		size_t len;
		char *s = ss_xrpc_call_dump(v, &len);

		ret = ss_buf_put(out, s, len);
		free(s);
	}
	json_decref(v);
	return ret;
}

int ss_xrpc_query(ss_xrpc *x, const char *nsid, const char *const *params, ss_buf *out,
                  ss_error *err)
{
	ss_xrpc_call call = {.nsid = nsid, .params = params, .auth = true};

	return call_to_buf(x, &call, out, err);
}

int ss_xrpc_procedure(ss_xrpc *x, const char *nsid, const char *json, size_t len, ss_buf *out,
                      ss_error *err)
{
	ss_xrpc_call call = {
	    .nsid = nsid, .post = true, .body = json, .body_len = json ? len : 0, .auth = true};

	return call_to_buf(x, &call, out, err);
}

#define MAX_EXP 253402300799LL /* 9999-12-31T23:59:59Z */

int ss_xrpc_jwt_exp(const char *jwt, long long *exp, ss_error *err)
{
	ss_jwt j;
	ss_error ignored; /* any failure gets the one message below */
	bool found;

	if (ss_jwt_parse(&j, jwt, &ignored) < 0)
		return ss_error_set(err, SS_EINVALID, "the token is not a JWT with an expiry");
	found = j.has_exp;
	/* Clamped to 0 .. the end of year 9999, so that arithmetic on it cannot overflow. */
	if (found)
		*exp = j.exp < 0 ? 0 : j.exp > MAX_EXP ? MAX_EXP : j.exp;
	ss_jwt_release(&j);
	return found ? 0 : ss_error_set(err, SS_EINVALID, "the token is not a JWT with an expiry");
}
