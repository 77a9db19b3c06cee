/*
 * worktree_walk.c: one thread's walk of the working directory against the index, for the scan
 * (core/git/worktree_scan.c): each directory read once, each file's stat data compared with its
 * index entry and the file hashed only when they differ or the entry is racily clean, a
 * directory the directory cache vouches for not read (see core/git/worktree_priv.h).
 */
#include "core/git/worktree_priv.h"

#include <dirent.h> /* DT_* */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/git/git_priv.h"
#include "core/gitfmt/oid.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

int ss_worktree__name_cmp(const void *a, const void *b)
{
	const ss_worktree__dname *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* A file's type as readdir gives it: DT_DIR, DT_REG, DT_LNK, or DT_UNKNOWN for any other. */
unsigned char ss_worktree__dtype(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return DT_DIR;
	if (S_ISREG(st->st_mode))
		return DT_REG;
	return S_ISLNK(st->st_mode) ? DT_LNK : DT_UNKNOWN;
}

static void fail(ss_worktree__walker *w, int errnum, const char *path)
{
	if (w->errnum)
		return;
	w->errnum = errnum;
	w->errpath = ss_xstrdup(path);
}

static void untracked(ss_worktree__walker *w, const char *path)
{
	ss_xgrow((void **)&w->untracked, sizeof(char *), w->nuntracked + 1, &w->auntracked);
	w->untracked[w->nuntracked++] = ss_xstrdup(path);
}

static bool time_eq(const ss_index_time *t, struct timespec ts)
{
	return t->seconds == (int32_t)ts.tv_sec && t->nanoseconds == (uint32_t)ts.tv_nsec;
}

/* Whether the entry was written in the index's own time or later (git's racy-git rule). */
static bool racy(const ss_worktree__walker *w, const ss_index_entry *e)
{
	return e->mtime.seconds > (int32_t)w->stamp.tv_sec ||
	       (e->mtime.seconds == (int32_t)w->stamp.tv_sec &&
	        e->mtime.nanoseconds >= (uint32_t)w->stamp.tv_nsec);
}

/* The blob id of name in dfd (a file's content or a link's target), as git add would make it:
 * -EAGAIN when it changed while read (or is no longer what st says), -errno on failure. */
static int hash_file(int dfd, const char *name, const struct stat *st, ss_oid *out)
{
	ss_oid id;
	int fd, rc;

	if (S_ISLNK(st->st_mode)) {
		size_t cap = (size_t)st->st_size + 1;
		char *buf = ss_xmalloc(cap);
		ssize_t n = readlinkat(dfd, name, buf, cap);
		/* a longer target than its stat said: changed */
		rc = n < 0 ? -errno : (size_t)n >= cap ? -EAGAIN : 0;
		if (rc == 0 && ss_oid_hash(&id, "blob", buf, (size_t)n) < 0)
			rc = -EIO;
		free(buf);
	} else if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = -errno;
	} else {
		rc = ss_oid_hash_fd(&id, fd, (size_t)st->st_size);
		close(fd);
	}
	if (rc == -ENOENT || rc == -ELOOP || rc == -EISDIR || rc == -ENOTDIR || rc == -EINVAL)
		rc = -EAGAIN; /* gone, or no longer a file, since its stat data was read */
	if (rc == 0)
		*out = id;
	return rc;
}

/* The working directory's file name in dfd (path from the top), of stat data st, against index
 * entry pos. */
