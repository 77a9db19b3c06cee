#include "sync/identity/identity.h"

#include <arpa/nameser.h>
#include <pthread.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/atproto/multikey.h"
#include "core/atproto/syntax.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "sync/net/url.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_server.h"

#define DEFAULT_PLC  "https://plc.directory"
#define MAX_DID_DOC  (256 * 1024)
#define MAX_DID_TEXT 4096

static const char *const special_tlds[] = {"test", "localhost", "invalid", "example", "local",
                                           "arpa", "internal",  "onion",   "alt",     NULL};

void ss_identity_release(ss_identity *id)
{
	if (!id)
		return;
	free(id->did);
	free(id->handle);
	free(id->pds);
	free(id->doc);
	memset(id, 0, sizeof(*id));
}

bool ss_identity_is_special_handle(const char *handle)
{
	const char *dot = strrchr(handle, '.');
	const char *tld = dot ? dot + 1 : handle;

	for (size_t i = 0; special_tlds[i]; i++)
		if (!strcasecmp(tld, special_tlds[i]))
			return true;
	return false;
}

/* The DID in one TXT record's text ("did=did:..."), or NULL. */
static char *did_from_txt(const unsigned char *rdata, size_t len)
{
	ss_buf text = SS_BUF_INIT;
	char *did = NULL;

	/* A TXT record is a sequence of <length><bytes> strings, read as one text. */
	for (size_t i = 0; i < len;) {
		size_t n = rdata[i++];

		if (n > len - i)
			break;
		ss_buf_put(&text, rdata + i, n);
		i += n;
	}
	if (!strncmp(text.ptr, "did=", 4) && ss_syntax_is_did(text.ptr + 4))
		did = ss_xstrdup(text.ptr + 4);
	ss_buf_release(&text);
	return did;
}

/* DNS TXT _atproto.<handle>: 0 with *did, or SS_ENOTFOUND. */
static int resolve_dns(const char *handle, char **did)
{
	unsigned char answer[4096];
	ss_buf name = SS_BUF_INIT;
	ns_msg msg;
	ns_rr rr;
	int len, count;

	*did = NULL;
	ss_buf_printf(&name, "_atproto.%s", handle);
	len = res_query(name.ptr, ns_c_in, ns_t_txt, answer, sizeof(answer));
	ss_buf_release(&name);
	if (len < 0 || ns_initparse(answer, len, &msg) < 0)
		return SS_ENOTFOUND;
	count = ns_msg_count(msg, ns_s_an);
	for (int i = 0; i < count && !*did; i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) < 0 || ns_rr_type(rr) != ns_t_txt)
			continue;
		*did = did_from_txt(ns_rr_rdata(rr), ns_rr_rdlen(rr));
	}
	return *did ? 0 : SS_ENOTFOUND;
}

/* GET url into body (capped); SS_ENOTFOUND unless a 200 came back. */
/* A GET's outcome as text: 0 with the body appended to body for a 200 of at most max bytes. */
static int text_answer(const char *url, int rc, const ss_http_response *resp, size_t max,
                       ss_buf *body, ss_error *err)
{
	/* A server failing (after the retries) is the network's failure, not an answer. */
	if (!rc && resp->status != 200)
		rc = ss_error_set(err, resp->status >= 500 ? SS_ENETWORK : SS_ENOTFOUND,
		                  "'%s' answered HTTP %ld", url, resp->status);
	if (!rc && resp->body.len > max)
		rc = ss_error_set(err, SS_ETOOBIG, "'%s' sent more than %zu bytes", url, max);
	if (!rc)
		rc = ss_buf_put(body, resp->body.ptr, resp->body.len);
	return rc;
}

static int get_text(ss_http *http, const char *url, size_t max, ss_buf *body, ss_error *err)
{
	ss_http_request req = {.method = "GET", .url = url};
	ss_http_response resp;
	int ret;

	ss_http_response_init(&resp);
	ret = ss_http_perform(http, &req, &resp, err);
	ret = text_answer(url, ret, &resp, max, body, err);
	ss_http_response_release(&resp);
	return ret;
}

