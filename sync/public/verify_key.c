/*
 * verify_key.c: the node cache's paths and the one repo commit signature check (see
 * sync/public/verify.h); the member's key comes from the identity cache
 * (sync/identity/idcache.h).
 */
#include <string.h>

#include "core/atproto/multikey.h"
#include "core/atproto/pubkey.h"
#include "sync/identity/idcache.h"
#include "sync/public/verify.h"

void ss_verify_cache_dir(ss_buf *out, const char *state_path)
{
	const char *slash = strrchr(state_path, '/');

	if (slash)
		ss_buf_put(out, state_path, (size_t)(slash - state_path) + 1);
	ss_buf_puts(out, "verified");
}

void ss_verify_cache_path(ss_buf *out, const char *cache_dir, const char *did, const char *ext)
{
	ss_buf_printf(out, "%s/", cache_dir);
	/* A DID is [A-Za-z0-9._:%-] (sync/identity/identity.c): no '/', and ':' and '%' become '_'.
	 */
	for (const char *p = did; *p; p++)
		ss_buf_putc(out, *p == ':' || *p == '%' ? '_' : *p);
	ss_buf_printf(out, ".%s", ext);
}

typedef struct signed_msg {
	const void *msg;
	size_t len;
	const uint8_t *sig;
	size_t siglen;
} signed_msg;

static int check(const ss_pubkey *pk, void *arg, ss_error *err)
{
	const signed_msg *m = arg;

	return ss_pubkey_verify(pk, m->msg, m->len, m->sig, m->siglen, true, err);
}

int ss_verify_signature(ss_idcache *ids, ss_http *http, const char *did, const void *msg,
                        size_t len, const uint8_t *sig, size_t siglen, size_t *requests,
                        ss_error *err)
{
	signed_msg m = {msg, len, sig, siglen};
	ss_idcache *own = ids ? NULL : ss_idcache_new(http, NULL);
	ss_idcache *c = ids ? ids : own;
	size_t before = ss_idcache_requests(c);
	int ret = ss_idcache_verify(c, did, check, &m, err);

	*requests += ss_idcache_requests(c) - before;
	ss_idcache_free(own);
	return ret;
}
