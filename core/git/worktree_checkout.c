/*
 * worktree_checkout.c: the checkout of a fresh clone, on two threads.
 *
 * libgit2's checkout is general (any baseline, filters, attributes, conflicts of every kind)
 * and single-threaded; a clone writes a known tree into an empty directory, so it is done here
 * in four steps, with every check before the first write:
 *  1. the commit's tree is walked into an array of files (path, blob id, mode) and a list of
 *     directories in pre-order, which is also the index's path order; only regular files,
 *     executables and directories pass, and every path component is checked (never empty, ".",
 *     ".." or ".git" in any case). The trees are read from the packs (core/gitfmt/pack_read.h) or
 *     the loose backend directly and parsed here, so that none stays in libgit2's object
 *     caches: on 150,000 files that took the checkout's peak memory from ~200 MB to ~65 MB
 *     (~370 bytes a file: the array, the paths, the index);
 *  2. unless the top directory holds nothing but .git (a clone), each path is looked at: a
 *     file there with other content, or something else in the way, is a conflict (SS_EEXISTS,
 *     nothing written); a file with the same content is kept and indexed as it is;
 *  3. the work is split into units, one per entry of the top directory (a skill): its
 *     directories, parents first, then its files; the main thread and one worker take units in
 *     turn (an atomic counter). Each blob is read from the packs by the thread's own cursor
 *     (libdeflate, with a decompressor of its own: a fetch's packs hold whole objects, and
 *     libgit2's read, zlib and its hash, was ~40% of the checkout's CPU), or else from an
 *     object database of the thread's own (libgit2 holds a database's lock through each whole
 *     read, so one shared database would make the threads take turns); the file is written
 *     (O_EXCL, never following a symlink) and fstat()ed for its index entry. Progress is
 *     reported by the main thread only, as files complete; one thread only when libgit2 is
 *     built without threads;
 *  4. the index is written from the array, one entry per file with its stat data, in the walk's
 *     order, which is git's index order (a tree sorts a directory's name as if it ended in '/',
 *     so a pre-order walk lists full paths in byte order; the walk checks that it does), by
 *     core/gitfmt/index_file.h: the bytes git_index_write would write for the same entries
 *     (version 2, no extension), streamed and hashed as they go, without libgit2's index,
 *     which held ~140 bytes more a file (an entry, its path, its place in a map) on top of the
 *     array, until the end: at 150,000 files ~21 MB of the clone's peak memory.
 * What the checkout holds until its end is ~110 bytes a file: the array (72 bytes an entry)
 * and the paths.
 * A failure midway returns the error and leaves what was written (the clone's partial
 * directory, removed by the next clone); a file that could not be written whole is an error.
 */
#include "core/git/worktree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/gitfmt/index_file.h"
#include "core/gitfmt/pack_read.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

/* A file to write, and what its index entry needs (st filled as it is written). */
typedef struct co_file {
	git_oid id;
	ss_index_stat st;
	size_t path_off; /* in checkout.paths */
	bool exec;       /* mode 100755, else 100644 */
	bool present;    /* already there with this content: indexed, not written */
} co_file;

/* A share of step 3: one entry of the top directory, its directories (pre-order) then its
 * files; it ends where the next unit starts. */
typedef struct co_unit {
	size_t dir, file; /* its first, in dirs and files */
} co_unit;

typedef struct checkout {
	git_odb *odb;
	ss_packs *packs; /* the repository's packs, read without libgit2 (pack_read.h) */
	int top;         /* the working directory, O_DIRECTORY */
	ss_buf objects;  /* <gitdir>/objects */
	ss_buf paths;
	co_file *files;
	size_t nfiles, files_alloc;
	size_t *dirs; /* offsets in paths, pre-order */
	size_t ndirs, dirs_alloc;
	co_unit *units; /* nunits + 1: the last one ends the others */
	size_t nunits;
	ss_buf refused; /* conflicts: at most 5 names */
	size_t nrefused;
	atomic_size_t next; /* the next unit to take */
	atomic_size_t done; /* files written or kept */
	atomic_bool failed; /* a thread failed: the others stop taking files */
} checkout;

