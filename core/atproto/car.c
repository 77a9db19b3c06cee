#include "core/atproto/car.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/atproto/cbor.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

struct ss_car {
	ss_cid *roots;
	size_t nroots;
	ss_car_block *blocks;
	size_t nblocks, alloc;
	size_t *table; /* open addressing: block index + 1, 0 = empty; size a power of 2 */
	size_t tsize;
	ss_cid *bad; /* the CIDs of the blocks left out: they do not hash to them */
	size_t nbad, bad_alloc;
};

/* Reads an unsigned varint: at most 9 bytes, in its shortest form. */
static int read_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;

	for (int i = 0; i < 9; i++) {
		if (*p >= end)
			return -1;
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i > 0 && b == 0)
				return -1; /* not the shortest form */
			*out = v;
			return 0;
		}
	}
	return -1;
}

static size_t slot(const ss_cid *cid, size_t tsize)
{
	uint64_t h;

	memcpy(&h, cid->digest, sizeof(h)); /* a digest is already uniform */
	return (size_t)(h ^ cid->codec) & (tsize - 1);
}

const ss_car_block *ss_car_get(const ss_car *car, const ss_cid *cid)
{
	if (!car->tsize)
		return NULL;
	for (size_t s = slot(cid, car->tsize);; s = (s + 1) & (car->tsize - 1)) {
		size_t i = car->table[s];
		if (!i)
			return NULL;
		if (ss_cid_equal(&car->blocks[i - 1].cid, cid))
			return &car->blocks[i - 1];
	}
}

static void build_table(ss_car *car)
{
	size_t kept = 0;

	car->tsize = 16;
	while (car->tsize < 2 * car->nblocks)
		car->tsize *= 2;
	car->table = ss_xcalloc(car->tsize, sizeof(*car->table));
	for (size_t i = 0; i < car->nblocks; i++) {
		size_t s = slot(&car->blocks[i].cid, car->tsize);
		while (car->table[s] &&
		       !ss_cid_equal(&car->blocks[car->table[s] - 1].cid, &car->blocks[i].cid))
			s = (s + 1) & (car->tsize - 1);
		if (car->table[s])
			continue; /* the same block again */
		car->blocks[kept] = car->blocks[i];
		car->table[s] = ++kept;
	}
	car->nblocks = kept;
}

static int read_header(ss_car *car, const unsigned char *h, size_t len, ss_error *err)
{
	ss_cbor_reader r;
	ss_cbor_item it, key, prev;
	int seen_roots = 0, seen_version = 0;

	ss_cbor_reader_init(&r, h, len);
	if (ss_cbor_read(&r, &it, err) < 0)
		return -1;
	if (it.type != SS_CBOR_MAP)
		return ss_error_set(err, SS_EINVALID, "CAR header is not a map");
	for (size_t i = 0, n = it.len; i < n; i++) {
		if (ss_cbor_read_key(&r, &key, i ? &prev : NULL, err) < 0)
			return -1;
		prev = key;
		if (key.len == 5 && !memcmp(key.ptr, "roots", 5)) {
			if (ss_cbor_read(&r, &it, err) < 0)
				return -1;
			if (it.type != SS_CBOR_ARRAY)
				return ss_error_set(err, SS_EINVALID, "CAR roots are not a list");
			car->roots = ss_xcalloc(it.len, sizeof(*car->roots));
			for (size_t k = 0, m = it.len; k < m; k++) {
				if (ss_cbor_read(&r, &it, err) < 0)
					return -1;
				if (it.type != SS_CBOR_LINK)
					return ss_error_set(err, SS_EINVALID,
					                    "CAR root is not a CID");
				car->roots[car->nroots++] = it.cid;
			}
			seen_roots = 1;
		} else if (key.len == 7 && !memcmp(key.ptr, "version", 7)) {
			if (ss_cbor_read(&r, &it, err) < 0)
				return -1;
			if (it.type != SS_CBOR_INT || it.i != 1)
				return ss_error_set(err, SS_EINVALID, "CAR version is not 1");
			seen_version = 1;
		} else {
			return ss_error_set(err, SS_EINVALID,
			                    "CAR header has an unknown key '%.*s'",
			                    (int)(key.len > 40 ? 40 : key.len), key.ptr);
		}
	}
	if (r.p != r.end)
		return ss_error_set(err, SS_EINVALID, "CAR header has trailing bytes");
	if (!seen_roots || !seen_version)
		return ss_error_set(err, SS_EINVALID, "CAR header without roots or version");
	return 0;
}

/* Releases the mapped pages of [*from, to) that whole pages cover; *from moves on. */
static void release_pages(const unsigned char **from, const unsigned char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)*from + page - 1) & ~(page - 1);
	uintptr_t hi = (uintptr_t)to & ~(page - 1);

	if (hi > lo)
		ss_platform_release_pages((void *)lo, hi - lo);
	*from = to;
}

/* Pages are released every this many bytes read (ss_car_open_mapped). */
#define RELEASE_EVERY (1u << 20)

