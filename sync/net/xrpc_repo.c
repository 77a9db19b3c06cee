/*
 * xrpc_repo.c: the com.atproto.repo.* and com.atproto.sync.* calls skillsync makes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_repo.h"

#define NSID_GET      "com.atproto.repo.getRecord"
#define NSID_PUT      "com.atproto.repo.putRecord"
#define NSID_DELETE   "com.atproto.repo.deleteRecord"
#define NSID_APPLY    "com.atproto.repo.applyWrites"
#define NSID_DESCRIBE "com.atproto.repo.describeRepo"
#define NSID_LATEST   "com.atproto.sync.getLatestCommit"

void ss_xrpc_record_release(ss_xrpc_record *rec)
{
	if (!rec)
		return;
	free(rec->uri);
	free(rec->rkey);
	free(rec->cid);
	free(rec->value_json);
	memset(rec, 0, sizeof(*rec));
}

void ss_xrpc_commit_release(ss_xrpc_commit *c)
{
	if (!c)
		return;
	free(c->cid);
	free(c->rev);
	c->cid = c->rev = NULL;
}

/* The rkey of an at:// URI: its last path segment. */
static char *rkey_of(const char *uri)
{
	const char *slash = uri ? strrchr(uri, '/') : NULL;

	return slash ? ss_xstrdup(slash + 1) : NULL;
}

/* Fills rec from {uri, cid, value}; SS_ERROR when a part is missing. */
static int record_from(const char *nsid, const json_t *obj, ss_xrpc_record *rec, ss_error *err)
{
	json_t *value = json_object_get(obj, "value");

	memset(rec, 0, sizeof(*rec));
	rec->uri = ss_xrpc_call_str(obj, "uri");
	rec->cid = ss_xrpc_call_str(obj, "cid");
	if (!rec->uri || !rec->cid || !json_is_object(value)) {
		ss_xrpc_record_release(rec);
		return ss_error_set(err, SS_ERROR, "%s: the server sent a record without %s", nsid,
		                    !json_is_object(value) ? "a value" : "a uri or cid");
	}
	rec->rkey = rkey_of(rec->uri);
	rec->value_json = ss_xrpc_call_dump(value, &rec->value_len);
	return 0;
}

static void commit_from(const json_t *obj, ss_xrpc_commit *c)
{
	if (!c)
		return;
	c->cid = ss_xrpc_call_str(obj, "cid");
	c->rev = ss_xrpc_call_str(obj, "rev");
}

int ss_xrpc_get_record(ss_xrpc *x, const char *repo, const char *collection, const char *rkey,
                       ss_xrpc_record *out, ss_error *err)
{
	const char *params[] = {"repo", repo, "collection", collection, "rkey", rkey, NULL};
	ss_xrpc_call call = {.nsid = NSID_GET, .params = params, .auth = true};
	json_t *v = NULL;
	int ret;

	if ((ret = ss_xrpc_call_send(x, &call, &v, err)) == 0)
		ret = record_from(NSID_GET, v, out, err);
	json_decref(v);
	return ret;
}

/* POSTs body (stolen) to nsid; *answer gets the parsed answer. */
static int post(ss_xrpc *x, const char *nsid, json_t *body, json_t **answer, ss_error *err)
{
	size_t len;
	char *text = ss_xrpc_call_dump(body, &len);
	ss_xrpc_call call = {
	    .nsid = nsid, .post = true, .body = text, .body_len = len, .auth = true};
	int ret = ss_xrpc_call_send(x, &call, answer, err);

	free(text);
	json_decref(body);
	return ret;
}

int ss_xrpc_put_record(ss_xrpc *x, const ss_xrpc_put *put, ss_xrpc_record *out,
                       ss_xrpc_commit *commit, ss_error *err)
{
	json_t *body, *record = NULL, *v = NULL;
	int ret;

	if ((ret = ss_xrpc__load_object("the record", put->record_json, &record, err)) < 0)
		return ret;
	body = json_pack("{s:s, s:s, s:s, s:o}", "repo", put->repo, "collection", put->collection,
	                 "rkey", put->rkey, "record", record);
	if (put->swap_record)
		json_object_set_new(body, "swapRecord", json_string(put->swap_record));
	else if (put->must_not_exist)
		json_object_set_new(body, "swapRecord", json_null());
	if (put->swap_commit)
		json_object_set_new(body, "swapCommit", json_string(put->swap_commit));
	if ((ret = post(x, NSID_PUT, body, &v, err)) < 0)
		goto out;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->uri = ss_xrpc_call_str(v, "uri");
		out->cid = ss_xrpc_call_str(v, "cid");
		out->rkey = rkey_of(out->uri);
	}
	if (commit)
		commit_from(json_object_get(v, "commit"), commit);
out:
	json_decref(v);
	return ret;
}

int ss_xrpc_delete_record(ss_xrpc *x, const char *repo, const char *collection, const char *rkey,
                          const char *swap_record, ss_xrpc_commit *commit, ss_error *err)
{
	json_t *body, *v = NULL;
	int ret;

	body = json_pack("{s:s, s:s, s:s}", "repo", repo, "collection", collection, "rkey", rkey);
	if (swap_record)
		json_object_set_new(body, "swapRecord", json_string(swap_record));
	if ((ret = post(x, NSID_DELETE, body, &v, err)) == 0 && commit)
		commit_from(json_object_get(v, "commit"), commit);
	json_decref(v);
	return ret;
}

void ss_xrpc__repo_info_from(const json_t *v, ss_xrpc_repo_info *out)
{
	json_t *cols = json_object_get(v, "collections"), *c;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->did = ss_xrpc_call_str(v, "did");
	out->handle = ss_xrpc_call_str(v, "handle");
	out->handle_is_correct = json_is_true(json_object_get(v, "handleIsCorrect"));
	out->collections = ss_xcalloc(json_array_size(cols) + 1, sizeof(char *));
	json_array_foreach(cols, i, c)
	{
		if (json_is_string(c))
			out->collections[n++] = ss_xstrdup(json_string_value(c));
	}
}

int ss_xrpc_describe_repo(ss_xrpc *x, const char *repo, ss_xrpc_repo_info *out, ss_error *err)
{
	const char *params[] = {"repo", repo, NULL};
	ss_xrpc_call call = {.nsid = NSID_DESCRIBE, .params = params, .auth = true};
	json_t *v = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = ss_xrpc_call_send(x, &call, &v, err)) < 0)
		return ret;
	ss_xrpc__repo_info_from(v, out);
	json_decref(v);
	return 0;
}

void ss_xrpc_repo_info_release(ss_xrpc_repo_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; info->collections && info->collections[i]; i++)
		free(info->collections[i]);
	free(info->collections);
	free(info->did);
	free(info->handle);
	memset(info, 0, sizeof(*info));
}

int ss_xrpc_get_latest_commit(ss_xrpc *x, const char *did, ss_xrpc_commit *out, ss_error *err)
{
	const char *params[] = {"did", did, NULL};
	ss_xrpc_call call = {.nsid = NSID_LATEST, .params = params, .auth = true};
	json_t *v = NULL;
	int ret;

	if ((ret = ss_xrpc_call_send(x, &call, &v, err)) < 0)
		return ret;
	commit_from(v, out);
	json_decref(v);
	if (!out->cid || !out->rev) {
		ss_xrpc_commit_release(out);
		return ss_error_set(err, SS_ERROR, "%s: the server's answer has no cid or rev",
		                    NSID_LATEST);
	}
	return 0;
}
