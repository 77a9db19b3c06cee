#include "core/atproto/space_commit.h"

#include <string.h>

#include "core/util/base64.h"

static const char ctx_prefix[] = "atproto-space-v1";

/* {"$bytes": "<base64>"} of exactly want bytes (or, when want is 0, 1..max bytes). */
static int json_bytes(const json_t *obj, const char *name, uint8_t *out, size_t want, size_t max,
                      size_t *got, ss_error *err)
{
	const json_t *v = json_object_get(json_object_get(obj, name), "$bytes");
	ss_buf b = SS_BUF_INIT;
	int ret = -1;

	if (!json_is_string(v)) {
		ss_error_set(err, SS_EINVALID, "space commit has no '%s' bytes", name);
		goto out;
	}
	b.max = max + 1;
	if (ss_base64_decode(&b, json_string_value(v), json_string_length(v), SS_BASE64_STD, err) <
	        0 ||
	    (want ? b.len != want : b.len == 0 || b.len > max)) {
		ss_error_set(err, SS_EINVALID, "space commit '%s' is not %zu bytes of base64", name,
		             want ? want : max);
		goto out;
	}
	memcpy(out, b.ptr, b.len);
	if (got)
		*got = b.len;
	ret = 0;
out:
	ss_buf_release(&b);
	return ret;
}

int ss_space_commit_from_json(ss_space_commit *out, const json_t *obj, ss_error *err)
{
	const json_t *ver = json_object_get(obj, "ver");
	const json_t *rev = json_object_get(obj, "rev");
	ss_space_commit c;

	memset(&c, 0, sizeof(c));
	if (!json_is_integer(ver))
		return ss_error_set(err, SS_EINVALID, "space commit has no version");
	if (!json_is_string(rev) || json_string_length(rev) == 0 ||
	    json_string_length(rev) > SS_SPACE_REV_MAX ||
	    strlen(json_string_value(rev)) != json_string_length(rev))
		return ss_error_set(err, SS_EINVALID, "space commit has no valid rev");
	c.ver = (long long)json_integer_value(ver);
	memcpy(c.rev, json_string_value(rev), json_string_length(rev));
	if (json_bytes(obj, "hash", c.hash, SS_SHA256_LEN, SS_SHA256_LEN, NULL, err) < 0 ||
	    json_bytes(obj, "ikm", c.ikm, 0, SS_SPACE_IKM_MAX, &c.ikm_len, err) < 0 ||
	    json_bytes(obj, "sig", c.sig, SS_SIG_LEN, SS_SIG_LEN, NULL, err) < 0 ||
	    json_bytes(obj, "mac", c.mac, SS_SHA256_LEN, SS_SHA256_LEN, NULL, err) < 0)
		return -1;
	*out = c;
	return 0;
}

static int put_field(ss_buf *out, const void *p, size_t len, ss_error *err)
{
	char n[2] = {(char)(len >> 8), (char)(len & 0xff)};
	int rc;

	if (len > 0xffff)
		return ss_error_set(err, SS_EINVALID, "space commit field over 65535 bytes");
	if ((rc = ss_buf_put(out, n, 2)) < 0 || (rc = ss_buf_put(out, p, len)) < 0)
		return ss_error_set(err, rc, "space commit context too long");
	return 0;
}

int ss_space_commit_ctx(ss_buf *out, const char *space, const char *author, const char *rev,
                        const uint8_t *ikm, size_t ikm_len, ss_error *err)
{
	size_t start = out->len;
	int rc;

	if ((rc = ss_buf_put(out, ctx_prefix, strlen(ctx_prefix))) < 0) {
		ss_error_set(err, rc, "space commit context too long");
		goto fail;
	}
	if (put_field(out, space, strlen(space), err) < 0 ||
	    put_field(out, author, strlen(author), err) < 0 ||
	    put_field(out, rev, strlen(rev), err) < 0 || put_field(out, ikm, ikm_len, err) < 0)
		goto fail;
	return 0;
fail:
	ss_buf_truncate(out, start);
	return -1;
}

int ss_space_commit_verify_mac(const ss_space_commit *c, const char *space, const char *author,
                               ss_error *err)
{
	ss_buf ctx = SS_BUF_INIT;
	uint8_t key[SS_SHA256_LEN], mac[SS_SHA256_LEN];
	int ret = -1;

	if (ss_space_commit_ctx(&ctx, space, author, c->rev, c->ikm, c->ikm_len, err) < 0 ||
	    ss_crypto_hkdf_expand_sha256(c->ikm, c->ikm_len, ctx.ptr, ctx.len, key, sizeof(key),
	                                 err) < 0)
		goto out;
	ss_crypto_hmac_sha256(key, sizeof(key), c->hash, sizeof(c->hash), mac);
	if (!ss_crypto_equal(mac, c->mac, sizeof(mac))) {
		ss_error_set(err, SS_EINVALID, "space commit MAC does not match its hash");
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&ctx);
	return ret;
}

int ss_space_commit_verify_sig(const ss_space_commit *c, const char *space, const char *author,
                               const ss_pubkey *author_key, ss_error *err)
{
	ss_buf ctx = SS_BUF_INIT;
	int ret = -1;

	if (ss_space_commit_ctx(&ctx, space, author, c->rev, c->ikm, c->ikm_len, err) < 0)
		goto out;
	if (ss_pubkey_verify(author_key, ctx.ptr, ctx.len, c->sig, sizeof(c->sig), true, err) < 0) {
		ss_error_set(err, SS_EINVALID, "space commit is not signed by the author's key");
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&ctx);
	return ret;
}

int ss_space_commit_verify(const ss_space_commit *c, const char *space, const char *author,
                           const char *want_rev, const ss_pubkey *author_key,
                           const uint8_t *want_hash, ss_error *err)
{
	if (c->ver != SS_SPACE_COMMIT_VERSION)
		return ss_error_set(err, SS_EINVALID, "space commit version %lld is not %d", c->ver,
		                    SS_SPACE_COMMIT_VERSION);
	if (want_rev && strcmp(c->rev, want_rev) != 0)
		return ss_error_set(err, SS_EINVALID, "space commit is for rev '%s', not '%s'",
		                    c->rev, want_rev);
	if (ss_space_commit_verify_mac(c, space, author, err) < 0 ||
	    ss_space_commit_verify_sig(c, space, author, author_key, err) < 0)
		return -1;
	if (want_hash && !ss_crypto_equal(want_hash, c->hash, SS_SHA256_LEN))
		return ss_error_set(err, SS_EINVALID,
		                    "records do not give the space commit's hash");
	return 0;
}