/* What each thread reads objects with: its own object database (libgit2 holds a database's
 * lock for the whole of each read, inflate included, so one shared database would make the
 * threads take turns) and its own cursor on the packs (its decompressor). */
typedef struct co_thread {
	checkout *co;
	git_odb *odb;
	ss_pack_cursor *cur;
	ss_pack_object obj; /* the last blob read, its memory reused by the next */
	ss_error err;
	int ret;
} co_thread;

static const char *path_at(const checkout *co, size_t off)
{
	return co->paths.ptr + off;
}

/* Appends prefix + name to paths; returns its offset. */
static size_t add_path(checkout *co, const char *prefix, size_t plen, const char *name)
{
	size_t off = co->paths.len;

	ss_buf_put(&co->paths, prefix, plen);
	ss_buf_puts(&co->paths, name);
	ss_buf_putc(&co->paths, '\0');
	return off;
}

/* Whether a tree entry's name may become a path component: never empty, ".", "..", ".git" in
 * any case, nor holding a '/' (a tree's format ends a name at its first NUL, so none holds
 * one). */
static bool name_ok(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && strcasecmp(name, ".git") &&
	       !strchr(name, '/');
}

/*
 * Reads the commit and its trees straight from the repository's packs (pack_read.h), else
 * through the loose-object backend, else libgit2's pack backend (for what the packs hold as a
 * delta): through git_tree_lookup every tree would stay in libgit2's two object caches (parsed
 * and raw) until the end, ~1 KB a file on a 150,000-file checkout, and the repository's
 * database looks a loose object up in every pack's index first (after a clone's fetch, its
 * commit and top tree are loose: that mapped every index of libgit2's a second time). An
 * object none has (an open batch's, in memory) comes from the repository's database.
 */
typedef struct tree_reader {
	ss_pack_cursor *cur;
	git_odb_backend *be[2]; /* loose, then packs */
	git_odb *odb;
} tree_reader;

/* One object's bytes, from the packs (own), a backend (owner) or the database (obj). */
typedef struct raw_tree {
	ss_pack_object own;
	git_odb_backend *owner;
	void *data;
	git_odb_object *obj;
	const char *p;
	size_t len;
	git_object_t type;
} raw_tree;

static void raw_tree_release(raw_tree *t)
{
	free(t->own.data);
	if (t->owner)
		git_odb_backend_data_free(t->owner, t->data);
	git_odb_object_free(t->obj);
}

/* Object id into out (its type in out->type): the tree of path, or (path NULL) the commit. */
static int read_raw(tree_reader *r, const git_oid *id, raw_tree *out, const char *path,
                    ss_error *err)
{
	int rc = GIT_ENOTFOUND;
	bool found = false;

	memset(out, 0, sizeof(*out));
	out->type = GIT_OBJECT_INVALID;
	if (ss_pack_read_object(r->cur, id->id, &out->own, &found, err) < 0) {
		raw_tree_release(out);
		return path ? ss_error_prefix(err, "cannot read the tree of '%s'", path)
		            : ss_error_prefix(err, "cannot read the commit to check out");
	}
	if (found) {
		rc = 0;
		out->type = out->own.type;
		out->data = out->own.data;
		out->len = out->own.len;
	}
	for (size_t i = 0; i < 2 && rc == GIT_ENOTFOUND; i++) {
		rc = r->be[i]->read(&out->data, &out->len, &out->type, r->be[i], id);
		if (rc == 0)
			out->owner = r->be[i];
		else if (rc == GIT_PASSTHROUGH)
			rc = GIT_ENOTFOUND;
	}
	if (rc == 0) {
		out->p = out->data;
	} else if (rc == GIT_ENOTFOUND && (rc = git_odb_read(&out->obj, r->odb, id)) == 0) {
		out->p = git_odb_object_data(out->obj);
		out->len = git_odb_object_size(out->obj);
		out->type = git_odb_object_type(out->obj);
	}
	if (rc < 0)
		return path ? ss_git__error(err, rc, "cannot read the tree of '%s'", path)
		            : ss_git__error(err, rc, "cannot read the commit to check out");
	return 0;
}

