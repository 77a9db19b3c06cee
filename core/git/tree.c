/* tree.c: writing skill subtrees and top trees (reading and diffs are in tree_diff.c). */
#include "core/git/tree.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"

typedef struct pending {
	char *path;
	git_oid oid;
	unsigned mode;
} pending;

struct ss_tree_builder {
	ss_repo *repo;
	pending *items;
	size_t count, alloc;
};

/* Asks the object store itself, not libgit2's object cache, which may still hold objects of an
 * aborted batch (ss_repo_batch_abort). */
bool ss_tree_exists(ss_repo *repo, const ss_oid *tree)
{
	git_odb *odb = NULL;
	git_object_t type = GIT_OBJECT_INVALID;
	git_oid id;
	size_t len;
	bool yes;

	ss_git__oid_in(&id, tree);
	yes = git_repository_odb(&odb, repo->git) == 0 &&
	      git_odb_read_header(&len, &type, odb, &id) == 0 && type == GIT_OBJECT_TREE;
	git_odb_free(odb);
	return yes;
}

int ss_tree_blob_write(ss_repo *repo, const void *data, size_t len, ss_oid *out, ss_error *err)
{
	git_oid id;
	int rc = git_blob_create_from_buffer(&id, repo->git, data, len);

	if (rc < 0)
		return ss_git__error(err, rc, "cannot write a blob");
	ss_git__oid_out(out, &id);
	return 0;
}

/* Whether one path component is acceptable in a tree: the validator's component rules. */
static bool good_component(const char *s, size_t n)
{
	return ss_validate_component(s, n) == NULL;
}

static bool good_path(const char *path)
{
	const char *p = path;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (!good_component(p, n))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

int ss_tree_builder_new(ss_tree_builder **out, ss_repo *repo)
{
	ss_tree_builder *b = ss_xcalloc(1, sizeof(*b));

	b->repo = repo;
	*out = b;
	return 0;
}

int ss_tree_builder_add_blob(ss_tree_builder *b, const char *path, const ss_oid *blob,
                             unsigned mode, ss_error *err)
{
	pending *p;

	if (!good_path(path))
		return ss_error_set(err, SS_EINVALID, "invalid path '%s' in a skill", path);
	if (mode != SS_MODE_FILE && mode != SS_MODE_EXEC)
		return ss_error_set(err, SS_EINVALID, "invalid mode %o for '%s'", mode, path);
	ss_xgrow((void **)&b->items, sizeof(*b->items), b->count + 1, &b->alloc);
	p = &b->items[b->count++];
	p->path = ss_xstrdup(path);
	ss_git__oid_in(&p->oid, blob);
	p->mode = mode;
	return 0;
}

int ss_tree_builder_add(ss_tree_builder *b, const char *path, const void *data, size_t len,
                        bool executable, ss_error *err)
{
	ss_oid blob;

	if (!good_path(path))
		return ss_error_set(err, SS_EINVALID, "invalid path '%s' in a skill", path);
	if (ss_tree_blob_write(b->repo, data, len, &blob, err) < 0)
		return ss_error_prefix(err, "cannot store '%s'", path);
	return ss_tree_builder_add_blob(b, path, &blob, executable ? SS_MODE_EXEC : SS_MODE_FILE,
	                                err);
}

static int cmp_pending(const void *a, const void *b)
{
	return strcmp(((const pending *)a)->path, ((const pending *)b)->path);
}

/* Inserts name into tb, refusing a name already there (a duplicate or a file/dir clash). */
static int insert(git_treebuilder *tb, const char *name, const git_oid *oid, unsigned mode,
                  const char *path, ss_error *err)
{
	int rc;

	if (git_treebuilder_get(tb, name))
		return ss_error_set(err, SS_EINVALID, "'%s' appears twice in a skill", path);
	rc = git_treebuilder_insert(NULL, tb, name, oid, (git_filemode_t)mode);
	if (rc < 0 && git_error_last() && git_error_last()->klass == GIT_ERROR_TREE) {
		/* libgit2 refuses the name itself: the input's fault, not the repository's */
		ss_git__error(err, rc, "invalid path '%s' in a skill", path);
		err->code = SS_EINVALID;
		return SS_EINVALID;
	}
	if (rc < 0)
		return ss_git__error(err, rc, "cannot add '%s' to a tree", path);
	return 0;
}

/* Writes the tree of items[lo, hi), whose paths all start with a prefix of off bytes. */
static int build(ss_tree_builder *b, size_t lo, size_t hi, size_t off, git_oid *out, ss_error *err)
{
	git_treebuilder *tb = NULL;
	char *name = NULL;
	int rc, ret = -1;
	size_t i = lo;

	rc = git_treebuilder_new(&tb, b->repo->git, NULL);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot build a tree");
		goto out;
	}
	while (i < hi) {
		const char *rest = b->items[i].path + off;
		const char *slash = strchr(rest, '/');
		size_t n, j;
		git_oid sub;

		if (!slash) {
			ret = insert(tb, rest, &b->items[i].oid, b->items[i].mode, b->items[i].path,
			             err);
			if (ret < 0)
				goto out;
			i++;
			continue;
		}
		n = (size_t)(slash - rest);
		for (j = i + 1; j < hi; j++) {
			const char *r = b->items[j].path + off;
			if (strncmp(r, rest, n + 1) != 0)
				break;
		}
		free(name);
		name = ss_xstrndup(rest, n);
		ret = build(b, i, j, off + n + 1, &sub, err);
		if (ret < 0)
			goto out;
		ret = insert(tb, name, &sub, SS_MODE_TREE, b->items[i].path, err);
		if (ret < 0)
			goto out;
		ret = -1;
		i = j;
	}
	rc = git_treebuilder_write(out, tb);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot write a tree");
		goto out;
	}
	ret = 0;
