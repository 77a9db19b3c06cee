/*
 * xrpc_apply.c: com.atproto.repo.applyWrites, split into requests the PDS accepts.
 */
#include <stdlib.h>
#include <string.h>

#include "core/atproto/pds.h"
#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_repo.h"

#define NSID_APPLY "com.atproto.repo.applyWrites"
/* Room kept in each request for `"swapCommit":"<cid>",` (a CID is ~60 characters). */
#define SWAP_ROOM 160

void ss_xrpc_apply_result_release(ss_xrpc_apply_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nresults; i++)
		ss_xrpc_record_release(&r->results[i]);
	free(r->results);
	ss_xrpc_commit_release(&r->commit);
	memset(r, 0, sizeof(*r));
}

/* The write's $type: the method's #create, #update or #delete (malloc'd). */
static char *type_of(const char *nsid, int op)
{
	ss_buf b = SS_BUF_INIT;

	ss_buf_printf(&b, "%s#%s", nsid,
	              op == SS_XRPC_CREATE   ? "create"
	              : op == SS_XRPC_UPDATE ? "update"
	                                     : "delete");
	return ss_buf_detach(&b, NULL);
}

/* The JSON text of one write (malloc'd). */
static int write_text(const char *nsid, const ss_xrpc_write *w, size_t i, char **out, size_t *len,
                      ss_error *err)
{
	json_t *o, *value = NULL;
	char *type;
	int ret;

	if (w->op != SS_XRPC_CREATE && w->op != SS_XRPC_UPDATE && w->op != SS_XRPC_DELETE)
		return ss_error_set(err, SS_EINVALID, "write %zu has an unknown operation", i);
	type = type_of(nsid, w->op);
	o = json_pack("{s:s, s:s, s:s}", "$type", type, "collection", w->collection, "rkey",
	              w->rkey);
	free(type);
	if (w->op != SS_XRPC_DELETE) {
		if ((ret = ss_xrpc__load_object("the record", w->value_json, &value, err)) < 0) {
			json_decref(o);
			return ss_error_prefix(err, "write of '%s'", w->rkey);
		}
		json_object_set_new(o, "value", value);
	}
	*out = ss_xrpc_call_dump(o, len);
	json_decref(o);
	return 0;
}

/* Adds the answer's results (one per write of the request) to out. An answer without a CID for
 * a written record says nothing sure about what landed: an error (the caller asks the server
 * later), none of its results taken. The commit is absent when the server made none. */
static int take_results(const json_t *v, const ss_xrpc_write *writes, size_t n,
                        ss_xrpc_apply_result *out, size_t *alloc, ss_error *err)
{
	json_t *results = json_object_get(v, "results"), *commit = json_object_get(v, "commit");

	for (size_t i = 0; i < n; i++)
		if (writes[i].op != SS_XRPC_DELETE &&
		    !json_is_string(json_object_get(json_array_get(results, i), "cid")))
			return ss_error_set(
			    err, SS_ERROR,
			    "the server's answer to applyWrites gives no CID for '%s'",
			    writes[i].rkey);
	ss_xgrow((void **)&out->results, sizeof(*out->results), out->nresults + n, alloc);
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(results, i);
		ss_xrpc_record *rec = &out->results[out->nresults++];

		memset(rec, 0, sizeof(*rec));
		rec->rkey = ss_xstrdup(writes[i].rkey);
		rec->uri = ss_xrpc_call_str(r, "uri");
		rec->cid = ss_xrpc_call_str(r, "cid");
	}
	if (json_is_object(commit)) {
		ss_xrpc_commit_release(&out->commit);
		out->commit.cid = ss_xrpc_call_str(commit, "cid");
		out->commit.rev = ss_xrpc_call_str(commit, "rev");
	}
	return 0;
}

