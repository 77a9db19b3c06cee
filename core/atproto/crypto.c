#include "core/atproto/crypto.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include "core/atproto/multikey.h"
#include "core/util/mem.h"

struct ss_p256_key {
	EVP_PKEY *pkey;
};

struct ss_pubkey {
	ss_curve curve;
	EVP_PKEY *pkey;
	uint8_t point[SS_POINT_LEN];
};

/* The group orders n, big-endian, and n/2 (rounded down): s above it is "high". */
static const uint8_t p256_half[32] = {
    0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8};
static const uint8_t k256_half[32] = {
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0};

/* The one adapter from libcrypto's error queue to ss_error. */
static int crypto_error(ss_error *err, const char *what)
{
	char msg[256] = "unknown error";
	unsigned long e = ERR_get_error();

	if (e)
		ERR_error_string_n(e, msg, sizeof(msg));
	ERR_clear_error();
	return ss_error_set(err, SS_ERROR, "%s: %s", what, msg);
}

/* A hash of bytes in memory fails only when memory runs out: end as mem.h does. */
static void die_crypto(const char *what)
{
	fprintf(stderr, "skillsync: %s failed in libcrypto\n", what);
	abort();
}

/*
 * SHA-256 as fetched once from the default provider: EVP_sha256() is looked up again (a name
 * copied, a lock taken) at every EVP_Digest, which on a clone's 30,000 blocks was most of the
 * hashing's allocations. Set once, then only read.
 */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

void ss_crypto_sha256(const void *data, size_t len, uint8_t out[SS_SHA256_LEN])
{
	pthread_once(&sha256_once, sha256_fetch);
	if (!sha256_md || !EVP_Digest(data, len, out, NULL, sha256_md, NULL))
		die_crypto("SHA-256");
}

void ss_crypto_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
                           uint8_t out[SS_SHA256_LEN])
{
	unsigned int outlen = SS_SHA256_LEN;
	static const uint8_t empty[1];

	if (!HMAC(EVP_sha256(), keylen ? key : empty, (int)keylen, len ? msg : empty, len, out,
	          &outlen))
		die_crypto("HMAC-SHA256");
}

int ss_crypto_hkdf_expand_sha256(const void *prk, size_t prklen, const void *info, size_t infolen,
                                 uint8_t *out, size_t outlen, ss_error *err)
{
	EVP_KDF *kdf = NULL;
	EVP_KDF_CTX *ctx = NULL;
	OSSL_PARAM params[5];
	int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
	char digest[] = "SHA256";
	static const uint8_t empty[1];
	int ret = -1;

	if (outlen == 0 || outlen > 255 * SS_SHA256_LEN || prklen == 0)
		return ss_error_set(err, SS_EINVALID, "HKDF-Expand: bad key or output length");
	kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	if (!ctx) {
		crypto_error(err, "HKDF");
		goto out;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
	params[1] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
	params[2] =
	    OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)prk, prklen);
	params[3] = OSSL_PARAM_construct_octet_string(
	    OSSL_KDF_PARAM_INFO, (void *)(uintptr_t)(infolen ? info : empty), infolen);
	params[4] = OSSL_PARAM_construct_end();
	if (EVP_KDF_derive(ctx, out, outlen, params) <= 0) {
		crypto_error(err, "HKDF");
		goto out;
	}
	ret = 0;
out:
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
	return ret;
}

bool ss_crypto_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

int ss_crypto_random_bytes(void *out, size_t n, ss_error *err)
{
	if (n > 0x7fffffff || RAND_bytes(out, (int)n) != 1)
		return crypto_error(err, "cannot read random bytes");
	return 0;
}

/* SEC1 point -> compressed form (the point is already known to be on its curve). */
static void compress(const uint8_t *point, size_t len, uint8_t out[SS_POINT_LEN])
{
	if (len == SS_POINT_LEN) {
		memcpy(out, point, SS_POINT_LEN);
		return;
	}
	out[0] = (uint8_t)(0x02 | (point[64] & 1));
	memcpy(out + 1, point + 1, 32);
}

static const char *group_name(ss_curve curve)
{
	return curve == SS_CURVE_K256 ? "secp256k1" : "prime256v1";
}

/* An EC EVP_PKEY from parameters (selection: EVP_PKEY_PUBLIC_KEY or EVP_PKEY_KEYPAIR). */
static EVP_PKEY *pkey_from(ss_curve curve, const uint8_t *point, size_t len, const BIGNUM *priv,
                           int selection)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	EVP_PKEY *pkey = NULL;

	if (!bld || !ctx ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group_name(curve),
	                                     0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, len) ||
	    (priv && !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)))
		goto out;
	params = OSSL_PARAM_BLD_to_param(bld);
	if (!params || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pkey, selection, params) <= 0)
		pkey = NULL;
out:
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(ctx);
	return pkey;
}

int ss_p256_key_new(ss_p256_key **out, ss_error *err)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");

	if (!pkey)
		return crypto_error(err, "cannot make a P-256 key");
	*out = ss_xcalloc(1, sizeof(**out));
	(*out)->pkey = pkey;
	return 0;
}

