/* worktree_scan.c: the working directory against the index and HEAD (see ss_worktree__scan). */
#include "core/git/worktree_priv.h"

#include <dirent.h> /* DT_* */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/git/git_priv.h"
#include "core/git/oid.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

#define WORKERS 2

void ss_worktree__items_add(ss_worktree__items *items, const char *path, unsigned flags)
{
	ss_xgrow((void **)&items->v, sizeof(*items->v), items->n + 1, &items->alloc);
	items->v[items->n].path = ss_xstrdup(path);
	items->v[items->n].flags = flags;
	items->n++;
}

void ss_worktree__items_release(ss_worktree__items *items)
{
	for (size_t i = 0; i < items->n; i++)
		free(items->v[i].path);
	free(items->v);
	memset(items, 0, sizeof(*items));
}

/* An index entry whose file was hashed and found unchanged: its new stat data. */
typedef struct refreshed {
	size_t pos;
	struct stat st;
} refreshed;

/* A name in a directory: of the working directory (d_type) or of the index (its entries). */
typedef struct dname {
	const char *s;
	size_t len;
	unsigned char type; /* DT_* for the working directory */
	bool dir;           /* the index: entries below name/ */
	size_t lo, hi;      /* the index: its entries */
} dname;

/* A top-level directory of the index, for a walker: with its stat data (have_st false: the
 * walker reads it, the directory cache said the top holds it), and the tree id its index
 * entries make once walked (for HEAD against the index). */
typedef struct job {
	dname d;
	struct stat st;
	bool have_st;
	bool have_tree;
	git_oid tree;
} job;

/* One thread's walk: what it found, kept apart until the threads are joined. */
typedef struct walker {
	const git_index_entry *e; /* the index's entries, by position */
	size_t ne;
	int top;               /* the working directory */
	struct timespec stamp; /* the index file's modification time (racily clean entries) */
	ss_worktree__dircache *cache;
	struct timespec began; /* when the walk began (a directory changed just before is not
	                          recorded: keep()) */
	ss_buf keep; /* the directories read for the next cache (ss_worktree__dircache_add) */
	size_t dirs_read, files_hashed;
	size_t racy_clean; /* entries hashed only for being racy, and clean */
	ss_worktree__items found;
	/* paths of untracked files and directories ("dir/"), the ignore rules not read yet */
	char **untracked;
	size_t nuntracked, auntracked;
	refreshed *ref;
	size_t nref, aref;
	int errnum; /* the first failure, with its path */
	char *errpath;
	bool need_trees; /* the top-level directories' tree ids are wanted (staged_names) */
	bool deferring;  /* at the top: its directories go to defer, for the walkers */
	job *defer;
	size_t ndefer, adefer;
	bool top_known; /* the cache said what the top holds (its record: top_slot) */
	size_t top_slot;
	bool top_missed; /* a walker found one of the top's directories not there as one */
} walker;

/* The top-level directories the walkers share: next is taken atomically; w is the thread's. */
typedef struct jobs {
	job *dirs;
	size_t count;
	size_t next;
	walker *w;
} jobs;

static int cmp_name(const void *a, const void *b)
{
	const dname *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* A file's type as readdir gives it: DT_DIR, DT_REG, DT_LNK, or DT_UNKNOWN for any other. */
static unsigned char dtype(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return DT_DIR;
	if (S_ISREG(st->st_mode))
		return DT_REG;
	return S_ISLNK(st->st_mode) ? DT_LNK : DT_UNKNOWN;
}

static void fail(walker *w, int errnum, const char *path)
{
	if (w->errnum)
		return;
	w->errnum = errnum;
	w->errpath = ss_xstrdup(path);
}

static void untracked(walker *w, const char *path)
{
	ss_xgrow((void **)&w->untracked, sizeof(char *), w->nuntracked + 1, &w->auntracked);
	w->untracked[w->nuntracked++] = ss_xstrdup(path);
}

static bool time_eq(const git_index_time *t, struct timespec ts)
{
	return t->seconds == (int32_t)ts.tv_sec && t->nanoseconds == (uint32_t)ts.tv_nsec;
}

/* Whether the entry was written in the index's own time or later (git's racy-git rule). */
static bool racy(const walker *w, const git_index_entry *e)
{
	return e->mtime.seconds > (int32_t)w->stamp.tv_sec ||
	       (e->mtime.seconds == (int32_t)w->stamp.tv_sec &&
	        e->mtime.nanoseconds >= (uint32_t)w->stamp.tv_nsec);
}

/* The blob id of name in dfd (a file's content or a link's target), as git add would make it:
 * -EAGAIN when it changed while read (or is no longer what st says), -errno on failure. */
static int hash_file(int dfd, const char *name, const struct stat *st, git_oid *out)
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
		ss_git__oid_in(out, &id);
	return rc;
}