static void check_stat(ss_worktree__walker *w, int dfd, const char *name, const char *path,
                       size_t pos, const struct stat *stp)
{
	const ss_index_entry *e = &w->e[pos];
	const struct stat st = *stp;
	struct timespec mtime, ctime;
	uint32_t mode;
	ss_oid id;
	int rc;

	if (S_ISDIR(st.st_mode)) { /* the file became a directory */
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_DELETED);
		ss_buf dir = SS_BUF_INIT;
		ss_buf_printf(&dir, "%s/", path);
		untracked(w, dir.ptr);
		ss_buf_release(&dir);
		return;
	}
	if (S_ISREG(st.st_mode))
		mode = (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	else if (S_ISLNK(st.st_mode))
		mode = GIT_FILEMODE_LINK;
	else { /* a fifo, a socket, a device: not a file git can hold */
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_DELETED);
		return;
	}
	if (mode != e->mode) {
		bool type = (mode & 0170000) != (e->mode & 0170000);
		ss_worktree__items_add(&w->found, path,
		                       type ? GIT_STATUS_WT_TYPECHANGE : GIT_STATUS_WT_MODIFIED);
		return;
	}
	/* a size of 0 in the index may be a racily clean entry's, zeroed when the index was
	 * written: the content decides */
	if (e->file_size != (uint32_t)st.st_size && e->file_size != 0) {
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_MODIFIED);
		return;
	}
	mtime = ss_platform_mtime(&st);
	ctime = ss_platform_ctime(&st);
	bool same_stat = e->file_size == (uint32_t)st.st_size && time_eq(&e->mtime, mtime) &&
	                 time_eq(&e->ctime, ctime) && e->ino == (uint32_t)st.st_ino &&
	                 e->uid == (uint32_t)st.st_uid && e->gid == (uint32_t)st.st_gid;
	if (same_stat && !racy(w, e))
		return;
	w->files_hashed++;
	if ((rc = hash_file(dfd, name, &st, &id)) == -EAGAIN) {
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_MODIFIED);
		return;
	}
	if (rc < 0) {
		fail(w, -rc, path);
		return;
	}
	if (!ss_oid_equal(&id, &e->id)) {
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_MODIFIED);
		return;
	}
	if (same_stat) { /* racily clean: a write of the index makes it plainly clean */
		w->racy_clean++;
		return;
	}
	ss_xgrow((void **)&w->ref, sizeof(*w->ref), w->nref + 1, &w->aref);
	w->ref[w->nref].pos = pos;
	w->ref[w->nref].st = st;
	w->nref++;
}

/* The same, reading the stat data first. */
static void check_file(ss_worktree__walker *w, int dfd, const char *name, const char *path,
                       size_t pos)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		check_stat(w, dfd, name, path, pos, &st);
	else if (errno == ENOENT || errno == ENOTDIR)
		ss_worktree__items_add(&w->found, path, GIT_STATUS_WT_DELETED);
	else
		fail(w, errno, path);
}

/* Every index entry in [lo, hi) as deleted from the working directory. */
static void all_deleted(ss_worktree__walker *w, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++)
		ss_worktree__items_add(&w->found, w->e[i].path, GIT_STATUS_WT_DELETED);
}

/* The names read_names collects: offsets into the pool, and their types. */
typedef struct names_acc {
	ss_buf *pool;
	size_t *offs;
	unsigned char *types;
	size_t n, aoffs, atypes;
} names_acc;

static int collect_name(void *payload, const char *s, unsigned char type)
{
	names_acc *a = payload;

	if (!strcmp(s, ".") || !strcmp(s, "..") || !strcmp(s, ".git"))
		return 0;
	ss_xgrow((void **)&a->offs, sizeof(*a->offs), a->n + 1, &a->aoffs);
	ss_xgrow((void **)&a->types, sizeof(*a->types), a->n + 1, &a->atypes);
	a->offs[a->n] = a->pool->len;
	a->types[a->n] = type;
	ss_buf_put(a->pool, s, strlen(s) + 1);
	a->n++;
	return 0;
}

/* The names of directory dfd (".", ".." and ".git" left out), into *names (their strings in
 * pool), sorted. -errno on failure. */
int ss_worktree__read_names(int dfd, ss_worktree__dname **names, size_t *count, ss_buf *pool)
{
	names_acc a = {.pool = pool};
	int ret = 0;

	ss_buf_clear(pool);
	*names = NULL;
	*count = 0;
	if (ss_platform_dir_each(dfd, collect_name, &a) < 0) {
		ret = -errno;
	} else {
		/* the pool is complete: pointers into it are stable now */
		*names = ss_xcalloc(a.n ? a.n : 1, sizeof(**names));
		for (size_t i = 0; i < a.n; i++) {
			(*names)[i].s = pool->ptr + a.offs[i];
			(*names)[i].len = strlen((*names)[i].s);
			(*names)[i].type = a.types[i];
		}
		qsort(*names, a.n, sizeof(**names), ss_worktree__name_cmp);
		*count = a.n;
	}
	free(a.offs);
	free(a.types);
	return ret;
}

