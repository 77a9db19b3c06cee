/* merge_recover.c: finishing or undoing a merge killed midway (the order is in merge.c). */
#include "core/merge.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/commit.h"
#include "core/fs.h"
#include "core/git.h"
#include "core/mem.h"

/* Parses "old <hex>\n<kind> <hex>\n". */
static int parse_journal(const char *text, ss_oid *old, char kind[16], ss_oid *target)
{
	ss_error ignored;
	char a[SS_OID_HEXSZ + 1], b[SS_OID_HEXSZ + 1];
	size_t klen;
	const char *p;

	if (strncmp(text, "old ", 4) != 0 || strlen(text) < 4 + SS_OID_HEXSZ + 1)
		return -1;
	memcpy(a, text + 4, SS_OID_HEXSZ);
	a[SS_OID_HEXSZ] = '\0';
	p = text + 4 + SS_OID_HEXSZ;
	if (*p++ != '\n')
		return -1;
	klen = strcspn(p, " ");
	if (klen == 0 || klen >= 16 || strlen(p + klen) < 1 + SS_OID_HEXSZ)
		return -1;
	memcpy(kind, p, klen);
	kind[klen] = '\0';
	memcpy(b, p + klen + 1, SS_OID_HEXSZ);
	b[SS_OID_HEXSZ] = '\0';
	if (ss_oid_parse(old, a, &ignored) < 0 || ss_oid_parse(target, b, &ignored) < 0)
		return -1;
	return 0;
}

/* The paths that differ in a diff, as a string array (both sides' paths). */
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

/* Forced checkout of commit's tree, limited to paths. */
static int force_paths(ss_repo *repo, const ss_oid *commit, git_strarray *paths, ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_checkout_options opts;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_oid id;
	int rc;

	if (paths->count == 0)
		return 0;
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED |
	                         GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	opts.paths = *paths;
	ss_git_oid_in(&id, commit);
	rc = git_commit_lookup(&c, git, &id);
	if (rc == 0)
		rc = git_commit_tree(&tree, c);
	if (rc == 0)
		rc = git_checkout_tree(git, (git_object *)tree, &opts);
	git_tree_free(tree);
	git_commit_free(c);
	if (rc < 0)
		return ss_git_error(err, rc, "cannot restore the working tree");
	return 0;
}

/* The paths a move from old to target touches (old zero: everything in target). */
static int move_paths(ss_repo *repo, const ss_oid *old, const ss_oid *target, git_strarray *out,
                      ss_error *err)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	ss_oid ta, tb;
	int rc, ret = 0;

	if (!ss_oid_is_zero(old))
		ret = ss_commit_tree(repo, old, &ta, err);
	if (ret == 0)
		ret = ss_commit_tree(repo, target, &tb, err);
	if (ret == 0)
		ret = ss_git_tree(&a, repo, ss_oid_is_zero(old) ? NULL : &ta, err);
	if (ret == 0)
		ret = ss_git_tree(&b, repo, &tb, err);
	if (ret < 0)
		goto out;
	rc = git_diff_tree_to_tree(&diff, ss_repo_git(repo), a, b, NULL);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot compare trees");
		goto out;
	}
	diff_paths(diff, out);
out:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}

/* The paths a conflicting merge of theirs into old touches. */
static int merge_paths(ss_repo *repo, const ss_oid *old, const ss_oid *theirs, git_strarray *out,
                       ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_commit *a = NULL, *b = NULL;
	git_tree *ta = NULL;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_oid id;
	int rc;

	ss_git_oid_in(&id, old);
	rc = git_commit_lookup(&a, git, &id);
	ss_git_oid_in(&id, theirs);
	if (rc == 0)
		rc = git_commit_lookup(&b, git, &id);
	if (rc == 0)
		rc = git_commit_tree(&ta, a);
	if (rc == 0)
		rc = git_merge_commits(&index, git, a, b, NULL);
	if (rc == 0)
		rc = git_diff_tree_to_index(&diff, git, ta, index, NULL);
	if (rc == 0)
		diff_paths(diff, out);
	git_diff_free(diff);
	git_index_free(index);
	git_tree_free(ta);
	git_commit_free(a);
	git_commit_free(b);
	if (rc < 0)
		return ss_git_error(err, rc, "cannot replay the interrupted merge");
	return 0;
}

static bool index_has_conflicts(ss_repo *repo)
{
	git_index *index = NULL;
	bool yes = false;

	if (git_repository_index(&index, ss_repo_git(repo)) == 0 && git_index_read(index, 1) == 0)
		yes = git_index_has_conflicts(index);
	git_index_free(index);
	return yes;
}

bool ss_merge_interrupted(ss_repo *repo)
{
	ss_buf path = SS_BUF_INIT;
	bool yes;

	ss_fs_join(&path, ss_repo_statedir(repo), "merge");
	yes = access(path.ptr, F_OK) == 0;
	ss_buf_release(&path);
	return yes;
}

int ss_merge_recover(ss_repo *repo, bool *recovered, ss_error *err)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	git_strarray paths = {NULL, 0};
	ss_oid old, target, head;
	char kind[16];
	int ret;

	if (recovered)
		*recovered = false;
	ss_fs_join(&path, ss_repo_statedir(repo), "merge");
	ret = ss_fs_read_file(&text, path.ptr, 4096, err);
	if (ret == SS_ENOTFOUND) {
		ret = 0;
		goto out;
	}
	if (ret < 0)
		goto out;
	if (parse_journal(text.ptr, &old, kind, &target) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot read the merge journal '%s'", path.ptr);
		goto out;
	}
	ret = ss_commit_read_ref(repo, "HEAD", &head, err);
	if (ret == SS_ENOTFOUND)
		ss_oid_clear(&head);
	else if (ret < 0)
		goto out;
	if (!ss_oid_equal(&head, &old) &&
	    !(strcmp(kind, "new") == 0 && ss_oid_equal(&head, &target))) {
		ret = ss_error_set(err, SS_ERROR,
		                   "an interrupted merge left '%s' but HEAD moved since; check "
		                   "'git status', then remove that file",
		                   path.ptr);
		goto out;
	}
	if (strcmp(kind, "new") == 0 && ss_oid_equal(&head, &old)) {
		/* Finish the move: the touched paths were clean when it started. */
		ret = move_paths(repo, &old, &target, &paths, err);
		if (ret == 0)
			ret = force_paths(repo, &target, &paths, err);
		if (ret == 0)
			ret = ss_commit_update_ref(repo, "HEAD", &target, &old,
			                           "merge: finish an interrupted pull", err);
	} else if (strcmp(kind, "conflict") == 0 && !index_has_conflicts(repo)) {
		/* The index was not written yet: undo the files and the merge state. */
		ret = merge_paths(repo, &old, &target, &paths, err);
		if (ret == 0)
			ret = force_paths(repo, &old, &paths, err);
		if (ret == 0)
			git_repository_state_cleanup(ss_repo_git(repo));
	} else if (strcmp(kind, "new") != 0 && strcmp(kind, "conflict") != 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot read the merge journal '%s'", path.ptr);
	}
	if (ret < 0)
		goto out;
	unlink(path.ptr);
	if (recovered)
		*recovered = true;
out:
	ss_git_strings_free(paths.strings, paths.count);
	ss_buf_release(&path);
	ss_buf_release(&text);
	return ret;
}
