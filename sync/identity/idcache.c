/* idcache.c: one identity cache for both transports (see sync/identity/idcache.h). */
#include "sync/identity/idcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/util/mem.h"
#include "sync/identity/identity.h"
#include "sync/net/xrpc_server.h"

struct ss_idcache {
	ss_http *http;
	ss_state *st;
	ss_state_ident *run; /* read this run (or known without a state): never read again */
	size_t nrun, alloc;
	size_t requests;
};

ss_idcache *ss_idcache_new(ss_http *http, ss_state *st)
{
	ss_idcache *c = ss_xcalloc(1, sizeof(*c));

	c->http = http;
	c->st = st;
	return c;
}

void ss_idcache_free(ss_idcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrun; i++)
		ss_state_ident_release(&c->run[i]);
	free(c->run);
	free(c);
}

size_t ss_idcache_requests(const ss_idcache *c)
{
	return c ? c->requests : 0;
}

static char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

static void copy_ident(ss_state_ident *to, const ss_state_ident *from)
{
	to->did = dup_or_null(from->did);
	to->handle = dup_or_null(from->handle);
	to->pds = dup_or_null(from->pds);
	to->space_host = dup_or_null(from->space_host);
	to->key = dup_or_null(from->key);
	to->prev_key = dup_or_null(from->prev_key);
	to->resolved_at = from->resolved_at;
}

static ss_state_ident *run_find(ss_idcache *c, const char *did)
{
	for (size_t i = 0; i < c->nrun; i++)
		if (!strcmp(c->run[i].did, did))
			return &c->run[i];
	return NULL;
}

/* Keeps id for the run (and in the state: best effort, a cache). */
static void keep(ss_idcache *c, const ss_state_ident *id)
{
	ss_state_ident *slot = run_find(c, id->did);
	ss_error ignored;

	if (slot) {
		ss_state_ident_release(slot);
	} else {
		ss_xgrow((void **)&c->run, sizeof(*c->run), c->nrun + 1, &c->alloc);
		slot = &c->run[c->nrun++];
	}
	copy_ident(slot, id);
	if (c->st)
		(void)ss_state_ident_put(c->st, id, &ignored);
}

/* True when the document's alsoKnownAs names at://<handle>. */
static bool names_handle(const ss_xrpc_did_doc *doc, const char *handle)
{
	for (size_t i = 0; handle && doc->also_known_as[i]; i++)
		if (!strncmp(doc->also_known_as[i], "at://", 5) &&
		    !strcasecmp(doc->also_known_as[i] + 5, handle))
			return true;
	return false;
}

/* What did's document text says, into out, what was kept (kept, may be empty) carried over. */
static int from_doc(const char *did, const ss_buf *text, const ss_state_ident *kept,
                    ss_state_ident *out, ss_error *err)
{
	ss_xrpc_did_doc doc;
	ss_pubkey *pk = NULL;
	json_t *root = NULL;
	char *key = NULL, *host = NULL;
	ss_error ignored;
	int ret;

	memset(&doc, 0, sizeof(doc));
	memset(out, 0, sizeof(*out));
	if ((ret = ss_xrpc_parse_did_doc(text->ptr, text->len, &doc, err)) < 0)
		goto out;
	root = json_loadb(text->ptr, text->len, 0, NULL);
	/* A document naming no key is kept as such: a signature then fails, saying so. */
	if (ss_multikey_from_did_doc(&pk, root, "#atproto", &ignored) == 0)
		key = ss_multikey_of_pubkey(pk);
	if (ss_xrpc_did_doc_space_host(text->ptr, text->len, &host, &ignored) < 0)
		host = NULL;
	out->did = ss_xstrdup(did);
	/* the verified handle stays while the document still names it */
	out->handle = names_handle(&doc, kept->handle) ? ss_xstrdup(kept->handle) : NULL;
	out->pds = dup_or_null(doc.pds);
	out->space_host = host;
	out->key = key;
	out->prev_key =
	    dup_or_null(kept->key && (!key || strcmp(kept->key, key)) ? kept->key : kept->prev_key);
	out->resolved_at = (int64_t)time(NULL);
	host = key = NULL;
out:
	free(host);
	free(key);
	ss_pubkey_free(pk);
	json_decref(root);
	ss_xrpc_did_doc_release(&doc);
	return ret;
}