/* CIDs in a total order (the bad blocks are searched by halves). */
static int cid_cmp(const void *a, const void *b)
{
	const ss_cid *x = a, *y = b;

	return x->codec != y->codec ? (x->codec < y->codec ? -1 : 1)
	                            : memcmp(x->digest, y->digest, sizeof(x->digest));
}

/* A CAR read (mapped: from a file's map) with its bad blocks left out and counted in *dropped,
 * or (dropped NULL) refused on the first. */
static int open_car(ss_car **out, const void *data, size_t len, bool mapped, size_t *dropped,
                    ss_error *err)
{
	const unsigned char *start = data, *p = start, *end = start + len, *released = start;
	bool release = mapped && len > SS_CAR_RESIDENT_MAX; /* too large to keep */
	ss_car *car = ss_xcalloc(1, sizeof(*car));
	uint64_t n;
	int ret = -1;

	if (read_varint(&p, end, &n) < 0 || n == 0 || n > (uint64_t)(end - p)) {
		ss_error_set(err, SS_EINVALID, "invalid CAR: header length");
		goto out;
	}
	if (read_header(car, p, (size_t)n, err) < 0) {
		ss_error_prefix(err, "invalid CAR");
		goto out;
	}
	p += n;
	while (p < end) {
		const unsigned char *at = p;
		ss_car_block b;
		size_t used;
		bool good;

		if (read_varint(&p, end, &n) < 0 || n > (uint64_t)(end - p)) {
			ss_error_set(err, SS_EINVALID, "invalid CAR at byte %zu: block length",
			             (size_t)(at - start));
			goto out;
		}
		if (ss_cid_from_bytes(&b.cid, p, (size_t)n, &used, err) < 0) {
			ss_error_prefix(err, "invalid CAR at byte %zu", (size_t)(at - start));
			goto out;
		}
		b.data = p + used;
		b.len = (size_t)n - used;
		p += n;
		good = ss_cid_matches(&b.cid, b.data, b.len);
		if (release && (size_t)(p - released) >= RELEASE_EVERY)
			release_pages(&released, p);
		if (!good && dropped) {
			(*dropped)++;
			ss_xgrow((void **)&car->bad, sizeof(*car->bad), car->nbad + 1,
			         &car->bad_alloc);
			car->bad[car->nbad++] = b.cid;
			continue;
		}
		if (!good) {
			char s[SS_CID_STRSZ];
			ss_cid_fmt(s, &b.cid);
			ss_error_set(err, SS_EINVALID,
			             "invalid CAR at byte %zu: block does not hash to its CID %s",
			             (size_t)(at - start), s);
			goto out;
		}
		ss_xgrow((void **)&car->blocks, sizeof(*car->blocks), car->nblocks + 1,
		         &car->alloc);
		car->blocks[car->nblocks++] = b;
	}
	build_table(car);
	if (car->nbad)
		qsort(car->bad, car->nbad, sizeof(*car->bad), cid_cmp);
	*out = car;
	car = NULL;
	ret = 0;
out:
	if (release)
		release_pages(&released, end);
	ss_car_free(car);
	return ret;
}

int ss_car_open(ss_car **out, const void *data, size_t len, ss_error *err)
{
	return open_car(out, data, len, false, NULL, err);
}

int ss_car_open_keep_bad(ss_car **out, const void *data, size_t len, ss_error *err)
{
	size_t dropped = 0;

	return open_car(out, data, len, false, &dropped, err);
}

int ss_car_open_mapped(ss_car **out, const void *map, size_t len, size_t *dropped, ss_error *err)
{
	*dropped = 0;
	return open_car(out, map, len, true, dropped, err);
}

void ss_car_release_pages(const void *map, size_t len)
{
	const unsigned char *from = map;

	release_pages(&from, from + len);
}

void ss_car_free(ss_car *car)
{
	if (!car)
		return;
	free(car->roots);
	free(car->blocks);
	free(car->bad);
	free(car->table);
	free(car);
}

size_t ss_car_root_count(const ss_car *car)
{
	return car->nroots;
}

const ss_cid *ss_car_root(const ss_car *car, size_t i)
{
	return i < car->nroots ? &car->roots[i] : NULL;
}

size_t ss_car_block_count(const ss_car *car)
{
	return car->nblocks;
}

size_t ss_car_bad_count(const ss_car *car)
{
	return car->nbad;
}

bool ss_car_is_bad(const ss_car *car, const ss_cid *cid)
{
	return car->nbad && bsearch(cid, car->bad, car->nbad, sizeof(*car->bad), cid_cmp);
}

const ss_cid *ss_car_bad(const ss_car *car, size_t i)
{
	return i < car->nbad ? &car->bad[i] : NULL;
}

const ss_car_block *ss_car_block_at(const ss_car *car, size_t i)
{
	return i < car->nblocks ? &car->blocks[i] : NULL;
}

int ss_car_get_block(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                     ss_error *err)
{
	const ss_car_block *b = ss_car_get(ctx, cid);
	char s[SS_CID_STRSZ];

	if (!b) {
		ss_cid_fmt(s, cid);
		return ss_error_set(err, SS_ENOTFOUND, "block %s not in the CAR", s);
	}
	*data = b->data;
	*len = b->len;
	return 0;
}
