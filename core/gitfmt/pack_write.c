/*
 * pack_write.c: one new pack and its index, written here (see core/gitfmt/pack_write.h).
 *
 * How: each object goes into a temporary pack file as an entry of its own (its type and size,
 * then its bytes deflated whole by libdeflate at its fastest level, or another pack's entry
 * copied as it is once its CRC-32 matches the one its index gave), and its id, offset and
 * CRC-32 are kept; the pack ends with the SHA-1 of its bytes, which names it. The index
 * (version 2: the fan-out table, the ids in order, their CRC-32s and offsets, the pack's
 * checksum and its own) is written from those. Each file is synced, read-only, then renamed
 * into place, the pack before its index (no one looks into a pack without its index), and the
 * directory synced.
 *
 * Why not libgit2's indexer, which this replaced: it inflated every object again and hashed it
 * to learn the id the writer already had, a third of the pack thread's time in a clone. The
 * ids come from the objects' own writes (libgit2 hashed them) or from another pack's index;
 * an object read through a backend instead (a delta resolved, a loose file) is hashed by its
 * reader (core/git/repo_pack.c), as git's repack checks what it does not copy as it is.
 */
#include "core/gitfmt/pack_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>
#include <openssl/evp.h>

#include "core/gitfmt/oid.h"
#include "core/gitfmt/pack_read.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* What the index needs of each object. */
typedef struct pack_entry {
	ss_oid id;
	uint32_t crc;
	uint64_t off;
} pack_entry;

typedef struct pack_out {
	const char *dir;
	int fd;
	ss_buf tmp;                      /* the temporary file's path */
	EVP_MD_CTX *sum;                 /* SHA-1 of the file's bytes so far */
	unsigned char *buf;              /* bytes not written yet */
	size_t len, alloc;               /* of buf */
	uint64_t off;                    /* bytes written before buf */
	struct libdeflate_compressor *z; /* the pack's, for all but trees */
	/* trees: stored, not compressed (libdeflate's level 0, still the zlib format git reads).
	 * A tree is mostly binary ids, which deflate cannot shrink: the 15,099 trees of a 3x3000
	 * clone came to 108% of their size at the fastest level, for 0.026 s of CPU, and to 115%
	 * stored, in no time. */
	struct libdeflate_compressor *store;
	pack_entry *e;
	size_t n;
	ss_error *err;
} pack_out;

#define PACK_OUT_CHUNK (256u * 1024)

static int fail_errno(pack_out *po, const char *what)
{
	return ss_error_set(po->err, SS_ERROR, "cannot %s '%s': %s", what, po->tmp.ptr,
	                    strerror(errno));
}

/* A new temporary file in the pack directory (prefix as git names them). */
static int out_open(pack_out *po, const char *prefix)
{
	ss_buf_clear(&po->tmp);
	ss_buf_printf(&po->tmp, "%s/%sXXXXXX", po->dir, prefix);
	po->fd = mkstemp(po->tmp.ptr);
	if (po->fd >= 0)
		(void)fcntl(po->fd, F_SETFD, FD_CLOEXEC);
	po->off = 0;
	po->len = 0;
	if (po->fd < 0) {
		int ret = fail_errno(po, "create");

		ss_buf_clear(&po->tmp);
		return ret;
	}
	if (EVP_DigestInit_ex(po->sum, EVP_sha1(), NULL) != 1)
		return ss_error_set(po->err, SS_ERROR, "cannot compute a SHA-1");
	return 0;
}

static int out_flush(pack_out *po)
{
	if (!po->len)
		return 0;
	if (EVP_DigestUpdate(po->sum, po->buf, po->len) != 1)
		return ss_error_set(po->err, SS_ERROR, "cannot compute a SHA-1");
	if (ss_fs_write_all(po->fd, po->buf, po->len) < 0)
		return fail_errno(po, "write");
	po->off += po->len;
	po->len = 0;
	return 0;
}

/* Room for n more bytes at po->buf + po->len. */
static unsigned char *out_room(pack_out *po, size_t n)
{
	ss_xgrow((void **)&po->buf, 1, po->len + n, &po->alloc);
	return po->buf + po->len;
}

static int out_put(pack_out *po, const void *data, size_t n)
{
	memcpy(out_room(po, n), data, n);
	po->len += n;
	return po->len >= PACK_OUT_CHUNK ? out_flush(po) : 0;
}

