#include "sync/net/oauth.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/utf8.h"
#include "sync/net/dpop.h"
#include "sync/net/url.h"

#define MAX_WORDS 300

void ss_oauth_server_release(ss_oauth_server *s)
{
	free(s->issuer);
	free(s->par);
	free(s->authorize);
	free(s->token);
	free(s->revoke);
	memset(s, 0, sizeof(*s));
}

void ss_oauth_tokens_release(ss_oauth_tokens *t)
{
	ss_secret_free(t->access);
	ss_secret_free(t->refresh);
	free(t->sub);
	free(t->scope);
	memset(t, 0, sizeof(*t));
}

/* GET url as a JSON object. */
static int get_json(ss_http *http, const char *url, json_t **out, ss_error *err)
{
	ss_http_request req = {.method = "GET", .url = url};
	ss_http_response resp;
	int ret;

	ss_http_response_init(&resp);
	if ((ret = ss_http_perform(http, &req, &resp, err)) < 0)
		goto out;
	if (resp.status == 404) {
		ret =
		    ss_error_set(err, SS_ENOTFOUND, "'%s' offers no OAuth sign-in (HTTP 404)", url);
		goto out;
	}
	*out = resp.status == 200 ? json_loadb(resp.body.ptr, resp.body.len, 0, NULL) : NULL;
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		ret = ss_error_set(err, SS_EINVALID, "'%s' gave no OAuth metadata (HTTP %ld)", url,
		                   resp.status);
	}
out:
	ss_http_response_release(&resp);
	return ret;
}

/* obj[key] when a string URL we may use, copied; else NULL and err set. */
static char *url_field(const json_t *obj, const char *key, const char *where, ss_error *err)
{
	const char *v = json_string_value(json_object_get(obj, key));
	ss_error ignored;

	if (!v || ss_url_check(v, &ignored) < 0) {
		ss_error_set(err, SS_EINVALID, "the OAuth metadata of '%s' has no usable %s", where,
		             key);
		return NULL;
	}
	return ss_xstrdup(v);
}

/* arr (a JSON array of strings) holds want. */
static bool lists(const json_t *obj, const char *key, const char *want)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(obj, key), i, v)
	{
		if (json_is_string(v) && !strcmp(json_string_value(v), want))
			return true;
	}
	return false;
}

/* The server's metadata answers what this client needs. */
static int check_server(const json_t *m, const char *issuer, ss_error *err)
{
	const char *iss = json_string_value(json_object_get(m, "issuer"));

	if (!iss || strcmp(iss, issuer))
		return ss_error_set(err, SS_EINVALID,
		                    "the authorization server '%s' names another issuer", issuer);
	if (!lists(m, "code_challenge_methods_supported", "S256") ||
	    !lists(m, "dpop_signing_alg_values_supported", "ES256") ||
	    !lists(m, "token_endpoint_auth_methods_supported", "none"))
		return ss_error_set(err, SS_EINVALID,
		                    "the authorization server '%s' does not offer what a native "
		                    "client needs (PKCE S256, DPoP ES256, public clients)",
		                    issuer);
	return 0;
}

int ss_oauth_discover(ss_http *http, const char *pds, ss_oauth_server *out, ss_error *err)
{
	ss_buf url = SS_BUF_INIT;
	json_t *pr = NULL, *as = NULL, *first;
	const char *resource;
	ss_error e;
	int ret;

	memset(out, 0, sizeof(*out));
	ss_error_clear(&e);
	ss_buf_printf(&url, "%s/.well-known/oauth-protected-resource", pds);
	if ((ret = get_json(http, url.ptr, &pr, err)) < 0)
		goto out;
	resource = json_string_value(json_object_get(pr, "resource"));
	if (!resource || strncmp(resource, pds, strlen(resource)) ||
	    strspn(pds + strlen(resource), "/") != strlen(pds + strlen(resource))) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' names another protected resource", pds);
		goto out;
	}
	first = json_array_get(json_object_get(pr, "authorization_servers"), 0);
	if (!json_is_string(first) || ss_url_check(json_string_value(first), &e) < 0) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' names no usable authorization server",
		                   pds);
		goto out;
	}
	out->issuer = ss_xstrdup(json_string_value(first));
	ss_buf_clear(&url);
	ss_buf_printf(&url, "%s/.well-known/oauth-authorization-server", out->issuer);
	if ((ret = get_json(http, url.ptr, &as, err)) < 0 ||
	    (ret = check_server(as, out->issuer, err)) < 0)
		goto out;
	if (!(out->par =
	          url_field(as, "pushed_authorization_request_endpoint", out->issuer, err)) ||
	    !(out->authorize = url_field(as, "authorization_endpoint", out->issuer, err)) ||
	    !(out->token = url_field(as, "token_endpoint", out->issuer, err))) {
		ret = err->code;
		goto out;
	}
	out->revoke = url_field(as, "revocation_endpoint", out->issuer, &e);
	ret = 0;
out:
	if (ret < 0)
		ss_oauth_server_release(out);
	json_decref(pr);
	json_decref(as);
	ss_buf_release(&url);
	return ret;
}

/* The form's urlencoded body, client_id first. */
static void form_body(ss_buf *body, const char *client_id, const char *const *form)
{
	ss_buf_puts(body, "client_id=");
	ss_url_encode(body, client_id);
	for (size_t i = 0; form && form[i]; i += 2) {
		if (!form[i + 1])
			continue;
		ss_buf_putc(body, '&');
		ss_url_encode(body, form[i]);
		ss_buf_putc(body, '=');
		ss_url_encode(body, form[i + 1]);
	}
}