/* https://<handle>/.well-known/atproto-did. */
static int resolve_well_known(ss_http *http, const char *handle, char **did)
{
	ss_error ignored;
	ss_buf url = SS_BUF_INIT, body = SS_BUF_INIT;
	int ret;

	*did = NULL;
	ss_buf_printf(&url, "https://%s/.well-known/atproto-did", handle);
	ret = get_text(http, url.ptr, MAX_DID_TEXT, &body, &ignored);
	if (!ret) {
		while (body.len && strchr(" \t\r\n", body.ptr[body.len - 1]))
			ss_buf_truncate(&body, body.len - 1);
		if (ss_syntax_is_did(body.ptr))
			*did = ss_xstrdup(body.ptr);
	}
	ss_buf_release(&url);
	ss_buf_release(&body);
	return *did ? 0 : SS_ENOTFOUND;
}

int ss_identity_resolve_handle(ss_http *http, const char *handle, char **did, ss_error *err)
{
	const char *resolver = getenv("SKILLSYNC_HANDLE_RESOLVER");
	bool special = ss_identity_is_special_handle(handle);
	ss_xrpc *x = NULL;
	int ret;

	if (!ss_syntax_is_handle(handle))
		return ss_error_set(err, SS_EINVALID, "'%s' is not a valid handle", handle);
	if (!special &&
	    (resolve_dns(handle, did) == 0 || resolve_well_known(http, handle, did) == 0))
		return 0;
	if (!resolver || !*resolver)
		return ss_error_set(err, SS_ENOTFOUND,
		                    special
		                        ? "cannot resolve handle '%s': it is under a special-use "
		                          "domain and SKILLSYNC_HANDLE_RESOLVER is not set"
		                        : "cannot resolve handle '%s': no DNS record and no "
		                          "/.well-known/atproto-did",
		                    handle);
	if ((ret = ss_xrpc_new(&x, http, resolver, err)) < 0)
		return ret;
	ret = ss_xrpc_resolve_handle(x, handle, did, err);
	ss_xrpc_free(x);
	if (ret < 0)
		return ss_error_prefix(err, "cannot resolve handle '%s'", handle);
	if (!ss_syntax_is_did(*did)) {
		ss_error_set(err, SS_EINVALID, "cannot resolve handle '%s': '%s' is not a DID",
		             handle, *did);
		free(*did);
		*did = NULL;
		return SS_EINVALID;
	}
	return 0;
}

/* The URL of did's document. */
static int doc_url(const char *did, ss_buf *url, ss_error *err)
{
	if (!strncmp(did, "did:plc:", 8)) {
		const char *plc = getenv("SKILLSYNC_PLC_URL");
		size_t len;

		if (!plc || !*plc)
			plc = DEFAULT_PLC;
		len = strlen(plc);
		while (len && plc[len - 1] == '/')
			len--;
		return ss_buf_printf(url, "%.*s/%s", (int)len, plc, did);
	}
	if (!strncmp(did, "did:web:", 8)) {
		const char *host = did + 8;

		if (strchr(host, ':'))
			return ss_error_set(err, SS_EINVALID,
			                    "'%s': did:web with a path is not supported", did);
		/* A port is written %3A in a did:web. */
		ss_buf_puts(url, "https://");
		for (const char *p = host; *p; p++) {
			if (!strncasecmp(p, "%3A", 3)) {
				ss_buf_putc(url, ':');
				p += 2;
			} else if (*p == '%') {
				return ss_error_set(err, SS_EINVALID, "'%s' is not a valid did:web",
				                    did);
			} else {
				ss_buf_putc(url, *p);
			}
		}
		return ss_buf_puts(url, "/.well-known/did.json");
	}
	return ss_error_set(err, SS_EINVALID, "'%s': only did:plc and did:web are supported", did);
}

