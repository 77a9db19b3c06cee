#include "core/atproto/crypto.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include "core/atproto/crypto_priv.h"

/* The one adapter from libcrypto's error queue to ss_error (crypto_priv.h). */
int ss_crypto__error(ss_error *err, const char *what)
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
		ss_crypto__error(err, "HKDF");
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
		ss_crypto__error(err, "HKDF");
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
		return ss_crypto__error(err, "cannot read random bytes");
	return 0;
}

/*
 * What p256.c and pubkey.c share (crypto_priv.h): EC keys from their parameters, points
 * compressed, high and low S.
 */

void ss_crypto__compress(const uint8_t *point, size_t len, uint8_t out[SS_POINT_LEN])
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

EVP_PKEY *ss_crypto__pkey_from(ss_curve curve, const uint8_t *point, size_t len, const BIGNUM *priv,
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

/* The group orders n, big-endian, and n/2 (rounded down): s above it is "high". */
static const uint8_t p256_half[32] = {
    0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8};
static const uint8_t k256_half[32] = {
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0};

void ss_crypto__order_minus(ss_curve curve, uint8_t s[32])
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

bool ss_crypto__high_s(ss_curve curve, const uint8_t s[32])
{
	return memcmp(s, curve == SS_CURVE_K256 ? k256_half : p256_half, 32) > 0;
}