/* Both applyWrites: nsid's, with "space" first when space is not NULL. */
static int apply(ss_xrpc *x, const char *nsid, const char *space, const char *repo,
                 const ss_xrpc_write *writes, size_t n, const char *swap_commit,
                 ss_xrpc_apply_result *out, ss_error *err)
{
	char **texts = ss_xcalloc(n ? n : 1, sizeof(char *));
	size_t *lens = ss_xcalloc(n ? n : 1, sizeof(size_t));
	size_t *sizes = ss_xcalloc(n ? n : 1, sizeof(size_t)); /* with the comma */
	ss_buf body = SS_BUF_INIT;
	json_t *jrepo = json_string(repo), *jspace = space ? json_string(space) : NULL;
	char *space_text = jspace ? ss_xrpc_call_dump(jspace, NULL) : NULL, *repo_text = NULL,
	     *swap = swap_commit ? ss_xstrdup(swap_commit) : NULL;
	size_t alloc = 0, start = 0, repo_len;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!jrepo) {
		ret = ss_error_set(err, SS_EINVALID, "repo '%s' is not valid UTF-8", repo);
		goto out;
	}
	repo_text = ss_xrpc_call_dump(jrepo, &repo_len);
	for (size_t i = 0; i < n; i++) {
		if ((ret = write_text(nsid, &writes[i], i, &texts[i], &lens[i], err)) < 0)
			goto out;
		sizes[i] = lens[i] + 1;
	}
	while (start < n) {
		size_t overhead = strlen("{\"repo\":,\"writes\":[]}") + repo_len + SWAP_ROOM +
		                  (space_text ? strlen(space_text) + 16 : 0);
		size_t end;
		/* Sent once, on a fresh connection: a second send of writes that landed (libcurl
		 * resends by itself when a reused connection closes before the answer) would be
		 * refused as a swap conflict, or in a space as a concurrent create or delete
		 * (RecordAlreadyExists, RecordNotFound), so the push would wrongly say "pull
		 * first" and drop its journal. A lost answer is a network failure that the
		 * journal's recovery settles (sync/push_recover.c). */
		ss_xrpc_call call = {.nsid = nsid, .post = true, .auth = true, .once = true};
		json_t *v = NULL;

		end = start + ss_pds_batch_fit(sizes + start, n - start,
		                               overhead < SS_PDS_MAX_REQUEST
		                                   ? SS_PDS_MAX_REQUEST - overhead
		                                   : 0);
		ss_buf_clear(&body);
		ss_buf_putc(&body, '{');
		if (space_text)
			ss_buf_printf(&body, "\"space\":%s,", space_text);
		ss_buf_printf(&body, "\"repo\":%s,", repo_text);
		if (swap) {
			json_t *js = json_string(swap);
			char *t = js ? ss_xrpc_call_dump(js, NULL) : ss_xstrdup("null");

			ss_buf_printf(&body, "\"swapCommit\":%s,", t);
			free(t);
			json_decref(js);
		}
		ss_buf_puts(&body, "\"writes\":[");
		for (size_t i = start; i < end; i++) {
			if (i > start)
				ss_buf_putc(&body, ',');
			ss_buf_put(&body, texts[i], lens[i]);
		}
		ss_buf_puts(&body, "]}");
		call.body = body.ptr;
		call.body_len = body.len;
		out->nrequests++;
		if ((ret = ss_xrpc_call_send(x, &call, &v, err)) < 0)
			goto out;
		ret = take_results(v, writes + start, end - start, out, &alloc, err);
		json_decref(v);
		if (ret < 0)
			goto out;
		if (out->commit.cid) {
			free(swap);
			swap = ss_xstrdup(out->commit.cid);
		}
		start = end;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	free(sizes);
	free(repo_text);
	free(space_text);
	free(swap);
	json_decref(jrepo);
	json_decref(jspace);
	ss_buf_release(&body);
	return ret;
}

int ss_xrpc_apply_writes(ss_xrpc *x, const char *repo, const ss_xrpc_write *writes, size_t n,
                         const char *swap_commit, ss_xrpc_apply_result *out, ss_error *err)
{
	return apply(x, NSID_APPLY, NULL, repo, writes, n, swap_commit, out, err);
}

int ss_xrpc_apply_writes_space(ss_xrpc *x, const char *nsid, const char *space, const char *repo,
                               const ss_xrpc_write *writes, size_t n, ss_xrpc_apply_result *out,
                               ss_error *err)
{
	if (!space)
		return ss_error_set(err, SS_EINVALID, "%s needs a space", nsid);
	return apply(x, nsid, space, repo, writes, n, NULL, out, err);
}
