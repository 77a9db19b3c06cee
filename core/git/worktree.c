/* worktree.c: unified diffs (status is in worktree_status.c, the checkout of a fresh clone in
 * worktree_checkout.c). */
#include "core/git/worktree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2/sys/repository.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/worktree_priv.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* The index for a diff of paths against it: one holding only their entries, read by
 * skillsync (ss_worktree__index_subset); NULL, the repository's, when the file is left to libgit2.
 */
static int paths_index(ss_repo *repo, const char *const *paths, size_t npaths, bool literal,
                       git_index **out, ss_error *err)
{
	const ss_index_file *ix = ss_worktree__index(repo);

	*out = NULL;
	return ix ? ss_worktree__index_subset(ix, paths, npaths, literal, out, err) : 0;
}

/* One diff of kind over opts's paths. */
static int diff_one(git_diff **out, git_repository *git, ss_diff_kind kind, git_tree *a,
                    git_tree *b, git_index *index, const git_diff_options *opts, ss_error *err)
{
	int rc;

	switch (kind) {
	case SS_DIFF_TREES:
		rc = git_diff_tree_to_tree(out, git, a, b, opts);
		break;
	case SS_DIFF_TREE_INDEX:
		rc = git_diff_tree_to_index(out, git, a, index, opts);
		break;
	case SS_DIFF_INDEX_WORKDIR:
		rc = git_diff_index_to_workdir(out, git, index, opts);
		break;
	case SS_DIFF_TREE_WORKDIR:
		rc = git_diff_tree_to_workdir_with_index(out, git, a, opts);
		break;
	default:
		return ss_error_set(err, SS_EINVALID, "unknown diff kind %d", (int)kind);
	}
	return rc < 0 ? ss_git__error(err, rc, "cannot compute the diff") : 0;
}

/* diff_one over literal paths, in the groups libgit2 walks right (ss_git__pathspec_split),
 * merged into one diff. */
static int diff_groups(git_diff **out, git_repository *git, ss_diff_kind kind, git_tree *a,
                       git_tree *b, git_index *index, const git_diff_options *opts, ss_error *err)
{
	size_t n = opts->pathspec.count, first = 0;
	const char **order = ss_xcalloc(n ? n : 1, sizeof(*order));
	git_diff_options one = *opts;
	int ret = 0, rc;

	ss_git__pathspec_split((const char *const *)opts->pathspec.strings, n, order, &first);
	one.pathspec.strings = (char **)(uintptr_t)order;
	one.pathspec.count = first ? first : n; /* no path: every path, as one diff */
	ret = diff_one(out, git, kind, a, b, index, &one, err);
	for (size_t i = first ? first : n; ret == 0 && i < n; i++) {
		git_diff *more = NULL;

		one.pathspec.strings = (char **)(uintptr_t)(order + i);
		one.pathspec.count = 1;
		if ((ret = diff_one(&more, git, kind, a, b, index, &one, err)) == 0 &&
		    (rc = git_diff_merge(*out, more)) < 0)
			ret = ss_git__error(err, rc, "cannot compute the diff");
		git_diff_free(more);
	}
	if (ret < 0) {
		git_diff_free(*out);
		*out = NULL;
	}
	free(order);
	return ret;
}

/*
 * Makes the diff asked for; *out is NULL on failure. A diff of the index is made with one that
 * holds the paths' entries only (paths_index), and that index stays the repository's (*used) while
 * the diff is read, for the attribute lookups that reading the files' contents makes: the
 * repository's own is read again from the file when next asked for (done_diff).
 */
