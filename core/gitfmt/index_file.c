/*
 * index_file.c: git's index file read and written by skillsync itself (see
 * core/gitfmt/index_file.h): read in versions 2, 3 and 4, one pass over the file, the entries in
 * one array; written in version 2, streamed.
 *
 * The file (git's Documentation/gitformat-index.txt): "DIRC", the version and the number of
 * entries (32-bit, big-endian); the entries, sorted by path: ten 32-bit stat fields (ctime
 * seconds and nanoseconds, mtime seconds and nanoseconds, dev, ino, mode, uid, gid, size), the
 * object id, 16 bits of flags (assume-valid, extended, the stage, the path's length up to
 * 0xfff), 16 more when extended (version 3 on), then the path: NUL-terminated and padded with
 * NULs to a multiple of 8 bytes (versions 2 and 3), or, in version 4, as the number of bytes
 * to drop from the previous entry's path (a varint) and what follows them, NUL-terminated;
 * then the extensions (a 4-byte signature and a 32-bit size each); then the SHA-1 of all that
 * (zeros when index.skipHash is set: such a file is left to libgit2).
 */
#include "core/gitfmt/index_file.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

#define HEADER  12
#define TRAILER 20
#define FIXED   62 /* an entry's bytes before its path, without the extended flags */
/* an entry's flags: its stage, and whether 16 more bits of flags follow */
#define STAGEMASK 0x3000
#define EXTENDED  0x4000

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Whether path is one git would write: not empty, relative, no empty, "." or ".." part. */
static bool plain_path(const char *path, size_t len)
{
	size_t start = 0;

	if (!len)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		size_t n = i - start;
		if (n == 0 || (n == 1 && path[start] == '.') ||
		    (n == 2 && path[start] == '.' && path[start + 1] == '.'))
			return false;
		start = i + 1;
	}
	return true;
}

/* Version 4's prefix length: git's varint (each continuation adds one before the shift). */
static bool get_varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	size_t v;
	unsigned char c;

	if (*p >= end)
		return false;
	c = *(*p)++;
	v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (SIZE_MAX >> 8))
			return false;
		c = *(*p)++;
		v = ((v + 1) << 7) | (c & 127);
	}
	*out = v;
	return true;
}

/* Whether the extensions in [p, end) are all ones an entry's meaning does not depend on:
 * optional ones (an upper-case first letter), but a split index's ("link") and a sparse
 * index's ("sdir") are not. */
static bool known_extensions(const unsigned char *p, const unsigned char *end)
{
	while (p < end) {
		if (end - p < 8)
			return false;
		uint32_t size = get32(p + 4);
		if (p[0] < 'A' || p[0] > 'Z' || (size_t)(end - p - 8) < size)
			return false;
		p += 8 + size;
	}
	return true;
}

/* Whether the file's checksum is the SHA-1 of its bytes: zeros (index.skipHash) are not, the
 * directory cache tells one index from the next by it. */
