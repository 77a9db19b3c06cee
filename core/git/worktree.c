/* worktree.c: unified diffs (status is in worktree_status.c, the checkout of a fresh clone in
 * worktree_checkout.c). */
#include "core/git/worktree.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/util/mem.h"

/* Makes the diff asked for; *out is NULL on failure. */
static int make_diff(git_diff **out, ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                     const ss_oid *new_tree, const char *const *paths, size_t npaths, ss_error *err)
{
	git_repository *git = ss_repo__git(repo);
	git_diff_options opts;
	git_tree *a = NULL, *b = NULL;
	char **spec = ss_xcalloc(npaths ? npaths : 1, sizeof(char *));
	int rc = 0, ret;

	*out = NULL;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (kind & SS_DIFF_LITERAL)
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
	if (ret < 0)
		goto out;
	switch (kind) {
	case SS_DIFF_TREES:
		rc = git_diff_tree_to_tree(out, git, a, b, &opts);
		break;
	case SS_DIFF_TREE_INDEX:
		rc = git_diff_tree_to_index(out, git, a, NULL, &opts);
		break;
	case SS_DIFF_INDEX_WORKDIR:
		rc = git_diff_index_to_workdir(out, git, NULL, &opts);
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

int ss_worktree_diff(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                     const ss_oid *new_tree, const char *const *paths, size_t npaths, ss_buf *out,
                     ss_error *err)
{
	git_diff *diff = NULL;
	git_buf text = {0};
	int rc, ret;

	ret = make_diff(&diff, repo, kind, old_tree, new_tree, paths, npaths, err);
	if (ret < 0)
		return ret;
	rc = git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH);
	if (rc < 0)
		ret = ss_git__error(err, rc, "cannot format the diff");
	else if (ss_buf_put(out, text.ptr, text.size) < 0)
		ret = ss_error_set(err, SS_ETOOBIG, "the diff is too big");
	git_buf_dispose(&text);
	git_diff_free(diff);
	return ret;
}

int ss_worktree_diff_stat(ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                          const ss_oid *new_tree, const char *const *paths, size_t npaths,
                          ss_changes *out, ss_error *err)
{
	git_diff *diff = NULL;
	int ret;

	ret = make_diff(&diff, repo, kind, old_tree, new_tree, paths, npaths, err);
	if (ret == 0)
		ret = ss_git__diff_changes(diff, out, err);
	git_diff_free(diff);
	return ret;
}
