/*
 * repo_pack.c: packs merged when they pile up (see repo.h), as `git gc --auto` would, without
 * its delta search.
 *
 * How: the chosen packs (their indexes, read here) and, for the gc rule, the loose objects
 * (libgit2's loose backend) list their objects; an object listed twice is kept once, and the
 * rest keep the order they have in their packs (a skill's objects stay together, and each pack
 * is read once from start to end). ss_pack_write writes them into one new pack: a whole
 * object's entry is copied as it is once its CRC-32 matches its index's, as git's repack does
 * (its deflated bytes are not inflated and deflated again: that was two thirds of the work),
 * a delta (a pack `git gc` or `git fetch` wrote) and a loose object go in whole, read through
 * libgit2 and hashed against their ids. Then the pack is synced, and only then are the old
 * packs (index first, so no one looks into a pack without its index) and the loose files
 * removed. Nothing else is ever removed: an object that was readable before is readable
 * after, at every moment in between.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/gitfmt/pack_write.h"
#include "core/gitfmt/pack_read.h"
#include "core/util/buf.h"
#include "core/util/crash.h"
#include "core/util/lock.h"
#include "core/util/mem.h"

/* git's defaults for the keys of the same names */
#define GC_AUTO            6700
#define GC_AUTO_PACK_LIMIT 50

/* A place objects are read from: a pack (its base name, "pack-<hash>") or the loose files. */
typedef struct source {
	git_odb_backend *b; /* libgit2's backend for it */
	char *base;         /* NULL: the loose objects */
} source;

/* An object to pack: where it is (the entries in the order the sources listed them). */
typedef struct entry {
	git_oid id;
	uint32_t src; /* DROPPED: listed again, after its first listing */
	uint64_t off; /* its entry in the pack, when known (len > 0) */
	uint32_t len;
	uint32_t crc; /* that entry's CRC-32, as the pack's index gives it */
} entry;

#define DROPPED UINT32_MAX

typedef struct repack {
	source *src;
	size_t nsrc, src_alloc;
	entry *e;
	size_t n, alloc;
	git_oid *loose; /* the loose objects listed (those also in a pack included) */
	size_t nloose;
} repack;

/* The packs of dir (base names), but those kept by a .keep file, smaller than max bytes. */
static void list_packs(const char *dir, size_t max, char ***names, size_t *n, size_t *alloc)
{
	ss_buf path = SS_BUF_INIT;
	struct dirent *d;
	struct stat st;
	DIR *dh = opendir(dir);

	if (!dh)
		return;
	while ((d = readdir(dh))) {
		size_t len = strlen(d->d_name);

		if (len <= 9 || strncmp(d->d_name, "pack-", 5) ||
		    strcmp(d->d_name + len - 4, ".idx"))
			continue;
		ss_buf_clear(&path);
		ss_buf_printf(&path, "%s/%.*s.keep", dir, (int)(len - 4), d->d_name);
		if (access(path.ptr, F_OK) == 0)
			continue;
		ss_buf_truncate(&path, path.len - strlen(".keep"));
		ss_buf_puts(&path, ".pack");
		if (stat(path.ptr, &st) < 0 || (size_t)st.st_size >= max)
			continue;
		ss_xgrow((void **)names, sizeof(**names), *n + 1, alloc);
		(*names)[(*n)++] = ss_xmemdup(d->d_name, len - 4);
	}
	closedir(dh);
	ss_buf_release(&path);
}

/* How many loose objects objects/ holds, estimated as git does: objects/17 x 256. */
static size_t loose_estimate(const char *objects)
{
	ss_buf path = SS_BUF_INIT;
	struct dirent *d;
	size_t n = 0;
	DIR *dh;

	ss_buf_printf(&path, "%s/17", objects);
	dh = opendir(path.ptr);
	ss_buf_release(&path);
	if (!dh)
		return 0;
	while ((d = readdir(dh)))
		n += strlen(d->d_name) == GIT_OID_HEXSZ - 2 &&
		     strspn(d->d_name, "0123456789abcdef") == GIT_OID_HEXSZ - 2;
	closedir(dh);
	return n * 256;
}

/* gc.auto and gc.autoPackLimit from the repository's configuration (git's defaults). */
static void gc_config(ss_repo *repo, int32_t *gc_auto, int32_t *pack_limit)
{
	git_config *cfg = NULL;
	int32_t v;

	*gc_auto = GC_AUTO;
	*pack_limit = GC_AUTO_PACK_LIMIT;
	if (git_repository_config_snapshot(&cfg, repo->git) < 0)
		return;
	if (git_config_get_int32(&v, cfg, "gc.auto") == 0)
		*gc_auto = v;
	if (git_config_get_int32(&v, cfg, "gc.autoPackLimit") == 0)
		*pack_limit = v;
	git_config_free(cfg);
}

