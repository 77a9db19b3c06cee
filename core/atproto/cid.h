/*
 * cid.h: the content ids (CIDs) of ATProto repositories: parse, format, compute, compare.
 *
 * Only ATProto's "blessed" form is accepted: CIDv1, codec dag-cbor (0x71, records, MST nodes,
 * commits) or raw (0x55, blobs), multihash sha2-256 with a 32-byte digest. Anything else (CIDv0,
 * other codecs or hashes, other multibases than base32-lower "b...") is refused as SS_EINVALID:
 * a repository never holds one, so a strict parser turns a malformed or hostile id into an error
 * early. The binary form is 0x01 <codec> 0x12 0x20 <digest> (36 bytes), the string form "b" and
 * that in RFC 4648 base32, lower case, unpadded (59 characters).
 */
#ifndef SS_CID_H
#define SS_CID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_CID_DAG_CBOR 0x71
#define SS_CID_RAW      0x55
#define SS_CID_DIGESTSZ 32
#define SS_CID_BINSZ    36
/* The string form and its NUL. */
#define SS_CID_STRSZ 60

typedef struct ss_cid {
	uint8_t codec; /* SS_CID_DAG_CBOR or SS_CID_RAW */
	uint8_t digest[SS_CID_DIGESTSZ];
} ss_cid;

/*
 * Reads a binary CID at the start of p (len bytes available); *used receives its length (always
 * SS_CID_BINSZ today). SS_EINVALID when it is not a CID of the accepted form.
 */
int ss_cid_from_bytes(ss_cid *out, const unsigned char *p, size_t len, size_t *used, ss_error *err);
/* Writes the SS_CID_BINSZ bytes of the binary form. */
void ss_cid_to_bytes(unsigned char out[SS_CID_BINSZ], const ss_cid *cid);
/* Parses the string form (len bytes of s, no NUL needed); SS_EINVALID otherwise. */
int ss_cid_parse(ss_cid *out, const char *s, size_t len, ss_error *err);
/* Writes the string form and a NUL. */
void ss_cid_fmt(char out[SS_CID_STRSZ], const ss_cid *cid);
/* The CID of len bytes of data under codec (SS_CID_DAG_CBOR or SS_CID_RAW). */
void ss_cid_compute(ss_cid *out, uint8_t codec, const void *data, size_t len);
/* Whether data hashes to cid (its codec is not looked at: the bytes decide). */
bool ss_cid_matches(const ss_cid *cid, const void *data, size_t len);
bool ss_cid_equal(const ss_cid *a, const ss_cid *b);

/* A blob to read by its CID (the transports, sync/transport/space.h; the renderer,
 * core/git/render.h): at most max bytes into *out (cleared first); rc (0 or a negative code)
 * and err are its outcome. The bytes are not checked against the CID by whoever reads them. */
typedef struct ss_cid_read {
	const char *cid;
	size_t max;
	ss_buf *out;
	int rc;
	ss_error err;
} ss_cid_read;

#endif
