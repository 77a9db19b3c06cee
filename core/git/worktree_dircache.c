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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

#define MAGIC  "skillsync dircache 2\n"
#define IDSZ   20
#define FIELDS 6

struct ss_worktree__dircache {
	ss_buf data; /* the file as read */
	bool staged_known;
	unsigned char index_sum[IDSZ], head[IDSZ];
	const char **staged;
	size_t nstaged;
	const char **key; /* open addressing over the records' paths; NULL: free */
	const unsigned char **val;
	size_t cap;
};

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

ss_worktree__dircache *ss_worktree__dircache_load(const char *path)
{
	ss_worktree__dircache *c = ss_xcalloc(1, sizeof(*c));
	size_t n = 0, len = strlen(MAGIC), first, nstaged;
	ss_error ignored;

	if (ss_fs_read_file(&c->data, path, 0, &ignored) < 0 || c->data.len < len + 2 * IDSZ + 8 ||
	    memcmp(c->data.ptr, MAGIC, len) != 0)
		return c;
	memcpy(c->index_sum, c->data.ptr + len, IDSZ);
	memcpy(c->head, c->data.ptr + len + IDSZ, IDSZ);
	nstaged = (size_t)get64((const unsigned char *)c->data.ptr + len + 2 * IDSZ);
	len += 2 * IDSZ + 8;
	if (nstaged > c->data.len)
		return c;
	c->staged = ss_xcalloc(nstaged ? nstaged : 1, sizeof(*c->staged));
	for (; c->nstaged < nstaged; c->nstaged++) {
		const char *nul = memchr(c->data.ptr + len, '\0', c->data.len - len);
		if (!nul)
			return c;
		c->staged[c->nstaged] = c->data.ptr + len;
		len = (size_t)(nul - c->data.ptr) + 1;
	}
	first = len;
	/* count the records, checking each is whole */
	for (size_t off = first; off < c->data.len; n++) {
		const char *nul = memchr(c->data.ptr + off, '\0', c->data.len - off);
		if (!nul || (size_t)(nul - c->data.ptr) + 1 + FIELDS * 8 > c->data.len)
			return c; /* a torn or foreign file: nothing is trusted */
		off = (size_t)(nul - c->data.ptr) + 1 + FIELDS * 8;
	}
	c->cap = 16;
	while (c->cap < 2 * n)
		c->cap *= 2;
	c->key = ss_xcalloc(c->cap, sizeof(*c->key));
	c->val = ss_xcalloc(c->cap, sizeof(*c->val));
	c->staged_known = true;
	for (size_t off = first; off < c->data.len;) {
		const char *k = c->data.ptr + off;
		size_t klen = strlen(k), i = hash(k, klen) & (c->cap - 1);
		while (c->key[i] && strcmp(c->key[i], k))
			i = (i + 1) & (c->cap - 1);
		c->key[i] = k;
		c->val[i] = (const unsigned char *)k + klen + 1;
		off += klen + 1 + FIELDS * 8;
	}
	return c;
}

bool ss_worktree__dircache_fresh(const ss_worktree__dircache *c, const char *path,
                                 const struct stat *st, size_t n)
{
	uint64_t want[FIELDS];
	size_t i;

	if (!c || !c->cap)
		return false;
	i = hash(path, strlen(path)) & (c->cap - 1);
	while (c->key[i] && strcmp(c->key[i], path))
		i = (i + 1) & (c->cap - 1);
	if (!c->key[i])
		return false;
	stamp(st, n, want);
	for (int f = 0; f < FIELDS; f++)
		if (get64(c->val[i] + 8 * f) != want[f])
			return false;
	return true;
}

void ss_worktree__dircache_add(ss_buf *out, const char *path, const struct stat *st, size_t n)
{
	uint64_t v[FIELDS];

	ss_buf_put(out, path, strlen(path) + 1);
	stamp(st, n, v);
	for (int f = 0; f < FIELDS; f++)
		put64(out, v[f]);
}

size_t ss_worktree__dircache_count(const ss_worktree__dircache *c)
{
	size_t n = 0;

	for (size_t i = 0; c && i < c->cap; i++)
		n += c->key[i] != NULL;
	return n;
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

int ss_worktree__dircache_save(const char *path, const unsigned char *index_sum,
                               const unsigned char *head, const char *const *staged, size_t nstaged,
                               const ss_buf *const *parts, size_t nparts, ss_error *err)
{
	ss_buf all = SS_BUF_INIT;
	int ret;

	ss_buf_puts(&all, MAGIC);
	ss_buf_put(&all, index_sum, IDSZ);
	ss_buf_put(&all, head, IDSZ);
	put64(&all, nstaged);
	for (size_t i = 0; i < nstaged; i++)
		ss_buf_put(&all, staged[i], strlen(staged[i]) + 1);
	for (size_t i = 0; i < nparts; i++)
		ss_buf_put(&all, parts[i]->ptr, parts[i]->len);
	ret = ss_fs_write_atomic(path, all.ptr, all.len, 0600, err);
	ss_buf_release(&all);
	return ret;
}

void ss_worktree__dircache_free(ss_worktree__dircache *c)
{
	if (!c)
		return;
	ss_buf_release(&c->data);
	free(c->staged);
	free(c->key);
	free(c->val);
	free(c);
}