static int add_entry(const git_oid *id, void *payload)
{
	repack *r = payload;

	ss_xgrow((void **)&r->e, sizeof(*r->e), r->n + 1, &r->alloc);
	git_oid_cpy(&r->e[r->n].id, id);
	r->e[r->n].src = (uint32_t)(r->nsrc - 1);
	r->e[r->n].off = 0;
	r->e[r->n].len = 0;
	r->n++;
	return 0;
}

/* One entry of a source's pack (ss_pack_read_list). */
static int add_pack_entry(void *payload, const unsigned char *id, uint64_t off, uint32_t len,
                          uint32_t crc)
{
	repack *r = payload;

	ss_xgrow((void **)&r->e, sizeof(*r->e), r->n + 1, &r->alloc);
	memcpy(r->e[r->n].id.id, id, GIT_OID_RAWSZ);
	r->e[r->n].src = (uint32_t)(r->nsrc - 1);
	r->e[r->n].off = off;
	r->e[r->n].len = len;
	r->e[r->n].crc = crc;
	r->n++;
	return 0;
}

/* Lists the objects of the pack whose index is at path in the order of the pack (see
 * ss_pack_read_list: 1, the caller lists them through libgit2 instead). */
static int list_index(repack *r, const char *path, const char *pack)
{
	int ret = ss_pack_read_list(path, pack, add_pack_entry, r);

	if (ret == 1) /* back to what it had before */
		while (r->n && r->e[r->n - 1].src == r->nsrc - 1)
			r->n--;
	return ret;
}

/* Adds a source (base NULL: the loose objects) and lists its objects. */
static int add_source(repack *r, const char *objects, const char *base)
{
	ss_buf path = SS_BUF_INIT, pack = SS_BUF_INIT;
	git_odb_backend *b = NULL;
	int rc;

	if (base) {
		ss_buf_printf(&path, "%s/pack/%s.idx", objects, base);
		ss_buf_printf(&pack, "%s/pack/%s.pack", objects, base);
		rc = git_odb_backend_one_pack(&b, path.ptr);
	} else {
		rc = git_odb_backend_loose(&b, objects, -1, 0, 0, 0);
	}
	if (rc < 0)
		goto out;
	ss_xgrow((void **)&r->src, sizeof(*r->src), r->nsrc + 1, &r->src_alloc);
	memset(&r->src[r->nsrc], 0, sizeof(r->src[r->nsrc]));
	r->src[r->nsrc].b = b;
	r->src[r->nsrc].base = base ? ss_xstrdup(base) : NULL;
	r->nsrc++;
	rc = base ? list_index(r, path.ptr, pack.ptr) : 1;
	if (rc == 1)
		rc = b->foreach (b, add_entry, r);
	else if (rc < 0)
		rc = GIT_ERROR;
out:
	ss_buf_release(&path);
	ss_buf_release(&pack);
	return rc;
}

/* Each object once (its first listing), in the order of listing: the entries in the order of
 * their ids (ss_oid_order: equal ids by their place) name the later listings, which are
 * dropped. At most UINT32_MAX entries (a pack's count). */
static void dedup(repack *r)
{
	uint32_t *order;
	size_t kept = 0;

	if (r->n < 2)
		return;
	order = ss_xcalloc(r->n, sizeof(*order));
	ss_oid_order(order, r->n, r->e, sizeof(*r->e));
	for (size_t i = 1; i < r->n; i++)
		if (git_oid_equal(&r->e[order[i - 1]].id, &r->e[order[i]].id))
			r->e[order[i]].src = DROPPED;
	free(order);
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].src != DROPPED)
			r->e[kept++] = r->e[i];
	r->n = kept;
}

/* Reads the objects to pack: the packs' bytes through a window read ahead, since their
 * entries come in the order of their pack. */
#define WINDOW (1024u * 1024)

typedef struct reader {
	repack *r;
	const char *objects;
	int fd;        /* the pack of source fd_src, or -1 */
	size_t fd_src; /* SIZE_MAX: none yet */
	unsigned char *win;
	size_t win_alloc, win_len;
	uint64_t win_off;
} reader;

