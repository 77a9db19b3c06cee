/*
 * pack_read.c: objects read from a repository's packs, and the index parser (see pack_read.h).
 *
 * How: each pack-*.idx of objects/pack is mapped with its .pack; a lookup narrows to the ids
 * of the same first byte with the fan-out table, then searches them by halves (packs in turn,
 * the one the cursor last found an object in first: a tree's objects are mostly in one pack).
 * The entry's header gives its type and size; its deflated bytes, up to the pack's trailing
 * checksum, are inflated by libdeflate into a buffer of exactly that size (it stops at the end
 * of the zlib stream and checks its Adler-32). The object is not hashed again: libgit2 is set
 * not to either (core/git/repo.c), as git reads objects; `git fsck` checks them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include "core/gitfmt/pack_read.h"
#include "core/gitfmt/oid.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

#define IDX_HEAD  (8 + 256 * 4) /* magic, version, fan-out */
#define PACK_HEAD 12            /* "PACK", version, count */
#define SUM_LEN   SS_OID_RAWSZ  /* a trailing SHA-1 */
#define MAX_RATIO 1032          /* deflate's largest expansion: 258 bytes from 2 bits */

static uint32_t be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

bool ss_pack_read_index(ss_pack_index *idx, const unsigned char *p, size_t len, uint64_t pack_len)
{
	uint64_t need;
	uint32_t prev = 0;

	if (len < IDX_HEAD + 2 * SUM_LEN || memcmp(p, "\377tOc", 4) || be32(p + 4) != 2 ||
	    pack_len < PACK_HEAD + SUM_LEN)
		return false;
	/* counts that never go down, or a search could leave the table */
	for (unsigned f = 0; f < 256; f++) {
		uint32_t v = be32(p + 8 + 4 * f);

		if (v < prev)
			return false;
		prev = v;
	}
	memset(idx, 0, sizeof(*idx));
	idx->n = prev;
	need = IDX_HEAD + (uint64_t)idx->n * (SS_OID_RAWSZ + 4 + 4) + 2 * SUM_LEN;
	if ((uint64_t)len < need || (len - need) % 8)
		return false;
	idx->fanout = p + 8;
	idx->ids = p + IDX_HEAD;
	idx->crcs = idx->ids + (size_t)idx->n * SS_OID_RAWSZ;
	idx->offs = idx->crcs + (size_t)idx->n * 4;
	idx->large = idx->offs + (size_t)idx->n * 4;
	idx->nlarge = (uint32_t)((len - need) / 8);
	idx->pack_len = pack_len;
	return true;
}

bool ss_pack_read_offset(const ss_pack_index *idx, uint32_t i, uint64_t *off)
{
	uint32_t v = be32(idx->offs + 4 * (size_t)i);

	if (v & 0x80000000u) {
		v &= 0x7fffffffu;
		if (v >= idx->nlarge)
			return false;
		*off = ((uint64_t)be32(idx->large + 8 * (size_t)v) << 32) |
		       be32(idx->large + 8 * (size_t)v + 4);
	} else {
		*off = v;
	}
	return *off >= PACK_HEAD && *off < idx->pack_len - SUM_LEN;
}

uint32_t ss_pack_read_crc(const ss_pack_index *idx, uint32_t i)
{
	return be32(idx->crcs + 4 * (size_t)i);
}

/* An object of a pack index: its offset, and its number in the index. */
typedef struct idx_off {
	uint64_t off;
	uint32_t i;
} idx_off;

