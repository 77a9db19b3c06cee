#include "core/atproto/jwt.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/base64.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

/* Decodes one base64url part into a JSON object. */
static json_t *decode_part(const char *s, size_t len, const char *what, ss_error *err)
{
	ss_buf raw = SS_BUF_INIT;
	json_error_t jerr;
	json_t *v = NULL;

	raw.max = SS_JWT_MAX;
	if (ss_base64_decode(&raw, s, len, SS_BASE64_URL, err) < 0) {
		ss_error_prefix(err, "JWT %s", what);
		goto out;
	}
	v = json_loadb(raw.ptr, raw.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(v)) {
		json_decref(v);
		v = NULL;
		ss_error_set(err, SS_EINVALID, "JWT %s is not a JSON object", what);
	}
out:
	ss_buf_release(&raw);
	return v;
}

static bool int_claim(const json_t *payload, const char *name, long long *out)
{
	const json_t *v = json_object_get(payload, name);

	if (!json_is_integer(v))
		return false;
	*out = (long long)json_integer_value(v);
	return true;
}

int ss_jwt_parse(ss_jwt *out, const char *token, ss_error *err)
{
	size_t len = strnlen(token, SS_JWT_MAX + 1);
	const char *d1 = memchr(token, '.', len);
	const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - token)) : NULL;
	ss_buf sig = SS_BUF_INIT;
	ss_jwt j = {0};

	if (len > SS_JWT_MAX)
		return ss_error_set(err, SS_EINVALID, "JWT over %d bytes", SS_JWT_MAX);
	if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - token)))
		return ss_error_set(err, SS_EINVALID, "not a JWT (three parts joined by '.')");
	if (!(j.header = decode_part(token, (size_t)(d1 - token), "header", err)) ||
	    !(j.payload = decode_part(d1 + 1, (size_t)(d2 - d1 - 1), "payload", err)))
		goto fail;
	sig.max = 1024;
	if (ss_base64_decode(&sig, d2 + 1, len - (size_t)(d2 + 1 - token), SS_BASE64_URL, err) <
	    0) {
		ss_error_prefix(err, "JWT signature");
		goto fail;
	}
	if (sig.len == SS_SIG_LEN) {
		memcpy(j.sig, sig.ptr, SS_SIG_LEN);
		j.sig_len = SS_SIG_LEN;
	}
	ss_buf_release(&sig);
	j.alg = json_string_value(json_object_get(j.header, "alg"));
	j.typ = json_string_value(json_object_get(j.header, "typ"));
	j.kid = json_string_value(json_object_get(j.header, "kid"));
	j.has_exp = int_claim(j.payload, "exp", &j.exp);
	j.has_iat = int_claim(j.payload, "iat", &j.iat);
	j.signed_part = token;
	j.signed_len = (size_t)(d2 - token);
	*out = j;
	return 0;
fail:
	ss_buf_release(&sig);
	json_decref(j.header);
	json_decref(j.payload);
	return -1;
}

void ss_jwt_release(ss_jwt *jwt)
{
	if (!jwt)
		return;
	json_decref(jwt->header);
	json_decref(jwt->payload);
	memset(jwt, 0, sizeof(*jwt));
}

const char *ss_jwt_claim(const ss_jwt *jwt, const char *name)
{
	return json_string_value(json_object_get(jwt->payload, name));
}

int ss_jwt_verify(const ss_jwt *jwt, const ss_pubkey *pk, ss_error *err)
{
	const char *want = ss_pubkey_jwt_alg(pk);

	if (!jwt->alg || strcmp(jwt->alg, want) != 0)
		return ss_error_set(err, SS_EINVALID, "JWT alg is not %s, the signing key's", want);
	if (jwt->sig_len != SS_SIG_LEN)
		return ss_error_set(err, SS_EINVALID, "JWT signature is not 64 bytes (r||s)");
	if (ss_pubkey_verify(pk, jwt->signed_part, jwt->signed_len, jwt->sig, jwt->sig_len, true,
	                     err) < 0)
		return ss_error_prefix(err, "JWT");
	return 0;
}

/* Appends the base64url of v's compact JSON. */
static void put_json(ss_buf *b, const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);

	if (!s)
		s = ss_xstrdup("{}"); /* only an out-of-memory inside jansson */
	ss_base64_encode(b, s, strlen(s), SS_BASE64_URL, false);
	free(s);
}

/* Signs header.claims with key (*out malloc'd); header's alg must be ES256. */
static int sign_with(char **out, const ss_p256_key *key, const json_t *header, const json_t *claims,
                     ss_error *err)
{
	uint8_t sig[SS_SIG_LEN];
	ss_buf b = SS_BUF_INIT;
	int ret = -1;

	if (!header || !json_is_object(claims)) {
		ss_error_set(err, SS_EINVALID, "cannot make a JWT of these claims");
		goto out;
	}
	/* no cap on b: these appends cannot fail */
	put_json(&b, header);
	ss_buf_putc(&b, '.');
	put_json(&b, claims);
	if (ss_p256_sign(key, b.ptr, b.len, sig, err) < 0)
		goto out;
	ss_buf_putc(&b, '.');
	ss_base64_encode(&b, sig, sizeof(sig), SS_BASE64_URL, false);
	*out = ss_buf_detach(&b, NULL);
	ret = 0;
out:
	ss_buf_release(&b);
	return ret;
}

int ss_jwt_sign_es256(char **out, const ss_p256_key *key, const char *typ, const char *kid,
                      const json_t *claims, ss_error *err)
{
	json_t *header = json_pack("{s:s, s:s}", "alg", "ES256", "typ", typ);
	int ret;

	if (header && kid)
		json_object_set_new(header, "kid", json_string(kid));
	ret = sign_with(out, key, header, claims, err);
	json_decref(header);
	return ret;
}

/* The base64url of n bytes as a JSON string. */
static json_t *b64_string(const uint8_t *p, size_t n)
{
	ss_buf b = SS_BUF_INIT;
	json_t *s;

	ss_base64_encode(&b, p, n, SS_BASE64_URL, false);
	s = json_stringn(b.ptr, b.len);
	ss_buf_release(&b);
	return s;
}

int ss_jwt_sign_es256_jwk(char **out, const ss_p256_key *key, const char *typ, const json_t *claims,
                          ss_error *err)
{
	uint8_t xy[64];
	json_t *header;
	int ret;

	if (ss_p256_key_xy(key, xy, err) < 0)
		return -1;
	header = json_pack("{s:s, s:s, s:{s:s, s:s, s:o, s:o}}", "alg", "ES256", "typ", typ, "jwk",
	                   "kty", "EC", "crv", "P-256", "x", b64_string(xy, 32), "y",
	                   b64_string(xy + 32, 32));
	ret = sign_with(out, key, header, claims, err);
	json_decref(header);
	return ret;
}
