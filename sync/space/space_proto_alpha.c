/*
 * space_proto_alpha.c: which alpha of the permissioned-space protocol a URI or a host speaks
 * (see sync/space/space_proto.h). skillsync speaks the 2026-10-01 alpha only; what is known of the
 * later ones (22 and 29 October, 12 November 2026) is in docs/SPACES.md. Nothing of them is
 * implemented: they are recognised so that the person reads one line saying so, not a parse
 * error.
 */
#include "sync/space/space_proto.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/mem.h"
#include "sync/net/xrpc_call.h"

#define OURS_FORM "at://<authority>/space/<type>/<key>"
#define DESCRIBE  "com.atproto.server.describeServer"

/* The newer spellings: at:space/<space DID>/<type>/<key> (the reference's later alphas) and
 * ats://<space DID>/<type>/<key> (another implementation's). */
static const char *const newer_prefixes[] = {"at:space/", "ats://", NULL};

ss_space_uri_form ss_space_proto_uri_form(const char *s)
{
	if (!s)
		return SS_SPACE_URI_OTHER;
	for (size_t i = 0; newer_prefixes[i]; i++)
		if (!strncasecmp(s, newer_prefixes[i], strlen(newer_prefixes[i])))
			return SS_SPACE_URI_NEWER;
	if (!strncasecmp(s, "at://", 5))
		return SS_SPACE_URI_OURS;
	return SS_SPACE_URI_OTHER;
}

int ss_space_proto_newer_uri(const char *s, ss_error *err)
{
	return ss_error_set(err, SS_EINVALID,
	                    "'%s' is a space URI of a newer permissioned-space protocol alpha "
	                    "(after " SS_SPACE_PROTO_ALPHA
	                    "); skillsync speaks the " SS_SPACE_PROTO_ALPHA " alpha (" OURS_FORM
	                    ")",
	                    s);
}

bool ss_space_proto_unknown_method(long status, const char *error_name)
{
	return status == 501 || (error_name && !strcmp(error_name, "MethodNotImplemented"));
}

int ss_space_proto_alpha_unknown(const char *service, const char *nsid, long status,
                                 const ss_buf *body, ss_error *err)
{
	json_t *v = body && body->len ? json_loadb(body->ptr, body->len, 0, NULL) : NULL;
	const char *name = json_string_value(json_object_get(v, "error"));

	if (ss_space_proto_unknown_method(status, name))
		ss_error_set(
		    err, SS_EINVALID,
		    "'%s' does not know %s (MethodNotImplemented): it speaks a newer "
		    "permissioned-space protocol alpha (after " SS_SPACE_PROTO_ALPHA
		    ", which renamed methods) or none; skillsync speaks the " SS_SPACE_PROTO_ALPHA
		    " alpha",
		    service, nsid);
	json_decref(v);
	return err->code;
}

bool ss_space_proto_newer_shape(const char *nsid, const ss_buf *body)
{
	json_t *v;
	bool yes;

	if (!body || !body->len || strcmp(nsid, SS_SPACE_NSID_LIST_REPOS))
		return false;
	v = json_loadb(body->ptr, body->len, 0, NULL);
	yes = json_is_object(v) && !json_object_get(v, "repos") &&
	      json_is_array(json_object_get(v, "writers"));
	json_decref(v);
	return yes;
}

char *ss_space_proto_alpha_of(const ss_buf *body)
{
	json_t *v = body && body->len ? json_loadb(body->ptr, body->len, 0, NULL) : NULL;
	char *alpha = NULL;

	if (json_is_object(v))
		alpha = ss_xrpc_call_str(v, "spacesAlpha");
	json_decref(v);
	return alpha;
}

/* The host's describeServer answer, its spacesAlpha (malloc'd) or NULL. */
static char *ask_alpha(ss_http *http, const char *host)
{
	ss_http_request req = {.method = "GET"};
	ss_http_response resp;
	ss_buf url = SS_BUF_INIT;
	ss_error ignored;
	char *alpha = NULL;

	ss_http_response_init(&resp);
	ss_xrpc_call_url(&url, host, DESCRIBE, NULL);
	req.url = url.ptr;
	req.max_response = 64 * 1024;
	if (ss_http_perform(http, &req, &resp, &ignored) == 0 && resp.status >= 200 &&
	    resp.status <= 299)
		alpha = ss_space_proto_alpha_of(&resp.body);
	ss_http_response_release(&resp);
	ss_buf_release(&url);
	return alpha;
}

int ss_space_proto_alpha_explain(ss_http *http, const char *host, const char *nsid,
                                 const ss_buf *body, ss_error *err)
{
	char *alpha;

	if (err->code != SS_ERROR && err->code != SS_EINVALID)
		return err->code;
	alpha = ask_alpha(http, host);
	/* ISO dates: a later alpha sorts after ours */
	if (alpha && strcmp(alpha, SS_SPACE_PROTO_ALPHA))
		ss_error_set(
		    err, SS_EINVALID,
		    "the space host '%s' speaks %s permissioned-space protocol alpha '%s' "
		    "(its describeServer says so); skillsync speaks the " SS_SPACE_PROTO_ALPHA
		    " alpha",
		    host, strcmp(alpha, SS_SPACE_PROTO_ALPHA) > 0 ? "the newer" : "the", alpha);
	else if (ss_space_proto_newer_shape(nsid, body))
		ss_error_set(err, SS_EINVALID,
		             "the space host '%s' answers %s in the shape of a newer "
		             "permissioned-space protocol alpha (after " SS_SPACE_PROTO_ALPHA
		             ": writers, not repos); skillsync speaks the " SS_SPACE_PROTO_ALPHA
		             " alpha",
		             host, nsid);
	free(alpha);
	return err->code;
}
