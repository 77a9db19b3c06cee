/*
 * space_admin.c: createSpace, listMembers, putMember and removeMember for a space's authority
 * (sync/space/space_admin.h).
 */
#include "core/atproto/syntax.h"
#include "sync/space/space_admin.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/identity/identity.h"
#include "sync/net/xrpc_call.h"
#include "sync/space/space_proto.h"

#define NSID_CREATE "com.atproto.simplespace.createSpace"
#define NSID_LIST   "com.atproto.simplespace.listMembers"
#define NSID_PUT    "com.atproto.simplespace.putMember"
#define NSID_REMOVE "com.atproto.simplespace.removeMember"

#define POLICY_MEMBERS "com.atproto.simplespace.defs#memberListPolicy"
#define POLICY_PUBLIC  "com.atproto.simplespace.defs#publicPolicy"

int ss_space_admin_policy_parse(const char *s, ss_space_admin_policy *out, ss_error *err)
{
	if (!strcmp(s, "members"))
		*out = SS_SPACE_POLICY_MEMBERS;
	else if (!strcmp(s, "public"))
		*out = SS_SPACE_POLICY_PUBLIC;
	else
		return ss_error_set(err, SS_EINVALID,
		                    "'%s' is not a policy: use 'members' or 'public'", s);
	return 0;
}

const char *ss_space_admin_policy_name(ss_space_admin_policy p)
{
	return p == SS_SPACE_POLICY_PUBLIC ? "public" : "members";
}

static const char *policy_type(ss_space_admin_policy p)
{
	return p == SS_SPACE_POLICY_PUBLIC ? POLICY_PUBLIC : POLICY_MEMBERS;
}

static bool skey_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_' || c == ':' || c == '~';
}

int ss_space_admin_check_skey(const char *skey, ss_error *err)
{
	size_t len = strlen(skey);

	if (!len)
		return ss_error_set(err, SS_EINVALID, "the space key is empty");
	if (len > SS_SPACE_ADMIN_SKEY_MAX)
		return ss_error_set(err, SS_EINVALID,
		                    "the space key is %zu characters long: at most %d", len,
		                    SS_SPACE_ADMIN_SKEY_MAX);
	if (!strcmp(skey, ".") || !strcmp(skey, ".."))
		return ss_error_set(err, SS_EINVALID, "'%s' cannot be a space key", skey);
	for (size_t i = 0; i < len; i++)
		if (!skey_char(skey[i]))
			return ss_error_set(
			    err, SS_EINVALID,
			    "'%s' is not a valid space key: use letters, digits and "
			    ". - _ : ~ only",
			    skey);
	return 0;
}

void ss_space_admin_ref_release(ss_space_admin_ref *ref)
{
	if (!ref)
		return;
	free(ref->uri);
	free(ref->authority);
	free(ref->type);
	free(ref->skey);
	memset(ref, 0, sizeof(*ref));
}

/* An NSID's shape: three or more dot-separated segments of letters, digits and '-'. */
static bool is_nsid(const char *s, size_t len)
{
	size_t segments = 1, seglen = 0;

	if (!len || len > 317)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (!seglen)
				return false;
			segments++;
			seglen = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		           (c >= '0' && c <= '9') || c == '-') {
			seglen++;
		} else {
			return false;
		}
	}
	return seglen && segments >= 3;
}

static int bad_uri(const char *s, const char *why, ss_error *err)
{
	return ss_error_set(
	    err, SS_EINVALID,
	    "'%s' is not a space: %s (at://<authority>/space/<type>/<key>, or a key "
	    "of your own space)",
	    s, why);
}