/* The working directory's file name in dfd (path from the top), of stat data st, against index
 * entry pos. */
static void check_stat(walker *w, int dfd, const char *name, const char *path, size_t pos,
                       const struct stat *stp)
{
	const git_index_entry *e = &w->e[pos];
	const struct stat st = *stp;
	struct timespec mtime, ctime;
	uint32_t mode;
	git_oid id;
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
	if (!git_oid_equal(&id, &e->id)) {
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
static void check_file(walker *w, int dfd, const char *name, const char *path, size_t pos)
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
static void all_deleted(walker *w, size_t lo, size_t hi)
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
static int read_names(int dfd, dname **names, size_t *count, ss_buf *pool)
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
		qsort(*names, a.n, sizeof(**names), cmp_name);
		*count = a.n;
	}
	free(a.offs);
	free(a.types);
	return ret;
}

/* The index's names directly below the prefix of length plen that entries [lo, hi) share. */
static dname *index_names(const walker *w, size_t lo, size_t hi, size_t plen, size_t *count)
{
	dname *v = ss_xcalloc(hi - lo ? hi - lo : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = lo; i < hi;) {
		const char *s = w->e[i].path + plen, *slash = strchr(s, '/');
		dname *nm = &v[n++];

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
		if (cmp_name(&v[k - 1], &v[k]) > 0) {
			qsort(v, n, sizeof(*v), cmp_name);
			break;
		}
	*count = n;
	return v;
}

static void walk_dir(walker *w, ss_buf *prefix, size_t lo, size_t hi, const struct stat *st);

/* The index's directory nm below prefix: walked when the working directory has a directory
 * there (st its stat data), at the top handed to the walkers. */
static void enter(walker *w, ss_buf *prefix, const dname *nm, const struct stat *st)
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
	walk_dir(w, prefix, nm->lo, nm->hi, st);
	ss_buf_truncate(prefix, plen);
}

