/* commit_stage.c: staging skills and committing the index on HEAD, concluding merges. */
#include "core/git/commit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/worktree.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* Files up to this size are read whole and staged without libgit2's filters; larger ones
 * (streamed), links and directories (a nested repository) go through git_index_add_bypath. */
#define STAGE_READ_MAX (16u * 1024 * 1024)

/*
 * Whether path is made of components libgit2's path checks (git_index_add_bypath's: ".git" in
 * any case or spelling, NTFS and HFS aliases of it, "..") always accept: ASCII letters, digits,
 * '.', '_', '-', '+', not "." or "..", no trailing '.', not starting with ".git". Other paths
 * go through git_index_add_bypath, which checks them.
 */
static bool plain_path(const char *path)
{
	const char *p = path;

	for (;;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 0 || p[n - 1] == '.' || (n >= 4 && !strncasecmp(p, ".git", 4)))
			return false;
		for (size_t i = 0; i < n; i++) {
			char c = p[i];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
			      c == '+'))
				return false;
		}
		if (!end)
			return true;
		p = end + 1;
	}
}

/*
 * Adds the regular file at full (path from the top: path, lstat: st) as git_index_add_bypath
 * does, without its attribute lookup per file: the clone's info/attributes turns every filter
 * off (core/git/repo.c), so the blob is the file's bytes.
 */
