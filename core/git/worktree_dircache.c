/*
 * worktree_dircache.c: which directories of the working directory hold exactly what the index
 * lists (see ss_worktree__dircache in worktree_priv.h).
 *
 * The file: "skillsync dircache 2\n"; the index's checksum and HEAD's tree id (20 bytes each,
 * zeros for none) with the top-level names whose tree differs between them (a count, then
 * each name and a NUL); then one record per directory: its path from the top ("" for the top,
 * else "dir/sub/"), a NUL, then mtime seconds, mtime nanoseconds, ctime seconds, ctime
 * nanoseconds, inode and the number of names. Numbers are unsigned 64-bit, little-endian.
 * Anything else (a short file, another version) reads as an empty cache.
 */
#include "core/git/worktree_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

#define MAGIC  "skillsync dircache 2\n"
#define IDSZ   20
#define FIELDS 6

struct ss_worktree__dircache {
	const char *data; /* the file, mapped (len bytes) */
	size_t len;
	bool staged_known;
	unsigned char index_sum[IDSZ], head[IDSZ];
	const char **staged;
	size_t nstaged;
	/* open addressing over the records: a record's offset in data + 1; 0: free */
	uint32_t *slot;
	unsigned char *used; /* by slot: the record was found fresh (kept for the next cache) */
	size_t cap, count;
};

/* The record at slot i: its path (NUL-terminated), its fields after it. */
static const char *rec(const ss_worktree__dircache *c, size_t i)
{
	return c->data + c->slot[i] - 1;
}

static size_t rec_len(const char *r)
{
	return strlen(r) + 1 + FIELDS * 8;
}

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(ss_buf *b, uint64_t v)
{
	unsigned char p[8];

	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	ss_buf_put(b, p, sizeof(p));
}

static void stamp(const struct stat *st, size_t n, uint64_t out[FIELDS])
{
	struct timespec m = ss_platform_mtime(st), c = ss_platform_ctime(st);

	out[0] = (uint64_t)m.tv_sec;
	out[1] = (uint64_t)m.tv_nsec;
	out[2] = (uint64_t)c.tv_sec;
	out[3] = (uint64_t)c.tv_nsec;
	out[4] = (uint64_t)st->st_ino;
	out[5] = n;
}

/* Maps the file at path into c (data, len); false when it cannot be. */
static bool map_file(ss_worktree__dircache *c, const char *path)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return false;
	map = fstat(fd, &st) == 0 && st.st_size > 0
	          ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
	          : MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		return false;
	c->data = map;
	c->len = (size_t)st.st_size;
	return true;
}

ss_worktree__dircache *ss_worktree__dircache_load(const char *path)
{
	ss_worktree__dircache *c = ss_xcalloc(1, sizeof(*c));
	size_t len = strlen(MAGIC), first, nstaged, most;

	/* a cache written by a rename, never in place, and read whole: mapped */
	if (!map_file(c, path) || c->len < len + 2 * IDSZ + 8 || memcmp(c->data, MAGIC, len) != 0 ||
	    c->len >= UINT32_MAX)
		return c;
	memcpy(c->index_sum, c->data + len, IDSZ);
	memcpy(c->head, c->data + len + IDSZ, IDSZ);
	nstaged = (size_t)get64((const unsigned char *)c->data + len + 2 * IDSZ);
	len += 2 * IDSZ + 8;
	if (nstaged > c->len)
		return c;
	c->staged = ss_xcalloc(nstaged ? nstaged : 1, sizeof(*c->staged));
	for (; c->nstaged < nstaged; c->nstaged++) {
		const char *nul = memchr(c->data + len, '\0', c->len - len);
		if (!nul)
			return c;
		c->staged[c->nstaged] = c->data + len;
		len = (size_t)(nul - c->data) + 1;
	}
	first = len;
	/* at most one record per NUL and fields: the table sized from the file, in one pass */
	most = (c->len - first) / (1 + FIELDS * 8) + 1;
	c->cap = 16;
	while (c->cap < 2 * most)
		c->cap *= 2;
	c->slot = ss_xcalloc(c->cap, sizeof(*c->slot));
	c->used = ss_xcalloc(c->cap, 1);
	for (size_t off = first; off < c->len;) {
		const char *k = c->data + off, *nul = memchr(k, '\0', c->len - off);
		if (!nul || (size_t)(nul - c->data) + 1 + FIELDS * 8 > c->len) {
			/* a torn or foreign file: nothing is trusted */
			memset(c->slot, 0, c->cap * sizeof(*c->slot));
			c->count = 0;
			c->cap = 0;
			return c;
		}
		size_t klen = (size_t)(nul - k), i = hash(k, klen) & (c->cap - 1);
		while (c->slot[i] && strcmp(rec(c, i), k))
			i = (i + 1) & (c->cap - 1);
		if (!c->slot[i])
			c->count++;
		c->slot[i] = (uint32_t)off + 1;
		off += klen + 1 + FIELDS * 8;
	}
	c->staged_known = true;
	return c;
}