/* What the working directory has where the index has directory nm: st, its stat data. */
static void index_dir(walker *w, ss_buf *prefix, const dname *nm, const struct stat *st)
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
static bool walk_known(walker *w, ss_buf *prefix, const dname *ix, size_t nix)
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
static bool before(const walker *w, struct timespec t, long long margin)
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
static void keep(walker *w, const char *prefix, const struct stat *st, size_t nix)
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
static void walk_dir(walker *w, ss_buf *prefix, size_t lo, size_t hi, const struct stat *st)
{
	ss_buf pool = SS_BUF_INIT;
	size_t nwd = 0, nix, i = 0, j = 0, plen = prefix->len, exact = 0;
	dname *wd = NULL, *ix = index_names(w, lo, hi, plen, &nix);
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
	if ((rc = read_names(dfd, &wd, &nwd, &pool)) < 0) {
		fail(w, -rc, plen ? prefix->ptr : ".");
		goto out;
	}
	while (i < nwd || j < nix) {
		int c = i == nwd ? 1 : j == nix ? -1 : cmp_name(&wd[i], &ix[j]);
		const dname *x = c <= 0 ? &wd[i] : NULL, *y = c >= 0 ? &ix[j] : NULL;
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
				type = dtype(&sub);
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

static int tree_id(const git_index_entry *e, size_t lo, size_t hi, size_t plen, git_oid *out);

/* Walks the top-level directories of j until none is left, one at a time, each with the tree
 * id its index entries make. */
static void run_jobs(jobs *j, walker *w)
{
	ss_buf prefix = SS_BUF_INIT;

	for (;;) {
		size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		job *d;
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
			d->have_tree = tree_id(w->e, d->d.lo, d->d.hi, d->d.len + 1, &d->tree) == 0;
	}
	ss_buf_release(&prefix);
}

static void *worker_main(void *arg)
{
	jobs *j = arg;

	run_jobs(j, j->w);
	return NULL;
}

/* Whether the index and the configuration are what the walk knows (ss_worktree__scan); *cache:
 * whether the directory cache is on. */
static bool walkable(git_repository *git, const ss_index_file *ix, bool *cache)
{
	static const struct {
		const char *key;
		int want;
	} bools[] = {{"core.filemode", 1},
	             {"core.ignorecase", 0},
	             {"core.symlinks", 1},
	             {"core.trustctime", 1},
	             {"core.precomposeunicode", 0}};
	git_config *cfg = NULL;
	const char *s;
	bool ok = true;
	int v;

	if (git_repository_config_snapshot(&cfg, git) < 0)
		return false;
	/* the directory cache: git's core.untrackedCache false turns it off */
	*cache = git_config_get_bool(&v, cfg, "core.untrackedcache") < 0 || v;
	for (size_t i = 0; ok && i < sizeof(bools) / sizeof(bools[0]); i++) {
		if (git_config_get_bool(&v, cfg, bools[i].key) == 0)
			ok = !v == !bools[i].want;
	}
	if (ok && git_config_get_string(&s, cfg, "core.checkstat") == 0)
		ok = false;
	git_config_free(cfg);
	for (size_t i = 0; ok && i < ix->count; i++) {
		const git_index_entry *e = &ix->entries[i];
		ok = !(e->flags_extended &
		       (GIT_INDEX_ENTRY_INTENT_TO_ADD | GIT_INDEX_ENTRY_SKIP_WORKTREE)) &&
		     (e->mode == GIT_FILEMODE_BLOB || e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
		      e->mode == GIT_FILEMODE_LINK);
	}
	return ok;
}

/* The tree id that entries [lo, hi), below the prefix of length plen, make. */
static int tree_id(const git_index_entry *e, size_t lo, size_t hi, size_t plen, git_oid *out)
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
		rc = tree_id(e, i, k, plen + len + 1, &sub);
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

static void add_name(char ***names, size_t *n, size_t *alloc, const char *s, size_t len)
{
	ss_xgrow((void **)names, sizeof(**names), *n + 1, alloc);
	(*names)[(*n)++] = ss_xstrndup(s, len);
}

/* The top-level names whose tree (or file) differs between HEAD and the index (ix, sorted by
 * cmp_name), into *names; the walkers' tree ids are w's defer. */
static int staged_names(const walker *w, const dname *ix, size_t nix, git_tree *head, char ***names,
                        size_t *count)
{
	size_t n = 0, alloc = 0, nhead = head ? git_tree_entrycount(head) : 0;
	ss_buf key = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < nix && ret == 0; i++) {
		const git_index_entry *first = &w->e[ix[i].lo];
		const job *walked;
		const git_tree_entry *te;
		bool differs = true;
		git_oid id;

		ss_buf_clear(&key);
		ss_buf_put(&key, ix[i].s, ix[i].len);
		te = head ? git_tree_entry_byname(head, key.ptr) : NULL;
		if (!te || (git_tree_entry_type(te) == GIT_OBJECT_TREE) != ix[i].dir)
			differs = true;
		else if (!ix[i].dir)
			differs = !git_oid_equal(&first->id, git_tree_entry_id(te)) ||
			          first->mode != (uint32_t)git_tree_entry_filemode(te);
		else if ((walked =
		              bsearch(&ix[i], w->defer, w->ndefer, sizeof(*w->defer), cmp_name)) &&
		         walked->have_tree)
			differs = !git_oid_equal(&walked->tree, git_tree_entry_id(te));
		else if (tree_id(w->e, ix[i].lo, ix[i].hi, ix[i].len + 1, &id) < 0)
			ret = -1;
		else
			differs = !git_oid_equal(&id, git_tree_entry_id(te));
		if (differs)
			add_name(names, &n, &alloc, ix[i].s, ix[i].len);
	}
	/* HEAD's names the index no longer has */
	for (size_t j = 0; j < nhead && ret == 0; j++) {
		const char *s = git_tree_entry_name(git_tree_entry_byindex(head, j));
		dname k = {.s = s, .len = strlen(s)};
		if (!bsearch(&k, ix, nix, sizeof(*ix), cmp_name))
			add_name(names, &n, &alloc, k.s, k.len);
	}
	ss_buf_release(&key);
	*count = n;
	return ret;
}

/* HEAD against the index for the top-level names of one group (ss_git__pathspec_split), the
 * index holding only their entries. */
static int scan_staged_group(git_repository *git, const ss_index_file *ix, git_tree *head,
                             const char *const *names, size_t n, ss_worktree__items *out,
                             ss_error *err)
{
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	int rc;

	if (ss_index_file_subset(ix, names, n, true, &index, err) < 0)
		return -1;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INCLUDE_TYPECHANGE;
	opts.pathspec.strings = (char **)(uintptr_t)names;
	opts.pathspec.count = n;
	rc = git_diff_tree_to_index(&diff, git, head, index, &opts);
	git_index_free(index);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot compare HEAD with the index");
	for (size_t i = 0, nd = git_diff_num_deltas(diff); i < nd; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		unsigned f = d->status == GIT_DELTA_ADDED        ? GIT_STATUS_INDEX_NEW
		             : d->status == GIT_DELTA_DELETED    ? GIT_STATUS_INDEX_DELETED
		             : d->status == GIT_DELTA_TYPECHANGE ? GIT_STATUS_INDEX_TYPECHANGE
		                                                 : GIT_STATUS_INDEX_MODIFIED;
		ss_worktree__items_add(out, d->new_file.path ? d->new_file.path : d->old_file.path,
		                       f);
	}
	git_diff_free(diff);
	return 0;
}

/* HEAD against the index for the top-level names that differ (names): the names that are the
 * start of no other in one diff, each other name in one of its own. */
static int scan_staged(git_repository *git, const ss_index_file *ix, git_tree *head,
                       const char *const *names, size_t n, ss_worktree__items *out, ss_error *err)
{
	const char **order = ss_xcalloc(n ? n : 1, sizeof(*order));
	size_t first = 0;
	int ret = 0;

	ss_git__pathspec_split(names, n, order, &first);
	if (first)
		ret = scan_staged_group(git, ix, head, order, first, out, err);
	for (size_t i = first; ret == 0 && i < n; i++)
		ret = scan_staged_group(git, ix, head, order + i, 1, out, err);
	free(order);
	return ret;
}

/* The untracked paths the walkers found, but those the ignore rules leave out; a directory's
 * files listed one by one (a directory holding a repository of its own as "dir/", as git). */
static int add_untracked(git_repository *git, int top, const char *path, ss_worktree__items *out,
                         ss_error *err)
{
	size_t len = strlen(path);
	int ignored = 0, rc, fd, ret = 0;
	ss_buf pool = SS_BUF_INIT, sub = SS_BUF_INIT;
	dname *names = NULL;
	size_t n = 0;

	if ((rc = git_ignore_path_is_ignored(&ignored, git, path)) < 0)
		return ss_git__error(err, rc, "cannot read the ignore rules for '%s'", path);
	if (ignored)
		return 0;
	if (path[len - 1] != '/') {
		ss_worktree__items_add(out, path, GIT_STATUS_WT_NEW);
		return 0;
	}
	fd = openat(top, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0
		                       : ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path,
		                                      strerror(errno));
	struct stat st;
	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ss_worktree__items_add(out, path, GIT_STATUS_WT_NEW);
		close(fd);
		return 0;
	}
	rc = read_names(fd, &names, &n, &pool);
	close(fd);
	if (rc < 0)
		return ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path, strerror(-rc));
	for (size_t i = 0; i < n && ret == 0; i++) {
		unsigned char type = names[i].type;
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s%s", path, names[i].s);
		if (type == DT_UNKNOWN && fstatat(top, sub.ptr, &st, AT_SYMLINK_NOFOLLOW) == 0)
			type = dtype(&st);
		if (type == DT_DIR)
			ss_buf_putc(&sub, '/');
		if (type == DT_DIR || type == DT_REG || type == DT_LNK)
			ret = add_untracked(git, top, sub.ptr, out, err);
	}
	free(names);
	ss_buf_release(&pool);
	ss_buf_release(&sub);
	return ret;
}