int ss_p256_key_from_private(ss_p256_key **out, const uint8_t d[32], ss_error *err)
{
	EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *pub = group ? EC_POINT_new(group) : NULL;
	BIGNUM *priv = BN_secure_new();
	uint8_t point[65];
	EVP_PKEY *pkey = NULL;
	int ret = -1;

	if (!pub || !priv || !BN_bin2bn(d, 32, priv)) {
		crypto_error(err, "cannot read a P-256 key");
		goto out;
	}
	if (BN_is_zero(priv) || BN_cmp(priv, EC_GROUP_get0_order(group)) >= 0) {
		ss_error_set(err, SS_EINVALID, "not a P-256 private key");
		goto out;
	}
	if (!EC_POINT_mul(group, pub, priv, NULL, NULL, NULL) ||
	    EC_POINT_point2oct(group, pub, POINT_CONVERSION_UNCOMPRESSED, point, sizeof(point),
	                       NULL) != sizeof(point) ||
	    !(pkey = pkey_from(SS_CURVE_P256, point, sizeof(point), priv, EVP_PKEY_KEYPAIR))) {
		crypto_error(err, "cannot read a P-256 key");
		goto out;
	}
	*out = ss_xcalloc(1, sizeof(**out));
	(*out)->pkey = pkey;
	ret = 0;
out:
	BN_clear_free(priv);
	EC_POINT_free(pub);
	EC_GROUP_free(group);
	return ret;
}

void ss_p256_key_free(ss_p256_key *key)
{
	if (!key)
		return;
	EVP_PKEY_free(key->pkey); /* clears the private scalar (BN_clear_free) */
	free(key);
}

int ss_p256_key_point(const ss_p256_key *key, uint8_t point[SS_POINT_LEN], ss_error *err)
{
	uint8_t raw[65];
	size_t len = 0;

	if (!EVP_PKEY_get_octet_string_param(key->pkey, OSSL_PKEY_PARAM_PUB_KEY, raw, sizeof(raw),
	                                     &len) ||
	    (len != 65 && len != SS_POINT_LEN))
		return crypto_error(err, "cannot read a P-256 public key");
	compress(raw, len, point);
	return 0;
}

int ss_p256_did_key(const ss_p256_key *key, char **out, ss_error *err)
{
	uint8_t point[SS_POINT_LEN];

	if (ss_p256_key_point(key, point, err) < 0)
		return -1;
	*out = ss_multikey_did_key(SS_CURVE_P256, point);
	return 0;
}

/* Subtracts s from the order n of curve in place (big-endian, s < n). */
static void order_minus(ss_curve curve, uint8_t s[32])
{
	const uint8_t *half = curve == SS_CURVE_K256 ? k256_half : p256_half;
	uint8_t n[32];
	int borrow = 0, carry = 1;

	/* n = 2 * half + 1 */
	for (int i = 31; i >= 0; i--) {
		int v = half[i] * 2 + carry;
		n[i] = (uint8_t)v;
		carry = v >> 8;
	}
	for (int i = 31; i >= 0; i--) {
		int v = n[i] - s[i] - borrow;
		borrow = v < 0;
		s[i] = (uint8_t)(v + (borrow ? 256 : 0));
	}
}

static bool high_s(ss_curve curve, const uint8_t s[32])
{
	return memcmp(s, curve == SS_CURVE_K256 ? k256_half : p256_half, 32) > 0;
}

int ss_p256_sign(const ss_p256_key *key, const void *msg, size_t len, uint8_t sig[SS_SIG_LEN],
                 ss_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char der[80];
	const unsigned char *p = der;
	size_t derlen = sizeof(der);
	ECDSA_SIG *es = NULL;
	int ret = -1;

	if (!ctx || EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key->pkey) != 1 ||
	    EVP_DigestSign(ctx, der, &derlen, msg, len) != 1 ||
	    !(es = d2i_ECDSA_SIG(NULL, &p, (long)derlen)) ||
	    BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, 32) != 32 ||
	    BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + 32, 32) != 32) {
		crypto_error(err, "cannot sign");
		goto out;
	}
	if (high_s(SS_CURVE_P256, sig + 32))
		order_minus(SS_CURVE_P256, sig + 32);
	ret = 0;
out:
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return ret;
}

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
	pkey = pkey_from(curve, point, len, NULL, EVP_PKEY_PUBLIC_KEY);
	ERR_clear_error();
	if (!pkey)
		return ss_error_set(err, SS_EINVALID, "not a %s public key",
		                    curve == SS_CURVE_K256 ? "secp256k1" : "P-256");
	*out = ss_xcalloc(1, sizeof(**out));
	(*out)->curve = curve;
	(*out)->pkey = pkey;
	compress(point, len, (*out)->point);
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
	if (require_low_s && high_s(pk->curve, sig + 32))
		return ss_error_set(err, SS_EINVALID, "signature is not low-S");
	r = BN_bin2bn(sig, 32, NULL);
	s = BN_bin2bn(sig + 32, 32, NULL);
	es = ECDSA_SIG_new();
	if (!r || !s || !es || !ECDSA_SIG_set0(es, r, s)) {
		BN_free(r);
		BN_free(s);
		crypto_error(err, "cannot check a signature");
		goto out;
	}
	derlen = i2d_ECDSA_SIG(es, &der);
	ctx = EVP_MD_CTX_new();
	if (derlen <= 0 || !ctx ||
	    EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, pk->pkey) != 1) {
		crypto_error(err, "cannot check a signature");
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