/* Ends the file with the SHA-1 of its bytes (sum), syncs it and makes it read-only. */
static int out_close(pack_out *po, unsigned char sum[SS_OID_RAWSZ])
{
	if (out_flush(po) < 0)
		return -1;
	if (EVP_DigestFinal_ex(po->sum, sum, NULL) != 1)
		return ss_error_set(po->err, SS_ERROR, "cannot compute a SHA-1");
	if (ss_fs_write_all(po->fd, sum, SS_OID_RAWSZ) < 0)
		return fail_errno(po, "write");
	if (fsync(po->fd) < 0 || fchmod(po->fd, 0444) < 0)
		return fail_errno(po, "sync");
	close(po->fd);
	po->fd = -1;
	return 0;
}

/* Gives the closed file its name: <dir>/pack-<hex of sum><ext>. */
static int out_rename(pack_out *po, const unsigned char sum[SS_OID_RAWSZ], const char *ext)
{
	char hex[SS_OID_HEXSZ + 1];
	ss_buf final = SS_BUF_INIT;
	ss_oid id;
	int ret = 0;

	memcpy(id.id, sum, SS_OID_RAWSZ);
	ss_oid_fmt(hex, &id);
	ss_buf_printf(&final, "%s/pack-%s%s", po->dir, hex, ext);
	if (rename(po->tmp.ptr, final.ptr) < 0)
		ret = ss_error_set(po->err, SS_ERROR, "cannot rename '%s' to '%s': %s", po->tmp.ptr,
		                   final.ptr, strerror(errno));
	else
		ss_buf_clear(&po->tmp);
	ss_buf_release(&final);
	return ret;
}

/* Closes and removes the temporary file still open, if any (after a failure). */
static void out_drop(pack_out *po)
{
	if (po->fd >= 0)
		close(po->fd);
	po->fd = -1;
	if (po->tmp.len)
		unlink(po->tmp.ptr);
	ss_buf_clear(&po->tmp);
}

