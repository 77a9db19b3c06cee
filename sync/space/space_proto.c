/* space_proto.c: the permissioned-space protocol's details (see sync/space/space_proto.h). */
#include "sync/space/space_proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/base64.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "sync/net/xrpc_call.h"

#define URI_SCHEME   "at://"
#define URI_SPACE    "/space/"
#define SIG_LABEL    "atproto-space"
#define SIG_ALG      "ecdsa-p256-sha256"
#define HDR_AUDIENCE "Atproto-Space-Audience"
#define SCHEME_CRED  "Atproto-Space"
#define SCHEME_TOKEN "Bearer"

/* ---- URIs ---- */

char *ss_space_uri_format(const char *authority, const char *type, const char *skey)
{
	ss_buf b = SS_BUF_INIT;

	ss_buf_printf(&b, URI_SCHEME "%s" URI_SPACE "%s/%s", authority, type, skey);
	return ss_buf_detach(&b, NULL);
}

/* ---- signing ---- */

void ss_space_proto_sig_params(ss_buf *out, bool with_audience, const char *keyid)
{
	ss_buf_printf(out, "(\"authorization\"%s);keyid=\"%s\";alg=\"" SIG_ALG "\"",
	              with_audience ? " \"atproto-space-audience\"" : "", keyid);
}

void ss_space_proto_sig_base(ss_buf *out, const char *authorization, const char *audience,
                             const char *params)
{
	ss_buf_printf(out, "\"authorization\": %s\n", authorization);
	if (audience)
		ss_buf_printf(out, "\"atproto-space-audience\": %s\n", audience);
	ss_buf_printf(out, "\"@signature-params\": %s", params);
}

void ss_space_proto_lines_free(char **lines)
{
	for (size_t i = 0; lines && lines[i]; i++)
		ss_secret_free(lines[i]);
	free(lines);
}

int ss_space_proto_sign(const ss_p256_key *key, const char *keyid, const char *token,
                        const char *audience, char ***lines, ss_error *err)
{
	ss_buf auth = SS_BUF_INIT, params = SS_BUF_INIT, base = SS_BUF_INIT, line = SS_BUF_INIT;
	uint8_t sig[SS_SIG_LEN];
	char **l = ss_xcalloc(5, sizeof(*l));
	size_t n = 0;
	int ret;

	ss_buf_secret(&auth);
	ss_buf_secret(&base);
	ss_buf_secret(&line);
	ss_buf_printf(&auth, "%s %s", audience ? SCHEME_CRED : SCHEME_TOKEN, token);
	ss_space_proto_sig_params(&params, audience != NULL, keyid);
	ss_space_proto_sig_base(&base, auth.ptr, audience, params.ptr);
	if ((ret = ss_p256_sign(key, base.ptr, base.len, sig, err)) < 0)
		goto out;
	ss_buf_printf(&line, "Authorization: %s", auth.ptr);
	l[n++] = ss_buf_detach(&line, NULL);
	if (audience) {
		ss_buf_printf(&line, HDR_AUDIENCE ": %s", audience);
		l[n++] = ss_buf_detach(&line, NULL);
	}
	ss_buf_printf(&line, "Signature-Input: " SIG_LABEL "=%s", params.ptr);
	l[n++] = ss_buf_detach(&line, NULL);
	/* the reference writes the signature unpadded */
	ss_buf_puts(&line, "Signature: " SIG_LABEL "=:");
	ss_base64_encode(&line, sig, sizeof(sig), SS_BASE64_STD, false);
	ss_buf_putc(&line, ':');
	l[n++] = ss_buf_detach(&line, NULL);
	*lines = l;
	l = NULL;
out:
	ss_space_proto_lines_free(l);
	ss_buf_release(&auth);
	ss_buf_release(&params);
	ss_buf_release(&base);
	ss_buf_release(&line);
	return ret;
}

/* ---- answers ---- */

static int parse(const char *nsid, const ss_buf *body, json_t **out, ss_error *err)
{
	return ss_xrpc_call_parse(nsid, body, out, err);
}

