/* worktree.c: checkout for a fresh clone, unified diffs (status is in worktree_status.c). */
#include "core/worktree.h"

#include <stdlib.h>
#include <string.h>

#include "core/git_priv.h"
#include "core/mem.h"

typedef struct refused {
	ss_buf names;
	size_t count;
} refused;

static int note_conflict(git_checkout_notify_t why, const char *path, const git_diff_file *baseline,
                         const git_diff_file *target, const git_diff_file *workdir, void *payload)
{
	refused *r = payload;

	(void)why, (void)baseline, (void)target, (void)workdir;
	if (r->count < 5)
		ss_buf_printf(&r->names, "%s'%s'", r->count ? ", " : "", path);
	r->count++;
	return 0;
}

typedef struct progress_cb {
	ss_worktree_progress fn;
	void *payload;
} progress_cb;

static void on_progress(const char *path, size_t done, size_t total, void *payload)
{
	progress_cb *p = payload;

	(void)path;
	p->fn(p->payload, done, total);
}

int ss_worktree_checkout(ss_repo *repo, const ss_oid *commit, ss_error *err)
{
	return ss_worktree_checkout_progress(repo, commit, NULL, NULL, err);
}

int ss_worktree_checkout_progress(ss_repo *repo, const ss_oid *commit,
                                  ss_worktree_progress progress, void *payload, ss_error *err)
{
	progress_cb pc = {progress, payload};
	git_repository *git = ss_repo_git(repo);
	git_checkout_options opts;
	git_treebuilder *tb = NULL;
	git_tree *empty = NULL, *target = NULL;
	git_commit *c = NULL;
	git_oid id, empty_id;
	refused r = {SS_BUF_INIT, 0};
	int rc, ret = -1;

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	ss_git_oid_in(&id, commit);
	rc = git_commit_lookup(&c, git, &id);
	if (rc == 0)
		rc = git_commit_tree(&target, c);
	if (rc == 0)
		rc = git_treebuilder_new(&tb, git, NULL);
	if (rc == 0)
		rc = git_treebuilder_write(&empty_id, tb);
	if (rc == 0)
		rc = git_tree_lookup(&empty, git, &empty_id);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot prepare the checkout");
		goto out;
	}
	/* Against an empty baseline every file is written, and any file already there that
	 * differs is a conflict: refused before anything is written. */
	opts.checkout_strategy = GIT_CHECKOUT_SAFE;
	/* The clone's info/attributes turns every filter off (docs/VALIDATION.md): no lookup of
	 * .gitattributes per file written (a realpath and a few stats each). */
	opts.disable_filters = 1;
	opts.baseline = empty;
	opts.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	opts.notify_cb = note_conflict;
	opts.notify_payload = &r;
	if (progress) {
		opts.progress_cb = on_progress;
		opts.progress_payload = &pc;
	}
	rc = git_checkout_tree(git, (git_object *)target, &opts);
	if (rc < 0 && r.count) {
		ret = ss_error_set(err, SS_EEXISTS, "cannot check out: %s%s already exist%s",
		                   r.names.ptr, r.count > 5 ? " and more" : "",
		                   r.count > 1 ? "" : "s");
		goto out;
	}
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot check out the files");
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&r.names);
	git_tree_free(empty);
	git_tree_free(target);
	git_treebuilder_free(tb);
	git_commit_free(c);
	return ret;
}

/* Makes the diff asked for; *out is NULL on failure. */
static int make_diff(git_diff **out, ss_repo *repo, ss_diff_kind kind, const ss_oid *old_tree,
                     const ss_oid *new_tree, const char *const *paths, size_t npaths, ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_diff_options opts;
	git_tree *a = NULL, *b = NULL;
	char **spec = ss_xcalloc(npaths ? npaths : 1, sizeof(char *));
	int rc = 0, ret;

	*out = NULL;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	for (size_t i = 0; i < npaths; i++)
		spec[i] = ss_xstrdup(paths[i]);
	opts.pathspec.strings = spec;
	opts.pathspec.count = npaths;
	if (kind == SS_DIFF_INDEX_WORKDIR || kind == SS_DIFF_TREE_WORKDIR)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		              GIT_DIFF_SHOW_UNTRACKED_CONTENT;
	ret = ss_git_tree(&a, repo, old_tree, err);
	if (ret == 0 && kind == SS_DIFF_TREES)
		ret = ss_git_tree(&b, repo, new_tree, err);
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
		ret = ss_git_error(err, rc, "cannot compute the diff");
out:
	ss_git_strings_free(spec, npaths);
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
		ret = ss_git_error(err, rc, "cannot format the diff");
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
		ret = ss_git_diff_changes(diff, out, err);
	git_diff_free(diff);
	return ret;
}