/* The server's refusal as one line. */
static int refusal(const char *endpoint, const ss_http_response *resp, ss_error *err)
{
	json_t *v = json_loadb(resp->body.ptr, resp->body.len, 0, NULL);
	const char *e = json_string_value(json_object_get(v, "error"));
	const char *d = json_string_value(json_object_get(v, "error_description"));
	ss_buf words = SS_BUF_INIT;
	int ret;

	if (e) {
		ss_utf8_escape_line(&words, e, MAX_WORDS);
		if (d) {
			ss_buf_puts(&words, ": ");
			ss_utf8_escape_line(&words, d, MAX_WORDS);
		}
	} else {
		ss_buf_printf(&words, "HTTP %ld", resp->status);
	}
	ret = ss_error_set(err, resp->status >= 500 ? SS_ENETWORK : SS_EAUTH,
	                   "the authorization server refused (%s): %s", endpoint, words.ptr);
	ss_buf_release(&words);
	json_decref(v);
	return ret;
}

/* POSTs the form with a DPoP proof, once more with the server's nonce when it asks; the
 * answer's body (2xx) as a JSON object in *out. */
static int post_form(ss_http *http, ss_oauth_client *c, const char *endpoint,
                     const char *const *form, json_t **out, ss_error *err)
{
	ss_buf body = SS_BUF_INIT, proof_line = SS_BUF_INIT;
	ss_http_response resp;
	int ret = 0;

	if (out)
		*out = NULL;
	ss_buf_secret(&body);
	ss_http_response_init(&resp);
	ss_buf_secret(&resp.body);
	form_body(&body, c->client_id, form);
	for (int attempt = 0; attempt < 2; attempt++) {
		const char *lines[] = {NULL, NULL};
		char *proof = NULL;

		if ((ret = ss_dpop_proof(&proof, c->key, "POST", endpoint, c->nonce, NULL, err)) <
		    0)
			goto out;
		ss_buf_clear(&proof_line);
		ss_buf_printf(&proof_line, "DPoP: %s", proof);
		free(proof);
		lines[0] = proof_line.ptr;
		ss_http_request req = {
		    .method = "POST",
		    .url = endpoint,
		    .content_type = "application/x-www-form-urlencoded",
		    .headers = lines,
		    .body = body.ptr,
		    .body_len = body.len,
		    .once = true,
		};
		if ((ret = ss_http_perform(http, &req, &resp, err)) < 0)
			goto out;
		if (resp.dpop_nonce[0])
			memcpy(c->nonce, resp.dpop_nonce, sizeof(c->nonce));
		if (!ss_dpop_wants_nonce(&resp))
			break;
	}
	if (resp.status < 200 || resp.status >= 300) {
		ret =
		    ss_dpop_wants_nonce(&resp)
		        ? ss_error_set(err, SS_EAUTH,
		                       "the authorization server keeps asking for a new DPoP nonce "
		                       "(%s)",
		                       endpoint)
		        : refusal(endpoint, &resp, err);
		goto out;
	}
	if (!out)
		goto out;
	*out = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		ret = ss_error_set(err, SS_EINVALID,
		                   "the authorization server's answer is not JSON (%s)", endpoint);
	}
out:
	ss_http_response_release(&resp);
	ss_buf_release(&body);
	ss_buf_release(&proof_line);
	return ret;
}

/* A string field of a secret answer, copied; NULL when absent. */
static char *field(const json_t *v, const char *key)
{
	const char *s = json_string_value(json_object_get(v, key));

	return s ? ss_xstrdup(s) : NULL;
}

/* Wipes the strings of a secret answer before it is freed. */
static void wipe(json_t *v)
{
	const char *key;
	json_t *val;

	json_object_foreach(v, key, val)
	{
		if (json_is_string(val))
			ss_secret_wipe((char *)(uintptr_t)json_string_value(val),
			               json_string_length(val));
	}
	json_decref(v);
}

int ss_oauth_par(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *const *form,
                 char **request_uri, ss_error *err)
{
	json_t *v = NULL;
	int ret = post_form(http, c, endpoint, form, &v, err);

	if (!ret && !(*request_uri = field(v, "request_uri")))
		ret =
		    ss_error_set(err, SS_EINVALID, "the authorization server gave no request_uri");
	json_decref(v);
	return ret;
}

int ss_oauth_token(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *const *form,
                   ss_oauth_tokens *out, ss_error *err)
{
	json_t *v = NULL;
	const char *type;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = post_form(http, c, endpoint, form, &v, err)) < 0)
		return ret;
	type = json_string_value(json_object_get(v, "token_type"));
	out->access = field(v, "access_token");
	out->refresh = field(v, "refresh_token");
	out->sub = field(v, "sub");
	out->scope = field(v, "scope");
	out->expires_in = json_integer_value(json_object_get(v, "expires_in"));
	if (!type || strcasecmp(type, "DPoP") || !out->access || !out->refresh || !out->sub ||
	    !out->scope) {
		ss_oauth_tokens_release(out);
		ret =
		    ss_error_set(err, SS_EINVALID,
		                 "the authorization server's tokens are not DPoP-bound tokens with "
		                 "a subject, a scope and a refresh token");
	}
	wipe(v);
	return ret;
}

int ss_oauth_revoke(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *token,
                    ss_error *err)
{
	const char *form[] = {"token", token, NULL};

	return post_form(http, c, endpoint, form, NULL, err);
}