static void be32_put(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* The entry's header: its type, and its size in 4 then 7 bits a byte. */
static size_t entry_head(unsigned char head[16], int type, size_t size)
{
	size_t n = 0;

	head[n++] = (unsigned char)(((unsigned)type << 4) | (size & 15));
	for (size >>= 4; size; size >>= 7) {
		head[n - 1] |= 0x80;
		head[n++] = size & 0x7f;
	}
	return n;
}

/* One object: its entry, and what the index needs of it. */
static int put_object(pack_out *po, const ss_pack_write_obj *o)
{
	pack_entry *e = &po->e[po->n];
	char hex[SS_OID_HEXSZ + 1];
	unsigned char head[16];
	struct libdeflate_compressor *zc;
	size_t h, bound, z;

	e->id = o->id;
	e->off = po->off + po->len;
	ss_oid_fmt(hex, &o->id);
	if (o->raw) {
		e->crc = (uint32_t)libdeflate_crc32(0, o->raw, o->raw_len);
		if (e->crc != o->raw_crc)
			return ss_error_set(po->err, SS_ERROR,
			                    "object %s is damaged in its pack (its CRC-32 differs "
			                    "from its index's)",
			                    hex);
		po->n++;
		return out_put(po, o->raw, o->raw_len);
	}
	h = entry_head(head, o->type, o->len);
	zc = o->type == SS_PACK_TREE ? po->store : po->z;
	bound = libdeflate_zlib_compress_bound(zc, o->len);
	memcpy(out_room(po, h + bound), head, h);
	z = libdeflate_zlib_compress(zc, o->data, o->len, po->buf + po->len + h, bound);
	if (!z)
		return ss_error_set(po->err, SS_ERROR, "cannot compress object %s", hex);
	e->crc = (uint32_t)libdeflate_crc32(0, po->buf + po->len, h + z);
	po->len += h + z;
	po->n++;
	return po->len >= PACK_OUT_CHUNK ? out_flush(po) : 0;
}

/* The index of the pack whose checksum is sum, in a new temporary file (closed, not renamed):
 * the entries in the order of their ids (through order, not by moving them: a copy of the
 * entries as large as the array was a pack merge's largest allocation). */
static int write_index(pack_out *po, const unsigned char sum[SS_OID_RAWSZ])
{
	unsigned char b[8], idx_sum[SS_OID_RAWSZ];
	uint32_t large = 0, *order = ss_xcalloc(po->n ? po->n : 1, sizeof(*order));
	size_t k = 0;
	int ret = -1;

	ss_oid_order(order, po->n, po->e, sizeof(*po->e));
	for (size_t i = 1; i < po->n; i++)
		if (ss_oid_equal(&po->e[order[i - 1]].id, &po->e[order[i]].id)) {
			char hex[SS_OID_HEXSZ + 1];

			ss_oid_fmt(hex, &po->e[order[i]].id);
			ret = ss_error_set(po->err, SS_ERROR, "object %s is twice in a new pack",
			                   hex);
			goto out;
		}
	if (out_open(po, "tmp_idx_") < 0 || out_put(po, "\377tOc\0\0\0\2", 8) < 0)
		goto out;
	for (unsigned f = 0; f < 256; f++) {
		while (k < po->n && po->e[order[k]].id.id[0] <= f)
			k++;
		be32_put(b, (uint32_t)k);
		if (out_put(po, b, 4) < 0)
			goto out;
	}
	for (size_t i = 0; i < po->n; i++)
		if (out_put(po, po->e[order[i]].id.id, SS_OID_RAWSZ) < 0)
			goto out;
	for (size_t i = 0; i < po->n; i++) {
		be32_put(b, po->e[order[i]].crc);
		if (out_put(po, b, 4) < 0)
			goto out;
	}
	/* offsets from 2 GiB on go to a table of 8-byte ones, which the 4-byte one points into */
	for (size_t i = 0; i < po->n; i++) {
		uint64_t off = po->e[order[i]].off;

		be32_put(b, off < 0x80000000u ? (uint32_t)off : 0x80000000u | large++);
		if (out_put(po, b, 4) < 0)
			goto out;
	}
	for (size_t i = 0; i < po->n; i++) {
		uint64_t off = po->e[order[i]].off;

		if (off < 0x80000000u)
			continue;
		be32_put(b, (uint32_t)(off >> 32));
		be32_put(b + 4, (uint32_t)off);
		if (out_put(po, b, 8) < 0)
			goto out;
	}
	if (out_put(po, sum, SS_OID_RAWSZ) < 0)
		goto out;
	ret = out_close(po, idx_sum);
out:
	free(order);
	return ret;
}

int ss_pack_write(const char *dir, size_t count, ss_pack_write_next read, void *payload,
                  char name[SS_OID_HEXSZ + 1], ss_error *err)
{
	unsigned char head[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2}, sum[SS_OID_RAWSZ];
	pack_out po;
	ss_oid id;
	int ret = -1;

	memset(&po, 0, sizeof(po));
	po.dir = dir;
	po.fd = -1;
	po.err = err;
	po.e = ss_xcalloc(count ? count : 1, sizeof(*po.e));
	po.z = libdeflate_alloc_compressor(1);
	po.store = libdeflate_alloc_compressor(0);
	po.sum = EVP_MD_CTX_new();
	if (!po.z || !po.store || !po.sum || count > UINT32_MAX) {
		ss_error_set(err, SS_ERROR, "cannot write a pack of %zu objects", count);
		goto out;
	}
	be32_put(head + 8, (uint32_t)count);
	if (out_open(&po, "tmp_pack_") < 0 || out_put(&po, head, sizeof(head)) < 0)
		goto out;
	for (size_t i = 0; i < count; i++) {
		ss_pack_write_obj o;
		int rc;

		memset(&o, 0, sizeof(o));
		if (read(payload, i, &o, err) < 0)
			goto out;
		rc = put_object(&po, &o);
		if (o.data && o.free)
			o.free(o.owner, o.data);
		if (rc < 0)
			goto out;
	}
	/* the pack under its name, then its index: a pack is looked into through its index */
	if (out_close(&po, sum) < 0 || out_rename(&po, sum, ".pack") < 0 ||
	    write_index(&po, sum) < 0 || out_rename(&po, sum, ".idx") < 0)
		goto out;
	if (ss_fs_sync_dir(dir) < 0) {
		ss_error_set(err, SS_ERROR, "cannot sync '%s': %s", dir, strerror(errno));
		goto out;
	}
	memcpy(id.id, sum, SS_OID_RAWSZ);
	ss_oid_fmt(name, &id);
	ret = 0;
out:
	out_drop(&po);
	libdeflate_free_compressor(po.z);
	libdeflate_free_compressor(po.store);
	EVP_MD_CTX_free(po.sum);
	ss_buf_release(&po.tmp);
	free(po.buf);
	free(po.e);
	return ret;
}
