/*
 * base58.h: base58btc (the Bitcoin alphabet), the encoding of multibase 'z' values: did:key
 * identifiers and publicKeyMultibase in DID documents. Leading zero bytes are '1's.
 * Decoding is strict (only alphabet characters) and bounded: it is quadratic, so an input
 * longer than SS_BASE58_MAX characters is refused (keys are under 100).
 */
#ifndef SS_BASE58_H
#define SS_BASE58_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_BASE58_MAX 1024

/* Appends the encoding of len bytes at data to out; returns 0 or out's SS_ETOOBIG. */
int ss_base58_encode(ss_buf *out, const void *data, size_t len);
/* Appends the bytes the len characters at s encode; SS_EINVALID for a character outside the
 * alphabet or an empty input, SS_ETOOBIG past SS_BASE58_MAX characters or out's cap. */
int ss_base58_decode(ss_buf *out, const char *s, size_t len, ss_error *err);

#endif