static bool checksum_ok(const unsigned char *data, size_t len, const unsigned char *want)
{
	unsigned char got[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	return EVP_Digest(data, len, got, &n, EVP_sha1(), NULL) == 1 && n == TRAILER &&
	       !memcmp(got, want, TRAILER);
}

/* Parses the index file's len bytes at base into ix: false when it is not a file this reader
 * knows through and through. */
static bool parse(ss_index_file *ix, const unsigned char *base, size_t len)
{
	const unsigned char *p, *end;
	size_t *offs = NULL, prev_len = 0;
	uint32_t version, count;
	ss_buf *paths = &ix->paths, last = SS_BUF_INIT;

	if (len < HEADER + TRAILER || memcmp(base, "DIRC", 4))
		return false;
	version = get32(base + 4);
	count = get32(base + 8);
	end = base + len - TRAILER;
	if (version < 2 || version > 4 || count > (len - HEADER) / FIXED + 1 ||
	    !checksum_ok(base, len - TRAILER, end))
		return false;
	ix->entries = ss_xmalloc((count ? count : 1) * sizeof(*ix->entries));
	if (version == 4) /* the paths' offsets in the pool, until it stops moving */
		offs = ss_xmalloc((count ? count : 1) * sizeof(*offs));
	p = base + HEADER;
	for (uint32_t i = 0; i < count; i++) {
		ss_index_entry *e = &ix->entries[i];
		size_t fixed = FIXED, plen;
		const unsigned char *name, *nul;

		if ((size_t)(end - p) < FIXED)
			goto bad;
		e->ctime.seconds = (int32_t)get32(p);
		e->ctime.nanoseconds = get32(p + 4);
		e->mtime.seconds = (int32_t)get32(p + 8);
		e->mtime.nanoseconds = get32(p + 12);
		e->dev = get32(p + 16);
		e->ino = get32(p + 20);
		e->mode = get32(p + 24);
		e->uid = get32(p + 28);
		e->gid = get32(p + 32);
		e->file_size = get32(p + 36);
		memcpy(e->id.id, p + 40, SS_OID_RAWSZ);
		e->flags = get16(p + 60);
		if (e->flags & STAGEMASK)
			goto bad; /* a conflict */
		e->flags_extended = 0;
		if (e->flags & EXTENDED) {
			if (version < 3 || (size_t)(end - p) < FIXED + 2)
				goto bad;
			e->flags_extended = get16(p + 62);
			fixed += 2;
		}
		name = p + fixed;
		if (version == 4) {
			offs[i] = paths->len;
			size_t strip;
			if (!get_varint(&name, end, &strip) || strip > prev_len)
				goto bad;
			nul = memchr(name, '\0', (size_t)(end - name));
			if (!nul)
				goto bad;
			/* built apart first: the pool moves as it grows */
			ss_buf_truncate(&last, prev_len - strip);
			ss_buf_put(&last, name, (size_t)(nul - name));
			ss_buf_put(paths, last.ptr, last.len + 1);
			plen = last.len;
			p = nul + 1;
		} else { /* the path in the file itself, NUL-terminated there */
			nul = memchr(name, '\0', (size_t)(end - name));
			if (!nul)
				goto bad;
			size_t entry = (fixed + (size_t)(nul - name) + 8) & ~(size_t)7;
			if ((size_t)(end - p) < entry)
				goto bad;
			e->path = (const char *)name;
			plen = (size_t)(nul - name);
			p += entry;
		}
		/* version 4's paths taken from the pool each time: it may have moved */
		const char *path = version == 4 ? paths->ptr + offs[i] : e->path;
		const char *prev = !i             ? NULL
		                   : version == 4 ? paths->ptr + offs[i - 1]
		                                  : ix->entries[i - 1].path;
		/* the 12 bits of length say the path's, up to 0xfff */
		if ((e->flags & 0xfff) != (plen < 0xfff ? plen : 0xfff) ||
		    !plain_path(path, plen) || (prev && strcmp(prev, path) >= 0))
			goto bad; /* out of order, twice the same path (stages) or not a path */
		prev_len = plen;
	}
	if (!known_extensions(p, end))
		goto bad;
	for (uint32_t i = 0; version == 4 && i < count; i++)
		ix->entries[i].path = paths->ptr + offs[i];
	ix->count = count;
	free(offs);
	ss_buf_release(&last);
	return true;
bad:
	free(offs);
	ss_buf_release(&last);
	return false;
}

/* Reads the index open at fd, of stat data st, into out (see ss_index_file_read). */
static int read_fd(int fd, const struct stat *st, ss_index_file *out)
{
	void *map;

	memset(out, 0, sizeof(*out));
	ss_buf_init(&out->paths);
	out->st = *st;
	if (st->st_size < HEADER + TRAILER)
		return 1;
	/* mapped, as git maps it: git replaces the file by a rename, never rewrites it */
	map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	out->map = map;
	out->maplen = (size_t)st->st_size;
	if (!parse(out, map, out->maplen)) {
		ss_index_file_release(out);
		return 1;
	}
	memcpy(out->checksum, (const unsigned char *)map + out->maplen - TRAILER, TRAILER);
	return 0;
}

int ss_index_file_read(const char *path, ss_index_file *out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		memset(out, 0, sizeof(*out));
		ss_buf_init(&out->paths);
		return errno == ENOENT ? 0 : 1; /* no index yet: empty */
	}
	rc = fstat(fd, &st) == 0 ? read_fd(fd, &st, out) : 1;
	close(fd);
	return rc;
}

