/*
 * multikey.h: the text forms of ATProto's public keys, to and from ss_pubkey
 * (core/atproto/pubkey.h).
 *
 * - Multikey: publicKeyMultibase = "z" + base58btc(multicodec varint || compressed point),
 *   multicodec p256-pub 0x1200 (bytes 0x80 0x24, "zDn...") or secp256k1-pub 0xe7 (0xe7 0x01,
 *   "zQ3s...");
 * - did:key: "did:key:" + a Multikey value;
 * - the legacy DID-document types EcdsaSecp256r1VerificationKey2019 and
 *   EcdsaSecp256k1VerificationKey2019: "z" + base58btc of the raw SEC1 point, compressed or not,
 *   with no multicodec (the reference PLC publishes these: "zRbZ...", "zQYE...").
 * Every parser checks that the point is on its curve; a malformed value is SS_EINVALID.
 */
#ifndef SS_MULTIKEY_H
#define SS_MULTIKEY_H

#include <jansson.h>
#include <stdint.h>

#include "core/atproto/pubkey.h"
#include "core/util/error.h"

/* "z" + base58btc(multicodec || point): a Multikey publicKeyMultibase (malloc'd). */
char *ss_multikey_encode(ss_curve curve, const uint8_t point[SS_POINT_LEN]);
/* "did:key:z..." (malloc'd). */
char *ss_multikey_did_key(ss_curve curve, const uint8_t point[SS_POINT_LEN]);
/* The did:key of pk (malloc'd). */
char *ss_multikey_of_pubkey(const ss_pubkey *pk);

/* A Multikey publicKeyMultibase value ("z..." with a multicodec) -> key. */
int ss_multikey_decode(ss_pubkey **out, const char *multibase, ss_error *err);
/* "did:key:z..." -> key. */
int ss_multikey_from_did_key(ss_pubkey **out, const char *did, ss_error *err);
/* A DID document's verification method, by its "type" (Multikey or one of the legacy types
 * above) and its "publicKeyMultibase"; SS_EINVALID for another type. */
int ss_multikey_from_verification_method(ss_pubkey **out, const char *type, const char *multibase,
                                         ss_error *err);
/*
 * The key of the verification method whose id is fragment ("#atproto") or the document's
 * id + fragment, in a DID document's JSON; SS_ENOTFOUND when the document has none.
 */
int ss_multikey_from_did_doc(ss_pubkey **out, const json_t *doc, const char *fragment,
                             ss_error *err);

#endif