static int by_off(const void *a, const void *b)
{
	const idx_off *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* Calls each for the entries of idx, in the order of its pack of pack_len bytes; 1 when an
 * offset or a length cannot be an entry's. */
static int list_entries(const ss_pack_index *idx, uint64_t pack_len, ss_pack_read_each each,
                        void *payload)
{
	idx_off *o = ss_xcalloc(idx->n ? idx->n : 1, sizeof(*o));
	int ret = 1;

	for (uint32_t i = 0; i < idx->n; i++) {
		if (!ss_pack_read_offset(idx, i, &o[i].off))
			goto out;
		o[i].i = i;
	}
	qsort(o, idx->n, sizeof(*o), by_off);
	for (uint32_t k = 0; k < idx->n; k++) {
		uint64_t end = k + 1 < idx->n ? o[k + 1].off : pack_len - 20;

		if (end - o[k].off > UINT32_MAX)
			goto out;
		if (each(payload, idx->ids + 20 * (size_t)o[k].i, o[k].off,
		         (uint32_t)(end - o[k].off), ss_pack_read_crc(idx, o[k].i)) < 0) {
			ret = -1;
			goto out;
		}
	}
	ret = 0;
out:
	free(o);
	return ret;
}

int ss_pack_read_list(const char *idx_path, const char *pack_path, ss_pack_read_each each,
                      void *payload)
{
	unsigned char *p = MAP_FAILED;
	ss_pack_index idx;
	struct stat st, pst;
	int fd = open(idx_path, O_RDONLY | O_CLOEXEC), ret = 1;

	if (fd < 0 || fstat(fd, &st) < 0 || stat(pack_path, &pst) < 0 || pst.st_size < 32) {
		ret = -1;
		goto out;
	}
	if ((size_t)st.st_size < 8 + 1024 + 40)
		goto out;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		ret = -1;
		goto out;
	}
	if (ss_pack_read_index(&idx, p, (size_t)st.st_size, (uint64_t)pst.st_size))
		ret = list_entries(&idx, (uint64_t)pst.st_size, each, payload);
out:
	if (p != MAP_FAILED)
		munmap(p, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Entry i of idx whose id is id; false when none. */
static bool index_find(const ss_pack_index *idx, const unsigned char *id, uint32_t *i)
{
	uint32_t lo = id[0] ? be32(idx->fanout + 4 * (id[0] - 1)) : 0;
	uint32_t hi = be32(idx->fanout + 4 * id[0]);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(idx->ids + (size_t)mid * SS_OID_RAWSZ, id, SS_OID_RAWSZ);

		if (!c) {
			*i = mid;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* One mapped pack and its index. */
typedef struct mapped {
	unsigned char *idx_map, *pack_map;
	size_t idx_len, pack_len;
	ss_pack_index idx;
} mapped;

struct ss_packs {
	mapped *p;
	size_t n, alloc;
};

struct ss_pack_cursor {
	const ss_packs *packs;
	struct libdeflate_decompressor *z;
	size_t last;   /* the pack of the last object found */
	uint64_t drop; /* pack bytes read (and a page per entry) since the last drop_pages */
};

/* Maps path whole, read-only; NULL when it cannot (empty included). */
static unsigned char *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		*len = (size_t)st.st_size;
		p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void unmap(mapped *m)
{
	if (m->idx_map)
		munmap(m->idx_map, m->idx_len);
	if (m->pack_map)
		munmap(m->pack_map, m->pack_len);
}

/* Adds the pack whose index is <dir>/<name> when it is one this reads. */
static void add_pack(ss_packs *packs, const char *dir, const char *name)
{
	ss_buf path = SS_BUF_INIT;
	mapped m;

	memset(&m, 0, sizeof(m));
	ss_buf_printf(&path, "%s/%s", dir, name);
	m.idx_map = map_file(path.ptr, &m.idx_len);
	ss_buf_truncate(&path, path.len - strlen(".idx"));
	ss_buf_puts(&path, ".pack");
	m.pack_map = m.idx_map ? map_file(path.ptr, &m.pack_len) : NULL;
	if (m.pack_map && m.pack_len >= PACK_HEAD + SUM_LEN && !memcmp(m.pack_map, "PACK", 4) &&
	    ss_pack_read_index(&m.idx, m.idx_map, m.idx_len, m.pack_len)) {
		ss_xgrow((void **)&packs->p, sizeof(*packs->p), packs->n + 1, &packs->alloc);
		packs->p[packs->n++] = m;
	} else {
		unmap(&m);
	}
	ss_buf_release(&path);
}

int ss_pack_read_open(ss_packs **out, const char *objects, ss_error *err)
{
	ss_packs *packs = ss_xcalloc(1, sizeof(*packs));
	ss_buf dir = SS_BUF_INIT;
	struct dirent *d;
	DIR *dh;

	ss_buf_printf(&dir, "%s/pack", objects);
	dh = opendir(dir.ptr);
	if (!dh && errno != ENOENT) {
		int ret =
		    ss_error_set(err, SS_ERROR, "cannot read '%s': %s", dir.ptr, strerror(errno));

		ss_buf_release(&dir);
		free(packs);
		return ret;
	}
	while (dh && (d = readdir(dh))) {
		size_t len = strlen(d->d_name);

		if (len > 9 && !strncmp(d->d_name, "pack-", 5) &&
		    !strcmp(d->d_name + len - 4, ".idx"))
			add_pack(packs, dir.ptr, d->d_name);
	}
	if (dh)
		closedir(dh);
	ss_buf_release(&dir);
	*out = packs;
	return 0;
}

void ss_pack_read_close(ss_packs *packs)
{
	if (!packs)
		return;
	for (size_t i = 0; i < packs->n; i++)
		unmap(&packs->p[i]);
	free(packs->p);
	free(packs);
}

int ss_pack_read_cursor_new(ss_pack_cursor **out, const ss_packs *packs, ss_error *err)
{
	ss_pack_cursor *c = ss_xcalloc(1, sizeof(*c));

	c->packs = packs;
	c->z = libdeflate_alloc_decompressor();
	if (!c->z) {
		ss_pack_read_cursor_free(c);
		return ss_error_set(err, SS_ERROR, "cannot prepare to read packs");
	}
	*out = c;
	return 0;
}

void ss_pack_read_cursor_free(ss_pack_cursor *c)
{
	if (!c)
		return;
	if (c->z)
		libdeflate_free_decompressor(c->z);
	free(c);
}

static int damaged(ss_error *err, const unsigned char *id, const char *why)
{
	char hex[SS_OID_HEXSZ + 1];
	ss_oid oid;

	memcpy(oid.id, id, SS_OID_RAWSZ);
	ss_oid_fmt(hex, &oid);
	return ss_error_set(err, SS_ERROR, "object %s is damaged in its pack (%s)", hex, why);
}

/*
 * The pages of the packs read so far count in the process's resident memory as long as they
 * stay mapped (the peak a clone reports), and a checkout reads each entry once: after every
 * DROP_EVERY bytes a thread reads, they are unmapped from the process (the page cache keeps
 * them; a thread reading there meanwhile faults them in again, unchanged: the maps are
 * read-only), which keeps the packs' share of the peak at a few MB whatever their size.
 */
#define DROP_EVERY (4u * 1024 * 1024)
#define PAGE_GUESS 4096 /* what a small entry (a tree) maps in: its page */

static void drop_pages(const ss_packs *packs)
{
	for (size_t i = 0; i < packs->n; i++)
		ss_platform_release_pages(packs->p[i].pack_map, packs->p[i].pack_len);
}

/* The entry at off of pack m, into obj: 0, *found false for a delta, -1 when damaged. */
static int read_entry(ss_pack_cursor *c, const mapped *m, uint64_t off, const unsigned char *id,
                      ss_pack_object *obj, bool *found, ss_error *err)
{
	const unsigned char *p = m->pack_map;
	uint64_t end = m->pack_len - SUM_LEN; /* the entries end before the pack's checksum */
	uint64_t size;
	unsigned type, shift = 4;
	size_t used = 0;
	unsigned char b = p[off];

	type = (b >> 4) & 7;
	size = b & 15;
	while (b & 0x80) {
		if (++off >= end || shift > 57)
			return damaged(err, id, "bad entry header");
		b = p[off];
		size |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	off++;
	if (type == SS_PACK_OFS_DELTA || type == SS_PACK_REF_DELTA)
		return 0; /* libgit2 resolves deltas */
	if (type < SS_PACK_COMMIT || type > SS_PACK_TAG)
		return damaged(err, id, "bad entry type");
	/* a size the bytes left could never inflate to is damage, not an allocation to try */
	if (off >= end || size > (end - off) * MAX_RATIO || size >= SIZE_MAX)
		return damaged(err, id, "entry past the end of the pack");
	ss_xgrow((void **)&obj->data, 1, (size_t)size + 1, &obj->alloc);
	if (libdeflate_zlib_decompress_ex(c->z, p + off, (size_t)(end - off), obj->data,
	                                  (size_t)size, &used, NULL) != LIBDEFLATE_SUCCESS)
		return damaged(err, id, "cannot inflate");
	if ((c->drop += used + PAGE_GUESS) >= DROP_EVERY) {
		drop_pages(c->packs);
		c->drop = 0;
	}
	obj->len = (size_t)size;
	obj->type = (int)type;
	*found = true;
	return 0;
}

int ss_pack_read_object(ss_pack_cursor *c, const unsigned char *id, ss_pack_object *obj,
                        bool *found, ss_error *err)
{
	const ss_packs *packs = c->packs;
	uint64_t off;
	uint32_t i;

	*found = false;
	for (size_t k = 0; k < packs->n; k++) {
		size_t at = k == 0 ? c->last : (k <= c->last ? k - 1 : k);
		const mapped *m = &packs->p[at];

		if (!index_find(&m->idx, id, &i))
			continue;
		if (!ss_pack_read_offset(&m->idx, i, &off))
			return damaged(err, id, "its offset is outside the pack");
		c->last = at;
		return read_entry(c, m, off, id, obj, found, err);
	}
	return 0;
}
