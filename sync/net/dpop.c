#include "sync/net/dpop.h"

#include <jansson.h>
#include <string.h>
#include <time.h>

#include "core/atproto/crypto.h"
#include "core/atproto/jwt.h"
#include "core/util/base64.h"
#include "core/util/buf.h"

/* The base64url (no padding) of n bytes, appended to b. */
static void b64(ss_buf *b, const void *p, size_t n)
{
	ss_base64_encode(b, p, n, SS_BASE64_URL, false);
}

int ss_dpop_proof(char **out, const ss_p256_key *key, const char *method, const char *url,
                  const char *nonce, const char *access_token, ss_error *err)
{
	uint8_t jti[16], ath[SS_SHA256_LEN];
	ss_buf id = SS_BUF_INIT, hash = SS_BUF_INIT;
	json_t *claims;
	int ret;

	if (ss_crypto_random_bytes(jti, sizeof(jti), err) < 0)
		return -1;
	b64(&id, jti, sizeof(jti));
	claims = json_pack("{s:s, s:s, s:s%, s:I}", "jti", id.ptr, "htm", method, "htu", url,
	                   strcspn(url, "?#"), "iat", (json_int_t)time(NULL));
	if (claims && nonce && *nonce)
		json_object_set_new(claims, "nonce", json_string(nonce));
	if (claims && access_token && *access_token) {
		ss_crypto_sha256(access_token, strlen(access_token), ath);
		b64(&hash, ath, sizeof(ath));
		json_object_set_new(claims, "ath", json_string(hash.ptr));
	}
	ret = ss_jwt_sign_es256_jwk(out, key, "dpop+jwt", claims, err);
	json_decref(claims);
	ss_buf_release(&id);
	ss_buf_release(&hash);
	return ret;
}

bool ss_dpop_wants_nonce(const ss_http_response *resp)
{
	json_t *v;
	const char *e;
	bool wants;

	if ((resp->status != 400 && resp->status != 401) || !resp->dpop_nonce[0])
		return false;
	v = json_loadb(resp->body.ptr, resp->body.len, 0, NULL);
	e = json_string_value(json_object_get(v, "error"));
	wants = e && !strcmp(e, "use_dpop_nonce");
	json_decref(v);
	return wants;
}