/* did's document read now into out, what was kept (kept, may be empty) carried over. */
static int resolve(ss_idcache *c, const char *did, const ss_state_ident *kept, ss_state_ident *out,
                   ss_error *err)
{
	ss_buf text = SS_BUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	c->requests++;
	if ((ret = ss_identity_did_doc(c->http, did, &text, err)) == 0)
		ret = from_doc(did, &text, kept, out, err);
	ss_buf_release(&text);
	return ret;
}

/* What the state keeps for did (empty when nothing), and whether it is fresh enough to use. */
static bool kept_fresh(ss_idcache *c, const char *did, ss_state_ident *kept)
{
	long long age;
	ss_error ignored;

	if (!c->st || ss_state_ident_get(c->st, did, kept, &ignored) < 0)
		memset(kept, 0, sizeof(*kept));
	age = (long long)time(NULL) - (long long)kept->resolved_at;
	return kept->resolved_at && kept->key && age >= 0 && age < SS_IDENTITY_TTL_S;
}

void ss_idcache_keep_doc(ss_idcache *c, const char *did, const char *handle, const char *doc)
{
	ss_state_ident kept = {.handle = handle}, now;
	ss_buf text = SS_BUF_INIT;
	ss_error ignored;

	ss_buf_puts(&text, doc);
	if (from_doc(did, &text, &kept, &now, &ignored) == 0) {
		keep(c, &now);
		ss_state_ident_release(&now);
	}
	ss_buf_release(&text);
}

void ss_idcache_prefetch(ss_idcache *c, const char *const *dids, size_t n)
{
	const char **want = ss_xcalloc(n ? n : 1, sizeof(*want));
	ss_state_ident *kept = ss_xcalloc(n ? n : 1, sizeof(*kept));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool dup = run_find(c, dids[i]) != NULL;

		for (size_t j = 0; j < k && !dup; j++)
			dup = !strcmp(want[j], dids[i]);
		if (dup)
			continue;
		if (kept_fresh(c, dids[i], &kept[k]))
			ss_state_ident_release(&kept[k]);
		else
			want[k++] = dids[i];
	}
	/* one document alone is read when it is needed, as before */
	if (k > 1) {
		ss_buf *text = ss_xcalloc(k, sizeof(*text));
		int *rcs = ss_xcalloc(k, sizeof(*rcs));
		ss_error *errs = ss_xcalloc(k, sizeof(*errs));

		ss_identity_did_docs(c->http, want, k, text, rcs, errs);
		for (size_t i = 0; i < k; i++) {
			ss_state_ident now;
			ss_error ignored;

			c->requests++;
			/* a failure is left to the read when the identity is needed: it says why */
			if (rcs[i] == 0 &&
			    from_doc(want[i], &text[i], &kept[i], &now, &ignored) == 0) {
				keep(c, &now);
				ss_state_ident_release(&now);
			}
			ss_buf_release(&text[i]);
		}
		free(text);
		free(rcs);
		free(errs);
	}
	for (size_t i = 0; i < k; i++)
		ss_state_ident_release(&kept[i]);
	free(kept);
	free(want);
}

int ss_idcache_get(ss_idcache *c, const char *did, bool fresh, ss_state_ident *out, bool *read_now,
                   ss_error *err)
{
	ss_state_ident kept, now;
	const ss_state_ident *run = run_find(c, did);
	int ret;

	memset(out, 0, sizeof(*out));
	if (read_now)
		*read_now = false;
	if (run) { /* read this run already: as fresh as it gets */
		copy_ident(out, run);
		if (read_now)
			*read_now = true;
		return 0;
	}
	if (kept_fresh(c, did, &kept) && !fresh) {
		*out = kept;
		return 0;
	}
	ret = resolve(c, did, &kept, &now, err);
	ss_state_ident_release(&kept);
	if (ret < 0)
		return ret;
	keep(c, &now);
	*out = now;
	if (read_now)
		*read_now = true;
	return 0;
}

