/*
 * xrpc_server.c: com.atproto.server.* sessions, identity.resolveHandle, and reading DID
 * documents (JSON stays in the XRPC module).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/utf8.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_server.h"

#define NSID_CREATE  "com.atproto.server.createSession"
#define NSID_REFRESH "com.atproto.server.refreshSession"
#define NSID_DELETE  "com.atproto.server.deleteSession"
#define NSID_GET     "com.atproto.server.getSession"
#define NSID_RESOLVE "com.atproto.identity.resolveHandle"

void ss_xrpc_session_release(ss_xrpc_session *s)
{
	if (!s)
		return;
	free(s->did);
	free(s->handle);
	ss_secret_free(s->access_jwt);
	ss_secret_free(s->refresh_jwt);
	free(s->pds);
	memset(s, 0, sizeof(*s));
}

/* The endpoint of a DID document object's service whose id ends with fragment, or NULL. */
static char *service_of(const json_t *doc, const char *fragment)
{
	json_t *services = json_object_get(doc, "service"), *s;
	size_t i, flen = strlen(fragment);

	json_array_foreach(services, i, s)
	{
		const char *id = json_string_value(json_object_get(s, "id"));
		size_t len = id ? strlen(id) : 0;

		if (len >= flen && !strcmp(id + len - flen, fragment) &&
		    json_is_string(json_object_get(s, "serviceEndpoint")))
			return ss_xrpc_call_str(s, "serviceEndpoint");
	}
	return NULL;
}

/* The PDS endpoint of a DID document object, or NULL. */
static char *pds_of(const json_t *doc)
{
	return service_of(doc, "#atproto_pds");
}

int ss_xrpc_did_doc_space_host(const char *doc, size_t len, char **host, ss_error *err)
{
	json_t *v = json_loadb(doc, len, 0, NULL);

	*host = NULL;
	if (json_is_object(v)) {
		*host = service_of(v, "#atproto_space_host");
		if (!*host)
			*host = pds_of(v);
	}
	json_decref(v);
	if (!*host)
		return ss_error_set(err, SS_EINVALID,
		                    "the authority's DID document names no space host "
		                    "(#atproto_space_host) and no PDS");
	return 0;
}

static int session_from(const char *nsid, const json_t *v, ss_xrpc_session *out, ss_error *err)
{
	json_t *active = json_object_get(v, "active");

	memset(out, 0, sizeof(*out));
	out->did = ss_xrpc_call_str(v, "did");
	out->handle = ss_xrpc_call_str(v, "handle");
	out->access_jwt = ss_xrpc_call_str(v, "accessJwt");
	out->refresh_jwt = ss_xrpc_call_str(v, "refreshJwt");
	out->pds = pds_of(json_object_get(v, "didDoc"));
	out->active = active ? json_is_true(active) : true;
	if (!out->did) {
		ss_xrpc_session_release(out);
		return ss_error_set(err, SS_ERROR, "%s: the server's answer has no did", nsid);
	}
	return 0;
}

static int tokens_present(const char *nsid, ss_xrpc_session *s, ss_error *err)
{
	if (s->access_jwt && s->refresh_jwt)
		return 0;
	ss_xrpc_session_release(s);
	return ss_error_set(err, SS_ERROR, "%s: the server's answer has no tokens", nsid);
}

/* Wipes the tokens inside an answer before jansson frees it. */
static void wipe_tokens(json_t *v)
{
	const char *keys[] = {"accessJwt", "refreshJwt"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *s = json_object_get(v, keys[i]);

		if (json_is_string(s))
			ss_secret_wipe((void *)(uintptr_t)json_string_value(s),
			               json_string_length(s));
	}
}

/* Runs a session call whose answer holds tokens: no copy of them is left behind. */
static int session_call(ss_xrpc *x, ss_xrpc_call *call, ss_xrpc_session *out, ss_error *err)
{
	json_t *v = NULL;
	int ret;

	call->secret = true;
	ret = ss_xrpc_call_send(x, call, &v, err);
	if (!ret && !(ret = session_from(call->nsid, v, out, err)))
		ret = tokens_present(call->nsid, out, err);
	wipe_tokens(v);
	json_decref(v);
	return ret;
}