/* v[key], a secret string: copied out, and jansson's copy wiped. */
static int secret_field(const char *nsid, json_t *v, const char *key, char **out, ss_error *err)
{
	json_t *s = json_object_get(v, key);
	int ret;

	if (json_is_string(s) && json_string_length(s) > 0) {
		*out = ss_xstrdup(json_string_value(s));
		ret = 0;
	} else {
		ret = ss_error_set(err, SS_ERROR, "%s: the answer holds no %s", nsid, key);
	}
	if (json_is_string(s))
		ss_secret_wipe((char *)(uintptr_t)json_string_value(s), json_string_length(s));
	return ret;
}

/* The answer is an XRPC error of that name. */
static bool named(const ss_buf *body, const char *name)
{
	json_t *v = json_loadb(body->ptr, body->len, 0, NULL);
	const char *e = json_string_value(json_object_get(v, "error"));
	bool is = e && !strcmp(e, name);

	json_decref(v);
	return is;
}

/* Sends a request (lines: extra header lines) and hands back the response. */
static int send(ss_http *http, const char *method, const char *url, const char *const *lines,
                const char *body, ss_http_response *resp, ss_error *err)
{
	ss_http_request req = {
	    .method = method,
	    /* the one POST, the exchange, spends its delegation token: sent again, it is refused */
	    .once = !strcmp(method, "POST"),
	    .url = url,
	    .content_type = body ? "application/json" : NULL,
	    .headers = lines,
	    .body = body,
	    .body_len = body ? strlen(body) : 0,
	};

	return ss_http_perform(http, &req, resp, err);
}

int ss_space_proto_delegation(ss_xrpc *mine, const char *space, char **token, ss_error *err)
{
	const char *params[] = {"space", space, NULL};
	ss_xrpc_call call = {
	    .nsid = SS_SPACE_NSID_DELEGATION, .params = params, .auth = true, .secret = true};
	json_t *v = NULL;
	int ret = ss_xrpc_call_send(mine, &call, &v, err);

	if (ret < 0) {
		/* an OAuth session whose scope does not cover the space: 403 ScopeMissingError */
		if (strstr(err->message, "ScopeMissingError"))
			return ss_error_set(
			    err, SS_EAUTH,
			    "your PDS refused a delegation token for this session (%s): "
			    "its OAuth scope does not cover this space: run 'skillsync "
			    "login --oauth <handle>' again",
			    SS_SPACE_NSID_DELEGATION);
		/* the PDS's access check refuses an app password with 400 InvalidToken */
		if (err->code == SS_EAUTH && strstr(err->message, "InvalidToken"))
			ret = ss_error_set(
			    err, SS_EAUTH,
			    "your PDS refused a delegation token for this session (%s): reading a "
			    "permissioned space needs a sign-in with OAuth or your account "
			    "password, "
			    "not an app password: run 'skillsync login --oauth <handle>'",
			    SS_SPACE_NSID_DELEGATION);
		return ret;
	}
	ret = secret_field(SS_SPACE_NSID_DELEGATION, v, "token", token, err);
	json_decref(v);
	return ret;
}

int ss_space_proto_exchange(ss_http *http, const char *host, const ss_p256_key *key,
                            const char *keyid, const char *space, const char *token, char **cred,
                            bool *again, ss_error *err)
{
	ss_buf url = SS_BUF_INIT;
	ss_http_response resp;
	json_t *in = json_pack("{s:s}", "space", space), *v = NULL;
	char *body = in ? ss_xrpc_call_dump(in, NULL) : NULL;
	char **lines = NULL;
	bool renew;
	int ret;

	*again = false;
	ss_http_response_init(&resp);
	ss_buf_secret(&resp.body);
	ss_xrpc_call_url(&url, host, SS_SPACE_NSID_CREDENTIAL, NULL);
	if (!body) {
		ret = ss_error_set(err, SS_EINVALID, "the space URI is not valid UTF-8");
		goto out;
	}
	if ((ret = ss_space_proto_sign(key, keyid, token, NULL, &lines, err)) < 0)
		goto out;
	if ((ret = send(http, "POST", url.ptr, (const char *const *)lines, body, &resp, err)) < 0) {
		*again = resp.cut;
		goto out;
	}
	if (resp.status < 200 || resp.status > 299) {
		ret = ss_space_proto_error(SS_SPACE_NSID_CREDENTIAL, resp.status, &resp.body,
		                           &renew, err);
		ss_space_proto_alpha_unknown(host, SS_SPACE_NSID_CREDENTIAL, resp.status,
		                             &resp.body, err);
		*again = resp.status == 502 || resp.status == 503 || resp.status == 504 ||
		         (resp.status == 401 && named(&resp.body, "JwtReplayed"));
		goto out;
	}
	if ((ret = ss_xrpc_call_parse(SS_SPACE_NSID_CREDENTIAL, &resp.body, &v, err)) < 0)
		goto out;
	ret = secret_field(SS_SPACE_NSID_CREDENTIAL, v, "credential", cred, err);
out:
	/* the answers people meet (sync/space/space_proto.h) already say what to do */
	if (ret < 0 && (err->code == SS_ENETWORK || err->code == SS_ERROR))
		ss_error_prefix(err, "cannot get a credential for the space from '%s'", host);
	json_decref(v);
	json_decref(in);
	free(body);
	ss_space_proto_lines_free(lines);
	ss_http_response_release(&resp);
	ss_buf_release(&url);
	return ret;
}