static int add_plain(git_index *index, const char *path, const char *full, const struct stat *st,
                     ss_buf *data, ss_error *err)
{
	git_index_entry e;
	int rc;

	ss_buf_clear(data);
	if (ss_fs_read_file(data, full, STAGE_READ_MAX, err) < 0)
		return ss_error_prefix(err, "cannot stage '%s'", path);
	memset(&e, 0, sizeof(e));
	ss_git__index_stat(&e, st);
	e.mode = (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	e.path = path;
	/* writes the blob, sets the size, resolves a conflict on path, invalidates the tree cache
	 */
	rc = git_index_add_from_buffer(index, &e, data->ptr, data->len);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot stage '%s'", path);
	return 0;
}

/* Stages one path the way `git add -A` does: see ss_commit_paths. */
static int stage_one(git_index *index, const char *workdir, const char *path, bool plain_ok,
                     ss_buf *full, ss_buf *data, ss_error *err)
{
	const git_index_entry *e;
	struct stat st;
	size_t len = strlen(path);
	int rc;

	ss_buf_clear(full);
	ss_fs_join(full, workdir, path);
	if (lstat(full->ptr, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return ss_error_set(err, SS_ERROR, "cannot stage '%s': %s", path,
			                    strerror(errno));
		rc = git_index_remove_bypath(index, path);
	} else if (S_ISDIR(st.st_mode) && path[len - 1] != '/' &&
	           !((e = git_index_get_bypath(index, path, 0)) &&
	             e->mode == GIT_FILEMODE_COMMIT)) {
		/* a file replaced by a directory: the files below are paths of their own */
		rc = git_index_remove_bypath(index, path);
	} else if (plain_ok && S_ISREG(st.st_mode) && st.st_size <= (off_t)STAGE_READ_MAX &&
	           plain_path(path)) {
		return add_plain(index, path, full->ptr, &st, data, err);
	} else {
		rc = git_index_add_bypath(index, path);
	}
	if (rc < 0)
		return ss_git__error(err, rc, "cannot stage '%s'", path);
	return 0;
}

/* The repository's index, read from disk (when it changed there). */
static int open_index(git_index **out, ss_repo *repo, ss_error *err)
{
	int rc = git_repository_index(out, repo->git);

	if (rc == 0)
		rc = git_index_read(*out, 0);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read the index");
	return 0;
}

/* Stages paths into index, in memory; inside an object batch. */
static int stage_into(git_index *index, ss_repo *repo, const char *const *paths, size_t npaths,
                      ss_error *err)
{
	const unsigned odd = GIT_INDEX_CAPABILITY_IGNORE_CASE | GIT_INDEX_CAPABILITY_NO_FILEMODE |
	                     GIT_INDEX_CAPABILITY_NO_SYMLINKS;
	/* a file system without modes, links or case: libgit2's own rules for every path */
	bool plain_ok = (git_index_caps(index) & odd) == 0;
	ss_buf full = SS_BUF_INIT, data = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < npaths && ret == 0; i++)
		ret = stage_one(index, repo->workdir, paths[i], plain_ok, &full, &data, err);
	ss_buf_release(&full);
	ss_buf_release(&data);
	return ret;
}

/* Writes the staged index to disk; the objects it names must be stored already. */
static int write_index(git_index *index, ss_error *err)
{
	int rc = git_index_write(index);

	if (rc < 0)
		return ss_git__error(err, rc, "cannot write the index");
	return 0;
}

/* After a failure: ends an open batch and forgets what was staged in memory only. */
static void drop(ss_repo *repo, git_index *index)
{
	ss_repo_batch_abort(repo);
	if (index)
		(void)git_index_read(index, 1);
}

/* Stages paths and writes the index (ss_commit_stage). */
static int stage_paths(ss_repo *repo, const char *const *paths, size_t npaths, ss_error *err)
{
	git_index *index = NULL;
	int ret = -1;

	/* the blobs go to a pack when there are many, and are on disk before the index names
	 * them (ss_repo_batch_end) */
	if (open_index(&index, repo, err) < 0 || ss_repo_batch_begin(repo, 0, err) < 0 ||
	    stage_into(index, repo, paths, npaths, err) < 0 || ss_repo_batch_end(repo, err) < 0 ||
	    write_index(index, err) < 0)
		drop(repo, index);
	else
		ret = 0;
	git_index_free(index);
	return ret;
}

/* Whether path is name or below name/. */
static bool below(const char *path, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(path, name, n) && (path[n] == '\0' || path[n] == '/');
}

int ss_commit_stage(ss_repo *repo, const char *const *names, size_t nnames, ss_error *err)
{
	ss_status st;
	const char **paths = NULL;
	size_t npaths = 0, alloc = 0;
	int ret;

	if (ss_worktree_status(repo, &st, err) < 0)
		return -1;
	for (size_t i = 0; i < st.count; i++) {
		const ss_status_entry *e = &st.entries[i];
		bool want = nnames == 0;

		for (size_t k = 0; k < nnames && !want; k++)
			want = below(e->name, names[k]);
		for (size_t j = 0; want && j < e->npaths; j++) {
			ss_xgrow((void **)&paths, sizeof(*paths), npaths + 1, &alloc);
			paths[npaths++] = e->paths[j];
		}
	}
	ret = stage_paths(repo, paths, npaths, err);
	free(paths);
	ss_worktree_status_release(&st);
	return ret;
}

static int add_merge_head(const git_oid *id, void *payload)
{
	git_oid *slot = payload;

	if (!git_oid_is_zero(slot))
		return 1; /* an octopus: not something skillsync makes */
	git_oid_cpy(slot, id);
	return 0;
}

/* SS_EMERGE naming the first conflicted path, when the index has conflicts. */
static int check_conflicts(git_index *index, ss_error *err)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *a, *o, *t;
	int ret = 0;

	if (!git_index_has_conflicts(index))
		return 0;
	if (git_index_conflict_iterator_new(&it, index) == 0 &&
	    git_index_conflict_next(&a, &o, &t, it) == 0) {
		const char *path = o ? o->path : t ? t->path : a->path;
		ret = ss_error_set(err, SS_EMERGE,
		                   "'%s' still has conflicts: fix it, then stage and commit", path);
	} else {
		ret = ss_error_set(err, SS_EMERGE, "the merge still has conflicts");
	}
	git_index_conflict_iterator_free(it);
	return ret;
}

/* The tree of the index, written inside an object batch (its trees then go to a pack rather
 * than one loose file each, with libgit2's rescan of the packs for each). SS_EMERGE while
 * the index has conflicts. */
static int write_tree(git_index *index, ss_oid *tree, ss_error *err)
{
	git_oid id;
	int rc;

	if (check_conflicts(index, err) < 0)
		return -1;
	rc = git_index_write_tree(&id, index);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot write the index's tree");
	ss_git__oid_out(tree, &id);
	return 0;
}