/* The index's names directly below the prefix of length plen that entries [lo, hi) share. */
ss_worktree__dname *ss_worktree__index_names(const ss_worktree__walker *w, size_t lo, size_t hi,
                                             size_t plen, size_t *count)
{
	ss_worktree__dname *v = ss_xcalloc(hi - lo ? hi - lo : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = lo; i < hi;) {
		const char *s = w->e[i].path + plen, *slash = strchr(s, '/');
		ss_worktree__dname *nm = &v[n++];

		nm->s = s;
		nm->lo = i;
		if (!slash) {
			nm->len = strlen(s);
			nm->hi = ++i;
			continue;
		}
		nm->len = (size_t)(slash - s);
		nm->dir = true;
		for (i++; i < hi && !strncmp(w->e[i].path + plen, s, nm->len + 1); i++)
			;
		nm->hi = i;
	}
	/* the index's order is the paths', which the names' differs from only where a name is
	 * a prefix of another's ("a/" after "a-b"): most directories are in order already */
	for (size_t k = 1; k < n; k++)
		if (ss_worktree__name_cmp(&v[k - 1], &v[k]) > 0) {
			qsort(v, n, sizeof(*v), ss_worktree__name_cmp);
			break;
		}
	*count = n;
	return v;
}

/* The index's directory nm below prefix: walked when the working directory has a directory
 * there (st its stat data), at the top handed to the walkers. */
static void enter(ss_worktree__walker *w, ss_buf *prefix, const ss_worktree__dname *nm,
                  const struct stat *st)
{
	size_t plen = prefix->len;

	if (w->deferring) {
		ss_xgrow((void **)&w->defer, sizeof(*w->defer), w->ndefer + 1, &w->adefer);
		memset(&w->defer[w->ndefer], 0, sizeof(*w->defer));
		w->defer[w->ndefer].d = *nm;
		if (st)
			w->defer[w->ndefer].st = *st;
		w->defer[w->ndefer].have_st = st != NULL;
		w->ndefer++;
		return;
	}
	ss_buf_put(prefix, nm->s, nm->len);
	ss_buf_putc(prefix, '/');
	ss_worktree__walk_dir(w, prefix, nm->lo, nm->hi, st);
	ss_buf_truncate(prefix, plen);
}

/* What the working directory has where the index has directory nm: st, its stat data. */
static void index_dir(ss_worktree__walker *w, ss_buf *prefix, const ss_worktree__dname *nm,
                      const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		enter(w, prefix, nm, st);
		return;
	}
	/* a file or a link where a directory was */
	size_t plen = prefix->len;
	ss_buf_put(prefix, nm->s, nm->len);
	if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode))
		untracked(w, prefix->ptr);
	ss_buf_truncate(prefix, plen);
	all_deleted(w, nm->lo, nm->hi);
}

/* Whether the directory at prefix, recorded in the cache, still holds exactly the index's
 * names ix: each is there as what the index says; then each is checked (nothing untracked can
 * be there). false, nothing done, when one is not. At the top (deferring), its directories go
 * to the walkers unread: each walker reads their stat data, in parallel, and one no longer
 * there as a directory is found then (ss_worktree__scan). */
static bool walk_known(ss_worktree__walker *w, ss_buf *prefix, const ss_worktree__dname *ix,
                       size_t nix)
{
	struct stat *st = ss_xcalloc(nix ? nix : 1, sizeof(*st));
	size_t plen = prefix->len, i;
	bool top = w->deferring;

	for (i = 0; i < nix; i++) {
		if (top && ix[i].dir)
			continue;
		ss_buf_put(prefix, ix[i].s, ix[i].len);
		bool ok = fstatat(w->top, prefix->ptr, &st[i], AT_SYMLINK_NOFOLLOW) == 0 &&
		          (S_ISDIR(st[i].st_mode) == ix[i].dir);
		ss_buf_truncate(prefix, plen);
		if (!ok)
			break;
	}
	if (i < nix) {
		free(st);
		return false;
	}
	for (i = 0; i < nix; i++) {
		if (ix[i].dir) {
			enter(w, prefix, &ix[i], top ? NULL : &st[i]);
			continue;
		}
		ss_buf_put(prefix, ix[i].s, ix[i].len);
		check_stat(w, w->top, prefix->ptr, prefix->ptr, ix[i].lo, &st[i]);
		ss_buf_truncate(prefix, plen);
	}
	free(st);
	return true;
}