int ss_space_proto_get(ss_http *http, const char *service, const char *nsid,
                       const char *const *params, const ss_p256_key *key, const char *keyid,
                       const char *cred, const char *audience, ss_buf *body, bool *renew,
                       ss_error *err)
{
	ss_buf url = SS_BUF_INIT;
	ss_http_response resp;
	char **lines = NULL;
	int ret;

	*renew = false;
	ss_http_response_init(&resp);
	ss_xrpc_call_url(&url, service, nsid, params);
	if ((ret = ss_space_proto_sign(key, keyid, cred, audience, &lines, err)) < 0 ||
	    (ret = send(http, "GET", url.ptr, (const char *const *)lines, NULL, &resp, err)) < 0)
		goto out;
	if (resp.status < 200 || resp.status > 299) {
		ret = ss_space_proto_error(nsid, resp.status, &resp.body, renew, err);
		ss_space_proto_alpha_unknown(service, nsid, resp.status, &resp.body, err);
		goto out;
	}
	ss_buf_clear(body);
	ret = ss_buf_put(body, resp.body.ptr, resp.body.len);
out:
	ss_space_proto_lines_free(lines);
	ss_http_response_release(&resp);
	ss_buf_release(&url);
	return ret;
}

void ss_space_repos_free(ss_space_repo *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].did);
		free(r[i].rev);
		free(r[i].hash);
	}
	free(r);
}

/* A bytes field ({"$bytes": "<base64>"}, or a plain string) as unpadded base64. */
static char *bytes_of(const json_t *v)
{
	const char *s = NULL;
	size_t len;

	if (json_is_object(v))
		v = json_object_get(v, "$bytes");
	if (json_is_string(v))
		s = json_string_value(v);
	if (!s)
		return NULL;
	len = strlen(s);
	while (len && s[len - 1] == '=')
		len--;
	return ss_xstrndup(s, len);
}

static int take_cursor(const json_t *v, char **cursor)
{
	json_t *c = json_object_get(v, "cursor");

	*cursor = json_is_string(c) && json_string_length(c) ? ss_xrpc_call_str(v, "cursor") : NULL;
	return 0;
}

int ss_space_proto_repos_page(const ss_buf *body, ss_space_repo **repos, size_t *n, char **cursor,
                              ss_error *err)
{
	json_t *v = NULL, *list, *e;
	size_t i, alloc = *n;
	int ret;

	*cursor = NULL;
	if ((ret = parse(SS_SPACE_NSID_LIST_REPOS, body, &v, err)) < 0)
		return ret;
	list = json_object_get(v, "repos");
	if (!json_is_array(list)) {
		json_decref(v);
		return ss_error_set(err, SS_ERROR,
		                    SS_SPACE_NSID_LIST_REPOS ": the server's answer has no repos");
	}
	json_array_foreach(list, i, e)
	{
		/* August: {did, rev, hash}; October: {did, repoRev, hash, spaceRev} */
		char *did = ss_xrpc_call_str(e, "did");
		char *rev = ss_xrpc_call_str(e, "repoRev");
		ss_space_repo *r;

		if (!rev)
			rev = ss_xrpc_call_str(e, "rev");
		if (!did || !rev) {
			free(did);
			free(rev);
			continue; /* nothing to follow it by */
		}
		ss_xgrow((void **)repos, sizeof(**repos), *n + 1, &alloc);
		r = &(*repos)[(*n)++];
		r->did = did;
		r->rev = rev;
		r->hash = bytes_of(json_object_get(e, "hash"));
	}
	take_cursor(v, cursor);
	json_decref(v);
	return 0;
}