/* The first entry whose path's first len bytes are not below path's. */
static size_t find(const ss_index_file *ix, const char *path, size_t len)
{
	size_t lo = 0, hi = ix->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(ix->entries[mid].path, path, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t ss_index_file_position(const ss_index_file *ix, const char *path)
{
	size_t i = find(ix, path, strlen(path) + 1); /* its NUL too: path itself */

	return i < ix->count && !strcmp(ix->entries[i].path, path) ? i : ix->count;
}

bool ss_index_file_has(const ss_index_file *ix, const char *path)
{
	return ss_index_file_position(ix, path) < ix->count;
}

void ss_index_file_dir(const ss_index_file *ix, const char *name, size_t *lo, size_t *hi)
{
	ss_buf dir = SS_BUF_INIT;

	ss_buf_printf(&dir, "%s/", name);
	*lo = *hi = find(ix, dir.ptr, dir.len);
	while (*hi < ix->count && !strncmp(ix->entries[*hi].path, dir.ptr, dir.len))
		(*hi)++;
	ss_buf_release(&dir);
}

void ss_index_file_release(ss_index_file *ix)
{
	free(ix->entries);
	ss_buf_release(&ix->paths);
	if (ix->map)
		munmap(ix->map, ix->maplen);
	memset(ix, 0, sizeof(*ix));
}

/* An index file read and kept (ss_index_file_get). */
struct ss_index_kept {
	ss_index_file ix;
	bool read; /* false: left to libgit2 */
	bool exists;
};

/* Whether the file open at fd, of stat data st, is the one k read: the same stat data and the
 * same checksum (an inode reused within one tick of a coarse clock keeps the first two). */
static bool same_file(const ss_index_kept *k, int fd, const struct stat *st)
{
	const struct stat *a = &k->ix.st;
	struct timespec am = ss_platform_mtime(a), bm = ss_platform_mtime(st);
	struct timespec ac = ss_platform_ctime(a), bc = ss_platform_ctime(st);
	unsigned char sum[TRAILER];

	return k->read && a->st_dev == st->st_dev && a->st_ino == st->st_ino &&
	       a->st_size == st->st_size && am.tv_sec == bm.tv_sec && am.tv_nsec == bm.tv_nsec &&
	       ac.tv_sec == bc.tv_sec && ac.tv_nsec == bc.tv_nsec &&
	       pread(fd, sum, TRAILER, st->st_size - TRAILER) == TRAILER &&
	       !memcmp(sum, k->ix.checksum, TRAILER);
}

const ss_index_file *ss_index_file_get(ss_index_kept **slot, const char *gitdir)
{
	ss_index_kept *k = *slot;
	ss_buf path = SS_BUF_INIT;
	struct stat st;
	bool missing;
	int fd;

	ss_fs_join(&path, gitdir, "index");
	fd = open(path.ptr, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) < 0) {
		close(fd);
		fd = -1;
		errno = EIO; /* not ENOENT: left to libgit2 */
	}
	missing = fd < 0 && errno == ENOENT;
	ss_buf_release(&path);
	if (k && (fd < 0 ? missing && !k->exists : k->exists && same_file(k, fd, &st))) {
		if (fd >= 0)
			close(fd);
		return k->read ? &k->ix : NULL;
	}
	ss_index_kept_free(k);
	k = *slot = ss_xcalloc(1, sizeof(*k));
	k->exists = fd >= 0;
	if (fd < 0) { /* no index yet: empty; anything else: libgit2 says */
		k->read = missing;
		ss_buf_init(&k->ix.paths);
		return k->read ? &k->ix : NULL;
	}
	k->read = read_fd(fd, &st, &k->ix) == 0;
	close(fd);
	return k->read ? &k->ix : NULL;
}

void ss_index_kept_free(ss_index_kept *k)
{
	if (!k)
		return;
	ss_index_file_release(&k->ix);
	free(k);
}

/* The writer: "DIRC", version 2, the count, then each entry (its stat data, mode, id, the
 * length of its path in 12 bits, the path, NULs up to a multiple of 8 bytes), then the SHA-1 of
 * all that, streamed through a buffer and hashed as it goes. */
#define INDEX_CHUNK (256u * 1024)

typedef struct index_out {
	int fd;
	EVP_MD_CTX *sum;
	ss_buf buf;
	const char *lock; /* the file written */
	ss_error *err;
} index_out;

static int index_fail(index_out *o, const char *what)
{
	return ss_error_set(o->err, SS_ERROR, "cannot write the index: cannot %s '%s': %s", what,
	                    o->lock, strerror(errno));
}

/* The bytes buffered, hashed and written. */
static int index_flush(index_out *o)
{
	if (EVP_DigestUpdate(o->sum, o->buf.ptr, o->buf.len) != 1)
		return ss_error_set(o->err, SS_ERROR, "cannot write the index: no SHA-1");
	if (ss_fs_write_all(o->fd, o->buf.ptr, o->buf.len) < 0)
		return index_fail(o, "write");
	ss_buf_clear(&o->buf);
	return 0;
}

static void put_be32(ss_buf *b, uint32_t v)
{
	unsigned char p[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                      (unsigned char)(v >> 8), (unsigned char)v};

	ss_buf_put(b, p, 4);
}

/* Entry e as the index stores it, version 2. */
static void put_entry(ss_buf *b, const ss_index_file_entry *e)
{
	static const char nuls[8] = {0};
	const ss_index_stat *st = e->st;
	size_t plen = strlen(e->path), len = 62 + plen, pad = ((len + 8) & ~(size_t)7) - len,
	       flags = plen < 0xfff ? plen : 0xfff;

	put_be32(b, st->ctime_s);
	put_be32(b, st->ctime_ns);
	put_be32(b, st->mtime_s);
	put_be32(b, st->mtime_ns);
	put_be32(b, st->dev);
	put_be32(b, st->ino);
	put_be32(b, e->mode);
	put_be32(b, st->uid);
	put_be32(b, st->gid);
	put_be32(b, st->size);
	ss_buf_put(b, e->id, TRAILER);
	ss_buf_putc(b, (char)(flags >> 8));
	ss_buf_putc(b, (char)(flags & 0xff));
	ss_buf_put(b, e->path, plen);
	ss_buf_put(b, nuls, pad);
}

int ss_index_file_write(const char *path, size_t count, ss_index_file_next next, void *payload,
                        ss_error *err)
{
	ss_buf lock = SS_BUF_INIT;
	index_out o;
	unsigned char sum[EVP_MAX_MD_SIZE];
	int ret = -1;

	ss_buf_printf(&lock, "%s.lock", path);
	o.fd = -1;
	o.sum = NULL;
	ss_buf_init(&o.buf);
	o.lock = lock.ptr;
	o.err = err;
	/* as libgit2 locks it: whoever made index.lock is writing the index */
	o.fd = open(lock.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (o.fd < 0) {
		ret = errno == EEXIST
		          ? ss_error_set(err, SS_ECONFLICT, "cannot write the index: '%s' exists",
		                         lock.ptr)
		          : index_fail(&o, "create");
		goto out;
	}
	o.sum = EVP_MD_CTX_new();
	if (!o.sum || EVP_DigestInit_ex(o.sum, EVP_sha1(), NULL) != 1) {
		ret = ss_error_set(err, SS_ERROR, "cannot write the index: no SHA-1");
		goto drop;
	}
	ss_buf_put(&o.buf, "DIRC", 4);
	put_be32(&o.buf, 2);
	put_be32(&o.buf, (uint32_t)count);
	for (size_t i = 0; i < count; i++) {
		ss_index_file_entry e;

		next(payload, i, &e);
		put_entry(&o.buf, &e);
		if (o.buf.len >= INDEX_CHUNK && (ret = index_flush(&o)) < 0)
			goto drop;
	}
	if ((ret = index_flush(&o)) < 0)
		goto drop;
	if (EVP_DigestFinal_ex(o.sum, sum, NULL) != 1) {
		ret = ss_error_set(err, SS_ERROR, "cannot write the index: no SHA-1");
		goto drop;
	}
	if (ss_fs_write_all(o.fd, sum, TRAILER) < 0) {
		ret = index_fail(&o, "write");
		goto drop;
	}
	ret = close(o.fd);
	o.fd = -1;
	if (ret < 0) {
		ret = index_fail(&o, "write");
		goto drop;
	}
	if (rename(lock.ptr, path) < 0) {
		ret = index_fail(&o, "rename");
		goto drop;
	}
	ret = 0;
	goto out;
drop:
	if (o.fd >= 0)
		close(o.fd);
	o.fd = -1;
	unlink(lock.ptr);
out:
	EVP_MD_CTX_free(o.sum);
	ss_buf_release(&o.buf);
	ss_buf_release(&lock);
	return ret;
}
