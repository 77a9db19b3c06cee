/* merge_move.c: a move of the working tree that writes only what it may (merge_priv.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/commit.h"
#include "core/fs.h"
#include "core/mem.h"
#include "core/merge_priv.h"

void ss_merge_journal_path(ss_buf *out, ss_repo *repo)
{
	ss_fs_join(out, ss_repo_statedir(repo), "merge");
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
	return git_repository_hashfile(id, ss_repo_git(repo), path, GIT_OBJECT_BLOB, NULL);
}

/* Whether the file (id, mode) at path is what a conflicting merge writes there: either
 * side's version, or the file with conflict markers. */
static bool is_conflict_file(ss_repo *repo, const ss_merge_move *m, const char *path,
                             const git_oid *id, uint32_t mode)
{
	const git_index_entry *a, *o, *t;
	git_merge_file_options opts;
	git_merge_file_result res;
	git_oid want;
	bool yes = false;

	if (git_index_conflict_get(&a, &o, &t, m->merged, path) < 0)
		return false;
	if ((o && git_oid_equal(&o->id, id) && o->mode == mode) ||
	    (t && git_oid_equal(&t->id, id) && t->mode == mode))
		return true;
	git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
	opts.our_label = SS_MERGE_OUR_LABEL;
	opts.their_label = SS_MERGE_THEIR_LABEL;
	memset(&res, 0, sizeof(res));
	if (git_merge_file_from_index(&res, ss_repo_git(repo), a, o, t, &opts) == 0 &&
	    git_odb_hash(&want, res.ptr, res.len, GIT_OBJECT_BLOB) == 0)
		yes = git_oid_equal(&want, id) && res.mode == mode;
	git_merge_file_result_free(&res);
	return yes;
}

static int refuse(ss_error *err, const char *path, const char *why)
{
	return ss_error_set(err, SS_EEXISTS, "'%s' %s", path, why);
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

/* One path of the move (merge_priv.h's rules). */
static int check_path(ss_repo *repo, const ss_merge_move *m, const char *path, ss_error *err)
{
	const char *workdir = ss_repo_workdir(repo);
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
	         !(b == SIDE_CONFLICT && is_conflict_file(repo, m, path, &id, mode)))
		ret = refuse(err, path, a == SIDE_BLOB ? "has changes of yours" : "is in the way");
	ss_buf_release(&full);
	return ret;
}

int ss_merge_move_check(ss_repo *repo, const ss_merge_move *m, ss_error *err)
{
	for (size_t i = 0; i < m->paths.count; i++) {
		int ret = check_path(repo, m, m->paths.strings[i], err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The paths that differ in a diff (both sides' paths). */
static void diff_paths(git_diff *diff, git_strarray *out)
{
	size_t n = git_diff_num_deltas(diff);

	out->strings = ss_xcalloc(n ? 2 * n : 1, sizeof(char *));
	out->count = 0;
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		out->strings[out->count++] = ss_xstrdup(d->old_file.path);
		if (strcmp(d->old_file.path, d->new_file.path) != 0)
			out->strings[out->count++] = ss_xstrdup(d->new_file.path);
	}
}

static int commit_tree(git_tree **out, git_repository *git, const ss_oid *commit)
{
	git_commit *c = NULL;
	git_oid id;
	int rc;

	ss_git_oid_in(&id, commit);
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

int ss_merge_index(git_index **out, ss_repo *repo, const ss_oid *ours, const ss_oid *theirs)
{
	git_repository *git = ss_repo_git(repo);
	git_commit *a = NULL, *b = NULL;
	git_oid id;
	int rc;

	ss_git_oid_in(&id, ours);
	rc = git_commit_lookup(&a, git, &id);
	ss_git_oid_in(&id, theirs);
	if (rc == 0)
		rc = git_commit_lookup(&b, git, &id);
	if (rc == 0)
		rc = git_merge_commits(out, git, a, b, NULL);
	git_commit_free(a);
	git_commit_free(b);
	return rc;
}

int ss_merge_move_init(ss_merge_move *m, ss_repo *repo, const ss_oid *old, const ss_oid *target,
                       bool conflicting, ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_diff *diff = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = ss_oid_is_zero(old) ? empty_tree(&m->old, git) : commit_tree(&m->old, git, old);
	if (rc == 0 && !conflicting)
		rc = commit_tree(&m->target, git, target);
	if (rc == 0 && !conflicting)
		rc = git_diff_tree_to_tree(&diff, git, m->old, m->target, NULL);
	if (rc == 0 && conflicting)
		rc = ss_merge_index(&m->merged, repo, old, target);
	if (rc == 0 && conflicting)
		rc = git_diff_tree_to_index(&diff, git, m->old, m->merged, NULL);
	if (rc == 0)
		diff_paths(diff, &m->paths);
	git_diff_free(diff);
	if (rc < 0) {
		ss_merge_move_release(m);
		return ss_git_error(err, rc, "cannot compute the merge's files");
	}
	return 0;
}

void ss_merge_move_release(ss_merge_move *m)
{
	if (!m)
		return;
	git_tree_free(m->old);
	git_tree_free(m->target);
	git_index_free(m->merged);
	ss_git_strings_free(m->paths.strings, m->paths.count);
	memset(m, 0, sizeof(*m));
}

int ss_merge_move_write(ss_repo *repo, const ss_merge_move *m, bool to_target, ss_error *err)
{
	git_checkout_options opts;
	int rc;

	if (m->paths.count == 0)
		return 0;
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED |
	                         GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	opts.paths = m->paths;
	rc = git_checkout_tree(ss_repo_git(repo), (git_object *)(to_target ? m->target : m->old),
	                       &opts);
	if (rc < 0)
		return ss_git_error(err, rc, "cannot update the working tree");
	return 0;
}