static void op_release(ss_space_op *op)
{
	free(op->rev);
	free(op->collection);
	free(op->rkey);
	free(op->cid);
	free(op->prev);
	free(op->value_json);
}

void ss_space_ops_free(ss_space_op *ops, size_t n)
{
	for (size_t i = 0; ops && i < n; i++)
		op_release(&ops[i]);
	free(ops);
}

/* A revision is a TID: 13 characters of base32-sortable, the first of the lower half (its top
 * bit 0); TIDs compare as strings. */
static bool is_tid(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && json_string_length(v) == 13 && strchr("234567abcdefghij", s[0]) &&
	       strspn(s, "234567abcdefghijklmnopqrstuvwxyz") == 13;
}

/* A non-empty string without a NUL. */
static bool is_name(const json_t *v)
{
	return json_is_string(v) && json_string_length(v) > 0 &&
	       strlen(json_string_value(v)) == json_string_length(v);
}

/* An op's cid or prev: a CID, or null (*is_null). An absent key is read as null, as a
 * serializer that leaves nulls out writes it. */
static bool is_cid_or_null(const json_t *v, bool *is_null)
{
	ss_cid cid;
	ss_error ignored;

	*is_null = !v || json_is_null(v);
	return *is_null ||
	       (json_is_string(v) &&
	        ss_cid_parse(&cid, json_string_value(v), json_string_length(v), &ignored) == 0);
}

/*
 * One op of a page into *op, checked before anything reads it (sync/space/space_verify.c folds and
 * compares what it holds): an object with a TID rev, a collection and an rkey, and a cid and a
 * prev that are CIDs or null, not both null (an op adds a record, removes one, or both). NULL
 * when it is one, else what is wrong with it (*op then holds nothing).
 */
static const char *read_op(const json_t *e, ss_space_op *op)
{
	const json_t *value = json_object_get(e, "value");
	bool no_cid, no_prev;

	memset(op, 0, sizeof(*op));
	if (!json_is_object(e))
		return "is not an object";
	if (!json_object_get(e, "rev"))
		return "has no rev";
	if (!is_tid(json_object_get(e, "rev")))
		return "has a rev that is not a TID";
	if (!is_name(json_object_get(e, "collection")) || !is_name(json_object_get(e, "rkey")))
		return "names no record (collection and rkey)";
	if (!is_cid_or_null(json_object_get(e, "cid"), &no_cid))
		return "has a cid that is neither a CID nor null";
	if (!is_cid_or_null(json_object_get(e, "prev"), &no_prev))
		return "has a prev that is neither a CID nor null";
	if (no_cid && no_prev)
		return "has neither a cid nor a prev";
	op->rev = ss_xrpc_call_str(e, "rev");
	op->collection = ss_xrpc_call_str(e, "collection");
	op->rkey = ss_xrpc_call_str(e, "rkey");
	op->cid = ss_xrpc_call_str(e, "cid");
	op->prev = ss_xrpc_call_str(e, "prev");
	if (json_is_object(value))
		op->value_json = ss_xrpc_call_dump(value, &op->value_len);
	return NULL;
}