static void set_str(const char **field, const char *value)
{
	free((void *)(uintptr_t)*field);
	*field = ss_xstrdup(value);
}

void ss_idcache_note(ss_idcache *c, const char *did, const char *handle, const char *pds)
{
	ss_state_ident *run = run_find(c, did), id;
	ss_error ignored;

	memset(&id, 0, sizeof(id));
	if (run)
		copy_ident(&id, run);
	else if (!c->st || ss_state_ident_get(c->st, did, &id, &ignored) < 0)
		id.did = ss_xstrdup(did);
	if (handle)
		set_str(&id.handle, handle);
	if (pds)
		set_str(&id.pds, pds);
	if (run)
		keep(c, &id);
	else if (c->st)
		(void)ss_state_ident_put(c->st, &id, &ignored);
	ss_state_ident_release(&id);
}

/* 0 when the key (a did:key) made the signature check passes. */
static int try_key(const char *key, ss_idcache_check_fn check, void *arg)
{
	ss_pubkey *pk = NULL;
	ss_error ignored;
	int ret = -1;

	if (key && ss_multikey_from_did_key(&pk, key, &ignored) == 0)
		ret = check(pk, arg, &ignored);
	ss_pubkey_free(pk);
	return ret;
}

/* A key of did's PLC history (other than the current) that makes the check; NULL if none. */
static char *past_key(ss_idcache *c, const char *did, const char *current,
                      ss_idcache_check_fn check, void *arg)
{
	char **keys = NULL, *found = NULL;
	size_t n = 0;
	ss_error ignored;

	c->requests++;
	if (ss_identity_past_keys(c->http, did, &keys, &n, &ignored) < 0)
		return NULL;
	for (size_t i = n; i-- > 0 && !found;)
		if ((!current || strcmp(keys[i], current)) && try_key(keys[i], check, arg) == 0)
			found = ss_xstrdup(keys[i]);
	ss_identity_keys_free(keys, n);
	return found;
}

int ss_idcache_verify(ss_idcache *c, const char *did, ss_idcache_check_fn check, void *arg,
                      ss_error *err)
{
	ss_state_ident id;
	bool read_now = false;
	char *old = NULL;
	int ret;

	if ((ret = ss_idcache_get(c, did, false, &id, &read_now, err)) < 0)
		return ret;
	if (try_key(id.key, check, arg) == 0)
		goto out;
	if (!read_now) {
		/* the kept key failed: the document once more, in case the key rotated */
		ss_state_ident_release(&id);
		if ((ret = ss_idcache_get(c, did, true, &id, NULL, err)) < 0)
			return ret;
		if (try_key(id.key, check, arg) == 0)
			goto out;
	}
	if (id.prev_key && (!id.key || strcmp(id.prev_key, id.key)) &&
	    try_key(id.prev_key, check, arg) == 0)
		old = ss_xstrdup(id.prev_key);
	else
		old = past_key(c, did, id.key, check, arg);
	if (old)
		ret =
		    ss_error_set(err, SS_EINVALID,
		                 "signed by the previous key of %s (%s), not by the one its DID "
		                 "document names now: a key rotation or PDS move its repo has not "
		                 "caught up with; its versions are taken once it signs with the "
		                 "current key",
		                 did, old);
	else if (!id.key)
		ret = ss_error_set(err, SS_EINVALID, "the DID document of %s names no #atproto key",
		                   did);
	else
		ret = ss_error_set(err, SS_EINVALID,
		                   "the signature does not match the #atproto key of %s", did);
out:
	free(old);
	ss_state_ident_release(&id);
	return ret;
}

char *ss_idcache_moved_pds(ss_idcache *c, const char *did, const char *pds, int code)
{
	ss_state_ident id;
	ss_error ignored;
	char *other = NULL;

	if (!c || (code != SS_ENETWORK && code != SS_ENOTFOUND) ||
	    ss_idcache_get(c, did, true, &id, NULL, &ignored) < 0)
		return NULL;
	if (id.pds && (!pds || strcmp(id.pds, pds)))
		other = ss_xstrdup(id.pds);
	ss_state_ident_release(&id);
	return other;
}