out:
	free(name);
	git_treebuilder_free(tb);
	return ret;
}

int ss_tree_builder_write(ss_tree_builder *b, ss_oid *out, ss_error *err)
{
	git_oid id;
	int rc;

	if (b->count)
		qsort(b->items, b->count, sizeof(*b->items), cmp_pending);
	rc = build(b, 0, b->count, 0, &id, err);
	if (rc == 0)
		rc = ss_repo_batch__maybe_flush(b->repo, err);
	if (rc < 0)
		return rc;
	ss_git__oid_out(out, &id);
	return 0;
}

void ss_tree_builder_free(ss_tree_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->count; i++)
		free(b->items[i].path);
	free(b->items);
	free(b);
}

struct ss_tree_top {
	ss_repo *repo;
	git_treebuilder *tb;
};

static int drop_dirs(const git_tree_entry *entry, void *payload)
{
	(void)payload;
	return git_tree_entry_type(entry) == GIT_OBJECT_TREE;
}

int ss_tree_top_new(ss_tree_top **out, ss_repo *repo, const ss_oid *base, bool keep_files_only,
                    ss_error *err)
{
	ss_tree_top *t = ss_xcalloc(1, sizeof(*t));
	git_tree *tree = NULL;
	int rc, ret = -1;

	t->repo = repo;
	ret = ss_git__tree(&tree, repo, base, err);
	if (ret < 0)
		goto out;
	ret = -1;
	rc = git_treebuilder_new(&t->tb, repo->git, tree);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot build a tree");
		goto out;
	}
	if (keep_files_only) {
		rc = git_treebuilder_filter(t->tb, drop_dirs, NULL);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot build a tree");
			goto out;
		}
	}
	*out = t;
	t = NULL;
	ret = 0;
out:
	git_tree_free(tree);
	ss_tree_top_free(t);
	return ret;
}

int ss_tree_top_set(ss_tree_top *t, const char *name, const ss_oid *oid, unsigned mode,
                    ss_error *err)
{
	git_oid id;
	int rc;

	if (strchr(name, '/') || !good_component(name, strlen(name)))
		return ss_error_set(err, SS_EINVALID, "invalid top-level name '%s'", name);
	ss_git__oid_in(&id, oid);
	rc = git_treebuilder_insert(NULL, t->tb, name, &id, (git_filemode_t)mode);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot add '%s' to the tree", name);
	return 0;
}

int ss_tree_top_remove(ss_tree_top *t, const char *name, ss_error *err)
{
	int rc;

	if (!git_treebuilder_get(t->tb, name))
		return 0;
	rc = git_treebuilder_remove(t->tb, name);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot remove '%s' from the tree", name);
	return 0;
}

int ss_tree_top_write(ss_tree_top *t, ss_oid *out, ss_error *err)
{
	git_oid id;
	int rc = git_treebuilder_write(&id, t->tb);

	if (rc < 0)
		return ss_git__error(err, rc, "cannot write the top tree");
	ss_git__oid_out(out, &id);
	return 0;
}

void ss_tree_top_free(ss_tree_top *t)
{
	if (!t)
		return;
	git_treebuilder_free(t->tb);
	free(t);
}