/* Fetches and checks did's document: its id and its PDS. */
static int resolve_did(ss_http *http, const char *did, ss_xrpc_did_doc *doc, char **text,
                       ss_error *err)
{
	ss_buf url = SS_BUF_INIT, body = SS_BUF_INIT;
	int ret;

	memset(doc, 0, sizeof(*doc));
	if ((ret = doc_url(did, &url, err)) < 0)
		goto out;
	if ((ret = get_text(http, url.ptr, MAX_DID_DOC, &body, err)) < 0) {
		ss_error_prefix(err, "cannot get the DID document of '%s'", did);
		goto out;
	}
	if ((ret = ss_xrpc_parse_did_doc(body.ptr, body.len, doc, err)) < 0) {
		ss_error_prefix(err, "'%s'", did);
		goto out;
	}
	if (strcmp(doc->id, did)) {
		ret = ss_error_set(err, SS_EINVALID, "the DID document of '%s' is for '%s'", did,
		                   doc->id);
		goto out;
	}
	if (!doc->pds) {
		ret = ss_error_set(err, SS_EINVALID, "the DID document of '%s' names no PDS", did);
		goto out;
	}
	if ((ret = ss_url_check(doc->pds, err)) < 0)
		goto out;
	*text = ss_buf_detach(&body, NULL);
out:
	if (ret < 0)
		ss_xrpc_did_doc_release(doc);
	ss_buf_release(&url);
	ss_buf_release(&body);
	return ret;
}

/* Checks body, did's document as read: a JSON object whose id is did. */
static int check_doc(const char *did, const ss_buf *body, ss_error *err)
{
	ss_xrpc_did_doc doc;
	int ret;

	memset(&doc, 0, sizeof(doc));
	if ((ret = ss_xrpc_parse_did_doc(body->ptr, body->len, &doc, err)) < 0)
		ss_error_prefix(err, "'%s'", did);
	else if (strcmp(doc.id, did))
		ret = ss_error_set(err, SS_EINVALID, "the DID document of '%s' is for '%s'", did,
		                   doc.id);
	ss_xrpc_did_doc_release(&doc);
	return ret;
}

int ss_identity_did_doc(ss_http *http, const char *did, ss_buf *out, ss_error *err)
{
	ss_buf url = SS_BUF_INIT, body = SS_BUF_INIT;
	int ret;

	if (!ss_syntax_is_did(did)) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' is not a DID", did);
		goto out;
	}
	if ((ret = doc_url(did, &url, err)) < 0)
		goto out;
	if ((ret = get_text(http, url.ptr, MAX_DID_DOC, &body, err)) < 0) {
		ss_error_prefix(err, "cannot get the DID document of '%s'", did);
		goto out;
	}
	if ((ret = check_doc(did, &body, err)) == 0)
		ret = ss_buf_put(out, body.ptr, body.len);
out:
	ss_buf_release(&url);
	ss_buf_release(&body);
	return ret;
}

/* One document of ss_identity_did_docs. */
typedef struct doc_job {
	const char *did;
	ss_buf url;
	ss_buf *out;
	int *rc;
	ss_error *err;
} doc_job;

static int on_doc(ss_http_batch *b, void *payload, int rc, const ss_error *req_err,
                  ss_http_response *resp, ss_error *err)
{
	doc_job *j = payload;

	(void)b, (void)err;
	if (rc < 0)
		*j->err = *req_err;
	else
		rc = text_answer(j->url.ptr, rc, resp, MAX_DID_DOC, j->out, j->err);
	if (rc < 0)
		ss_error_prefix(j->err, "cannot get the DID document of '%s'", j->did);
	else if ((rc = check_doc(j->did, j->out, j->err)) < 0)
		ss_buf_clear(j->out);
	*j->rc = rc;
	return 0; /* one document's failure does not stop the others */
}

