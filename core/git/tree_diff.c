/* tree_diff.c: reading trees back (files of a skill, entries) and comparing them. */
#include "core/git/tree.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

/* Walks tree below the path prefix in dir (which it restores before returning). */
static int walk(ss_repo *repo, git_tree *tree, ss_buf *dir, ss_tree_file_cb cb, void *payload,
                ss_error *err)
{
	size_t n = git_tree_entrycount(tree);
	size_t keep = dir->len;
	int rc, ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		unsigned mode = (unsigned)git_tree_entry_filemode(e);
		ss_tree_file file = {0};
		git_object *obj = NULL;

		ss_buf_truncate(dir, keep);
		if (keep)
			ss_buf_putc(dir, '/');
		ss_buf_puts(dir, git_tree_entry_name(e));
		if (mode == SS_MODE_GITLINK) {
			file.path = dir->ptr;
			file.data = "";
			file.mode = mode;
			ss_git__oid_out(&file.oid, git_tree_entry_id(e));
			ret = cb(&file, payload);
			continue;
		}
		rc = git_tree_entry_to_object(&obj, repo->git, e);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot read '%s'", dir->ptr);
			break;
		}
		if (mode == SS_MODE_TREE) {
			ret = walk(repo, (git_tree *)obj, dir, cb, payload, err);
		} else {
			git_blob *blob = (git_blob *)obj;
			/* The blob's buffer is followed by a NUL in libgit2's object cache. */
			file.path = dir->ptr;
			file.data = git_blob_rawcontent(blob);
			file.len = (size_t)git_blob_rawsize(blob);
			file.mode = mode;
			file.executable = mode == SS_MODE_EXEC;
			ss_git__oid_out(&file.oid, git_tree_entry_id(e));
			ret = cb(&file, payload);
		}
		git_object_free(obj);
	}
	ss_buf_truncate(dir, keep);
	return ret;
}

int ss_tree_each_file(ss_repo *repo, const ss_oid *tree, ss_tree_file_cb cb, void *payload,
                      ss_error *err)
{
	git_tree *t = NULL;
	ss_buf dir = SS_BUF_INIT;
	int ret;

	ret = ss_git__tree(&t, repo, tree, err);
	if (ret < 0 || !t)
		return ret;
	ret = walk(repo, t, &dir, cb, payload, err);
	ss_buf_release(&dir);
	git_tree_free(t);
	return ret;
}

int ss_tree_lookup(ss_repo *repo, const ss_oid *tree, const char *path, ss_oid *out, unsigned *mode,
                   ss_error *err)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int rc, ret;

	ret = ss_git__tree(&t, repo, tree, err);
	if (ret < 0)
		return ret;
	if (!t)
		return ss_error_set(err, SS_ENOTFOUND, "'%s' not found", path);
	rc = git_tree_entry_bypath(&e, t, path);
	if (rc == GIT_ENOTFOUND) {
		ret = ss_error_set(err, SS_ENOTFOUND, "'%s' not found", path);
	} else if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot look up '%s'", path);
	} else {
		ss_git__oid_out(out, git_tree_entry_id(e));
		if (mode)
			*mode = (unsigned)git_tree_entry_filemode(e);
	}
	git_tree_entry_free(e);
	git_tree_free(t);
	return ret;
}

int ss_tree_read_file(ss_repo *repo, const ss_oid *tree, const char *path, ss_buf *out,
                      ss_error *err)
{
	git_blob *blob = NULL;
	ss_oid oid;
	git_oid id;
	unsigned mode = 0;
	int rc, ret;

	ret = ss_tree_lookup(repo, tree, path, &oid, &mode, err);
	if (ret < 0)
		return ret;
	if (mode != SS_MODE_FILE && mode != SS_MODE_EXEC)
		return ss_error_set(err, SS_EINVALID, "'%s' is not a regular file", path);
	ss_git__oid_in(&id, &oid);
	rc = git_blob_lookup(&blob, repo->git, &id);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read '%s'", path);
	ret = ss_buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (ret < 0)
		ss_error_set(err, ret, "cannot read '%s': too big", path);
	git_blob_free(blob);
	return ret;
}

