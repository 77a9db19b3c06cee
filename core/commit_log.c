/* commit_log.c: the history of a path, for push notes and `log`. */
#include "core/commit.h"

#include <stdlib.h>
#include <string.h>

#include "core/git_priv.h"
#include "core/mem.h"

void ss_commit_list_release(ss_commit_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->count; i++) {
		free(list->items[i].subject);
		free(list->items[i].message);
		free(list->items[i].author_name);
		free(list->items[i].author_email);
	}
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

/* The id of path in commit's tree; a zero id when it is missing. */
static int path_id(git_commit *commit, const char *path, git_oid *out, ss_error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = git_commit_tree(&tree, commit);
	if (rc == 0) {
		rc = git_tree_entry_bypath(&e, tree, path);
		if (rc == 0)
			git_oid_cpy(out, git_tree_entry_id(e));
		else if (rc == GIT_ENOTFOUND)
			rc = 0;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	if (rc < 0)
		return ss_git_error(err, rc, "cannot read '%s' in history", path);
	return 0;
}

/* Whether commit changed path: it differs from every parent (a root: it exists). */
static int touches(git_commit *commit, const char *path, bool *out, ss_error *err)
{
	unsigned n = git_commit_parentcount(commit);
	git_oid mine, theirs;
	int ret;

	ret = path_id(commit, path, &mine, err);
	if (ret < 0)
		return ret;
	*out = true;
	if (n == 0) {
		*out = !git_oid_is_zero(&mine);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		git_commit *parent = NULL;
		int rc = git_commit_parent(&parent, commit, i);
		if (rc < 0)
			return ss_git_error(err, rc, "cannot read a parent commit");
		ret = path_id(parent, path, &theirs, err);
		git_commit_free(parent);
		if (ret < 0)
			return ret;
		if (git_oid_equal(&mine, &theirs)) {
			*out = false;
			break;
		}
	}
	return 0;
}

static void fill_info(ss_commit_info *info, git_commit *c)
{
	const git_signature *a = git_commit_author(c);
	const char *msg = git_commit_message(c);

	memset(info, 0, sizeof(*info));
	ss_git_oid_out(&info->oid, git_commit_id(c));
	info->message = ss_xstrdup(msg ? msg : "");
	info->subject = ss_xstrndup(info->message, strcspn(info->message, "\n"));
	info->author_name = ss_xstrdup(a && a->name ? a->name : "");
	info->author_email = ss_xstrdup(a && a->email ? a->email : "");
	info->time = a ? (int64_t)a->when.time : 0;
	info->nparents = git_commit_parentcount(c);
}

int ss_commit_log(ss_repo *repo, const ss_oid *from, const ss_oid *to, const char *path, size_t max,
                  ss_commit_list *out, ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_revwalk *walk = NULL;
	ss_commit_list list = {NULL, 0};
	size_t alloc = 0;
	git_oid id;
	int rc, ret = -1;

	rc = git_revwalk_new(&walk, git);
	if (rc == 0)
		rc = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (rc == 0) {
		ss_git_oid_in(&id, to);
		rc = git_revwalk_push(walk, &id);
	}
	if (rc == 0 && from && !ss_oid_is_zero(from)) {
		ss_git_oid_in(&id, from);
		rc = git_revwalk_hide(walk, &id);
	}
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot walk the history");
		goto out;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c = NULL;
		bool keep = true;

		rc = git_commit_lookup(&c, git, &id);
		if (rc < 0)
			break;
		if (path) {
			ret = touches(c, path, &keep, err);
			if (ret < 0) {
				git_commit_free(c);
				goto out;
			}
			ret = -1;
		}
		if (keep) {
			ss_xgrow((void **)&list.items, sizeof(*list.items), list.count + 1, &alloc);
			fill_info(&list.items[list.count++], c);
		}
		git_commit_free(c);
		if (max && list.count == max) {
			rc = GIT_ITEROVER;
			break;
		}
	}
	if (rc != GIT_ITEROVER) {
		ret = ss_git_error(err, rc, "cannot walk the history");
		goto out;
	}
	*out = list;
	list.items = NULL;
	list.count = 0;
	ret = 0;
out:
	ss_commit_list_release(&list);
	git_revwalk_free(walk);
	return ret;
}