static int read_tree(tree_reader *r, const git_oid *id, raw_tree *out, const char *path,
                     ss_error *err)
{
	int ret = read_raw(r, id, out, path, err);

	if (ret == 0 && out->type != GIT_OBJECT_TREE) {
		raw_tree_release(out);
		return ss_error_set(err, SS_EINVALID, "cannot check out '%s': not a tree", path);
	}
	return ret;
}

/* The tree of commit id: its first line, "tree <hex>", as git writes every commit. */
static int commit_tree(tree_reader *r, const git_oid *id, git_oid *tree, ss_error *err)
{
	raw_tree c;
	int ret = read_raw(r, id, &c, NULL, err);

	if (ret < 0)
		return ret;
	if (c.type != GIT_OBJECT_COMMIT || c.len < 5 + GIT_OID_HEXSZ + 1 ||
	    memcmp(c.p, "tree ", 5) || c.p[5 + GIT_OID_HEXSZ] != '\n' ||
	    git_oid_fromstrn(tree, c.p + 5, GIT_OID_HEXSZ) < 0)
		ret = ss_error_set(err, SS_EINVALID, "cannot check out %s: not a commit",
		                   git_oid_tostr_s(id));
	raw_tree_release(&c);
	return ret;
}

/* Step 1: the files and directories of tree id, below prefix (ending in '/', or empty: the
 * top). Entries are read in the tree's order, which is also the index's. */
static int walk(checkout *co, tree_reader *r, const git_oid *id, ss_buf *prefix, ss_error *err)
{
	size_t plen = prefix->len;
	const char *p, *end, *name, *nul;
	raw_tree t;
	int ret;

	if ((ret = read_tree(r, id, &t, plen ? prefix->ptr : "/", err)) < 0)
		return ret;
	p = t.p;
	end = t.p + t.len;
	while (ret == 0 && p < end) {
		unsigned mode = 0, digits = 0;
		git_oid sub;
		co_file *f;

		for (; p < end && *p >= '0' && *p <= '7' && digits < 7; p++, digits++)
			mode = mode * 8 + (unsigned)(*p - '0');
		nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		if (!digits || p == end || *p != ' ' || !nul ||
		    (size_t)(end - nul - 1) < GIT_OID_RAWSZ) {
			ret = ss_error_set(err, SS_EINVALID,
			                   "cannot check out: malformed tree at '%s'",
			                   plen ? prefix->ptr : "/");
			break;
		}
		name = p + 1;
		git_oid_fromraw(&sub, (const unsigned char *)nul + 1);
		p = nul + 1 + GIT_OID_RAWSZ;
		if (mode == 0100664) /* old git's group-writable file, read as libgit2 does */
			mode = GIT_FILEMODE_BLOB;
		if (!name_ok(name)) {
			ret = ss_error_set(err, SS_EINVALID,
			                   "cannot check out '%s%s': unsafe path component",
			                   prefix->ptr, name);
		} else if (mode == GIT_FILEMODE_TREE) {
			ss_xgrow((void **)&co->dirs, sizeof(*co->dirs), co->ndirs + 1,
			         &co->dirs_alloc);
			co->dirs[co->ndirs++] = add_path(co, prefix->ptr, plen, name);
			ss_buf_puts(prefix, name);
			ss_buf_putc(prefix, '/');
			ret = walk(co, r, &sub, prefix, err);
			ss_buf_truncate(prefix, plen);
		} else if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
			ss_xgrow((void **)&co->files, sizeof(*co->files), co->nfiles + 1,
			         &co->files_alloc);
			f = &co->files[co->nfiles++];
			memset(f, 0, sizeof(*f));
			f->path_off = add_path(co, prefix->ptr, plen, name);
			f->exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
			git_oid_cpy(&f->id, &sub);
			/* the index's order, which a tree out of git's order would break */
			if (co->nfiles > 1 &&
			    strcmp(path_at(co, f[-1].path_off), path_at(co, f->path_off)) >= 0)
				ret = ss_error_set(
				    err, SS_EINVALID,
				    "cannot check out: malformed tree at '%s' (out of order)",
				    plen ? prefix->ptr : "/");
		} else {
			ret = ss_error_set(
			    err, SS_EINVALID,
			    "cannot check out '%s%s': not a file or directory (mode %06o)",
			    prefix->ptr, name, mode);
		}
	}
	raw_tree_release(&t);
	return ret;
}