/* The bytes [off, off + len) of source k's pack; NULL when they cannot be read. */
static const unsigned char *pack_bytes(reader *rd, size_t k, uint64_t off, size_t len)
{
	size_t want = len > WINDOW ? len : WINDOW, got = 0;

	if (rd->fd_src != k) {
		ss_buf path = SS_BUF_INIT;

		if (rd->fd >= 0)
			close(rd->fd);
		ss_buf_printf(&path, "%s/pack/%s.pack", rd->objects, rd->r->src[k].base);
		rd->fd = open(path.ptr, O_RDONLY | O_CLOEXEC);
		ss_buf_release(&path);
		rd->fd_src = k;
		rd->win_len = 0;
	}
	if (rd->fd < 0)
		return NULL;
	if (off >= rd->win_off && off + len <= rd->win_off + rd->win_len)
		return rd->win + (off - rd->win_off);
	ss_xgrow((void **)&rd->win, 1, want, &rd->win_alloc);
	rd->win_len = 0;
	while (got < want) {
		ssize_t n = pread(rd->fd, rd->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < len)
		return NULL;
	rd->win_off = off;
	rd->win_len = got;
	return rd->win;
}

/* The i-th object: its pack entry as it is when it is a whole object (type 1 to 4: commit,
 * tree, blob, tag; its CRC-32 checked by the writer), else read whole through libgit2 (and
 * hashed by the writer). */
static int read_entry(void *payload, size_t i, ss_pack_write_obj *obj, ss_error *err)
{
	reader *rd = payload;
	const entry *e = &rd->r->e[i];
	git_odb_backend *b = rd->r->src[e->src].b;
	const unsigned char *raw = e->len ? pack_bytes(rd, e->src, e->off, e->len) : NULL;
	git_object_t type;
	git_oid id;
	int rc;

	ss_git__oid_out(&obj->id, &e->id);
	if (raw && ((raw[0] >> 4) & 7) >= 1 && ((raw[0] >> 4) & 7) <= 4) {
		obj->raw = raw;
		obj->raw_len = e->len;
		obj->raw_crc = e->crc;
		return 0;
	}
	rc = b->read(&obj->data, &obj->len, &type, b, &e->id);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read an object to pack");
	ss_git__backend_data(obj, b, type);
	/* read whole through libgit2, not copied: hashed, as git's repack checks what it does not
	 * copy as it is */
	if (git_odb_hash(&id, obj->data, obj->len, type) < 0 || !git_oid_equal(&id, &e->id))
		return ss_error_set(err, SS_ERROR, "object %s does not match its id",
		                    git_oid_tostr_s(&e->id));
	return 0;
}

/* Removes pack base (its index first: a pack without its index is not looked at). */
static void remove_pack(const char *dir, const char *base)
{
	static const char *const exts[] = {".idx", ".pack", ".rev", ".bitmap", ".mtimes"};
	ss_buf path = SS_BUF_INIT;

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		ss_buf_clear(&path);
		ss_buf_printf(&path, "%s/%s%s", dir, base, exts[i]);
		unlink(path.ptr);
	}
	ss_buf_release(&path);
}

/* Removes the loose files listed (each object is in the new pack, read from its loose file or
 * from a pack), then the directories they leave empty (git's prune-packed). */
static void remove_loose(const repack *r, const char *objects)
{
	char hex[GIT_OID_HEXSZ + 1];
	ss_buf path = SS_BUF_INIT;
	bool fanout[256] = {false};

	for (size_t i = 0; i < r->nloose; i++) {
		git_oid_tostr(hex, sizeof(hex), &r->loose[i]);
		ss_buf_clear(&path);
		ss_buf_printf(&path, "%s/%.2s/%s", objects, hex, hex + 2);
		unlink(path.ptr);
		fanout[r->loose[i].id[0]] = true;
	}
	for (unsigned i = 0; i < 256; i++) {
		if (!fanout[i])
			continue;
		ss_buf_clear(&path);
		ss_buf_printf(&path, "%s/%02x", objects, i);
		rmdir(path.ptr); /* fails, as it should, when another run wrote an object there */
	}
	ss_buf_release(&path);
}

static void repack_release(repack *r)
{
	for (size_t i = 0; i < r->nsrc; i++) {
		r->src[i].b->free(r->src[i].b);
		free(r->src[i].base);
	}
	free(r->src);
	free(r->e);
	free(r->loose);
}

/* What to merge: every pack and the loose objects (*all), the small packs, or nothing
 * (*n = 0). auto_rule: the gc rule first, else only the small packs. */
static void choose(ss_repo *repo, bool auto_rule, const char *objects, char ***names, size_t *n,
                   bool *all)
{
	ss_buf dir = SS_BUF_INIT;
	size_t alloc = 0;
	int32_t gc_auto, pack_limit;

	*all = false;
	ss_buf_printf(&dir, "%s/pack", objects);
	if (auto_rule) {
		gc_config(repo, &gc_auto, &pack_limit);
		if (gc_auto <= 0)
			goto out;
		list_packs(dir.ptr, SIZE_MAX, names, n, &alloc);
		if ((pack_limit > 0 && *n > (size_t)pack_limit) ||
		    loose_estimate(objects) > (size_t)gc_auto) {
			*all = true;
			goto out;
		}
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		*n = 0;
	}
	list_packs(dir.ptr, SS_REPO_SMALL_PACK, names, n, &alloc);
	if (*n < SS_REPO_SMALL_PACKS) {
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		*n = 0;
	}
out:
	ss_buf_release(&dir);
}