/* Whether t is at least margin nanoseconds before the walk began. */
static bool before(const ss_worktree__walker *w, struct timespec t, long long margin)
{
	long long ns =
	    ((long long)w->began.tv_sec - t.tv_sec) * 1000000000LL + (w->began.tv_nsec - t.tv_nsec);

	return ns >= margin;
}

/*
 * Records the directory at prefix for the next cache, unless it changed too recently: a name
 * made in it later within the same tick of the file system's clock would leave its mtime as
 * recorded. A file system with sub-second times ticks every few milliseconds: 100 ms is
 * ample; one whose times are whole seconds (FAT's are two) gets three seconds.
 */
static void keep(ss_worktree__walker *w, const char *prefix, const struct stat *st, size_t nix)
{
	struct timespec m = ss_platform_mtime(st), c = ss_platform_ctime(st);
	long long margin = m.tv_nsec == 0 && c.tv_nsec == 0 ? 3000000000LL : 100000000LL;

	if (!before(w, m, margin) || !before(w, c, margin))
		return;
	ss_worktree__dircache_add(&w->keep, prefix, st, nix);
}

/* The path a prefix holds: "" for the top. */
static const char *here(const ss_buf *prefix)
{
	return prefix->len ? prefix->ptr : "";
}

/* The directory at prefix ("" or "dir/"), of stat data st, against the index's entries
 * [lo, hi) below it: read, unless the cache says it holds exactly the index's names. */
void ss_worktree__walk_dir(ss_worktree__walker *w, ss_buf *prefix, size_t lo, size_t hi,
                           const struct stat *st)
{
	ss_buf pool = SS_BUF_INIT;
	size_t nwd = 0, nix, i = 0, j = 0, plen = prefix->len, exact = 0;
	ss_worktree__dname *wd = NULL, *ix = ss_worktree__index_names(w, lo, hi, plen, &nix);
	size_t slot;
	int dfd, rc;

	/* prefix grows and shrinks below: its pointer is read again each time (here()) */
	/* a record found fresh is kept as it is */
	if (ss_worktree__dircache_fresh(w->cache, here(prefix), st, nix, &slot) &&
	    walk_known(w, prefix, ix, nix)) {
		if (w->deferring) { /* kept once its walkers agree (ss_worktree__scan) */
			w->top_known = true;
			w->top_slot = slot;
		} else {
			ss_worktree__dircache_keep(w->cache, slot);
		}
		free(ix);
		return;
	}
	dfd = openat(w->top, plen ? prefix->ptr : ".",
	             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) { /* gone, or no longer a directory, since its stat data was read */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			fail(w, errno, plen ? prefix->ptr : ".");
		all_deleted(w, lo, hi);
		free(ix);
		return;
	}
	w->dirs_read++;
	if ((rc = ss_worktree__read_names(dfd, &wd, &nwd, &pool)) < 0) {
		fail(w, -rc, plen ? prefix->ptr : ".");
		goto out;
	}
	while (i < nwd || j < nix) {
		int c = i == nwd ? 1 : j == nix ? -1 : ss_worktree__name_cmp(&wd[i], &ix[j]);
		const ss_worktree__dname *x = c <= 0 ? &wd[i] : NULL, *y = c >= 0 ? &ix[j] : NULL;
		unsigned char type = x ? x->type : DT_UNKNOWN;
		struct stat sub;

		/* at the top, a directory of both goes to the walkers, who read its stat data */
		bool later = w->deferring && x && y && y->dir && type == DT_DIR;
		if (x && !later && (type == DT_UNKNOWN || (y && y->dir))) {
			if (fstatat(dfd, x->s, &sub, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT) {
					ss_buf_put(prefix, x->s, x->len);
					fail(w, errno, prefix->ptr);
					ss_buf_truncate(prefix, plen);
				}
				x = NULL; /* gone since the directory was read */
			} else {
				type = ss_worktree__dtype(&sub);
			}
		}
		if (!y) { /* only in the working directory: untracked */
			ss_buf_put(prefix, wd[i].s, wd[i].len);
			if (type == DT_DIR)
				ss_buf_putc(prefix, '/');
			if (x && (type == DT_DIR || type == DT_REG || type == DT_LNK))
				untracked(w, prefix->ptr);
			ss_buf_truncate(prefix, plen);
		} else if (!y->dir) { /* a file of the index */
			ss_buf_put(prefix, y->s, y->len);
			if (x)
				check_file(w, dfd, x->s, prefix->ptr, y->lo);
			else
				ss_worktree__items_add(&w->found, prefix->ptr,
				                       GIT_STATUS_WT_DELETED);
			ss_buf_truncate(prefix, plen);
			exact += x && type != DT_DIR;
		} else if (later) {
			enter(w, prefix, y, NULL);
			exact++;
		} else if (x) { /* a directory of the index */
			index_dir(w, prefix, y, &sub);
			exact += type == DT_DIR;
		} else {
			all_deleted(w, y->lo, y->hi);
		}
		i += c <= 0;
		j += c >= 0;
	}
	if (exact == nwd && nwd == nix)
		keep(w, here(prefix), st, nix);
out:
	close(dfd);
	free(wd);
	free(ix);
	ss_buf_release(&pool);
}