/* Whether the top directory holds something besides .git; -1 with err set if unreadable. */
static int top_busy(const char *workdir, bool *busy, ss_error *err)
{
	DIR *d = opendir(workdir);
	struct dirent *de;

	if (!d)
		return ss_error_set(err, SS_ERROR, "cannot read '%s': %s", workdir,
		                    strerror(errno));
	*busy = false;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, ".git")) {
			*busy = true;
			break;
		}
	closedir(d);
	return 0;
}

static void refuse(checkout *co, const char *path)
{
	if (co->nrefused < 5)
		ss_buf_printf(&co->refused, "%s'%s'", co->nrefused ? ", " : "", path);
	co->nrefused++;
}

/* The stat data of f's index entry, as libgit2 takes it from an lstat
 * (ss_git__index_stat: dev from st_rdev, each field cut to 32 bits). */
static void set_stat(co_file *f, const struct stat *st)
{
	struct timespec ctime = ss_platform_ctime(st), mtime = ss_platform_mtime(st);

	f->st.ctime_s = (uint32_t)ctime.tv_sec;
	f->st.ctime_ns = (uint32_t)ctime.tv_nsec;
	f->st.mtime_s = (uint32_t)mtime.tv_sec;
	f->st.mtime_ns = (uint32_t)mtime.tv_nsec;
	f->st.dev = (uint32_t)st->st_rdev;
	f->st.ino = (uint32_t)st->st_ino;
	f->st.uid = (uint32_t)st->st_uid;
	f->st.gid = (uint32_t)st->st_gid;
	f->st.size = (uint32_t)st->st_size;
}

/* Whether the file f at full path holds f's blob with f's executable bit. */
static int same_file(checkout *co, co_file *f, const char *full, const struct stat *st, bool *same,
                     ss_error *err)
{
	ss_buf data = SS_BUF_INIT;
	git_oid id;
	int rc, ret;

	*same = false;
	if (!!(st->st_mode & S_IXUSR) != f->exec)
		return 0;
	ret = ss_fs_read_file(&data, full, 0, err);
	if (ret == 0) {
		rc = git_odb_hash(&id, data.ptr, data.len, GIT_OBJECT_BLOB);
		if (rc < 0)
			ret = ss_git__error(err, rc, "cannot hash '%s'", path_at(co, f->path_off));
		else
			*same = git_oid_equal(&id, &f->id);
	}
	ss_buf_release(&data);
	return ret;
}

/* lstat of path below the top: 0 and *exists, or -1 with err set. A missing parent, or one
 * that is not a directory (a conflict named already), means absent. */
static int look(checkout *co, const char *path, struct stat *st, bool *exists, ss_error *err)
{
	*exists = fstatat(co->top, path, st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!*exists && errno != ENOENT && errno != ENOTDIR)
		return ss_error_set(err, SS_ERROR, "cannot look at '%s': %s", path,
		                    strerror(errno));
	return 0;
}

/* Whether file f at path p (which exists: st) is kept as it is, else a conflict. */
static int check_file(checkout *co, co_file *f, const char *workdir, const char *p,
                      const struct stat *st, ss_error *err)
{
	ss_buf full = SS_BUF_INIT;
	bool same = false;
	int ret = 0;

	if (S_ISREG(st->st_mode)) {
		ss_buf_printf(&full, "%s%s", workdir, p);
		ret = same_file(co, f, full.ptr, st, &same, err);
		ss_buf_release(&full);
	}
	if (ret == 0 && same) {
		f->present = true;
		set_stat(f, st);
	} else if (ret == 0) {
		refuse(co, p);
	}
	return ret;
}

/* Step 2, when the top directory is not empty: the conflicts, in path order (directories and
 * files merged by their place in paths, which is the walk's order), and the files kept. */