/* Commits tree (index's, stored) on HEAD, concluding a merge: see ss_commit_staged. */
static int commit_tree(ss_repo *repo, git_index *index, const ss_oid *tree, const char *message,
                       ss_oid *out, ss_error *err)
{
	git_repository *git = repo->git;
	git_oid merge_head;
	ss_oid parents[2], head_tree, id, zero;
	size_t nparents = 0;
	bool merging = false, has_head;
	ss_commit_opts opts = {0};
	int rc, ret;

	memset(&merge_head, 0, sizeof(merge_head));
	ss_oid_clear(&zero);
	ret = ss_commit_read_ref(repo, "HEAD", &parents[0], err);
	if (ret < 0 && err->code != SS_ENOTFOUND)
		return -1;
	has_head = ret == 0;
	if (has_head)
		nparents = 1;
	if (git_repository_state(git) == GIT_REPOSITORY_STATE_MERGE) {
		rc = git_repository_mergehead_foreach(git, add_merge_head, &merge_head);
		if (rc < 0 || git_oid_is_zero(&merge_head) || !has_head)
			return ss_error_set(err, SS_ERROR, "cannot read MERGE_HEAD");
		ss_git__oid_out(&parents[nparents++], &merge_head);
		merging = true;
	}
	if (!merging) {
		if (has_head && ss_commit_tree(repo, &parents[0], &head_tree, err) < 0)
			return -1;
		if (has_head ? ss_oid_equal(&head_tree, tree) : git_index_entrycount(index) == 0)
			return ss_error_set(err, SS_EINVALID, "nothing to commit");
	}
	opts.ref = "HEAD";
	opts.expected_old = has_head ? &parents[0] : &zero;
	if (ss_commit_create(repo, &opts, tree, parents, nparents, message, &id, err) < 0)
		return -1;
	if (merging) {
		rc = git_repository_state_cleanup(git);
		if (rc < 0)
			return ss_git__error(err, rc, "cannot clean up the merge state");
	}
	if (out)
		*out = id;
	return 0;
}

int ss_commit_staged(ss_repo *repo, const char *message, ss_oid *out, ss_error *err)
{
	git_index *index = NULL;
	ss_oid tree;
	int ret = -1;

	if (open_index(&index, repo, err) < 0 || ss_repo_batch_begin(repo, 0, err) < 0)
		goto out;
	if (write_tree(index, &tree, err) < 0 || ss_repo_batch_end(repo, err) < 0) {
		ss_repo_batch_abort(repo);
		goto out;
	}
	ret = commit_tree(repo, index, &tree, message, out, err);
out:
	git_index_free(index);
	return ret;
}

/* Writes the tree of the index entries [lo, hi), whose paths share a prefix of off bytes
 * (ending in '/'), as git_index_write_tree would. */
static int build_tree(git_repository *git, git_index *index, size_t lo, size_t hi, size_t off,
                      git_oid *out)
{
	git_treebuilder *tb = NULL;
	size_t i = lo;
	int rc = git_treebuilder_new(&tb, git, NULL);

	while (rc == 0 && i < hi) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		const char *rest = e->path + off, *slash = strchr(rest, '/');
		size_t n, j;
		char *name;
		git_oid sub;

		if (!slash) {
			rc =
			    git_treebuilder_insert(NULL, tb, rest, &e->id, (git_filemode_t)e->mode);
			i++;
			continue;
		}
		/* the entries below rest's first directory follow each other in the index */
		n = (size_t)(slash - rest) + 1;
		for (j = i + 1; j < hi; j++)
			if (strncmp(git_index_get_byindex(index, j)->path + off, rest, n) != 0)
				break;
		name = ss_xstrndup(rest, n - 1);
		rc = build_tree(git, index, i, j, off + n, &sub);
		if (rc == 0)
			rc = git_treebuilder_insert(NULL, tb, name, &sub, GIT_FILEMODE_TREE);
		free(name);
		i = j;
	}
	if (rc == 0)
		rc = git_treebuilder_write(out, tb);
	git_treebuilder_free(tb);
	return rc;
}

