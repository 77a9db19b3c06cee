#include "core/atproto/p256.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include "core/atproto/crypto_priv.h"
#include "core/atproto/multikey.h"
#include "core/util/mem.h"

struct ss_p256_key {
	EVP_PKEY *pkey;
};

int ss_p256_key_new(ss_p256_key **out, ss_error *err)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");

	if (!pkey)
		return ss_crypto__error(err, "cannot make a P-256 key");
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
		ss_crypto__error(err, "cannot read a P-256 key");
		goto out;
	}
	if (BN_is_zero(priv) || BN_cmp(priv, EC_GROUP_get0_order(group)) >= 0) {
		ss_error_set(err, SS_EINVALID, "not a P-256 private key");
		goto out;
	}
	if (!EC_POINT_mul(group, pub, priv, NULL, NULL, NULL) ||
	    EC_POINT_point2oct(group, pub, POINT_CONVERSION_UNCOMPRESSED, point, sizeof(point),
	                       NULL) != sizeof(point) ||
	    !(pkey = ss_crypto__pkey_from(SS_CURVE_P256, point, sizeof(point), priv,
	                                  EVP_PKEY_KEYPAIR))) {
		ss_crypto__error(err, "cannot read a P-256 key");
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
		return ss_crypto__error(err, "cannot read a P-256 public key");
	ss_crypto__compress(raw, len, point);
	return 0;
}

int ss_p256_key_private(const ss_p256_key *key, uint8_t d[32], ss_error *err)
{
	BIGNUM *priv = NULL;
	int ret = 0;

	if (!EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_PRIV_KEY, &priv) ||
	    BN_bn2binpad(priv, d, 32) != 32)
		ret = ss_crypto__error(err, "cannot read a P-256 private key");
	BN_clear_free(priv);
	return ret;
}

int ss_p256_key_xy(const ss_p256_key *key, uint8_t xy[64], ss_error *err)
{
	uint8_t raw[65];
	size_t len = 0;

	if (!EVP_PKEY_get_octet_string_param(key->pkey, OSSL_PKEY_PARAM_PUB_KEY, raw, sizeof(raw),
	                                     &len) ||
	    len != 65 || raw[0] != 4)
		return ss_crypto__error(err, "cannot read a P-256 public key");
	memcpy(xy, raw + 1, 64);
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
		ss_crypto__error(err, "cannot sign");
		goto out;
	}
	if (ss_crypto__high_s(SS_CURVE_P256, sig + 32))
		ss_crypto__order_minus(SS_CURVE_P256, sig + 32);
	ret = 0;
out:
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return ret;
}
