/* merge_move.c: a move of the working tree that writes only what it may (merge_priv.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/git/commit.h"
#include "core/git/merge_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/tree.h"
#include "core/util/buf.h"
#include "core/util/crash.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

void ss_merge__journal_path(ss_buf *out, ss_repo *repo)
{
	ss_fs_join(out, repo->statedir, "merge");
}

/* What one side of a move has at a path. */
typedef enum side_kind { SIDE_NONE, SIDE_BLOB, SIDE_TREE, SIDE_CONFLICT } side_kind;

static side_kind tree_side(git_tree *tree, const char *path, git_oid *id, uint32_t *mode)
{
	git_tree_entry *e = NULL;
	side_kind k = SIDE_NONE;

	if (git_tree_entry_bypath(&e, tree, path) == 0) {
		k = git_tree_entry_type(e) == GIT_OBJECT_TREE ? SIDE_TREE : SIDE_BLOB;
		git_oid_cpy(id, git_tree_entry_id(e));
		*mode = git_tree_entry_filemode(e);
	}
	git_tree_entry_free(e);
	return k;
}

static side_kind target_side(const ss_merge_move *m, const char *path, git_oid *id, uint32_t *mode)
{
	const git_index_entry *e, *a, *o, *t;
	ss_buf prefix = SS_BUF_INIT;
	size_t pos;
	side_kind k = SIDE_NONE;

	if (m->target)
		return tree_side(m->target, path, id, mode);
	if ((e = git_index_get_bypath(m->merged, path, 0))) {
		git_oid_cpy(id, &e->id);
		*mode = e->mode;
		return SIDE_BLOB;
	}
	if (git_index_conflict_get(&a, &o, &t, m->merged, path) == 0)
		return SIDE_CONFLICT;
	ss_buf_printf(&prefix, "%s/", path);
	if (git_index_find_prefix(&pos, m->merged, prefix.ptr) == 0)
		k = SIDE_TREE;
	ss_buf_release(&prefix);
	return k;
}

