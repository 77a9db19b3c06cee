/*
 * index_file.h: git's index file (Documentation/gitformat-index.txt) read and written by
 * skillsync itself (core/gitfmt/index_file.c).
 *
 * Why the read: libgit2's read of the index builds a map of every path and costs ~1 us an entry
 * (15 ms at 15,000 files, 130 ms at 150,000), several times this one pass; the status walk and
 * the diffs of the working directory read it here. Only what the walk knows: versions 2 to 4,
 * every entry at stage 0, each path once and in order, no split or sparse index; anything else
 * reads as "ask libgit2".
 *
 * Why the write: a fresh clone's checkout writes its index here, streamed from its own array of
 * files, the bytes git_index_write would write for the same entries (the tests hold them to
 * libgit2's): libgit2's in-memory index held ~140 bytes more a file until the end, ~21 MB of a
 * clone's peak memory at 150,000 files.
 */
#ifndef SS_INDEX_FILE_H
#define SS_INDEX_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/gitfmt/oid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* An entry's time as the index stores it. */
typedef struct ss_index_time {
	int32_t seconds;
	uint32_t nanoseconds;
} ss_index_time;

/* An entry as read: the fields of libgit2's git_index_entry, under the same names (flags: the
 * stage and the path's length; flags_extended: intent-to-add, skip-worktree). */
typedef struct ss_index_entry {
	ss_index_time ctime, mtime;
	uint32_t dev, ino, mode, uid, gid, file_size;
	ss_oid id;
	uint16_t flags, flags_extended;
	const char *path;
} ss_index_entry;

/* An index file as read. */
typedef struct ss_index_file {
	ss_index_entry *entries; /* by path, as git sorts them; paths in map, or in paths */
	size_t count;
	void *map; /* the file, mapped */
	size_t maplen;
	ss_buf paths;                         /* version 4's paths, made whole */
	unsigned char checksum[SS_OID_RAWSZ]; /* the file's (git_index_checksum's) */
	struct stat st; /* the file's, when read (its mtime: racily clean entries) */
} ss_index_file;

/* Reads the index file at path into out: 0 (a missing file is an empty index), 1 when the
 * file holds what this reader does not know or cannot be read (out empty: libgit2 decides
 * what it holds or says what is wrong with it). */
int ss_index_file_read(const char *path, ss_index_file *out);
/* The position of path itself, ix->count when ix does not hold it. */
size_t ss_index_file_position(const ss_index_file *ix, const char *path);
/* Whether ix holds path itself. */
bool ss_index_file_has(const ss_index_file *ix, const char *path);
/* The entries below the directory name/: [*lo, *hi). */
void ss_index_file_dir(const ss_index_file *ix, const char *name, size_t *lo, size_t *hi);
void ss_index_file_release(ss_index_file *ix);

/* The index file of gitdir as ss_index_file_read reads it, kept in *slot (NULL at first) for
 * the next call while the file's stat data and checksum stay the same (valid until then); NULL
 * when the file is left to libgit2. */
typedef struct ss_index_kept ss_index_kept;
const ss_index_file *ss_index_file_get(ss_index_kept **slot, const char *gitdir);
void ss_index_kept_free(ss_index_kept *k);

/* The stat data an index entry holds, as git's index stores it (32 bits each). */
typedef struct ss_index_stat {
	uint32_t ctime_s, ctime_ns, mtime_s, mtime_ns, dev, ino, uid, gid, size;
} ss_index_stat;

/* One entry to write: its stat data, mode, blob id (20 bytes) and path, borrowed. */
typedef struct ss_index_file_entry {
	const ss_index_stat *st;
	uint32_t mode;
	const unsigned char *id;
	const char *path;
} ss_index_file_entry;

typedef void (*ss_index_file_next)(void *payload, size_t i, ss_index_file_entry *out);

/*
 * Writes the index file at path (version 2, no extension) holding count entries (at most
 * UINT32_MAX), the i-th filled by next, already in git's index order: into <path>.lock, made
 * here (SS_ECONFLICT when it exists: whoever made it is writing the index, as libgit2 locks it),
 * renamed over path once whole. 0, or < 0 with err set and the lock file removed.
 */
int ss_index_file_write(const char *path, size_t count, ss_index_file_next next, void *payload,
                        ss_error *err);

#endif