static int make_diff(git_diff **out, git_index **used, ss_repo *repo, ss_diff_kind kind,
                     const ss_oid *old_tree, const ss_oid *new_tree, const char *const *paths,
                     size_t npaths, ss_error *err)
{
	git_repository *git = repo->git;
	git_diff_options opts;
	git_tree *a = NULL, *b = NULL;
	git_index *index = NULL;
	char **spec = ss_xcalloc(npaths ? npaths : 1, sizeof(char *));
	bool literal = (kind & SS_DIFF_LITERAL) != 0;
	int rc = 0, ret;

	*out = NULL;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (literal)
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	kind = (ss_diff_kind)(kind & ~SS_DIFF_LITERAL);
	for (size_t i = 0; i < npaths; i++)
		spec[i] = ss_xstrdup(paths[i]);
	opts.pathspec.strings = spec;
	opts.pathspec.count = npaths;
	if (kind == SS_DIFF_INDEX_WORKDIR || kind == SS_DIFF_TREE_WORKDIR)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		              GIT_DIFF_SHOW_UNTRACKED_CONTENT;
	ret = ss_git__tree(&a, repo, old_tree, err);
	if (ret == 0 && kind == SS_DIFF_TREES)
		ret = ss_git__tree(&b, repo, new_tree, err);
	*used = NULL;
	if (ret == 0 && (kind == SS_DIFF_TREE_INDEX || kind == SS_DIFF_INDEX_WORKDIR))
		ret = paths_index(repo, paths, npaths, literal, &index, err);
	if (ret == 0 && index && (rc = git_repository_set_index(git, index)) < 0)
		ret = ss_git__error(err, rc, "cannot read the index");
	if (ret < 0) {
		git_index_free(index);
		goto out;
	}
	*used = index;
	ret = literal ? diff_groups(out, git, kind, a, b, index, &opts, err)
	              : diff_one(out, git, kind, a, b, index, &opts, err);
out:
	ss_git__strings_free(spec, npaths);
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}

/* Frees what make_diff made, the repository's index read again when next asked for. */
static void done_diff(ss_repo *repo, git_diff *diff, git_index *used)
{
	git_diff_free(diff);
	if (used) {
		git_repository_set_index(repo->git, NULL);
		git_index_free(used);
	}
}

/* The unified diff of diff into out. */
static int diff_text(git_diff *diff, ss_buf *out, ss_error *err)
{
	git_buf text = {0};
	int rc, ret = 0;

	rc = git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH);
	if (rc < 0)
		ret = ss_git__error(err, rc, "cannot format the diff");
	else if (ss_buf_put(out, text.ptr, text.size) < 0)
		ret = ss_error_set(err, SS_ETOOBIG, "the diff is too big");
	git_buf_dispose(&text);
	return ret;
}

int ss_worktree_diff(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                     const ss_oid *new_tree, const char *const *paths, size_t npaths, ss_buf *out,
                     ss_error *err)
{
	return ss_worktree_diff_stat(repo, kind, old_tree, new_tree, paths, npaths, NULL, out, err);
}

/*
 * Up to this many names, a diff of the working directory against the index is made name by
 * name, each in a repository of its own whose working directory is the name's directory: a
 * diff rooted at the clone reads the clone's top directory whole (60,000 names) to find them.
 */
#define ROOTED_MAX 16

static int cmp_git_order(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y), n = lx < ly ? lx : ly;
	int c = memcmp(x, y, n);

	/* as git sorts trees: a directory's name as if it ended in '/' */
	if (c || lx == ly)
		return c;
	return lx < ly ? (unsigned char)'/' - (unsigned char)y[n]
	               : (unsigned char)x[n] - (unsigned char)'/';
}

/* Whether each of the names is a directory of the working directory that holds no repository
 * of its own (which a diff from the clone's top shows as one untracked name) and that the index
 * ix does not hold as a file (whose deletion a diff rooted below it would not see). */
static bool all_directories(ss_repo *repo, const ss_index_file *ix, const char *const *names,
                            size_t n)
{
	ss_buf path = SS_BUF_INIT;
	struct stat st;
	bool ok = n > 0 && n <= ROOTED_MAX;

	for (size_t i = 0; ok && i < n; i++) {
		ss_buf_clear(&path);
		ss_buf_printf(&path, "%s/%s", repo->workdir, names[i]);
		ok = ss_fs_is_dir(path.ptr) && !ss_index_file_has(ix, names[i]);
		ss_buf_puts(&path, "/.git");
		ok = ok && lstat(path.ptr, &st) < 0 && errno == ENOENT;
	}
	ss_buf_release(&path);
	return ok;
}

