/* worktree.c: unified diffs (status is in worktree_status.c, the checkout of a fresh clone in
 * worktree_checkout.c). */
#include "core/git/worktree.h"

#include <stdlib.h>
#include <string.h>

#include <git2/sys/repository.h>

#include "core/git/git_priv.h"
#include "core/git/worktree_priv.h"
#include "core/util/mem.h"

/* The index for a diff of paths against it: one holding only their entries, read by
 * skillsync (ss_index_file_subset); NULL, the repository's, when the file is left to libgit2. */
static int paths_index(ss_repo *repo, const char *const *paths, size_t npaths, bool literal,
                       git_index **out, ss_error *err)
{
	const ss_index_file *ix = ss_index_file_get(repo);

	*out = NULL;
	return ix ? ss_index_file_subset(ix, paths, npaths, literal, out, err) : 0;
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
	git_repository *git = ss_repo__git(repo);
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
	switch (kind) {
	case SS_DIFF_TREES:
		rc = git_diff_tree_to_tree(out, git, a, b, &opts);
		break;
	case SS_DIFF_TREE_INDEX:
		rc = git_diff_tree_to_index(out, git, a, index, &opts);
		break;
	case SS_DIFF_INDEX_WORKDIR:
		rc = git_diff_index_to_workdir(out, git, index, &opts);
		break;
	case SS_DIFF_TREE_WORKDIR:
		rc = git_diff_tree_to_workdir_with_index(out, git, a, &opts);
		break;
	default:
		ret = ss_error_set(err, SS_EINVALID, "unknown diff kind %d", (int)kind);
		goto out;
	}
	if (rc < 0)
		ret = ss_git__error(err, rc, "cannot compute the diff");
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
		git_repository_set_index(ss_repo__git(repo), NULL);
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

int ss_worktree_diff_stat(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                          const ss_oid *new_tree, const char *const *paths, size_t npaths,
                          ss_changes *out, ss_buf *patch, ss_error *err)
{
	git_diff *diff = NULL;
	git_index *used = NULL;
	int ret;

	ret = make_diff(&diff, &used, repo, kind, old_tree, new_tree, paths, npaths, err);
	if (ret == 0 && out)
		ret = ss_git__diff_changes(diff, out, err);
	if (ret == 0 && patch)
		ret = diff_text(diff, patch, err);
	done_diff(repo, diff, used);
	return ret;
}