static int find_conflicts(checkout *co, const char *workdir, ss_error *err)
{
	size_t d = 0, f = 0;
	struct stat st;
	bool exists;
	int ret = 0;

	while (ret == 0 && (d < co->ndirs || f < co->nfiles)) {
		bool dir =
		    f == co->nfiles || (d < co->ndirs && co->dirs[d] < co->files[f].path_off);
		const char *p = path_at(co, dir ? co->dirs[d] : co->files[f].path_off);

		ret = look(co, p, &st, &exists, err);
		if (ret == 0 && exists && dir && !S_ISDIR(st.st_mode))
			refuse(co, p);
		else if (ret == 0 && exists && !dir)
			ret = check_file(co, &co->files[f], workdir, p, &st, err);
		if (dir)
			d++;
		else
			f++;
	}
	return ret;
}

/* Writes file f with its blob, from the packs or else from the thread's database (or from the
 * repository's, for an object only it has: one in an open batch's memory), and fills its index
 * entry's stat data. */
static int write_file(co_thread *t, co_file *f, ss_error *err)
{
	checkout *co = t->co;
	const char *path = path_at(co, f->path_off);
	mode_t mode = f->exec ? 0777 : 0666;
	git_odb_object *blob = NULL;
	const void *data;
	size_t len;
	git_object_t type;
	struct stat st;
	bool found = false;
	int fd = -1, rc, ret = -1;

	if (ss_pack_read_object(t->cur, f->id.id, &t->obj, &found, err) < 0) {
		ret = ss_error_prefix(err, "cannot read the content of '%s'", path);
		goto out;
	}
	if (found) {
		data = t->obj.data;
		len = t->obj.len;
		type = t->obj.type;
	} else {
		rc = git_odb_read(&blob, t->odb, &f->id);
		if (rc == GIT_ENOTFOUND && t->odb != co->odb)
			rc = git_odb_read(&blob, co->odb, &f->id);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot read the content of '%s'", path);
			goto out;
		}
		data = git_odb_object_data(blob);
		len = git_odb_object_size(blob);
		type = git_odb_object_type(blob);
	}
	if (type != GIT_OBJECT_BLOB) {
		ret = ss_error_set(err, SS_EINVALID, "cannot check out '%s': not a blob", path);
		goto out;
	}
	fd = openat(co->top, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || ss_fs_write_all(fd, data, len) < 0 || fstat(fd, &st) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	rc = close(fd);
	fd = -1;
	if (rc < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	set_stat(f, &st);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	git_odb_object_free(blob);
	return ret;
}

/* Creates directory p below the top; one already there (kept by step 2) is fine. */
static int make_dir(checkout *co, const char *p, ss_error *err)
{
	struct stat st;

	if (mkdirat(co->top, p, 0777) < 0 &&
	    !(errno == EEXIST && fstatat(co->top, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	      S_ISDIR(st.st_mode)))
		return ss_error_set(err, SS_ERROR, "cannot create '%s': %s", p, strerror(errno));
	return 0;
}

/* Splits the work into units, one per entry of the top directory: the walk's pre-order puts
 * an entry's directories and files right after it, so a unit's directories come before its
 * files, parents before children, and no unit needs another's. */
static void make_units(checkout *co)
{
	size_t d = 0, f = 0, n = 1;

	for (size_t i = 0; i < co->ndirs; i++)
		n += !strchr(path_at(co, co->dirs[i]), '/');
	for (size_t i = 0; i < co->nfiles; i++)
		n += !strchr(path_at(co, co->files[i].path_off), '/');
	co->units = ss_xcalloc(n, sizeof(*co->units));
	co->nunits = 0;
	while (d < co->ndirs || f < co->nfiles) {
		bool dir =
		    f == co->nfiles || (d < co->ndirs && co->dirs[d] < co->files[f].path_off);
		const char *p = path_at(co, dir ? co->dirs[d] : co->files[f].path_off);

		if (!strchr(p, '/')) {
			co->units[co->nunits].dir = d;
			co->units[co->nunits].file = f;
			co->nunits++;
		}
		if (dir)
			d++;
		else
			f++;
	}
	co->units[co->nunits].dir = co->ndirs;
	co->units[co->nunits].file = co->nfiles;
}

/* Takes units until none is left or a thread failed. The main thread (progress not NULL)
 * reports done of total after each of its files. */
static int take_units(co_thread *t, ss_worktree_progress progress, void *payload, ss_error *err)
{
	checkout *co = t->co;
	size_t u, done, shown = 0;

	while (!atomic_load(&co->failed) && (u = atomic_fetch_add(&co->next, 1)) < co->nunits) {
		for (size_t i = co->units[u].dir; i < co->units[u + 1].dir; i++)
			if (make_dir(co, path_at(co, co->dirs[i]), err) < 0)
				goto fail;
		for (size_t i = co->units[u].file; i < co->units[u + 1].file; i++) {
			if (atomic_load(&co->failed))
				return 0;
			if (!co->files[i].present && write_file(t, &co->files[i], err) < 0)
				goto fail;
			done = atomic_fetch_add(&co->done, 1) + 1;
			if (progress && done > shown && done < co->nfiles) {
				progress(payload, done, co->nfiles);
				shown = done;
			}
		}
	}
	return 0;
fail:
	atomic_store(&co->failed, true);
	return -1;
}

static void *worker_main(void *arg)
{
	co_thread *t = arg;

	t->ret = take_units(t, NULL, NULL, &t->err);
	return NULL;
}

/* Step 3: the units on up to two threads. */
static int write_all(checkout *co, ss_pack_cursor *cur, ss_worktree_progress progress,
                     void *payload, ss_error *err)
{
	co_thread main_t, w;
	pthread_t thread;
	bool threaded = false;
	int rc, ret;

	memset(&main_t, 0, sizeof(main_t));
	memset(&w, 0, sizeof(w));
	main_t.co = w.co = co;
	main_t.odb = co->odb;
	main_t.cur = cur;
	make_units(co);
	if (progress)
		progress(payload, 0, co->nfiles);
	if (co->nunits > 1 && (git_libgit2_features() & GIT_FEATURE_THREADS)) {
		rc = git_odb_open(&w.odb, co->objects.ptr);
		if (rc < 0)
			return ss_git__error(err, rc, "cannot open the object database");
		if (ss_pack_read_cursor_new(&w.cur, co->packs, err) < 0) {
			git_odb_free(w.odb);
			return -1;
		}
		threaded = pthread_create(&thread, NULL, worker_main, &w) == 0;
	}
	ret = take_units(&main_t, progress, payload, err);
	if (threaded) {
		pthread_join(thread, NULL);
		if (ret == 0 && w.ret < 0) {
			*err = w.err;
			ret = -1;
		}
	}
	git_odb_free(w.odb);
	ss_pack_read_cursor_free(w.cur);
	free(w.obj.data);
	free(main_t.obj.data);
	if (ret == 0 && progress && co->nfiles)
		progress(payload, co->nfiles, co->nfiles);
	return ret;
}

/* Step 4: entry i of the index, as ss_index_file_write takes it: the files in the walk's order,
 * which is git's index order. */
static void index_entry(void *payload, size_t i, ss_index_file_entry *out)
{
	const checkout *co = payload;
	const co_file *f = &co->files[i];

	out->st = &f->st;
	out->mode = f->exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	out->id = f->id.id;
	out->path = path_at(co, f->path_off);
}

static int write_index(checkout *co, git_repository *git, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	int ret;

	if (co->nfiles > UINT32_MAX)
		return ss_error_set(err, SS_EINVALID, "cannot check out: too many files");
	ss_buf_printf(&path, "%sindex", git_repository_path(git));
	ret = ss_index_file_write(path.ptr, co->nfiles, index_entry, co, err);
	ss_buf_release(&path);
	return ret;
}

/*
 * Before the walk: what the steps before left resident that the checkout does not use. libgit2
 * keeps the index of each pack it has looked into mapped whole, and windows of the packs (up
 * to SS_REPO_MAPPED_LIMIT), for as long as a database holds the pack: after a clone's fetch,
 * ~28 bytes an object (8 MB at 300,000 objects) plus the windows, which the checkout's reader
 * maps again for itself. The repository's database is opened again, the old one let go first
 * (libgit2 shares a pack between the databases that hold it, so a new one opened first would
 * keep the old mappings). Then the allocator gives back what the fetch freed (its arenas stay
 * resident otherwise). Not while a batch is open: its objects are in the database it put in.
 */
static int release_unused(ss_repo *repo, const char *objects, ss_error *err)
{
	git_repository *git = repo->git;
	git_odb *none = NULL, *fresh = NULL;
	int rc = 0;

	if (!repo->batch) {
		rc = git_odb_new(&none);
		if (rc == 0)
			rc = git_repository_set_odb(git, none);
		if (rc == 0)
			rc = git_odb_open(&fresh, objects);
		if (rc == 0)
			rc = git_repository_set_odb(git, fresh);
		git_odb_free(none);
		git_odb_free(fresh);
	}
	ss_platform_trim_heap();
	return rc < 0 ? ss_git__error(err, rc, "cannot open the object database again") : 0;
}

int ss_worktree_checkout(ss_repo *repo, const ss_oid *commit, ss_error *err)
{
	return ss_worktree_checkout_progress(repo, commit, NULL, NULL, err);
}

int ss_worktree_checkout_progress(ss_repo *repo, const ss_oid *commit,
                                  ss_worktree_progress progress, void *payload, ss_error *err)
{
	git_repository *git = repo->git;
	const char *workdir = git_repository_workdir(git);
	checkout co;
	ss_buf prefix = SS_BUF_INIT;
	tree_reader reader = {NULL, {NULL, NULL}, NULL};
	git_oid id, tree;
	bool busy = false;
	int rc, ret = -1;

	memset(&co, 0, sizeof(co));
	ss_buf_init(&co.paths);
	ss_buf_init(&co.refused);
	ss_buf_init(&co.objects);
	co.top = -1;
	atomic_init(&co.next, 0);
	atomic_init(&co.done, 0);
	atomic_init(&co.failed, false);
	if (!workdir) {
		ret = ss_error_set(err, SS_EINVALID, "cannot check out: no working directory");
		goto out;
	}
	ss_buf_printf(&co.objects, "%sobjects", git_repository_path(git));
	if ((ret = release_unused(repo, co.objects.ptr, err)) < 0)
		goto out;
	ss_git__oid_in(&id, commit);
	rc = git_repository_odb(&co.odb, git);
	if (rc == 0)
		rc = git_odb_backend_loose(&reader.be[0], co.objects.ptr, -1, 0, 0, 0);
	if (rc == 0)
		rc = git_odb_backend_pack(&reader.be[1], co.objects.ptr);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot prepare the checkout");
		goto out;
	}
	if ((ret = ss_pack_read_open(&co.packs, co.objects.ptr, err)) < 0 ||
	    (ret = ss_pack_read_cursor_new(&reader.cur, co.packs, err)) < 0)
		goto out;
	reader.odb = co.odb;
	if ((ret = commit_tree(&reader, &id, &tree, err)) < 0 ||
	    (ret = walk(&co, &reader, &tree, &prefix, err)) < 0)
		goto out;
	co.top = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (co.top < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot open '%s': %s", workdir, strerror(errno));
		goto out;
	}
	if ((ret = top_busy(workdir, &busy, err)) < 0 ||
	    (busy && (ret = find_conflicts(&co, workdir, err)) < 0))
		goto out;
	if (co.nrefused) {
		ret = ss_error_set(err, SS_EEXISTS, "cannot check out: %s%s already exist%s",
		                   co.refused.ptr, co.nrefused > 5 ? " and more" : "",
		                   co.nrefused > 1 ? "" : "s");
		goto out;
	}
	if ((ret = write_all(&co, reader.cur, progress, payload, err)) < 0)
		goto out;
	ret = write_index(&co, git, err);
out:
	if (co.top >= 0)
		close(co.top);
	ss_buf_release(&prefix);
	ss_buf_release(&co.paths);
	ss_buf_release(&co.refused);
	free(co.files);
	free(co.dirs);
	free(co.units);
	git_odb_free(co.odb);
	for (size_t i = 0; i < 2; i++)
		if (reader.be[i])
			reader.be[i]->free(reader.be[i]);
	ss_pack_read_cursor_free(reader.cur);
	ss_pack_read_close(co.packs);
	ss_buf_release(&co.objects);
	return ret;
}
