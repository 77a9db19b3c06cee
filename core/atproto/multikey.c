#include "core/atproto/multikey.h"

#include <string.h>

#include "core/atproto/base58.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

#define DID_KEY_PREFIX "did:key:"

static const uint8_t p256_codec[2] = {0x80, 0x24};
static const uint8_t k256_codec[2] = {0xe7, 0x01};

static char *encode(const char *prefix, ss_curve curve, const uint8_t point[SS_POINT_LEN])
{
	ss_buf b = SS_BUF_INIT;
	uint8_t raw[2 + SS_POINT_LEN];

	memcpy(raw, curve == SS_CURVE_K256 ? k256_codec : p256_codec, 2);
	memcpy(raw + 2, point, SS_POINT_LEN);
	/* no cap on b: these appends cannot fail */
	ss_buf_puts(&b, prefix);
	ss_buf_putc(&b, 'z');
	ss_base58_encode(&b, raw, sizeof(raw));
	return ss_buf_detach(&b, NULL);
}

char *ss_multikey_encode(ss_curve curve, const uint8_t point[SS_POINT_LEN])
{
	return encode("", curve, point);
}

char *ss_multikey_did_key(ss_curve curve, const uint8_t point[SS_POINT_LEN])
{
	return encode(DID_KEY_PREFIX, curve, point);
}

char *ss_multikey_of_pubkey(const ss_pubkey *pk)
{
	return ss_multikey_did_key(ss_pubkey_curve(pk), ss_pubkey_point(pk));
}

/* "z..." -> bytes in out. */
static int multibase_decode(ss_buf *out, const char *multibase, ss_error *err)
{
	if (multibase[0] != 'z')
		return ss_error_set(err, SS_EINVALID, "key is not multibase base58btc ('z...')");
	out->max = 128;
	return ss_base58_decode(out, multibase + 1, strlen(multibase + 1), err);
}

int ss_multikey_decode(ss_pubkey **out, const char *multibase, ss_error *err)
{
	ss_buf raw = SS_BUF_INIT;
	const uint8_t *p;
	ss_curve curve;
	int ret = -1;

	if (multibase_decode(&raw, multibase, err) < 0)
		goto out;
	p = (const uint8_t *)raw.ptr;
	if (raw.len == 2 + SS_POINT_LEN && !memcmp(p, p256_codec, 2)) {
		curve = SS_CURVE_P256;
	} else if (raw.len == 2 + SS_POINT_LEN && !memcmp(p, k256_codec, 2)) {
		curve = SS_CURVE_K256;
	} else {
		ss_error_set(err, SS_EINVALID,
		             "not a compressed P-256 or secp256k1 multikey (%zu bytes)", raw.len);
		goto out;
	}
	ret = ss_pubkey_from_point(out, curve, p + 2, SS_POINT_LEN, err);
out:
	ss_buf_release(&raw);
	return ret;
}

int ss_multikey_from_did_key(ss_pubkey **out, const char *did, ss_error *err)
{
	if (strncmp(did, DID_KEY_PREFIX, strlen(DID_KEY_PREFIX)) != 0)
		return ss_error_set(err, SS_EINVALID, "not a did:key");
	return ss_multikey_decode(out, did + strlen(DID_KEY_PREFIX), err);
}

int ss_multikey_from_verification_method(ss_pubkey **out, const char *type, const char *multibase,
                                         ss_error *err)
{
	ss_buf raw = SS_BUF_INIT;
	ss_curve curve;
	int ret = -1;

	if (!strcmp(type, "Multikey"))
		return ss_multikey_decode(out, multibase, err);
	if (!strcmp(type, "EcdsaSecp256r1VerificationKey2019"))
		curve = SS_CURVE_P256;
	else if (!strcmp(type, "EcdsaSecp256k1VerificationKey2019"))
		curve = SS_CURVE_K256;
	else
		return ss_error_set(err, SS_EINVALID, "unknown verification method type");
	if (multibase_decode(&raw, multibase, err) < 0)
		goto out;
	ret = ss_pubkey_from_point(out, curve, (const uint8_t *)raw.ptr, raw.len, err);
out:
	ss_buf_release(&raw);
	return ret;
}

/* True when id names fragment in the document did: "#atproto" or "<did>#atproto". */
static bool id_matches(const char *id, const char *did, const char *fragment)
{
	size_t n = did ? strlen(did) : 0;

	if (!strcmp(id, fragment))
		return true;
	return did && !strncmp(id, did, n) && !strcmp(id + n, fragment);
}

int ss_multikey_from_did_doc(ss_pubkey **out, const json_t *doc, const char *fragment,
                             ss_error *err)
{
	const char *did = json_string_value(json_object_get(doc, "id"));
	const json_t *methods = json_object_get(doc, "verificationMethod");
	size_t i;
	json_t *m;

	json_array_foreach(methods, i, m)
	{
		const char *id = json_string_value(json_object_get(m, "id"));
		const char *type = json_string_value(json_object_get(m, "type"));
		const char *mb = json_string_value(json_object_get(m, "publicKeyMultibase"));

		if (!id || !id_matches(id, did, fragment))
			continue;
		if (!type || !mb)
			return ss_error_set(err, SS_EINVALID,
			                    "the DID document's '%s' key has no type or value",
			                    fragment);
		if (ss_multikey_from_verification_method(out, type, mb, err) < 0)
			return ss_error_prefix(err, "the DID document's '%s' key", fragment);
		return 0;
	}
	return ss_error_set(err, SS_ENOTFOUND, "the DID document has no '%s' key", fragment);
}