/* Merges what choose() picks, under <statedir>/pack.lock (skipped when another run holds
 * it). */
static int pack(ss_repo *repo, bool auto_rule, ss_repo_packed *out, ss_error *err)
{
	ss_buf objects = SS_BUF_INIT, packdir = SS_BUF_INIT, path = SS_BUF_INIT;
	char name[GIT_OID_HEXSZ + 1], **names = NULL;
	size_t n = 0;
	repack r;
	reader rd;
	ss_lock *lock = NULL;
	git_odb *fresh = NULL;
	ss_error busy;
	bool all;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (repo->batch)
		return ss_error_set(err, SS_EINVALID, "an object batch is open");
	ss_buf_printf(&path, "%s/pack.lock", repo->statedir);
	if (ss_lock_acquire(&lock, path.ptr, 0, &busy) < 0) {
		ss_buf_release(&path);
		if (busy.code == SS_ELOCKED) /* another run is merging them */
			return 0;
		*err = busy;
		return -1;
	}
	ss_buf_printf(&objects, "%s/objects", repo->gitdir);
	ss_buf_printf(&packdir, "%s/pack", objects.ptr);
	choose(repo, auto_rule, objects.ptr, &names, &n, &all);
	if (!n && !all) {
		ret = 0;
		goto out;
	}
	ss_crash_delay("pack-merge"); /* test-only: holding pack.lock, nothing read yet */
	/* what the command freed before (a clone's checkout) stays resident in the allocator
	 * otherwise, below the merge's own lists */
	ss_platform_trim_heap();
	rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_source(&r, objects.ptr, names[i]);
	if (rc == 0 && all && (rc = add_source(&r, objects.ptr, NULL)) == 0) {
		r.loose = ss_xcalloc(r.n ? r.n : 1, sizeof(*r.loose));
		for (size_t i = 0; i < r.n; i++)
			if (r.e[i].src == r.nsrc - 1)
				git_oid_cpy(&r.loose[r.nloose++], &r.e[i].id);
	}
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot read the objects to pack");
		goto out;
	}
	if (r.n > UINT32_MAX) {
		ret = ss_error_set(err, SS_ERROR,
		                   "cannot merge packs: %zu objects, more than a pack holds", r.n);
		goto out;
	}
	dedup(&r);
	if (!r.n) {
		ret = 0;
		goto out;
	}
	memset(&rd, 0, sizeof(rd));
	rd.r = &r;
	rd.objects = objects.ptr;
	rd.fd = -1;
	rd.fd_src = SIZE_MAX;
	rc = ss_pack_write(packdir.ptr, r.n, read_entry, &rd, name, err);
	if (rd.fd >= 0)
		close(rd.fd);
	free(rd.win);
	if (rc < 0)
		goto out;
	ss_crash_point("pack-written"); /* test-only: the new pack synced, nothing removed yet */
	/* every object read is in the new pack, synced: what held them can go (a crash that
	 * undoes a removal leaves an object in two packs, which is fine) */
	for (size_t i = 0; i < r.nsrc; i++)
		if (r.src[i].base && strcmp(r.src[i].base + strlen("pack-"), name))
			remove_pack(packdir.ptr, r.src[i].base);
	remove_loose(&r, objects.ptr);
	/* the repository's database forgets the packs it may hold open */
	if ((rc = git_odb_open(&fresh, objects.ptr)) < 0 ||
	    (rc = git_repository_set_odb(repo->git, fresh)) < 0) {
		ret = ss_git__error(err, rc, "cannot open the object database again");
		goto out;
	}
	out->packs = n;
	out->loose = r.nloose;
	out->objects = r.n;
	out->all = all;
	ret = 0;
out:
	git_odb_free(fresh);
	repack_release(&r);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ss_buf_release(&objects);
	ss_buf_release(&packdir);
	ss_buf_release(&path);
	ss_lock_free(lock);
	return ret;
}

int ss_repo_pack_auto(ss_repo *repo, ss_repo_packed *out, ss_error *err)
{
	ss_repo_packed ignored;

	return pack(repo, true, out ? out : &ignored, err);
}

int ss_repo_pack_small(ss_repo *repo, size_t *merged, ss_error *err)
{
	ss_repo_packed done;
	int ret = pack(repo, false, &done, err);

	*merged = ret == 0 ? done.packs : 0;
	return ret;
}