int ss_tree_list_top(ss_repo *repo, const ss_oid *tree, ss_tree_list *out, ss_error *err)
{
	git_tree *t = NULL;
	ss_tree_list list = {NULL, 0};
	size_t n;
	int ret;

	ret = ss_git__tree(&t, repo, tree, err);
	if (ret < 0)
		return ret;
	n = t ? git_tree_entrycount(t) : 0;
	list.entries = ss_xcalloc(n ? n : 1, sizeof(*list.entries));
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		list.entries[i].name = ss_xstrdup(git_tree_entry_name(e));
		ss_git__oid_out(&list.entries[i].oid, git_tree_entry_id(e));
		list.entries[i].mode = (unsigned)git_tree_entry_filemode(e);
	}
	list.count = n;
	git_tree_free(t);
	*out = list;
	return 0;
}

void ss_tree_list_release(ss_tree_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->count; i++)
		free(list->entries[i].name);
	free(list->entries);
	list->entries = NULL;
	list->count = 0;
}

void ss_tree_changes_release(ss_changes *changes)
{
	if (!changes)
		return;
	for (size_t i = 0; i < changes->count; i++)
		free(changes->items[i].path);
	free(changes->items);
	changes->items = NULL;
	changes->count = 0;
}

static int cmp_change(const void *a, const void *b)
{
	return strcmp(((const ss_change *)a)->path, ((const ss_change *)b)->path);
}

static void push_change(ss_changes *c, size_t *alloc, const char *name, ss_change_kind kind,
                        const git_tree_entry *old, const git_tree_entry *new_)
{
	ss_change *ch;

	ss_xgrow((void **)&c->items, sizeof(*c->items), c->count + 1, alloc);
	ch = &c->items[c->count++];
	memset(ch, 0, sizeof(*ch));
	ch->path = ss_xstrdup(name);
	ch->kind = kind;
	if (old) {
		ss_git__oid_out(&ch->old_oid, git_tree_entry_id(old));
		ch->old_mode = (unsigned)git_tree_entry_filemode(old);
	}
	if (new_) {
		ss_git__oid_out(&ch->new_oid, git_tree_entry_id(new_));
		ch->new_mode = (unsigned)git_tree_entry_filemode(new_);
	}
}

int ss_tree_diff_top(ss_repo *repo, const ss_oid *old_tree, const ss_oid *new_tree, ss_changes *out,
                     ss_error *err)
{
	git_tree *a = NULL, *b = NULL;
	ss_changes c = {NULL, 0};
	size_t alloc = 0, na, nb;
	int ret;

	ret = ss_git__tree(&a, repo, old_tree, err);
	if (ret == 0)
		ret = ss_git__tree(&b, repo, new_tree, err);
	if (ret < 0)
		goto out;
	na = a ? git_tree_entrycount(a) : 0;
	nb = b ? git_tree_entrycount(b) : 0;
	for (size_t i = 0; i < na; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(a, i);
		const char *name = git_tree_entry_name(e);
		const git_tree_entry *f = b ? git_tree_entry_byname(b, name) : NULL;

		if (!f)
			push_change(&c, &alloc, name, SS_CHANGE_REMOVED, e, NULL);
		else if (!git_oid_equal(git_tree_entry_id(e), git_tree_entry_id(f)) ||
		         git_tree_entry_filemode(e) != git_tree_entry_filemode(f))
			push_change(&c, &alloc, name, SS_CHANGE_MODIFIED, e, f);
	}
	for (size_t i = 0; i < nb; i++) {
		const git_tree_entry *f = git_tree_entry_byindex(b, i);
		const char *name = git_tree_entry_name(f);

		if (!a || !git_tree_entry_byname(a, name))
			push_change(&c, &alloc, name, SS_CHANGE_ADDED, NULL, f);
	}
	if (c.count)
		qsort(c.items, c.count, sizeof(*c.items), cmp_change);
	*out = c;
	c.items = NULL;
	c.count = 0;
out:
	ss_tree_changes_release(&c);
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}

int ss_tree_diff_files(ss_repo *repo, const ss_oid *old_tree, const ss_oid *new_tree,
                       ss_changes *out, ss_error *err)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	int rc, ret;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	ret = ss_git__tree(&a, repo, old_tree, err);
	if (ret == 0)
		ret = ss_git__tree(&b, repo, new_tree, err);
	if (ret < 0)
		goto out;
	rc = git_diff_tree_to_tree(&diff, repo->git, a, b, &opts);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot compare trees");
		goto out;
	}
	ret = ss_git__diff_changes(diff, out, err);
out:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}