int ss_space_admin_ref_parse(const char *s, const char *default_authority, ss_space_admin_ref *out,
                             ss_error *err)
{
	const char *auth, *slash, *type, *skey;
	char *a = NULL, *k = NULL;
	ss_buf uri = SS_BUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (ss_space_proto_uri_form(s) == SS_SPACE_URI_NEWER)
		return ss_space_proto_newer_uri(s, err);
	if (strncmp(s, "at://", 5)) {
		if (strchr(s, '/'))
			return bad_uri(s, "not an at:// URI", err);
		if ((ret = ss_space_admin_check_skey(s, err)) < 0)
			return ret;
		if (!default_authority)
			return bad_uri(s, "a bare key needs the authority's session", err);
		ss_buf_printf(&uri, "at://%s/space/" SS_SPACE_ADMIN_TYPE "/%s", default_authority,
		              s);
		out->uri = ss_buf_detach(&uri, NULL);
		out->authority = ss_xstrdup(default_authority);
		out->type = ss_xstrdup(SS_SPACE_ADMIN_TYPE);
		out->skey = ss_xstrdup(s);
		return 0;
	}
	auth = s + 5;
	slash = strchr(auth, '/');
	if (!slash || strncmp(slash, "/space/", 7))
		return bad_uri(s, "no /space/ after the authority", err);
	a = ss_xstrndup(auth, (size_t)(slash - auth));
	if (!ss_syntax_is_did(a) && !ss_syntax_is_handle(a)) {
		ret = bad_uri(s, "the authority is not a DID or a handle", err);
		goto fail;
	}
	type = slash + 7;
	skey = strchr(type, '/');
	if (!skey || !is_nsid(type, (size_t)(skey - type))) {
		ret = bad_uri(s, "no space type", err);
		goto fail;
	}
	k = ss_xstrdup(skey + 1);
	if ((ret = ss_space_admin_check_skey(k, err)) < 0) {
		ss_error_prefix(err, "'%s' is not a space", s);
		goto fail;
	}
	out->uri = ss_xstrdup(s);
	out->authority = a;
	out->type = ss_xstrndup(type, (size_t)(skey - type));
	out->skey = k;
	return 0;
fail:
	free(a);
	free(k);
	return ret;
}

void ss_space_admin_create_body(ss_buf *out, const char *skey, ss_space_admin_policy read,
                                ss_space_admin_policy write)
{
	json_t *v = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "spaceType", SS_SPACE_ADMIN_TYPE,
	                      "skey", skey, "readPolicy", "$type", policy_type(read), "writePolicy",
	                      "$type", policy_type(write));
	size_t len;
	char *s;

	if (!v) /* only when out of memory, or skey is not UTF-8 (ss_space_admin_check_skey) */
		abort();
	s = ss_xrpc_call_dump(v, &len);
	ss_buf_clear(out);
	ss_buf_put(out, s, len);
	free(s);
	json_decref(v);
}

/* True when err holds the server's error `name` for nsid (sync/net/xrpc.h's message form). */
static bool server_said(const ss_error *err, const char *nsid, const char *name)
{
	size_t n = strlen(nsid), m = strlen(name);
	const char *msg = err->message;

	return !strncmp(msg, nsid, n) && msg[n] == ':' && msg[n + 1] == ' ' &&
	       !strncmp(msg + n + 2, name, m) && (msg[n + 2 + m] == ':' || !msg[n + 2 + m]);
}

/* The simplespace errors a person meets, as one line with what to do. */
static int explain(ss_error *err, const char *nsid, const char *space)
{
	if (server_said(err, nsid, "SpaceAlreadyExists"))
		return ss_error_set(err, SS_EEXISTS,
		                    "you already have a space with the key '%s' (its members: "
		                    "'skillsync space members --space %s')",
		                    space, space);
	if (server_said(err, nsid, "SpaceNotFound"))
		return ss_error_set(err, SS_ENOTFOUND, "there is no space '%s'", space);
	if (server_said(err, nsid, "NotSpaceOwner"))
		return ss_error_set(err, SS_EAUTH,
		                    "only the authority of '%s' manages its members: sign in as "
		                    "it (and use --as when signed in as several)",
		                    space);
	if (server_said(err, nsid, "UnsupportedPolicy"))
		return ss_error_prefix(err, "the space host does not take that policy");
	return err->code;
}

int ss_space_admin_create(ss_xrpc *x, const char *skey, ss_space_admin_policy read,
                          ss_space_admin_policy write, char **uri, ss_error *err)
{
	ss_buf body = SS_BUF_INIT;
	json_t *v = NULL;
	ss_xrpc_call call = {.nsid = NSID_CREATE, .post = true, .auth = true};
	char *u;
	int ret;

	if ((ret = ss_space_admin_check_skey(skey, err)) < 0)
		return ret;
	ss_space_admin_create_body(&body, skey, read, write);
	call.body = body.ptr;
	call.body_len = body.len;
	if ((ret = ss_xrpc_call_send(x, &call, &v, err)) < 0) {
		explain(err, NSID_CREATE, skey);
		goto out;
	}
	u = ss_xrpc_call_str(v, "uri");
	if (!u || strncmp(u, "at://", 5)) {
		free(u);
		ret = ss_error_set(err, SS_ERROR, NSID_CREATE ": the server's answer has no uri");
		goto out;
	}
	*uri = u;
out:
	json_decref(v);
	ss_buf_release(&body);
	return ret;
}

