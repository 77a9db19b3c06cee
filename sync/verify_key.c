/*
 * verify_key.c: a member's signing key, cached for SS_VERIFY_KEY_TTL_S in the clone
 * (<cache_dir>/<did>.key: "<did:key> <unix time it was read>"), and the one commit signature
 * check (see sync/verify.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/crypto.h"
#include "core/fs.h"
#include "core/mem.h"
#include "core/multikey.h"
#include "sync/identity.h"
#include "sync/verify.h"

#define MAX_KEY_FILE 512

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
	/* A DID is [A-Za-z0-9._:%-] (sync/identity.c): no '/', and ':' and '%' become '_'. */
	for (const char *p = did; *p; p++)
		ss_buf_putc(out, *p == ':' || *p == '%' ? '_' : *p);
	ss_buf_printf(out, ".%s", ext);
}

/* The cached key and when it was read; false when there is none. */
static bool cached_key(const char *cache_dir, const char *did, char **key, long long *when)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	ss_error ignored;
	char k[MAX_KEY_FILE];
	bool ok = false;

	*key = NULL;
	if (!cache_dir)
		return false;
	ss_verify_cache_path(&path, cache_dir, did, "key");
	if (ss_fs_read_file(&text, path.ptr, MAX_KEY_FILE - 1, &ignored) == 0 &&
	    sscanf(text.ptr, "%511s %lld", k, when) == 2) {
		*key = ss_xstrdup(k);
		ok = true;
	}
	ss_buf_release(&path);
	ss_buf_release(&text);
	return ok;
}

static void save_key(const char *cache_dir, const char *did, const char *key)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	ss_error ignored;

	if (!cache_dir)
		return;
	ss_verify_cache_path(&path, cache_dir, did, "key");
	ss_buf_printf(&text, "%s %lld\n", key, (long long)time(NULL));
	if (ss_fs_mkdir_p(cache_dir, 0700, &ignored) == 0)
		(void)ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, &ignored);
	ss_buf_release(&path);
	ss_buf_release(&text);
}

/* 0 when key (a did:key) signed msg. */
static int check(const char *key, const void *msg, size_t len, const uint8_t *sig, size_t siglen,
                 ss_error *err)
{
	ss_pubkey *pk = NULL;
	int ret = ss_pubkey_from_did_key(&pk, key, err);

	if (!ret)
		ret = ss_sig_verify(pk, msg, len, sig, siglen, true, err);
	ss_pubkey_free(pk);
	return ret;
}

int ss_verify_signature(ss_http *http, const char *cache_dir, const char *did, const void *msg,
                        size_t len, const uint8_t *sig, size_t siglen, size_t *requests,
                        ss_error *err)
{
	char *old = NULL, *now = NULL;
	long long when = 0;
	ss_error ignored;
	bool have = cached_key(cache_dir, did, &old, &when);
	int ret;

	if (have && time(NULL) - when < SS_VERIFY_KEY_TTL_S && time(NULL) >= when &&
	    check(old, msg, len, sig, siglen, &ignored) == 0) {
		free(old);
		return 0;
	}
	(*requests)++;
	if ((ret = ss_identity_atproto_key(http, did, &now, err)) < 0)
		goto out;
	if (check(now, msg, len, sig, siglen, &ignored) == 0) {
		save_key(cache_dir, did, now);
		goto out;
	}
	if (have && strcmp(old, now) && check(old, msg, len, sig, siglen, &ignored) == 0)
		ret =
		    ss_error_set(err, SS_EINVALID,
		                 "the commit is signed by a previous key of '%s' (%s), not by the "
		                 "key its DID document names now: a key rotation or PDS move the "
		                 "repo has not caught up with",
		                 did, old);
	else
		ret = ss_error_set(err, SS_EINVALID,
		                   "the commit's signature does not match the #atproto key of '%s'",
		                   did);
	save_key(cache_dir, did, now);
out:
	free(old);
	free(now);
	return ret;
}