/*
 * Writes the refreshed stat data of the walkers' files back into the index through libgit2's
 * read of it: 1 when written. Not written (0) when the file is no longer the one the walk read:
 * what was written since stands, and the next status refreshes what it still needs.
 */
static int write_refreshed(git_repository *git, const ss_index_file *ix, walker *ws, size_t nw,
                           ss_error *err)
{
	size_t todo = 0;
	git_index *index = NULL;
	int rc;

	for (size_t k = 0; k < nw; k++)
		todo += ws[k].racy_clean + ws[k].nref;
	if (!todo)
		return 0;
	if ((rc = git_repository_index(&index, git)) == 0)
		rc = git_index_read(index, 0);
	if (rc < 0) {
		git_index_free(index);
		return ss_git__error(err, rc, "cannot read the index");
	}
	if (memcmp(git_index_checksum(index)->id, ix->checksum, GIT_OID_RAWSZ)) {
		git_index_free(index);
		return 0;
	}
	for (size_t k = 0; k < nw; k++) {
		for (size_t i = 0; i < ws[k].nref; i++) {
			const git_index_entry *e = git_index_get_byindex(index, ws[k].ref[i].pos);
			if (!e || strcmp(e->path, ix->entries[ws[k].ref[i].pos].path))
				continue; /* the same file read twice holds the same entries */
			git_index_entry copy = *e;
			ss_git__index_stat(&copy, &ws[k].ref[i].st);
			if ((rc = git_index_add(index, &copy)) < 0) {
				ss_git__error(err, rc, "cannot refresh '%s' in the index",
				              copy.path);
				git_index_free(index);
				return -1;
			}
		}
	}
	/* written also when it only had racily clean entries (as git's status does): once the
	 * index is newer than them, the next status trusts their stat data; the write zeroes the
	 * size of an entry still racy and changed, so that it is hashed next time. When a git
	 * command holds index.lock, the same status stands without the write */
	rc = git_index_write(index);
	git_index_free(index);
	if (rc < 0 && rc != GIT_ELOCKED)
		return ss_git__error(err, rc, "cannot write the index");
	return rc == 0;
}

