/* commit_log.c: the history of a path, for push notes and `log`. */
#include "core/git/commit.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/util/mem.h"

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

/*
 * The ids of the paths in the root trees of a walk. Each root tree is read once for all the
 * paths (a root tree of a big space is large, and libgit2 caches trees only up to 4 KB); the
 * few last trees' ids are kept, since a commit's parent is usually the next commit walked.
 */
#define SS_LOG_TREES 8

typedef struct tree_ids {
	git_oid tree;
	git_oid *ids; /* npaths; zero where the path is missing */
	bool used;
} tree_ids;

typedef struct path_walk {
	git_repository *git;
	const char *const *paths;
	size_t npaths;
	tree_ids trees[SS_LOG_TREES];
	size_t next;   /* the slot to reuse next (the oldest) */
	git_oid *mine; /* npaths: the ids in the commit being looked at */
	bool *touched; /* npaths: whether that commit changed each path */
} path_walk;

static void path_walk_init(path_walk *w, git_repository *git, const char *const *paths,
                           size_t npaths)
{
	memset(w, 0, sizeof(*w));
	w->git = git;
	w->paths = paths;
	w->npaths = npaths;
	if (!npaths)
		return;
	for (size_t i = 0; i < SS_LOG_TREES; i++)
		w->trees[i].ids = ss_xcalloc(npaths, sizeof(git_oid));
	w->mine = ss_xcalloc(npaths, sizeof(git_oid));
	w->touched = ss_xcalloc(npaths, sizeof(bool));
}

static void path_walk_release(path_walk *w)
{
	for (size_t i = 0; i < SS_LOG_TREES; i++)
		free(w->trees[i].ids);
	free(w->mine);
	free(w->touched);
	memset(w, 0, sizeof(*w));
}

/* The ids of the paths in commit's tree (borrowed until the next call). */
static int path_ids(path_walk *w, git_commit *commit, const git_oid **out, ss_error *err)
{
	const git_oid *id = git_commit_tree_id(commit);
	git_tree *tree = NULL;
	tree_ids *t;
	int rc, ret = 0;

	for (size_t i = 0; i < SS_LOG_TREES; i++)
		if (w->trees[i].used && git_oid_equal(&w->trees[i].tree, id)) {
			*out = w->trees[i].ids;
			return 0;
		}
	t = &w->trees[w->next];
	w->next = (w->next + 1) % SS_LOG_TREES;
	t->used = false;
	rc = git_tree_lookup(&tree, w->git, id);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read a tree in history");
	for (size_t j = 0; j < w->npaths; j++) {
		git_tree_entry *e = NULL;

		memset(&t->ids[j], 0, sizeof(t->ids[j]));
		rc = git_tree_entry_bypath(&e, tree, w->paths[j]);
		if (rc == 0)
			git_oid_cpy(&t->ids[j], git_tree_entry_id(e));
		git_tree_entry_free(e);
		if (rc < 0 && rc != GIT_ENOTFOUND) {
			ret = ss_git__error(err, rc, "cannot read '%s' in history", w->paths[j]);
			break;
		}
	}
	git_tree_free(tree);
	if (ret < 0)
		return ret;
	git_oid_cpy(&t->tree, id);
	t->used = true;
	*out = t->ids;
	return 0;
}

/*
 * Which paths commit changed (w->touched), and whether it changed any (*any): a path is
 * changed when it differs from every parent (a root commit: when it exists).
 */
static int touches(path_walk *w, git_commit *commit, bool *any, ss_error *err)
{
	unsigned n = git_commit_parentcount(commit);
	const git_oid *ids;
	int ret;

	*any = false;
	if ((ret = path_ids(w, commit, &ids, err)) < 0)
		return ret;
	memcpy(w->mine, ids, w->npaths * sizeof(*ids));
	for (size_t j = 0; j < w->npaths; j++)
		w->touched[j] = n > 0 || !git_oid_is_zero(&w->mine[j]);
	for (unsigned i = 0; i < n; i++) {
		git_commit *parent = NULL;
		int rc = git_commit_parent(&parent, commit, i);
		if (rc < 0)
			return ss_git__error(err, rc, "cannot read a parent commit");
		ret = path_ids(w, parent, &ids, err);
		git_commit_free(parent);
		if (ret < 0)
			return ret;
		for (size_t j = 0; j < w->npaths; j++)
			if (git_oid_equal(&w->mine[j], &ids[j]))
				w->touched[j] = false;
	}
	for (size_t j = 0; j < w->npaths && !*any; j++)
		*any = w->touched[j];
	return 0;
}

