/*
 * pack_write.h: one new pack and its index, written by skillsync itself (core/gitfmt/pack_write.c)
 * from objects whose ids are known: every object whole (no delta), deflated by libdeflate or
 * copied as it is from another pack; the index in version 2.
 *
 * Why: libgit2's indexer, which this replaced, inflated every object again and hashed it to
 * learn the id the writer already had, a third of the pack thread's time in a clone (1.37 s of
 * user CPU to 0.96 s at 3x3000, docs/BENCHMARKS.md). Every index is held by the tests to the one
 * `git index-pack` writes for the same pack, byte for byte.
 *
 * Rules: each file is written under a temporary name, synced, made read-only and renamed into
 * place, the pack before its index (no one looks into a pack without its index); the file being
 * written when a failure comes is removed.
 */
#ifndef SS_PACK_WRITE_H
#define SS_PACK_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gitfmt/oid.h"
#include "core/util/error.h"

/*
 * One object for ss_pack_write, by its id, either as an entry of another pack, copied as it
 * is (raw, raw_len: its type and size header and its deflated bytes, not a delta; borrowed
 * until the next object; raw_crc: the CRC-32 that pack's index gives it, checked), or else as
 * its type (SS_PACK_COMMIT to SS_PACK_TAG, pack_read.h) and len bytes at data, which the writer
 * hands to free(owner, data) once written when free is set. The reader checks that data hashes
 * to id when it does not know it does (read through a backend).
 */
typedef struct ss_pack_write_obj {
	ss_oid id;
	const unsigned char *raw;
	size_t raw_len;
	uint32_t raw_crc;
	void *data;
	size_t len;
	int type;
	void (*free)(void *owner, void *data);
	void *owner;
} ss_pack_write_obj;

/*
 * Writes count objects, none a delta, into one new pack of dir (a repository's
 * objects/pack) and its index, both synced when this returns 0 (name: the pack's name,
 * pack-<name>.pack). read fills *obj (zeroed) with the i-th object, i from 0 to count - 1 in
 * that order, or fails (< 0) with err set. The same object twice fails.
 */
typedef int (*ss_pack_write_next)(void *payload, size_t i, ss_pack_write_obj *obj, ss_error *err);
int ss_pack_write(const char *dir, size_t count, ss_pack_write_next read, void *payload,
                  char name[SS_OID_HEXSZ + 1], ss_error *err);

#endif