/* Moves walker from's findings into out and the untracked list of to. */
static void gather(walker *from, walker *to, ss_worktree__items *out)
{
	for (size_t i = 0; i < from->found.n; i++) {
		ss_xgrow((void **)&out->v, sizeof(*out->v), out->n + 1, &out->alloc);
		out->v[out->n++] = from->found.v[i];
	}
	from->found.n = 0;
	if (from == to)
		return;
	for (size_t i = 0; i < from->nuntracked; i++) {
		ss_xgrow((void **)&to->untracked, sizeof(char *), to->nuntracked + 1,
		         &to->auntracked);
		to->untracked[to->nuntracked++] = from->untracked[i];
	}
	from->nuntracked = 0;
}

static void walker_release(walker *w)
{
	ss_buf_release(&w->keep);
	ss_worktree__items_release(&w->found);
	ss_git__strings_free(w->untracked, w->nuntracked);
	free(w->ref);
	free(w->errpath);
	free(w->defer);
}

/* Writes the next directory cache when it differs from the one read (changed: the staged
 * names are new, or the index's checksum is). */
static int save_cache(const char *path, const ss_worktree__dircache *was, walker *ws,
                      const unsigned char *index_sum, const unsigned char *head,
                      const char *const *staged, size_t nstaged, bool changed, ss_error *err)
{
	const ss_buf *parts[WORKERS];

	for (size_t k = 0; k < WORKERS; k++)
		parts[k] = &ws[k].keep;
	return ss_worktree__dircache_save(path, was, index_sum, head, staged, nstaged, parts,
	                                  WORKERS, changed, err);
}