/*
 * The index's tree when it differs from HEAD's only below the top-level names of paths:
 * HEAD's top tree with those names rebuilt from the index. Work follows the change:
 * git_index_write_tree looks each directory up in its tree cache by a linear search among
 * the top-level names (so its cost grows with the square of the skills) and checks every
 * entry of the top tree against the object store.
 */
static int write_tree_of(ss_repo *repo, git_index *index, const char *const *paths, size_t npaths,
                         ss_oid *out, ss_error *err)
{
	git_repository *git = repo->git;
	git_treebuilder *top = NULL;
	git_tree *head = NULL;
	ss_buf name = SS_BUF_INIT, last = SS_BUF_INIT;
	git_oid id;
	int rc = 0;

	if (check_conflicts(index, err) < 0 || ss_git__head_tree(&head, repo, err) < 0)
		return -1;
	rc = git_treebuilder_new(&top, git, head);
	for (size_t i = 0; rc == 0 && i < npaths; i++) {
		const git_index_entry *e;
		size_t pos;

		ss_buf_clear(&name);
		ss_buf_put(&name, paths[i], strcspn(paths[i], "/"));
		if (i > 0 && !strcmp(name.ptr, last.ptr))
			continue;
		ss_buf_clear(&last);
		ss_buf_puts(&last, name.ptr);
		if ((e = git_index_get_bypath(index, name.ptr, 0))) {
			rc = git_treebuilder_insert(NULL, top, name.ptr, &e->id,
			                            (git_filemode_t)e->mode);
			continue;
		}
		ss_buf_putc(&name, '/');
		if (git_index_find_prefix(&pos, index, name.ptr) == 0) {
			size_t end = pos + 1, total = git_index_entrycount(index);
			while (end < total && !strncmp(git_index_get_byindex(index, end)->path,
			                               name.ptr, name.len))
				end++;
			rc = build_tree(git, index, pos, end, name.len, &id);
			if (rc == 0)
				rc = git_treebuilder_insert(NULL, top, last.ptr, &id,
				                            GIT_FILEMODE_TREE);
		} else if (git_treebuilder_get(top, last.ptr)) {
			rc = git_treebuilder_remove(top, last.ptr);
		}
	}
	if (rc == 0)
		rc = git_treebuilder_write(&id, top);
	git_treebuilder_free(top);
	git_tree_free(head);
	ss_buf_release(&name);
	ss_buf_release(&last);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot write the index's tree");
	ss_git__oid_out(out, &id);
	return 0;
}

int ss_commit_paths(ss_repo *repo, const char *const *paths, size_t npaths, const char *message,
                    ss_oid *out, ss_error *err)
{
	git_index *index = NULL;
	ss_oid tree;
	bool conflicted;
	int ret = -1;

	/* one batch for the blobs and the trees, stored before the index and HEAD name them */
	if (open_index(&index, repo, err) < 0 || ss_repo_batch_begin(repo, 0, err) < 0 ||
	    stage_into(index, repo, paths, npaths, err) < 0) {
		drop(repo, index);
		goto out;
	}
	conflicted = write_tree_of(repo, index, paths, npaths, &tree, err) < 0;
	if ((conflicted && err->code != SS_EMERGE) || ss_repo_batch_end(repo, err) < 0 ||
	    write_index(index, err) < 0) {
		drop(repo, index);
		goto out;
	}
	/* with conflicts left, what was staged stays staged (SS_EMERGE), as with
	 * ss_commit_stage then ss_commit_staged */
	if (!conflicted)
		ret = commit_tree(repo, index, &tree, message, out, err);
	if (ret == 0) {
		/* a commit of many files writes a pack, as a pull does: the small ones are merged
		 * when they pile up (bounded; its failure leaves the packs as they were) */
		ss_error ignored;
		size_t merged;

		(void)ss_repo_pack_small(repo, &merged, &ignored);
	}
out:
	git_index_free(index);
	return ret;
}