/* Walks the top-level directories of j until none is left, one at a time, each with the tree
 * id its index entries make. */
void ss_worktree__run_jobs(ss_worktree__jobs *j, ss_worktree__walker *w)
{
	ss_buf prefix = SS_BUF_INIT;

	for (;;) {
		size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		ss_worktree__job *d;
		if (k >= j->count)
			break;
		d = &j->dirs[k];
		ss_buf_clear(&prefix);
		if (!d->have_st) { /* its stat data read here, in parallel */
			ss_buf_put(&prefix, d->d.s, d->d.len);
			int rc = fstatat(w->top, prefix.ptr, &d->st, AT_SYMLINK_NOFOLLOW);
			if (rc < 0 && errno != ENOENT && errno != ENOTDIR)
				fail(w, errno, prefix.ptr);
			ss_buf_clear(&prefix);
			if (rc < 0) { /* gone since */
				w->top_missed = true;
				all_deleted(w, d->d.lo, d->d.hi);
				continue;
			}
			w->top_missed |= !S_ISDIR(d->st.st_mode); /* replaced since */
		}
		index_dir(w, &prefix, &d->d, &d->st); /* walked, or what replaced it found */
		if (w->need_trees)
			d->have_tree = ss_worktree__tree_id(w->e, d->d.lo, d->d.hi, d->d.len + 1,
			                                    &d->tree) == 0;
	}
	ss_buf_release(&prefix);
}

void *ss_worktree__worker_main(void *arg)
{
	ss_worktree__jobs *j = arg;

	ss_worktree__run_jobs(j, j->w);
	return NULL;
}

/* The tree id that entries [lo, hi), below the prefix of length plen, make. */
int ss_worktree__tree_id(const ss_index_entry *e, size_t lo, size_t hi, size_t plen, git_oid *out)
{
	ss_buf t = SS_BUF_INIT;
	ss_oid id;
	int rc = 0;

	for (size_t i = lo; i < hi && rc == 0;) {
		const char *s = e[i].path + plen, *slash = strchr(s, '/');
		if (!slash) {
			ss_buf_printf(&t, "%o %s", e[i].mode, s);
			ss_buf_putc(&t, '\0');
			ss_buf_put(&t, e[i].id.id, GIT_OID_RAWSZ);
			i++;
			continue;
		}
		size_t len = (size_t)(slash - s), k = i + 1;
		git_oid sub;
		while (k < hi && !strncmp(e[k].path + plen, s, len + 1))
			k++;
		rc = ss_worktree__tree_id(e, i, k, plen + len + 1, &sub);
		ss_buf_printf(&t, "40000 %.*s", (int)len, s);
		ss_buf_putc(&t, '\0');
		ss_buf_put(&t, sub.id, GIT_OID_RAWSZ);
		i = k;
	}
	if (rc == 0 && (rc = ss_oid_hash(&id, "tree", t.ptr, t.len)) == 0)
		ss_git__oid_in(out, &id);
	ss_buf_release(&t);
	return rc;
}
