/*
 * oid.h: git object ids (SHA-1) as plain bytes, so that callers need not see libgit2's types.
 */
#ifndef SS_OID_H
#define SS_OID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

/* A git object id (SHA-1), without exposing libgit2's types. */
#define SS_OID_RAWSZ 20
#define SS_OID_HEXSZ 40
typedef struct ss_oid {
	unsigned char id[SS_OID_RAWSZ];
} ss_oid;

/* Writes the 40 hex digits and a NUL into out. */
void ss_oid_fmt(char out[SS_OID_HEXSZ + 1], const ss_oid *oid);
/* Parses exactly 40 hex digits; SS_EINVALID otherwise. */
int ss_oid_parse(ss_oid *out, const char *hex, ss_error *err);
bool ss_oid_equal(const ss_oid *a, const ss_oid *b);
/* The all-zero id means "no object" (e.g. "the ref must not exist yet"). */
bool ss_oid_is_zero(const ss_oid *oid);
void ss_oid_clear(ss_oid *oid);

/*
 * The id git gives an object of type ("blob", "tree") holding these len bytes: the SHA-1 of
 * "<type> <len>\0" and the bytes. OpenSSL's SHA-1, several times faster than libgit2's (which
 * detects collisions): for ids computed to be compared with the index's (status), not for
 * objects written. -1 when libcrypto fails.
 */
int ss_oid_hash(ss_oid *out, const char *type, const void *data, size_t len);
/* The same for a blob of size bytes read from fd to its end, a buffer at a time: -EAGAIN when
 * fd holds more or fewer bytes than size (the file changed meanwhile), -errno when it cannot be
 * read, -EIO when libcrypto fails. */
int ss_oid_hash_fd(ss_oid *out, int fd, size_t size);

/*
 * order[0..n) (n at most UINT32_MAX) gets 0..n-1 sorted by the id each element of base
 * (n elements of stride bytes) starts with, equal ids by their place: a sort of n 4-byte
 * numbers rather than of the elements, whose copy (qsort's, as large as the array) was the
 * largest allocation of a pack merge's end.
 */
void ss_oid_order(uint32_t *order, size_t n, const void *base, size_t stride);

#endif