/* The blob id and mode of the regular file at path, hashed as git would store it. */
static int hash_file(ss_repo *repo, const char *path, const struct stat *st, git_oid *id,
                     uint32_t *mode)
{
	*mode = (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	return git_repository_hashfile(id, repo->git, path, GIT_OBJECT_BLOB, NULL);
}

/* The file with conflict markers a conflicting merge writes at path (res to free). */
static int conflict_file(ss_repo *repo, const git_index_entry *a, const git_index_entry *o,
                         const git_index_entry *t, git_merge_file_result *res)
{
	git_merge_file_options opts;

	git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
	opts.our_label = SS_MERGE_OUR_LABEL;
	opts.their_label = SS_MERGE_THEIR_LABEL;
	memset(res, 0, sizeof(*res));
	return git_merge_file_from_index(res, repo->git, a, o, t, &opts);
}

/* Whether the file (id, mode) at path is what a conflicting merge writes there: either
 * side's version, or the file with conflict markers. */
static bool is_conflict_file(ss_repo *repo, const ss_merge_move *m, const char *path,
                             const git_oid *id, uint32_t mode)
{
	const git_index_entry *a, *o, *t;
	git_merge_file_result res;
	git_oid want;
	bool yes = false;

	if (git_index_conflict_get(&a, &o, &t, m->merged, path) < 0)
		return false;
	if ((o && git_oid_equal(&o->id, id) && o->mode == mode) ||
	    (t && git_oid_equal(&t->id, id) && t->mode == mode))
		return true;
	if (conflict_file(repo, a, o, t, &res) == 0 &&
	    git_odb_hash(&want, res.ptr, res.len, GIT_OBJECT_BLOB) == 0)
		yes = git_oid_equal(&want, id) && res.mode == mode;
	git_merge_file_result_free(&res);
	return yes;
}

/* Whether have is a strict beginning of data. */
static bool begins(const ss_buf *have, const void *data, size_t len)
{
	return have->len < len && !memcmp(have->ptr, data, have->len);
}

static bool begins_blob(ss_repo *repo, const ss_buf *have, const git_oid *id)
{
	git_blob *blob = NULL;
	bool yes = false;

	if (git_blob_lookup(&blob, repo->git, id) == 0)
		yes = begins(have, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return yes;
}

/*
 * Whether the regular file at full (st) is one git_merge was writing when it was killed (m's
 * cut rule, merge_priv.h): changed since the journal, and a strict beginning of what the
 * merge writes at path (b, new_id: the target's side).
 */
static bool was_cut(ss_repo *repo, const ss_merge_move *m, const char *full, const char *path,
                    const struct stat *st, side_kind b, const git_oid *new_id)
{
	const git_index_entry *a, *o, *t;
	git_merge_file_result res;
	ss_buf have = SS_BUF_INIT;
	struct timespec mtime = ss_platform_mtime(st);
	ss_error ignored;
	bool yes = false;

	memset(&res, 0, sizeof(res));
	if (!m->cut_rule || (b != SIDE_BLOB && b != SIDE_CONFLICT) ||
	    mtime.tv_sec < m->cut_since.tv_sec ||
	    (mtime.tv_sec == m->cut_since.tv_sec && mtime.tv_nsec < m->cut_since.tv_nsec))
		return false;
	if (ss_fs_read_file(&have, full, (size_t)st->st_size + 1, &ignored) < 0)
		goto out;
	if (b == SIDE_BLOB) {
		yes = begins_blob(repo, &have, new_id);
	} else if (git_index_conflict_get(&a, &o, &t, m->merged, path) == 0) {
		yes = (o && begins_blob(repo, &have, &o->id)) ||
		      (t && begins_blob(repo, &have, &t->id));
		if (!yes && conflict_file(repo, a, o, t, &res) == 0)
			yes = begins(&have, res.ptr, res.len);
	}
out:
	git_merge_file_result_free(&res);
	ss_buf_release(&have);
	return yes;
}

static int refuse(ss_error *err, const char *path, const char *why)
{
	return ss_error_set(err, SS_EEXISTS, "'%s' %s", path, why);
}

/* Whether name is a temporary name of the writer: SS_MERGE_TEMP, then only '~'. */
static bool is_temp_name(const char *name)
{
	size_t n = strlen(SS_MERGE_TEMP);

	if (strncmp(name, SS_MERGE_TEMP, n))
		return false;
	return name[n + strspn(name + n, "~")] == '\0';
}

/* A directory at path where the move writes a file: only what old or target track may be
 * in it (the move removes those), nothing of the person's and no symbolic link. */
static int dir_tracked(const ss_merge_move *m, const char *workdir, const char *path, ss_error *err)
{
	ss_buf full = SS_BUF_INIT, child = SS_BUF_INIT;
	struct dirent *d;
	struct stat st;
	git_oid id;
	uint32_t mode;
	DIR *dir;
	int ret = 0;

	ss_fs_join(&full, workdir, path);
	if (!(dir = opendir(full.ptr))) {
		ss_buf_release(&full);
		return refuse(err, path, "is in the way");
	}
	while (ret == 0 && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		ss_buf_clear(&child);
		ss_buf_printf(&child, "%s/%s", path, d->d_name);
		ss_buf_clear(&full);
		ss_fs_join(&full, workdir, child.ptr);
		if (lstat(full.ptr, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		    is_temp_name(d->d_name))
			continue; /* a killed write's, which recovery removes first */
		if (lstat(full.ptr, &st) < 0 || S_ISLNK(st.st_mode))
			ret = refuse(err, child.ptr, "is a symbolic link");
		else if (tree_side(m->old, child.ptr, &id, &mode) == SIDE_NONE &&
		         target_side(m, child.ptr, &id, &mode) == SIDE_NONE)
			ret = refuse(err, child.ptr, "is in the way");
		else if (S_ISDIR(st.st_mode))
			ret = dir_tracked(m, workdir, child.ptr, err);
	}
	closedir(dir);
	ss_buf_release(&full);
	ss_buf_release(&child);
	return ret;
}

/* The directories on the way to path: real directories, or a file the move itself replaces
 * (one side has a file there); never a symbolic link. *absent: path cannot exist. */
static int check_parents(const ss_merge_move *m, const char *workdir, const char *path,
                         bool *absent, ss_error *err)
{
	ss_buf full = SS_BUF_INIT, prefix = SS_BUF_INIT;
	struct stat st;
	git_oid id;
	uint32_t mode;
	int ret = 0;

	*absent = false;
	for (const char *p = strchr(path, '/'); p && !*absent && ret == 0; p = strchr(p + 1, '/')) {
		ss_buf_clear(&prefix);
		ss_buf_put(&prefix, path, (size_t)(p - path));
		ss_buf_clear(&full);
		ss_fs_join(&full, workdir, prefix.ptr);
		if (lstat(full.ptr, &st) < 0)
			*absent = true; /* nothing there yet */
		else if (S_ISLNK(st.st_mode))
			ret = refuse(err, prefix.ptr, "is a symbolic link");
		else if (!S_ISDIR(st.st_mode)) {
			*absent = true;
			if (tree_side(m->old, prefix.ptr, &id, &mode) != SIDE_BLOB &&
			    target_side(m, prefix.ptr, &id, &mode) != SIDE_BLOB)
				ret = refuse(err, prefix.ptr, "is in the way");
		}
	}
	ss_buf_release(&full);
	ss_buf_release(&prefix);
	return ret;
}

int ss_merge_move__check_path(ss_repo *repo, const ss_merge_move *m, const char *path,
                              ss_error *err)
{
	const char *workdir = repo->workdir;
	ss_buf full = SS_BUF_INIT;
	git_oid old_id, new_id, id;
	uint32_t old_mode = 0, new_mode = 0, mode;
	side_kind a, b;
	struct stat st;
	bool absent;
	int ret;

	a = tree_side(m->old, path, &old_id, &old_mode);
	b = target_side(m, path, &new_id, &new_mode);
	if ((ret = check_parents(m, workdir, path, &absent, err)) < 0)
		return ret;
	ss_fs_join(&full, workdir, path);
	if (!absent && lstat(full.ptr, &st) < 0)
		absent = true;
	if (absent)
		ret = a == SIDE_BLOB && b == SIDE_BLOB
		          ? refuse(err, path, "was deleted")
		          : 0; /* a conflict's file goes, then comes back */
	else if (S_ISLNK(st.st_mode))
		ret = refuse(err, path, "is a symbolic link");
	else if (S_ISDIR(st.st_mode))
		ret = a == SIDE_TREE || b == SIDE_TREE ? dir_tracked(m, workdir, path, err)
		                                       : refuse(err, path, "is in the way");
	else if (!S_ISREG(st.st_mode) || hash_file(repo, path, &st, &id, &mode) < 0)
		ret = refuse(err, path, "is in the way");
	else if (!(a == SIDE_BLOB && git_oid_equal(&id, &old_id) && mode == old_mode) &&
	         !(b == SIDE_BLOB && git_oid_equal(&id, &new_id) && mode == new_mode) &&
	         !(b == SIDE_CONFLICT && is_conflict_file(repo, m, path, &id, mode)) &&
	         !was_cut(repo, m, full.ptr, path, &st, b, &new_id))
		ret = refuse(err, path, a == SIDE_BLOB ? "has changes of yours" : "is in the way");
	ss_buf_release(&full);
	return ret;
}

int ss_merge_move__check(ss_repo *repo, const ss_merge_move *m, ss_error *err)
{
	for (size_t i = 0; i < m->paths.count; i++) {
		int ret = ss_merge_move__check_path(repo, m, m->paths.strings[i], err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The paths that differ in a diff (both sides' paths). */
static void diff_paths(git_diff *diff, git_strarray *out)
{
	size_t n = diff ? git_diff_num_deltas(diff) : 0;

	out->strings = ss_xcalloc(n ? 2 * n : 1, sizeof(char *));
	out->count = 0;
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		out->strings[out->count++] = ss_xstrdup(d->old_file.path);
		if (strcmp(d->old_file.path, d->new_file.path) != 0)
			out->strings[out->count++] = ss_xstrdup(d->new_file.path);
	}
}

/* Adds path (prefix/path when prefix is not NULL) to out, alloc its room. */
static void add_path(git_strarray *out, size_t *alloc, const char *prefix, const char *path)
{
	ss_buf b = SS_BUF_INIT;

	if (prefix)
		ss_buf_printf(&b, "%s/", prefix);
	ss_buf_puts(&b, path);
	ss_xgrow((void **)&out->strings, sizeof(char *), out->count + 1, alloc);
	out->strings[out->count++] = ss_buf_detach(&b, NULL);
}

/* The subtree of entry e, or NULL when e is absent or not a tree. */
static int entry_tree(git_tree **out, git_repository *git, const git_tree_entry *e)
{
	*out = NULL;
	if (!e || git_tree_entry_type(e) != GIT_OBJECT_TREE)
		return 0;
	return git_tree_lookup(out, git, git_tree_entry_id(e));
}

/*
 * Every file path that differs between the trees old and target, read only under the
 * top-level names whose entry differs (the work follows the change, not the space): each such
 * name's two subtrees are diffed on their own. One diff of the whole trees restricted to those
 * names by a pathspec is not used: libgit2 walks such a list in its own order and skipped a
 * directory whose name is the start of another's ("x" beside "x-a" and "x-b"), so that a pull
 * moved main and left the old file in the working tree. 0, or -1 with err set.
 */
static int top_paths(ss_repo *repo, git_tree *old, git_tree *target, git_strarray *out,
                     ss_error *err)
{
	git_repository *git = repo->git;
	ss_changes top = {NULL, 0};
	size_t alloc = 0;
	ss_oid a, b;
	int rc = 0;

	out->strings = NULL;
	out->count = 0;
	ss_git__oid_out(&a, git_tree_id(old));
	ss_git__oid_out(&b, git_tree_id(target));
	if (ss_tree_diff_top(repo, &a, &b, &top, err) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < top.count; i++) {
		const char *name = top.items[i].path;
		const git_tree_entry *ea = git_tree_entry_byname(old, name);
		const git_tree_entry *eb = git_tree_entry_byname(target, name);
		git_tree *ta = NULL, *tb = NULL;
		git_diff *diff = NULL;

		if ((rc = entry_tree(&ta, git, ea)) == 0 && (rc = entry_tree(&tb, git, eb)) == 0) {
			/* a file at the top, on either side, is a path of its own */
			if ((ea && !ta) || (eb && !tb))
				add_path(out, &alloc, NULL, name);
			if ((ta || tb) &&
			    (rc = git_diff_tree_to_tree(&diff, git, ta, tb, NULL)) == 0)
				for (size_t k = 0; k < git_diff_num_deltas(diff); k++) {
					const git_diff_delta *d = git_diff_get_delta(diff, k);

					add_path(out, &alloc, name, d->old_file.path);
					if (strcmp(d->old_file.path, d->new_file.path))
						add_path(out, &alloc, name, d->new_file.path);
				}
		}
		git_diff_free(diff);
		git_tree_free(ta);
		git_tree_free(tb);
	}
	ss_tree_changes_release(&top);
	if (!out->strings)
		out->strings = ss_xcalloc(1, sizeof(char *));
	return rc < 0 ? ss_git__error(err, rc, "cannot compute the merge's files") : 0;
}

static int commit_tree(git_tree **out, git_repository *git, const ss_oid *commit)
{
	git_commit *c = NULL;
	git_oid id;
	int rc;

	ss_git__oid_in(&id, commit);
	rc = git_commit_lookup(&c, git, &id);
	if (rc == 0)
		rc = git_commit_tree(out, c);
	git_commit_free(c);
	return rc;
}

static int empty_tree(git_tree **out, git_repository *git)
{
	git_treebuilder *tb = NULL;
	git_oid id;
	int rc = git_treebuilder_new(&tb, git, NULL);

	if (rc == 0)
		rc = git_treebuilder_write(&id, tb);
	git_treebuilder_free(tb);
	if (rc == 0)
		rc = git_tree_lookup(out, git, &id);
	return rc;
}

int ss_merge__index(git_index **out, ss_repo *repo, const ss_oid *ours, const ss_oid *theirs)
{
	git_repository *git = repo->git;
	git_commit *a = NULL, *b = NULL;
	git_oid id;
	int rc;

	ss_git__oid_in(&id, ours);
	rc = git_commit_lookup(&a, git, &id);
	ss_git__oid_in(&id, theirs);
	if (rc == 0)
		rc = git_commit_lookup(&b, git, &id);
	if (rc == 0)
		rc = git_merge_commits(out, git, a, b, NULL);
	git_commit_free(a);
	git_commit_free(b);
	return rc;
}

int ss_merge_move__init(ss_merge_move *m, ss_repo *repo, const ss_oid *old, const ss_oid *target,
                        bool conflicting, ss_error *err)
{
	git_repository *git = repo->git;
	git_diff *diff = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = ss_oid_is_zero(old) ? empty_tree(&m->old, git) : commit_tree(&m->old, git, old);
	if (rc == 0 && !conflicting)
		rc = commit_tree(&m->target, git, target);
	if (rc == 0 && !conflicting && top_paths(repo, m->old, m->target, &m->paths, err) < 0) {
		ss_merge_move__release(m);
		return -1;
	}
	if (rc == 0 && conflicting)
		rc = ss_merge__index(&m->merged, repo, old, target);
	if (rc == 0 && conflicting)
		rc = git_diff_tree_to_index(&diff, git, m->old, m->merged, NULL);
	if (rc == 0 && conflicting)
		diff_paths(diff, &m->paths);
	git_diff_free(diff);
	if (rc < 0) {
		ss_merge_move__release(m);
		return ss_git__error(err, rc, "cannot compute the merge's files");
	}
	return 0;
}

void ss_merge_move__release(ss_merge_move *m)
{
	if (!m)
		return;
	git_tree_free(m->old);
	git_tree_free(m->target);
	git_index_free(m->merged);
	ss_git__strings_free(m->paths.strings, m->paths.count);
	memset(m, 0, sizeof(*m));
}

/* ---- the writer: one file at a time, each to a temporary name, then renamed ---- */

static bool tracked(const ss_merge_move *m, const char *path)
{
	git_oid id;
	uint32_t mode;

	return tree_side(m->old, path, &id, &mode) != SIDE_NONE ||
	       target_side(m, path, &id, &mode) != SIDE_NONE;
}

/*
 * The temporary name of a file of the move (full path in out): SS_MERGE_TEMP beside it, with
 * '~' added while a side of the move tracks that name. One file is written at a time, so one
 * name per directory is enough, and recovery finds it from the move alone.
 */
static void temp_path(ss_buf *out, const ss_merge_move *m, const char *workdir, const char *path)
{
	ss_buf rel = SS_BUF_INIT;

	ss_merge_move__temp_name(&rel, m, path);
	ss_buf_clear(out);
	ss_fs_join(out, workdir, rel.ptr);
	ss_buf_release(&rel);
}

void ss_merge_move__temp_name(ss_buf *out, const ss_merge_move *m, const char *path)
{
	const char *slash = strrchr(path, '/');

	ss_buf_clear(out);
	if (slash)
		ss_buf_printf(out, "%.*s/", (int)(slash - path), path);
	ss_buf_puts(out, SS_MERGE_TEMP);
	while (tracked(m, out->ptr))
		ss_buf_putc(out, '~');
}

/* The OS's error for path (relative to the working tree), said with the path in full: a line
 * in a scheduled job's log names the clone too. */
static int os_error(ss_error *err, const char *what, const char *workdir, const char *path)
{
	int saved = errno;
	ss_buf full = SS_BUF_INIT;
	int ret;

	ss_fs_join(&full, workdir, path);
	ret = ss_error_set(err, saved == ENOSPC ? SS_ETOOBIG : SS_ERROR, "cannot %s '%s': %s", what,
	                   full.ptr, strerror(saved));
	ss_buf_release(&full);
	return ret;
}

/* Removes the empty directories above path, deepest first, up to the working tree. */
static void remove_empty_parents(const char *workdir, const char *path)
{
	ss_buf dir = SS_BUF_INIT;
	size_t len = strlen(path);

	for (;;) {
		while (len > 0 && path[len - 1] != '/')
			len--;
		if (len-- == 0)
			break;
		ss_buf_clear(&dir);
		ss_fs_join(&dir, workdir, "");
		ss_buf_put(&dir, path, len);
		if (rmdir(dir.ptr) < 0)
			break;
	}
	ss_buf_release(&dir);
}

/* The directories on the way to path, made where missing; a file of the move in the way is
 * removed (the check found it tracked); a symbolic link stops the write. */
static int make_parents(const char *workdir, const char *path, ss_error *err)
{
	ss_buf full = SS_BUF_INIT, prefix = SS_BUF_INIT;
	struct stat st;
	int ret = 0;

	for (const char *p = strchr(path, '/'); p && ret == 0; p = strchr(p + 1, '/')) {
		ss_buf_clear(&prefix);
		ss_buf_put(&prefix, path, (size_t)(p - path));
		ss_buf_clear(&full);
		ss_fs_join(&full, workdir, prefix.ptr);
		if (lstat(full.ptr, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				continue;
			if (S_ISLNK(st.st_mode)) {
				ret = refuse(err, prefix.ptr, "is a symbolic link");
				break;
			}
			if (unlink(full.ptr) < 0) {
				ret = os_error(err, "remove", workdir, prefix.ptr);
				break;
			}
		}
		if (mkdir(full.ptr, 0777) < 0)
			ret = os_error(err, "create directory", workdir, prefix.ptr);
	}
	ss_buf_release(&full);
	ss_buf_release(&prefix);
	return ret;
}

/* Writes the blob to path: to the temporary name, then renamed over whatever file was there;
 * a kill leaves the old file whole and a stray temporary file, never a part of the new one. */
static int write_blob(ss_repo *repo, const ss_merge_move *m, const char *path, const git_oid *id,
                      uint32_t mode, ss_error *err)
{
	const char *workdir = repo->workdir;
	ss_buf full = SS_BUF_INIT, tmp = SS_BUF_INIT, link = SS_BUF_INIT;
	git_blob *blob = NULL;
	const char *data;
	size_t len, half;
	struct stat st;
	int fd = -1, rc, ret = -1;

	if (make_parents(workdir, path, err) < 0)
		goto out;
	ss_fs_join(&full, workdir, path);
	if (mode == GIT_FILEMODE_COMMIT) { /* a submodule: its directory, as libgit2 makes it */
		if (mkdir(full.ptr, 0777) < 0 && errno != EEXIST)
			os_error(err, "create directory", workdir, path);
		else
			ret = 0;
		goto out;
	}
	if ((rc = git_blob_lookup(&blob, repo->git, id)) < 0) {
		ret = ss_git__error(err, rc, "cannot read '%s'", path);
		goto out;
	}
	data = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	temp_path(&tmp, m, workdir, path);
	if (unlink(tmp.ptr) < 0 && errno != ENOENT) {
		os_error(err, "remove", workdir, path);
		goto out;
	}
	if (mode == GIT_FILEMODE_LINK) { /* committed by hand: made as git makes it */
		ss_buf_put(&link, data, len);
		if (symlink(link.ptr, tmp.ptr) < 0) {
			os_error(err, "write", workdir, path);
			goto out;
		}
	} else {
		fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		          mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
		half = len / 2;
		if (fd < 0 || ss_fs_write_all(fd, data, half) < 0) {
			os_error(err, "write", workdir, path);
			goto out;
		}
		if (half)
			ss_crash_point("merge-checkout-midfile");
		if (ss_fs_write_all(fd, data + half, len - half) < 0 || close(fd) < 0) {
			fd = -1;
			os_error(err, "write", workdir, path);
			goto out;
		}
		fd = -1;
	}
	/* a directory the move emptied (its files were removed first) */
	if (lstat(full.ptr, &st) == 0 && S_ISDIR(st.st_mode) && rmdir(full.ptr) < 0) {
		refuse(err, path, "is in the way");
		goto out;
	}
	if (rename(tmp.ptr, full.ptr) < 0) {
		os_error(err, "write", workdir, path);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0 && tmp.len)
		unlink(tmp.ptr);
	git_blob_free(blob);
	ss_buf_release(&full);
	ss_buf_release(&tmp);
	ss_buf_release(&link);
	return ret;
}

/* The index entry of the file just written at path (its stat, so status need not hash it). */
static int index_put(git_index *index, const char *workdir, const char *path, const git_oid *id,
                     uint32_t mode, ss_error *err)
{
	git_index_entry e;
	ss_buf full = SS_BUF_INIT;
	struct stat st;
	int rc;

	ss_fs_join(&full, workdir, path);
	rc = lstat(full.ptr, &st);
	ss_buf_release(&full);
	if (rc < 0)
		return os_error(err, "read", workdir, path);
	memset(&e, 0, sizeof(e));
	ss_git__index_stat(&e, &st);
	e.mode = mode;
	git_oid_cpy(&e.id, id);
	e.path = path;
	git_index_conflict_remove(index, path); /* none, or the conflict this undoes */
	if ((rc = git_index_add(index, &e)) < 0)
		return ss_git__error(err, rc, "cannot update the index for '%s'", path);
	return 0;
}

int ss_merge_move__write(ss_repo *repo, const ss_merge_move *m, bool to_target, ss_error *err)
{
	git_tree *to = to_target ? m->target : m->old;
	const char *workdir = repo->workdir;
	git_index *index = NULL;
	ss_buf full = SS_BUF_INIT;
	struct stat st;
	size_t written = 0, nwrites = 0;
	int rc, ret = -1;

	if (m->paths.count == 0)
		return 0;
	if (!to)
		return ss_error_set(err, SS_EINVALID,
		                    "a conflicting merge is written by git_merge");
	if ((rc = git_repository_index(&index, repo->git)) < 0 ||
	    (rc = git_index_read(index, 1)) < 0) {
		ret = ss_git__error(err, rc, "cannot read the index");
		goto out;
	}
	/* removals first: a directory that becomes a file is emptied before the file comes */
	for (size_t i = 0; i < m->paths.count; i++) {
		const char *path = m->paths.strings[i];
		git_oid id;
		uint32_t mode;

		if (tree_side(to, path, &id, &mode) == SIDE_BLOB) {
			nwrites++;
			continue;
		}
		ss_buf_clear(&full);
		ss_fs_join(&full, workdir, path);
		if (lstat(full.ptr, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (unlink(full.ptr) < 0) {
				os_error(err, "remove", workdir, path);
				goto out;
			}
			remove_empty_parents(workdir, path);
		}
		rc = git_index_remove_bypath(index, path);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot update the index for '%s'", path);
			goto out;
		}
	}
	if (m->progress)
		m->progress(m->payload, 0, nwrites);
	for (size_t i = 0; i < m->paths.count; i++) {
		const char *path = m->paths.strings[i];
		git_oid id;
		uint32_t mode;

		if (tree_side(to, path, &id, &mode) != SIDE_BLOB)
			continue;
		if (written >= 1 && written < nwrites)
			ss_crash_point("merge-checkout-midway");
		if (write_blob(repo, m, path, &id, mode, err) < 0 ||
		    index_put(index, workdir, path, &id, mode, err) < 0)
			goto out;
		written++;
		if (m->progress)
			m->progress(m->payload, written, nwrites);
	}
	if ((rc = git_index_write(index)) < 0) {
		ret = ss_git__error(err, rc, "cannot write the index");
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&full);
	git_index_free(index);
	return ret;
}

void ss_merge_move__clean(ss_repo *repo, const ss_merge_move *m)
{
	const char *workdir = repo->workdir;
	ss_buf tmp = SS_BUF_INIT;
	struct stat st;

	for (size_t i = 0; i < m->paths.count; i++) {
		temp_path(&tmp, m, workdir, m->paths.strings[i]);
		if (lstat(tmp.ptr, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			unlink(tmp.ptr); /* a link itself, never what it points at */
	}
	ss_buf_release(&tmp);
}
