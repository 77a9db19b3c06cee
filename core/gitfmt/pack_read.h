/*
 * pack_read.h: whole objects read straight from a repository's packs (core/gitfmt/pack_read.c),
 * and the one parser of a pack's index (version 2), which also lists a pack's entries in pack
 * order for the pack merge (core/git/repo_pack.c).
 *
 * Why: the packs of a fetch are all ss_pack_write's (a version 2 index, every object whole and
 * deflated), and reading them back through libgit2 (zlib's inflate, its lock around
 * each read) was most of a fresh clone's checkout. Here an object is an index lookup and one
 * libdeflate call into a buffer of exactly the size its entry gives (not hashed again, as
 * libgit2 is set to read: core/git/repo.c).
 *
 * Rules: only version 2 indexes are read; a pack with another, a delta entry, a loose object or
 * an id in no pack is "not found here" (*found false), and the caller reads it through libgit2.
 * Every step is bounds-checked against the mapped files: a damaged or truncated pack is an
 * error naming the object, never a read outside the map. The packs, mapped read-only when
 * opened (a pack written later is not seen), may be shared by threads; each thread reads
 * through its own cursor (its decompressor).
 */
#ifndef SS_PACK_READ_H
#define SS_PACK_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

/* A version 2 pack index, as mapped: borrowed pointers into its bytes. */
typedef struct ss_pack_index {
	const unsigned char *fanout; /* 256 big-endian counts */
	const unsigned char *ids;    /* n ids of 20 bytes, sorted */
	const unsigned char *crcs;   /* n CRC-32s of the entries */
	const unsigned char *offs;   /* n 4-byte offsets (high bit: an index into large) */
	const unsigned char *large;  /* nlarge 8-byte offsets */
	uint32_t n, nlarge;
	uint64_t pack_len; /* the size of its pack */
} ss_pack_index;

/*
 * Reads the index of len bytes at p, for a pack of pack_len bytes, into *idx. false: not an
 * index this reads (another version, a size or fan-out that does not add up).
 */
bool ss_pack_read_index(ss_pack_index *idx, const unsigned char *p, size_t len, uint64_t pack_len);

/* The offset in the pack of entry i (< idx->n); false when it cannot be an entry's (before
 * the pack's header, in or after its trailing checksum, a large offset not in the table). */
bool ss_pack_read_offset(const ss_pack_index *idx, uint32_t i, uint64_t *off);

/* The CRC-32 the index gives entry i (< idx->n). */
uint32_t ss_pack_read_crc(const ss_pack_index *idx, uint32_t i);

/*
 * Calls each with every object of the pack at pack_path whose index is at idx_path, in the
 * order of the pack: its id (20 bytes), its entry's offset and length (up to the next entry, or
 * the pack's checksum) and the CRC-32 the index gives it. 0; 1 when the index is not one this
 * reads or an entry cannot be one (the caller lists the objects otherwise; each may have been
 * called for some); -1 when a file cannot be read or each failed (< 0, which stops the list).
 */
typedef int (*ss_pack_read_each)(void *payload, const unsigned char *id, uint64_t off, uint32_t len,
                                 uint32_t crc);
int ss_pack_read_list(const char *idx_path, const char *pack_path, ss_pack_read_each each,
                      void *payload);

/* The packs of a repository, mapped; one cursor per thread reads them. */
typedef struct ss_packs ss_packs;
typedef struct ss_pack_cursor ss_pack_cursor;

/* git's object types as a pack's entries give them (libgit2's GIT_OBJECT_* have the same values).
 */
enum {
	SS_PACK_COMMIT = 1,
	SS_PACK_TREE = 2,
	SS_PACK_BLOB = 3,
	SS_PACK_TAG = 4,
	SS_PACK_OFS_DELTA = 6,
	SS_PACK_REF_DELTA = 7
};

/* An object read: its type (SS_PACK_COMMIT to SS_PACK_TAG) and len bytes at data (malloc'd,
 * grown as needed and reused by the next read into the same struct; free() it). Starts
 * zeroed. */
typedef struct ss_pack_object {
	unsigned char *data;
	size_t len, alloc;
	int type;
} ss_pack_object;

/* Maps the packs of objects (a repository's objects directory); a pack this does not read, or
 * cannot open, is left to libgit2. */
int ss_pack_read_open(ss_packs **out, const char *objects, ss_error *err);
void ss_pack_read_close(ss_packs *packs);

/* A cursor on packs (which must outlive it), for one thread. */
int ss_pack_read_cursor_new(ss_pack_cursor **out, const ss_packs *packs, ss_error *err);
void ss_pack_read_cursor_free(ss_pack_cursor *c);

/*
 * Reads object id (its 20 bytes) whole into obj: 0 with *found true; 0 with *found false when it is
 * not found here (obj untouched); -1 with err set (SS_ERROR, "object <id> is damaged in its pack
 * (...)") when its entry cannot be read.
 */
int ss_pack_read_object(ss_pack_cursor *c, const unsigned char *id, ss_pack_object *obj,
                        bool *found, ss_error *err);

#endif