static void fill_info(ss_commit_info *info, git_commit *c)
{
	const git_signature *a = git_commit_author(c);
	const char *msg = git_commit_message(c);

	memset(info, 0, sizeof(*info));
	ss_git__oid_out(&info->oid, git_commit_id(c));
	info->message = ss_xstrdup(msg ? msg : "");
	info->subject = ss_xstrndup(info->message, strcspn(info->message, "\n"));
	info->author_name = ss_xstrdup(a && a->name ? a->name : "");
	info->author_email = ss_xstrdup(a && a->email ? a->email : "");
	info->time = a ? (int64_t)a->when.time : 0;
	info->nparents = git_commit_parentcount(c);
}

/* ss_commit_log for npaths paths (0: every commit); touched (may be NULL) as in
 * ss_commit_log_paths. */
static int log_walk(ss_repo *repo, const ss_oid *from, const ss_oid *to, const char *const *paths,
                    size_t npaths, size_t max, ss_commit_list *out, bool **touched, ss_error *err)
{
	git_repository *git = repo->git;
	git_revwalk *walk = NULL;
	ss_commit_list list = {NULL, 0};
	bool *rows = NULL;
	size_t alloc = 0, rows_alloc = 0;
	path_walk pw;
	git_oid id;
	int rc, ret = -1;

	path_walk_init(&pw, git, paths, npaths);
	rc = git_revwalk_new(&walk, git);
	if (rc == 0)
		rc = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (rc == 0) {
		ss_git__oid_in(&id, to);
		rc = git_revwalk_push(walk, &id);
	}
	if (rc == 0 && from && !ss_oid_is_zero(from)) {
		ss_git__oid_in(&id, from);
		rc = git_revwalk_hide(walk, &id);
	}
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot walk the history");
		goto out;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c = NULL;
		bool keep = true;

		rc = git_commit_lookup(&c, git, &id);
		if (rc < 0)
			break;
		if (npaths) {
			ret = touches(&pw, c, &keep, err);
			if (ret < 0) {
				git_commit_free(c);
				goto out;
			}
			ret = -1;
		}
		if (keep) {
			ss_xgrow((void **)&list.items, sizeof(*list.items), list.count + 1, &alloc);
			fill_info(&list.items[list.count], c);
			if (touched) {
				ss_xgrow((void **)&rows, npaths * sizeof(*rows), list.count + 1,
				         &rows_alloc);
				memcpy(rows + list.count * npaths, pw.touched,
				       npaths * sizeof(*rows));
			}
			list.count++;
		}
		git_commit_free(c);
		if (max && list.count == max) {
			rc = GIT_ITEROVER;
			break;
		}
	}
	if (rc != GIT_ITEROVER) {
		ret = ss_git__error(err, rc, "cannot walk the history");
		goto out;
	}
	*out = list;
	list.items = NULL;
	list.count = 0;
	if (touched) {
		*touched = rows;
		rows = NULL;
	}
	ret = 0;
out:
	ss_commit_list_release(&list);
	free(rows);
	git_revwalk_free(walk);
	path_walk_release(&pw);
	return ret;
}

int ss_commit_log(ss_repo *repo, const ss_oid *from, const ss_oid *to, const char *path, size_t max,
                  ss_commit_list *out, ss_error *err)
{
	return log_walk(repo, from, to, path ? &path : NULL, path ? 1 : 0, max, out, NULL, err);
}

int ss_commit_log_paths(ss_repo *repo, const ss_oid *from, const ss_oid *to,
                        const char *const *paths, size_t npaths, ss_commit_list *out,
                        bool **touched, ss_error *err)
{
	*touched = NULL;
	if (!npaths) {
		out->items = NULL;
		out->count = 0;
		return 0;
	}
	return log_walk(repo, from, to, paths, npaths, 0, out, touched, err);
}