void ss_identity_did_docs(ss_http *http, const char *const *dids, size_t n, ss_buf *out, int *rcs,
                          ss_error *errs)
{
	doc_job *jobs = ss_xcalloc(n ? n : 1, sizeof(*jobs));
	ss_http_batch *b = NULL;
	ss_error batch_err;
	int ret;

	ss_error_clear(&batch_err);
	ret = ss_http_batch_new(&b, http, 0, &batch_err);
	for (size_t i = 0; i < n; i++) {
		jobs[i] = (doc_job){dids[i], SS_BUF_INIT, &out[i], &rcs[i], &errs[i]};
		ss_error_clear(&errs[i]);
		rcs[i] = 1; /* not ended yet */
		if (!ss_syntax_is_did(dids[i]))
			rcs[i] = ss_error_set(&errs[i], SS_EINVALID, "'%s' is not a DID", dids[i]);
		else if ((rcs[i] = doc_url(dids[i], &jobs[i].url, &errs[i])) == 0) {
			ss_http_request req = {.method = "GET", .url = jobs[i].url.ptr};

			rcs[i] = 1;
			if (!ret)
				ret = ss_http_batch_add(b, &req, on_doc, &jobs[i], &batch_err);
		}
	}
	if (!ret)
		ret = ss_http_batch_run(b, &batch_err);
	for (size_t i = 0; i < n; i++) {
		if (rcs[i] == 1) { /* the batch could not run it */
			rcs[i] = ret < 0 ? ret : SS_ERROR;
			errs[i] = batch_err;
		}
		ss_buf_release(&jobs[i].url);
	}
	ss_http_batch_free(b);
	free(jobs);
}

static char *lowercase(const char *s)
{
	char *out = ss_xstrdup(s);

	for (char *p = out; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return out;
}

/* True when doc's alsoKnownAs holds at://<handle>. */
static bool names_handle(const ss_xrpc_did_doc *doc, const char *handle)
{
	for (size_t i = 0; doc->also_known_as[i]; i++)
		if (!strncmp(doc->also_known_as[i], "at://", 5) &&
		    !strcasecmp(doc->also_known_as[i] + 5, handle))
			return true;
	return false;
}

/*
 * The handle a DID's document claims, when it is one: valid handle syntax and resolving back to
 * the same DID (anyone can write any alsoKnownAs, another member's or the authority's handle
 * included). NULL otherwise: the DID then stands for the account.
 */
static char *verified_handle(ss_http *http, const char *did, const ss_xrpc_did_doc *doc)
{
	ss_error ignored;
	char *handle, *back = NULL;

	if (!doc->handle || !ss_syntax_is_handle(doc->handle))
		return NULL;
	handle = lowercase(doc->handle);
	if (ss_identity_resolve_handle(http, handle, &back, &ignored) < 0 || strcmp(back, did)) {
		free(handle);
		handle = NULL;
	}
	free(back);
	return handle;
}

int ss_identity_resolve(ss_http *http, const char *handle_or_did, ss_identity *out, ss_error *err)
{
	ss_xrpc_did_doc doc = {0};
	char *handle = NULL, *did = NULL, *text = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!strncmp(handle_or_did, "did:", 4)) {
		if (!ss_syntax_is_did(handle_or_did))
			return ss_error_set(err, SS_EINVALID, "'%s' is not a valid DID",
			                    handle_or_did);
		did = ss_xstrdup(handle_or_did);
	} else {
		if (handle_or_did[0] == '@')
			handle_or_did++;
		if (!ss_syntax_is_handle(handle_or_did))
			return ss_error_set(err, SS_EINVALID, "'%s' is not a valid handle or DID",
			                    handle_or_did);
		handle = lowercase(handle_or_did);
		if ((ret = ss_identity_resolve_handle(http, handle, &did, err)) < 0)
			goto out;
	}
	if ((ret = resolve_did(http, did, &doc, &text, err)) < 0)
		goto out;
	if (handle && !names_handle(&doc, handle)) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "handle '%s' resolves to '%s', but its DID document names '%s'",
		                   handle, did, doc.handle ? doc.handle : "no handle");
		goto out;
	}
	out->did = did;
	out->handle = handle ? handle : verified_handle(http, did, &doc);
	out->pds = ss_xstrdup(doc.pds);
	out->doc = text;
	did = handle = text = NULL;
	ret = 0;
out:
	ss_xrpc_did_doc_release(&doc);
	free(did);
	free(handle);
	free(text);
	return ret;
}