int ss_space_proto_ops_page(const ss_buf *body, ss_space_op **ops, size_t *n, char **cursor,
                            char **commit_rev, char **commit_hash, ss_error *err)
{
	json_t *v = NULL, *list, *e, *commit;
	size_t i, first = *n, alloc = *n;
	int ret;

	*cursor = *commit_rev = *commit_hash = NULL;
	if ((ret = parse(SS_SPACE_NSID_LIST_OPS, body, &v, err)) < 0)
		return ret;
	list = json_object_get(v, "ops");
	if (!json_is_array(list)) {
		json_decref(v);
		return ss_error_set(err, SS_ERROR,
		                    SS_SPACE_NSID_LIST_OPS ": the server's answer has no ops");
	}
	/* a page with one op that is not an op is refused whole: none of it is handed out */
	json_array_foreach(list, i, e)
	{
		const char *wrong;

		ss_xgrow((void **)ops, sizeof(**ops), *n + 1, &alloc);
		if ((wrong = read_op(e, &(*ops)[*n]))) {
			for (; *n > first; (*n)--)
				op_release(&(*ops)[*n - 1]);
			ret = ss_error_set(
			    err, SS_EINVALID,
			    SS_SPACE_NSID_LIST_OPS
			    ": the server's op %zu (of %zu on the page) %s: the page is "
			    "refused",
			    i + 1, json_array_size(list), wrong);
			json_decref(v);
			return ret;
		}
		(*n)++;
	}
	take_cursor(v, cursor);
	commit = json_object_get(v, "commit");
	if (json_is_object(commit)) {
		*commit_rev = ss_xrpc_call_str(commit, "rev");
		*commit_hash = bytes_of(json_object_get(commit, "hash"));
	}
	json_decref(v);
	return 0;
}

int ss_space_proto_record_cid(const ss_buf *body, char **cid, ss_error *err)
{
	json_t *v = NULL;
	int ret;

	if ((ret = parse(SS_SPACE_NSID_GET_RECORD, body, &v, err)) < 0)
		return ret;
	*cid = ss_xrpc_call_str(v, "cid");
	json_decref(v);
	if (!*cid)
		return ss_error_set(err, SS_ERROR,
		                    SS_SPACE_NSID_GET_RECORD ": the server's answer has no cid");
	return 0;
}

/* ---- errors ---- */

static bool is(const char *name, const char *want)
{
	return name && !strcmp(name, want);
}

int ss_space_proto_error(const char *nsid, long status, const ss_buf *body, bool *renew,
                         ss_error *err)
{
	json_t *v = json_loadb(body->ptr, body->len, 0, NULL);
	const char *name = json_string_value(json_object_get(v, "error"));
	const char *msg = json_string_value(json_object_get(v, "message"));
	int code = ss_xrpc_call_error(nsid, status, body, 0, err);

	/* Whatever 401 the host gives (JwtExpired, BadJwt*, CredentialRevoked,
	 * BadSpaceSignature), a new credential is the cure, tried once. */
	*renew = status == 401;
	if (is(name, "SpaceNotFound"))
		code =
		    ss_error_set(err, SS_ENOTFOUND,
		                 "the space does not exist at its host (%s: SpaceNotFound): check "
		                 "the at:// URI with the space's authority",
		                 nsid);
	else if (is(name, "SpaceDeleted"))
		code = ss_error_set(err, SS_ENOTFOUND,
		                    "the space was deleted by its authority (%s: SpaceDeleted): "
		                    "nothing more can be fetched; the clone keeps what it has",
		                    nsid);
	else if (is(name, "UserNotAuthorized") || is(name, "NotAuthorized") ||
	         is(name, "AppNotAuthorized"))
		code =
		    ss_error_set(err, SS_EAUTH,
		                 "you are not a member of this space (%s: %s): ask its authority "
		                 "to add you ('skillsync space members add')",
		                 nsid, name);
	else if (is(name, "CredentialRevoked"))
		code = ss_error_set(err, SS_EAUTH,
		                    "the space host revoked this run's credential (%s: "
		                    "CredentialRevoked) and refused a new one: ask the space's "
		                    "authority whether you are still a member",
		                    nsid);
	else if (is(name, "JwtExpired") || is(name, "BadJwtIat") ||
	         (msg && (strstr(msg, "in the future") || strstr(msg, "clock"))))
		code =
		    ss_error_set(err, SS_EAUTH,
		                 "%s: %s: the space host finds the credential expired or not yet "
		                 "valid: check this computer's clock (it must be within a few "
		                 "seconds of the real time)",
		                 nsid, name ? name : "refused");
	else if (is(name, "RepoNotFound"))
		code = ss_error_set(err, SS_ENOTFOUND, "%s: RepoNotFound", nsid);
	json_decref(v);
	return code;
}
