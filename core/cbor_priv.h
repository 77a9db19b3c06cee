/*
 * cbor_priv.h: what core/cbor.c, core/cbor_encode.c and the repository readers (core/car.c,
 * core/mst*.c) share beyond core/cbor.h.
 */
#ifndef SS_CBOR_PRIV_H
#define SS_CBOR_PRIV_H

#include "core/cbor.h"

/* Reads a map key: text, strictly after prev (NULL for the first key), not "$link" or
 * "$bytes". */
int ss_cbor_read_key(ss_cbor_reader *r, ss_cbor_item *key, const ss_cbor_item *prev, ss_error *err);

/* ATProto's data model on a map with "$type": a non-empty string, and a blob's fields (a ref
 * link, a mimeType, an integer size). Both directions check it, so that what decodes encodes. */
int ss_cbor_check_type(const json_t *v, ss_error *err);

/* Writers of canonical items: a head (shortest form) and a CID link (tag 42). */
int ss_cbor_put_head(ss_buf *out, int major, uint64_t arg);
int ss_cbor_put_link(ss_buf *out, const ss_cid *cid);

#endif