void ss_identity_keys_free(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

/* The #atproto key one PLC operation names (current and legacy forms), or NULL. */
static const char *op_key(const json_t *op)
{
	const json_t *k = json_object_get(json_object_get(op, "verificationMethods"), "atproto");

	if (!json_is_string(k))
		k = json_object_get(op, "signingKey");
	return json_is_string(k) && !strncmp(json_string_value(k), "did:key:", 8)
	           ? json_string_value(k)
	           : NULL;
}

int ss_identity_past_keys(ss_http *http, const char *did, char ***keys, size_t *n, ss_error *err)
{
	ss_buf url = SS_BUF_INIT, body = SS_BUF_INIT;
	json_t *log = NULL, *op;
	size_t i, alloc = 0;
	int ret;

	*keys = NULL;
	*n = 0;
	if (!ss_syntax_is_did(did) || strncmp(did, "did:plc:", 8))
		return ss_error_set(err, SS_ENOTFOUND, "'%s' keeps no key history", did);
	if ((ret = doc_url(did, &url, err)) < 0)
		goto out;
	ss_buf_puts(&url, "/log");
	if ((ret = get_text(http, url.ptr, MAX_DID_DOC, &body, err)) < 0) {
		ss_error_prefix(err, "cannot get the PLC log of '%s'", did);
		goto out;
	}
	if (!json_is_array(log = json_loadb(body.ptr, body.len, 0, NULL))) {
		ret = ss_error_set(err, SS_EINVALID, "the PLC log of '%s' is not a list", did);
		goto out;
	}
	json_array_foreach(log, i, op)
	{
		const char *k = op_key(op);

		if (!k)
			continue;
		ss_xgrow((void **)keys, sizeof(**keys), *n + 1, &alloc);
		(*keys)[(*n)++] = ss_xstrdup(k);
	}
out:
	json_decref(log);
	ss_buf_release(&url);
	ss_buf_release(&body);
	return ret;
}

/* One name of ss_identity_resolve_many, resolved on a thread with a client of its own. */
typedef struct resolve_job {
	pthread_t thread;
	bool started;
	ss_http *http;
	const char *name;
	ss_identity *out;
	int *rc;
	ss_error *err;
} resolve_job;

static void *resolve_run(void *arg)
{
	resolve_job *j = arg;

	*j->rc = ss_identity_resolve(j->http, j->name, j->out, j->err);
	return NULL;
}

/* Names resolved at once by ss_identity_resolve_many, at most (the batches' default too). */
#define RESOLVE_PARALLEL 8

void ss_identity_resolve_many(ss_http *http, const char *const *names, size_t n, ss_identity *out,
                              int *rcs, ss_error *errs)
{
	resolve_job *jobs = ss_xcalloc(n ? n : 1, sizeof(*jobs));

	for (size_t at = 0; at < n; at += RESOLVE_PARALLEL) {
		size_t end = n - at < RESOLVE_PARALLEL ? n : at + RESOLVE_PARALLEL;

		for (size_t i = at; i < end; i++) {
			jobs[i] = (resolve_job){
			    .name = names[i], .out = &out[i], .rc = &rcs[i], .err = &errs[i]};
			memset(&out[i], 0, sizeof(out[i]));
			ss_error_clear(&errs[i]);
			/* the first name on the caller's client, each other on a client of its own
			 * (made here: a libcurl handle belongs to one thread at a time) */
			if (i > at &&
			    ss_http_new(&jobs[i].http, ss_http_get_options(http), &errs[i]) == 0)
				jobs[i].started = pthread_create(&jobs[i].thread, NULL, resolve_run,
				                                 &jobs[i]) == 0;
		}
		for (size_t i = at; i < end; i++)
			if (!jobs[i]
			         .started) { /* the first, or no thread: on the caller's client */
				ss_http *own = jobs[i].http;

				jobs[i].http = http;
				resolve_run(&jobs[i]);
				jobs[i].http = own;
			}
		for (size_t i = at; i < end; i++) {
			if (jobs[i].started) {
				ss_http_stats st;

				pthread_join(jobs[i].thread, NULL);
				ss_http_get_stats(jobs[i].http, &st);
				ss_http_add_stats(http, &st);
			}
			ss_http_free(jobs[i].http);
		}
	}
	free(jobs);
}
