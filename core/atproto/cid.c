#include "core/atproto/cid.h"

#include <string.h>

#include "core/atproto/crypto.h"

static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

int ss_cid_from_bytes(ss_cid *out, const unsigned char *p, size_t len, size_t *used, ss_error *err)
{
	if (len < 4)
		return ss_error_set(err, SS_EINVALID, "invalid CID: %zu bytes", len);
	if (p[0] != 0x01)
		return ss_error_set(err, SS_EINVALID, "invalid CID: version %u, not 1", p[0]);
	if (p[1] != SS_CID_DAG_CBOR && p[1] != SS_CID_RAW)
		return ss_error_set(err, SS_EINVALID,
		                    "invalid CID: codec 0x%02x, not dag-cbor or raw", p[1]);
	if (p[2] != 0x12 || p[3] != SS_CID_DIGESTSZ)
		return ss_error_set(err, SS_EINVALID, "invalid CID: hash is not sha2-256");
	if (len < SS_CID_BINSZ)
		return ss_error_set(err, SS_EINVALID, "invalid CID: digest cut short");
	out->codec = p[1];
	memcpy(out->digest, p + 4, SS_CID_DIGESTSZ);
	*used = SS_CID_BINSZ;
	return 0;
}

void ss_cid_to_bytes(unsigned char out[SS_CID_BINSZ], const ss_cid *cid)
{
	out[0] = 0x01;
	out[1] = cid->codec;
	out[2] = 0x12;
	out[3] = SS_CID_DIGESTSZ;
	memcpy(out + 4, cid->digest, SS_CID_DIGESTSZ);
}

int ss_cid_parse(ss_cid *out, const char *s, size_t len, ss_error *err)
{
	unsigned char bin[SS_CID_BINSZ];
	size_t n = 0, used;
	uint32_t acc = 0;
	int bits = 0;

	/* 36 bytes are 288 bits: 58 digits, the last one's 2 low bits zero. */
	if (len != SS_CID_STRSZ - 1 || s[0] != 'b')
		return ss_error_set(err, SS_EINVALID, "invalid CID '%.*s'",
		                    (int)(len > 80 ? 80 : len), s);
	for (size_t i = 1; i < len; i++) {
		const char *d = s[i] ? strchr(b32, s[i]) : NULL;
		if (!d)
			return ss_error_set(err, SS_EINVALID, "invalid CID '%.*s'", (int)len, s);
		acc = (acc << 5) | (uint32_t)(d - b32);
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			bin[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)
		return ss_error_set(err, SS_EINVALID, "invalid CID '%.*s': not canonical", (int)len,
		                    s);
	if (ss_cid_from_bytes(out, bin, n, &used, err) < 0)
		return ss_error_prefix(err, "'%.*s'", (int)len, s);
	return 0;
}

void ss_cid_fmt(char out[SS_CID_STRSZ], const ss_cid *cid)
{
	unsigned char bin[SS_CID_BINSZ];
	uint32_t acc = 0;
	int bits = 0;
	size_t o = 0;

	ss_cid_to_bytes(bin, cid);
	out[o++] = 'b';
	for (size_t i = 0; i < SS_CID_BINSZ; i++) {
		acc = (acc << 8) | bin[i];
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			out[o++] = b32[(acc >> bits) & 31];
		}
		acc &= (1u << bits) - 1;
	}
	if (bits > 0)
		out[o++] = b32[(acc << (5 - bits)) & 31];
	out[o] = '\0';
}

void ss_cid_compute(ss_cid *out, uint8_t codec, const void *data, size_t len)
{
	out->codec = codec;
	ss_crypto_sha256(data, len, out->digest);
}

bool ss_cid_matches(const ss_cid *cid, const void *data, size_t len)
{
	ss_cid got;

	ss_cid_compute(&got, cid->codec, data, len);
	return memcmp(got.digest, cid->digest, SS_CID_DIGESTSZ) == 0;
}

bool ss_cid_equal(const ss_cid *a, const ss_cid *b)
{
	return a->codec == b->codec && memcmp(a->digest, b->digest, SS_CID_DIGESTSZ) == 0;
}