/* Appends the changes of from, their paths below name/, to out. */
static void take_changes(ss_changes *out, ss_changes *from, const char *name)
{
	out->items = ss_xrealloc(out->items, (out->count + from->count + 1) * sizeof(*out->items));
	for (size_t i = 0; i < from->count; i++) {
		ss_change *c = &out->items[out->count++];
		*c = from->items[i];
		c->path = ss_xmalloc(strlen(name) + strlen(from->items[i].path) + 2);
		sprintf(c->path, "%s/%s", name, from->items[i].path);
		free(from->items[i].path);
	}
	free(from->items);
	from->items = NULL;
	from->count = 0;
}

/* The diff of the directory name against the index ix's entries below it, rooted there (see
 * ROOTED_MAX): its changes appended to out, its patch to patch, each when not NULL. */
static int rooted_diff(ss_repo *repo, const ss_index_file *ix, const char *name, ss_changes *out,
                       ss_buf *patch, ss_error *err)
{
	git_repository *git = NULL;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	ss_buf dir = SS_BUF_INIT, a = SS_BUF_INIT, b = SS_BUF_INIT;
	ss_changes some = {0};
	int rc, ret = -1;

	ss_buf_printf(&dir, "%s/%s", repo->workdir, name);
	ss_buf_printf(&a, "a/%s/", name);
	ss_buf_printf(&b, "b/%s/", name);
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
	             GIT_DIFF_SHOW_UNTRACKED_CONTENT;
	opts.old_prefix = a.ptr;
	opts.new_prefix = b.ptr;
	rc = git_repository_open_ext(&git, repo->gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (rc == 0)
		rc = git_repository_set_workdir(git, dir.ptr, 0);
	if (rc < 0) {
		ss_git__error(err, rc, "cannot open '%s'", dir.ptr);
		goto out;
	}
	if (ss_repo__ignore_rules(git, err) < 0 ||
	    ss_worktree__index_below(ix, name, &index, err) < 0)
		goto out;
	/* the index is this repository's while the diff is read (attribute lookups) */
	if ((rc = git_repository_set_index(git, index)) < 0 ||
	    (rc = git_diff_index_to_workdir(&diff, git, index, &opts)) < 0) {
		ss_git__error(err, rc, "cannot compute the diff");
		goto out;
	}
	if (out && ss_git__diff_changes(diff, &some, err) < 0)
		goto out;
	if (patch && diff_text(diff, patch, err) < 0)
		goto out;
	if (out)
		take_changes(out, &some, name);
	ret = 0;
out:
	ss_tree_changes_release(&some);
	git_diff_free(diff);
	git_index_free(index);
	git_repository_free(git);
	ss_buf_release(&dir);
	ss_buf_release(&a);
	ss_buf_release(&b);
	return ret;
}

int ss_worktree_diff_stat(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                          const ss_oid *new_tree, const char *const *paths, size_t npaths,
                          ss_changes *out, ss_buf *patch, ss_error *err)
{
	const ss_index_file *ix = NULL;
	git_diff *diff = NULL;
	git_index *used = NULL;
	int ret = 0;

	if (kind == (SS_DIFF_INDEX_WORKDIR | SS_DIFF_LITERAL) && (ix = ss_worktree__index(repo)) &&
	    all_directories(repo, ix, paths, npaths)) {
		const char **names = ss_xcalloc(npaths, sizeof(*names));
		memcpy(names, paths, npaths * sizeof(*names));
		qsort(names, npaths, sizeof(*names), cmp_git_order);
		if (out)
			memset(out, 0, sizeof(*out));
		for (size_t i = 0; ret == 0 && i < npaths; i++)
			ret = rooted_diff(repo, ix, names[i], out, patch, err);
		free(names);
		return ret;
	}
	ret = make_diff(&diff, &used, repo, kind, old_tree, new_tree, paths, npaths, err);
	if (ret == 0 && out)
		ret = ss_git__diff_changes(diff, out, err);
	if (ret == 0 && patch)
		ret = diff_text(diff, patch, err);
	done_diff(repo, diff, used);
	return ret;
}