int ss_xrpc_create_session(ss_xrpc *x, const char *identifier, const char *password,
                           ss_xrpc_session *out, ss_error *err)
{
	ss_xrpc_call call = {.nsid = NSID_CREATE, .post = true};
	ss_buf body = SS_BUF_INIT;
	int ret;

	/* Written here rather than by jansson, whose copy of the password would not be wiped. */
	if (!ss_utf8_valid(identifier, strlen(identifier)) ||
	    !ss_utf8_valid(password, strlen(password)))
		return ss_error_set(err, SS_EINVALID, "the identifier or password is not UTF-8");
	ss_buf_secret(&body);
	ss_buf_puts(&body, "{\"identifier\":\"");
	ss_utf8_escape(&body, identifier, strlen(identifier), SS_ESCAPE_JSON);
	ss_buf_puts(&body, "\",\"password\":\"");
	ss_utf8_escape(&body, password, strlen(password), SS_ESCAPE_JSON);
	ss_buf_puts(&body, "\"}");
	call.body = body.ptr;
	call.body_len = body.len;
	ret = session_call(x, &call, out, err);
	ss_buf_release(&body);
	return ret;
}

int ss_xrpc_refresh_session(ss_xrpc *x, const char *refresh_jwt, ss_xrpc_session *out,
                            ss_error *err)
{
	ss_xrpc_call call = {
	    .nsid = NSID_REFRESH, .post = true, .auth = true, .bearer = refresh_jwt};

	return session_call(x, &call, out, err);
}

int ss_xrpc_delete_session(ss_xrpc *x, const char *refresh_jwt, ss_error *err)
{
	ss_xrpc_call call = {
	    .nsid = NSID_DELETE, .post = true, .auth = true, .bearer = refresh_jwt};

	return ss_xrpc_call_send(x, &call, NULL, err);
}

int ss_xrpc_get_session(ss_xrpc *x, ss_xrpc_session *out, ss_error *err)
{
	ss_xrpc_call call = {.nsid = NSID_GET, .auth = true};
	json_t *v = NULL;
	int ret = ss_xrpc_call_send(x, &call, &v, err);

	if (!ret)
		ret = session_from(NSID_GET, v, out, err);
	json_decref(v);
	return ret;
}

int ss_xrpc_resolve_handle(ss_xrpc *x, const char *handle, char **did, ss_error *err)
{
	const char *params[] = {"handle", handle, NULL};
	ss_xrpc_call call = {.nsid = NSID_RESOLVE, .params = params};
	json_t *v = NULL;
	int ret = ss_xrpc_call_send(x, &call, &v, err);

	if (!ret) {
		*did = ss_xrpc_call_str(v, "did");
		if (!*did)
			ret = ss_error_set(err, SS_ERROR, "%s: the server's answer has no did",
			                   NSID_RESOLVE);
	}
	json_decref(v);
	return ret;
}

void ss_xrpc_did_doc_release(ss_xrpc_did_doc *doc)
{
	if (!doc)
		return;
	free(doc->id);
	free(doc->pds);
	free(doc->handle);
	for (size_t i = 0; doc->also_known_as && doc->also_known_as[i]; i++)
		free(doc->also_known_as[i]);
	free(doc->also_known_as);
	memset(doc, 0, sizeof(*doc));
}

int ss_xrpc_parse_did_doc(const char *json, size_t len, ss_xrpc_did_doc *out, ss_error *err)
{
	json_t *v = json_loadb(json, len, 0, NULL), *aka, *a;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(v)) {
		json_decref(v);
		return ss_error_set(err, SS_EINVALID, "the DID document is not a JSON object");
	}
	out->id = ss_xrpc_call_str(v, "id");
	out->pds = pds_of(v);
	aka = json_object_get(v, "alsoKnownAs");
	out->also_known_as = ss_xcalloc(json_array_size(aka) + 1, sizeof(char *));
	json_array_foreach(aka, i, a)
	{
		const char *s = json_string_value(a);

		if (!s)
			continue;
		out->also_known_as[n++] = ss_xstrdup(s);
		if (!out->handle && !strncmp(s, "at://", 5))
			out->handle = ss_xstrdup(s + 5);
	}
	json_decref(v);
	if (!out->id) {
		ss_xrpc_did_doc_release(out);
		return ss_error_set(err, SS_EINVALID, "the DID document has no id");
	}
	return 0;
}