bool ss_worktree__dircache_fresh(const ss_worktree__dircache *c, const char *path,
                                 const struct stat *st, size_t n, size_t *slot)
{
	uint64_t want[FIELDS];
	const unsigned char *v;
	size_t i;

	if (!c || !c->cap)
		return false;
	i = hash(path, strlen(path)) & (c->cap - 1);
	while (c->slot[i] && strcmp(rec(c, i), path))
		i = (i + 1) & (c->cap - 1);
	if (!c->slot[i])
		return false;
	v = (const unsigned char *)rec(c, i) + strlen(path) + 1;
	stamp(st, n, want);
	for (int f = 0; f < FIELDS; f++)
		if (get64(v + 8 * f) != want[f])
			return false;
	*slot = i;
	return true;
}

void ss_worktree__dircache_keep(ss_worktree__dircache *c, size_t slot)
{
	c->used[slot] = 1; /* one walker per directory: no other thread writes this byte */
}

void ss_worktree__dircache_add(ss_buf *out, const char *path, const struct stat *st, size_t n)
{
	uint64_t v[FIELDS];

	ss_buf_put(out, path, strlen(path) + 1);
	stamp(st, n, v);
	for (int f = 0; f < FIELDS; f++)
		put64(out, v[f]);
}

bool ss_worktree__dircache_staged(const ss_worktree__dircache *c, const unsigned char *index_sum,
                                  const unsigned char *head, const char *const **names, size_t *n)
{
	if (!c || !c->staged_known || memcmp(c->index_sum, index_sum, IDSZ) ||
	    memcmp(c->head, head, IDSZ))
		return false;
	*names = c->staged;
	*n = c->nstaged;
	return true;
}

/* Appends len bytes to out, writing out to fd when it holds 64 KB: -1 with errno on failure. */
static int put(int fd, ss_buf *out, const void *data, size_t len)
{
	ss_buf_put(out, data, len);
	if (out->len < 65536)
		return 0;
	if (ss_fs_write_all(fd, out->ptr, out->len) < 0)
		return -1;
	ss_buf_clear(out);
	return 0;
}

int ss_worktree__dircache_save(const char *path, const ss_worktree__dircache *was,
                               const unsigned char *index_sum, const unsigned char *head,
                               const char *const *staged, size_t nstaged,
                               const ss_buf *const *parts, size_t nparts, bool changed,
                               ss_error *err)
{
	ss_buf tmp = SS_BUF_INIT, out = SS_BUF_INIT, n = SS_BUF_INIT;
	size_t fresh = 0, added = 0;
	int fd, rc = 0;

	for (size_t i = 0; was && i < was->cap; i++)
		fresh += was->used[i];
	for (size_t k = 0; k < nparts; k++)
		added += parts[k]->len;
	if (!changed && !added && was && fresh == was->count)
		return 0;
	ss_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", tmp.ptr, strerror(errno));
		goto out;
	}
	put64(&n, nstaged);
	rc = put(fd, &out, MAGIC, strlen(MAGIC)) | put(fd, &out, index_sum, IDSZ) |
	     put(fd, &out, head, IDSZ) | put(fd, &out, n.ptr, n.len);
	for (size_t i = 0; rc == 0 && i < nstaged; i++)
		rc = put(fd, &out, staged[i], strlen(staged[i]) + 1);
	for (size_t i = 0; rc == 0 && was && i < was->cap; i++)
		if (was->used[i])
			rc = put(fd, &out, rec(was, i), rec_len(rec(was, i)));
	for (size_t k = 0; rc == 0 && k < nparts; k++)
		rc = put(fd, &out, parts[k]->ptr, parts[k]->len);
	if (rc == 0 && out.len && ss_fs_write_all(fd, out.ptr, out.len) < 0)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp.ptr, path) < 0)
		rc = -1;
	if (rc < 0) {
		rc = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp.ptr);
	}
out:
	ss_buf_release(&tmp);
	ss_buf_release(&out);
	ss_buf_release(&n);
	return rc;
}

struct ss_worktree__dircache_loading {
	char *path;
	ss_worktree__dircache *cache;
	pthread_t thread;
	bool started;
};

static void *load_main(void *arg)
{
	ss_worktree__dircache_loading *l = arg;

	l->cache = ss_worktree__dircache_load(l->path);
	return NULL;
}

ss_worktree__dircache_loading *ss_worktree__dircache_load_async(const char *path)
{
	ss_worktree__dircache_loading *l = ss_xcalloc(1, sizeof(*l));

	l->path = ss_xstrdup(path);
	l->started = pthread_create(&l->thread, NULL, load_main, l) == 0;
	return l;
}

ss_worktree__dircache *ss_worktree__dircache_join(ss_worktree__dircache_loading *l)
{
	ss_worktree__dircache *c;

	if (l->started)
		pthread_join(l->thread, NULL);
	else /* no thread to be had: loaded here */
		l->cache = ss_worktree__dircache_load(l->path);
	c = l->cache;
	free(l->path);
	free(l);
	return c;
}

void ss_worktree__dircache_free(ss_worktree__dircache *c)
{
	if (!c)
		return;
	if (c->data)
		munmap((void *)(uintptr_t)c->data, c->len);
	free(c->staged);
	free(c->slot);
	free(c->used);
	free(c);
}