int ss_worktree__scan(git_repository *git, const ss_index_file *index, git_tree *head,
                      const char *cache_path, ss_worktree__dircache *cache, bool refresh,
                      ss_worktree__items *out, ss_error *err)
{
	walker ws[WORKERS];
	const char *workdir = git_repository_workdir(git);
	const git_index_entry *e = index->entries;
	size_t ne = index->count, nix = 0;
	ss_worktree__items found = {0};
	const char *const *staged = NULL;
	char **computed = NULL;
	size_t nstaged = 0;
	unsigned char head_id[GIT_OID_RAWSZ] = {0};
	bool staged_known;
	ss_buf prefix = SS_BUF_INIT;
	struct timespec now;
	pthread_t thread;
	bool threaded = false, cache_on = false;
	dname *ix = NULL;
	struct stat st;
	jobs j;
	int top, rc = 0, ret = -1;

	if (!workdir || !walkable(git, index, &cache_on)) {
		ss_worktree__dircache_free(cache);
		return 1;
	}
	if (!cache_path || !cache_on) { /* git's core.untrackedCache false */
		ss_worktree__dircache_free(cache);
		cache = NULL;
	}
	if ((top = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(top, &st) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot read '%s': %s", workdir, strerror(errno));
		if (top >= 0)
			close(top);
		ss_worktree__dircache_free(cache);
		return ret;
	}
	if (head)
		memcpy(head_id, git_tree_id(head)->id, sizeof(head_id));
	staged_known =
	    ss_worktree__dircache_staged(cache, index->checksum, head_id, &staged, &nstaged);
	clock_gettime(CLOCK_REALTIME, &now);
	memset(ws, 0, sizeof(ws));
	for (size_t k = 0; k < WORKERS; k++) {
		ws[k].need_trees = !staged_known;
		ws[k].e = e;
		ws[k].ne = ne;
		ws[k].top = top;
		ws[k].cache = cache;
		ws[k].began = now;
		ws[k].stamp = ss_platform_mtime(&index->st);
	}
	/* the top level here: its files checked, its directories left to the walkers */
	ws[0].deferring = true;
	walk_dir(&ws[0], &prefix, 0, ne, &st);
	ws[0].deferring = false;
	j.dirs = ws[0].defer;
	j.count = ws[0].ndefer;
	j.next = 0;
	j.w = &ws[1];
	threaded =
	    WORKERS > 1 && j.count > 1 && pthread_create(&thread, NULL, worker_main, &j) == 0;
	/* the calling thread takes from the same counter */
	run_jobs(&j, &ws[0]);
	if (threaded)
		pthread_join(thread, NULL);
	for (size_t k = 0; k < WORKERS; k++)
		if (ws[k].errnum) {
			ss_error_set(err, SS_ERROR, "cannot read '%s': %s", ws[k].errpath,
			             strerror(ws[k].errnum));
			goto out;
		}
	/* a top-level directory removed or replaced while the walk ran, after the cache said
	 * what the top holds: what else the top holds now is not known, libgit2 says */
	for (size_t k = 0; k < WORKERS; k++)
		if (ws[0].top_known && ws[k].top_missed) {
			ret = 1;
			goto out;
		}
	if (ws[0].top_known)
		ss_worktree__dircache_keep(cache, ws[0].top_slot);
	for (size_t k = 0; k < WORKERS; k++) {
		gather(&ws[k], &ws[0], &found);
		found.dirs_read += ws[k].dirs_read;
		found.files_hashed += ws[k].files_hashed;
	}
	for (size_t i = 0; i < ws[0].nuntracked; i++)
		if (add_untracked(git, top, ws[0].untracked[i], &found, err) < 0)
			goto out;
	if (!staged_known) {
		ix = index_names(&ws[0], 0, ne, 0, &nix);
		if (staged_names(&ws[0], ix, nix, head, &computed, &nstaged) < 0) {
			ss_git__error(err, -1, "cannot read the index's trees");
			goto out;
		}
		staged = (const char *const *)computed;
	}
	if (scan_staged(git, index, head, staged, nstaged, &found, err) < 0 ||
	    (refresh && (rc = write_refreshed(git, index, ws, WORKERS, err)) < 0))
		goto out;
	/* a cache that cannot be written costs the next status its reads, nothing else */
	if (refresh && cache) {
		ss_error ignored;
		save_cache(cache_path, cache, ws, index->checksum, head_id, staged, nstaged,
		           !staged_known || rc == 1, &ignored);
	}
	*out = found;
	memset(&found, 0, sizeof(found));
	ret = 0;
out:
	ss_worktree__items_release(&found);
	for (size_t k = 0; k < WORKERS; k++)
		walker_release(&ws[k]);
	ss_worktree__dircache_free(cache);
	ss_git__strings_free(computed, computed ? nstaged : 0);
	free(ix);
	ss_buf_release(&prefix);
	close(top);
	return ret;
}