void ss_space_admin_members_free(ss_space_admin_member *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i].did);
	free(list);
}

static bool flag(const json_t *entry, const char *key)
{
	json_t *f = json_object_get(entry, key);

	return !json_is_false(f);
}

int ss_space_admin_members_page(const char *json, size_t len, ss_space_admin_member **list,
                                size_t *n, size_t *alloc, char **cursor, ss_error *err)
{
	json_t *v = json_loadb(json, len, 0, NULL), *members, *e;
	int ret = 0;
	size_t i;

	*cursor = NULL;
	members = json_object_get(v, "members");
	if (!json_is_array(members)) {
		ret = ss_error_set(err, SS_ERROR, NSID_LIST ": the server's answer has no members");
		goto out;
	}
	json_array_foreach(members, i, e)
	{
		const char *did = json_string_value(json_object_get(e, "did"));

		if (!did || !ss_syntax_is_did(did)) {
			ret = ss_error_set(err, SS_ERROR,
			                   NSID_LIST ": the server listed a member without a DID");
			goto out;
		}
		ss_xgrow((void **)list, sizeof(**list), *n + 1, alloc);
		(*list)[*n].did = ss_xstrdup(did);
		(*list)[*n].read = flag(e, "read");
		(*list)[*n].write = flag(e, "write");
		(*n)++;
	}
	*cursor = ss_xrpc_call_str(v, "cursor");
	if (*cursor && !**cursor) {
		free(*cursor);
		*cursor = NULL;
	}
out:
	json_decref(v);
	return ret;
}

int ss_space_admin_list_members(ss_xrpc *x, const char *space, ss_space_admin_member **out,
                                size_t *n, ss_error *err)
{
	ss_space_admin_member *list = NULL;
	size_t count = 0, alloc = 0, pages = 0;
	char *cursor = NULL, *next = NULL;
	ss_buf page = SS_BUF_INIT;
	char limit[16];
	int ret = 0;

	snprintf(limit, sizeof(limit), "%d", SS_SPACE_ADMIN_PAGE);
	do {
		const char *params[] = {"space", space, "limit", limit, "cursor", cursor, NULL};
		size_t before = count;

		if (++pages > SS_SPACE_ADMIN_MAX_PAGES) {
			ret = ss_error_set(err, SS_ETOOBIG, NSID_LIST ": more than %d pages",
			                   SS_SPACE_ADMIN_MAX_PAGES);
			goto out;
		}
		ss_buf_clear(&page);
		if ((ret = ss_xrpc_query(x, NSID_LIST, params, &page, err)) < 0) {
			explain(err, NSID_LIST, space);
			goto out;
		}
		if ((ret = ss_space_admin_members_page(page.ptr, page.len, &list, &count, &alloc,
		                                       &next, err)) < 0)
			goto out;
		if (next && (count == before || (cursor && !strcmp(next, cursor)))) {
			ret = ss_error_set(err, SS_ERROR,
			                   NSID_LIST ": the server's cursor does not move on");
			goto out;
		}
		free(cursor);
		cursor = next;
		next = NULL;
	} while (cursor);
	*out = list;
	*n = count;
	list = NULL;
out:
	ss_space_admin_members_free(list, count);
	free(cursor);
	free(next);
	ss_buf_release(&page);
	return ret;
}

/* POSTs v (stolen) to nsid. */
static int post(ss_xrpc *x, const char *nsid, json_t *v, const char *space, ss_error *err)
{
	size_t len;
	char *body;
	int ret;

	if (!v) /* a string that is not UTF-8 */
		return ss_error_set(err, SS_EINVALID, "%s: '%s' is not UTF-8 text", nsid, space);
	body = ss_xrpc_call_dump(v, &len);
	json_decref(v);
	if ((ret = ss_xrpc_procedure(x, nsid, body, len, NULL, err)) < 0)
		explain(err, nsid, space);
	free(body);
	return ret;
}

int ss_space_admin_put_member(ss_xrpc *x, const char *space, const char *did, bool write,
                              ss_error *err)
{
	return post(x, NSID_PUT,
	            json_pack("{s:s, s:s, s:b, s:b}", "space", space, "did", did, "read", 1,
	                      "write", write),
	            space, err);
}

int ss_space_admin_remove_member(ss_xrpc *x, const char *space, const char *did, ss_error *err)
{
	return post(x, NSID_REMOVE, json_pack("{s:s, s:s}", "space", space, "did", did), space,
	            err);
}
