#include "core/atproto/pubkey.h"

#include <stdlib.h>

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "core/atproto/crypto_priv.h"
#include "core/util/mem.h"

struct ss_pubkey {
	ss_curve curve;
	EVP_PKEY *pkey;
	uint8_t point[SS_POINT_LEN];
};

int ss_pubkey_from_point(ss_pubkey **out, ss_curve curve, const uint8_t *point, size_t len,
                         ss_error *err)
{
	EVP_PKEY *pkey;

	if (curve != SS_CURVE_P256 && curve != SS_CURVE_K256)
		return ss_error_set(err, SS_EINVALID, "unknown curve");
	if (!((len == SS_POINT_LEN && (point[0] == 2 || point[0] == 3)) ||
	      (len == 65 && point[0] == 4)))
		return ss_error_set(err, SS_EINVALID, "not an encoded %s point",
		                    curve == SS_CURVE_K256 ? "secp256k1" : "P-256");
	pkey = ss_crypto__pkey_from(curve, point, len, NULL, EVP_PKEY_PUBLIC_KEY);
	ERR_clear_error();
	if (!pkey)
		return ss_error_set(err, SS_EINVALID, "not a %s public key",
		                    curve == SS_CURVE_K256 ? "secp256k1" : "P-256");
	*out = ss_xcalloc(1, sizeof(**out));
	(*out)->curve = curve;
	(*out)->pkey = pkey;
	ss_crypto__compress(point, len, (*out)->point);
	return 0;
}

void ss_pubkey_free(ss_pubkey *pk)
{
	if (!pk)
		return;
	EVP_PKEY_free(pk->pkey);
	free(pk);
}

ss_curve ss_pubkey_curve(const ss_pubkey *pk)
{
	return pk->curve;
}

const uint8_t *ss_pubkey_point(const ss_pubkey *pk)
{
	return pk->point;
}

const char *ss_pubkey_jwt_alg(const ss_pubkey *pk)
{
	return pk->curve == SS_CURVE_K256 ? "ES256K" : "ES256";
}

int ss_pubkey_verify(const ss_pubkey *pk, const void *msg, size_t len, const uint8_t *sig,
                     size_t siglen, bool require_low_s, ss_error *err)
{
	EVP_MD_CTX *ctx = NULL;
	ECDSA_SIG *es = NULL;
	BIGNUM *r = NULL, *s = NULL;
	unsigned char *der = NULL;
	int derlen, rc, ret = -1;

	if (siglen != SS_SIG_LEN)
		return ss_error_set(err, SS_EINVALID, "signature is %zu bytes, not 64 (r||s)",
		                    siglen);
	if (require_low_s && ss_crypto__high_s(pk->curve, sig + 32))
		return ss_error_set(err, SS_EINVALID, "signature is not low-S");
	r = BN_bin2bn(sig, 32, NULL);
	s = BN_bin2bn(sig + 32, 32, NULL);
	es = ECDSA_SIG_new();
	if (!r || !s || !es || !ECDSA_SIG_set0(es, r, s)) {
		BN_free(r);
		BN_free(s);
		ss_crypto__error(err, "cannot check a signature");
		goto out;
	}
	derlen = i2d_ECDSA_SIG(es, &der);
	ctx = EVP_MD_CTX_new();
	if (derlen <= 0 || !ctx ||
	    EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, pk->pkey) != 1) {
		ss_crypto__error(err, "cannot check a signature");
		goto out;
	}
	/* 1 good, 0 bad, negative for a malformed signature (r or s zero or past n). */
	rc = EVP_DigestVerify(ctx, der, (size_t)derlen, msg, len);
	ERR_clear_error();
	if (rc != 1) {
		ss_error_set(err, SS_EINVALID, "bad signature");
		goto out;
	}
	ret = 0;
out:
	OPENSSL_free(der);
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return ret;
}
