/* worktree_status.c: status of the index and the working directory, by top-level name. */
#include "core/git/worktree.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/worktree_priv.h"
#include "core/skill/skilldir.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

typedef ss_worktree__item item;

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const item *)a)->path, ((const item *)b)->path);
}

/* Length of the top-level name of path; *file when path is a top-level file. */
static size_t top_len(const char *path, bool *file)
{
	const char *slash = strchr(path, '/');

	*file = slash == NULL;
	return slash ? (size_t)(slash - path) : strlen(path);
}

/* Stage-0 index entries at name (a file) or below name/ (a directory). */
static size_t index_count(const ss_index_file *ix, const char *name, bool file)
{
	size_t lo, hi;

	if (file)
		return ss_index_file_has(ix, name);
	ss_index_file_dir(ix, name, &lo, &hi);
	return hi - lo;
}

static ss_status_kind kind_of(bool before, bool after)
{
	if (before && after)
		return SS_STATUS_MODIFIED;
	if (after)
		return SS_STATUS_NEW;
	if (before)
		return SS_STATUS_DELETED;
	return SS_STATUS_NONE;
}

const char *ss_worktree_conflict_kind_name(ss_conflict_kind kind)
{
	switch (kind) {
	case SS_CONFLICT_BOTH_MODIFIED:
		return "both modified";
	case SS_CONFLICT_BOTH_ADDED:
		return "both added";
	case SS_CONFLICT_DELETED_HERE:
		return "deleted here";
	case SS_CONFLICT_DELETED_THERE:
		return "deleted there";
	default:
		return "conflict";
	}
}

static ss_conflict_kind conflict_kind(git_index *index, const char *path)
{
	const git_index_entry *base = NULL, *ours = NULL, *theirs = NULL;

	if (git_index_conflict_get(&base, &ours, &theirs, index, path) < 0)
		return SS_CONFLICT_OTHER;
	if (ours && theirs)
		return base ? SS_CONFLICT_BOTH_MODIFIED : SS_CONFLICT_BOTH_ADDED;
	if (base && theirs)
		return SS_CONFLICT_DELETED_HERE;
	if (base && ours)
		return SS_CONFLICT_DELETED_THERE;
	return SS_CONFLICT_OTHER;
}

/* Fills e from the items [lo, hi) that share its top-level name: ix, the index's stage-0
 * entries; index, libgit2's read of it when it listed the items (the walk lists no conflict). */
static void fill_entry(ss_status_entry *e, const item *items, size_t lo, size_t hi, git_tree *head,
                       const ss_index_file *ix, git_index *index)
{
	const unsigned idx = GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
	                     GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_RENAMED |
	                     GIT_STATUS_INDEX_TYPECHANGE;
	const unsigned wt = GIT_STATUS_WT_NEW | GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED |
	                    GIT_STATUS_WT_RENAMED | GIT_STATUS_WT_TYPECHANGE;
	bool any_idx = false, any_wt = false;
	size_t wt_new = 0, wt_deleted = 0, in_index;
	git_tree_entry *te = NULL;
	bool in_head;

	e->paths = ss_xcalloc(hi - lo, sizeof(char *));
	e->conflicts = ss_xcalloc(hi - lo, sizeof(*e->conflicts));
	for (size_t i = lo; i < hi; i++) {
		unsigned f = items[i].flags;
		e->paths[e->npaths++] = ss_xstrdup(items[i].path);
		if (f & GIT_STATUS_CONFLICTED) {
			ss_conflict *c = &e->conflicts[e->nconflicts++];
			c->path = ss_xstrdup(items[i].path);
			c->kind = index ? conflict_kind(index, items[i].path) : SS_CONFLICT_OTHER;
		}
		any_idx |= (f & idx) != 0;
		any_wt |= (f & wt) != 0;
		e->conflicted |= (f & GIT_STATUS_CONFLICTED) != 0;
		wt_new += (f & GIT_STATUS_WT_NEW) != 0;
		wt_deleted += (f & GIT_STATUS_WT_DELETED) != 0;
	}
	in_head = head && git_tree_entry_bypath(&te, head, e->name) == 0;
	git_tree_entry_free(te);
	in_index = index_count(ix, e->name, e->file);
	if (any_idx)
		e->staged = kind_of(in_head, in_index > 0);
	if (any_wt)
		e->unstaged = kind_of(in_index > 0, in_index + wt_new > wt_deleted);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ss_worktree_status(ss_repo *repo, ss_status *out, ss_error *err)
{
	return ss_worktree_status_flags(repo, NULL, 0, 0, out, err);
}

int ss_worktree_status_apart(ss_repo *repo, const char *const *skip, size_t nskip, ss_status *out,
                             ss_error *err)
{
	return ss_worktree_status_flags(repo, skip, nskip, 0, out, err);
}

/* The changed paths by libgit2's status: for what ss_worktree__scan does not know. */
static int libgit2_items(git_repository *git, git_index *index, unsigned flags,
                         ss_worktree__items *out, ss_error *err)
{
	git_status_options opts;
	git_status_list *list = NULL;
	int rc;

	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
	             GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;
	/* libgit2 adds each file it hashed and found unchanged back to the index with its new
	 * stat data, and writes the index (under index.lock) when it added any */
	if (flags & SS_STATUS_REFRESH)
		opts.flags |= GIT_STATUS_OPT_UPDATE_INDEX;
	rc = git_status_list_new(&list, git, &opts);
	if (rc == GIT_ELOCKED && (opts.flags & GIT_STATUS_OPT_UPDATE_INDEX)) {
		/* a git command holds index.lock: the same status, without the write */
		opts.flags &= ~(unsigned)GIT_STATUS_OPT_UPDATE_INDEX;
		rc = git_index_read(index, 1);
		if (rc == 0)
			rc = git_status_list_new(&list, git, &opts);
	}
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read the status");
	for (size_t i = 0, count = git_status_list_entrycount(list); i < count; i++) {
		const git_status_entry *s = git_status_byindex(list, i);
		const git_diff_delta *d = s->head_to_index ? s->head_to_index : s->index_to_workdir;
		if (!d || s->status == GIT_STATUS_CURRENT || (s->status & GIT_STATUS_IGNORED))
			continue;
		ss_worktree__items_add(out, d->new_file.path ? d->new_file.path : d->old_file.path,
		                       s->status);
	}
	git_status_list_free(list);
	return 0;
}

int ss_worktree_status_flags(ss_repo *repo, const char *const *skip, size_t nskip, unsigned flags,
                             ss_status *out, ss_error *err)
{
	git_repository *git = repo->git;
	const ss_index_file *ix = NULL;
	ss_index_file view = {0}; /* libgit2's entries, when it lists the changes */
	ss_worktree__dircache_loading *loading = NULL;
	bool walk = !(flags & SS_STATUS__LIBGIT2); /* skillsync's walk, unless told libgit2's */
	ss_worktree__dircache *dircache;
	git_index *index = NULL;
	git_tree *head = NULL;
	ss_worktree__items found = {0};
	ss_buf cache = SS_BUF_INIT;
	item *items = NULL;
	size_t n = 0;
	ss_status st = {0};
	const char *path;
	int rc, ret;

	/* the directory cache read on a thread of its own while HEAD and the index are */
	ss_fs_join(&cache, repo->statedir, "dircache");
	if (walk)
		loading = ss_worktree__dircache_load_async(cache.ptr);
	ret = ss_git__head_tree(&head, repo, err);
	if (ret == 0 && walk)
		ix = ss_worktree__index(repo);
	dircache = walk ? ss_worktree__dircache_join(loading) : NULL;
	if (ret < 0) {
		ss_worktree__dircache_free(dircache);
		goto out;
	}
	if (!ix)
		ss_worktree__dircache_free(dircache);
	ret = !ix ? 1
	          : ss_worktree__scan(git, ix, head, cache.ptr, dircache,
	                              (flags & SS_STATUS_REFRESH) != 0, &found, err);
	if (ret == 1) {
		rc = git_repository_index(&index, git);
		if (rc == 0)
			rc = git_index_read(index, 0);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot read the index");
			goto out;
		}
		ret = libgit2_items(git, index, flags, &found, err);
		/* its stage-0 entries, as the walk's are, once it wrote what it refreshed */
		view.entries = ss_xcalloc(git_index_entrycount(index) + 1, sizeof(*view.entries));
		for (size_t i = 0; i < git_index_entrycount(index); i++) {
			const git_index_entry *ie = git_index_get_byindex(index, i);
			if (git_index_entry_stage(ie) == 0)
				ss_worktree__index_entry(&view.entries[view.count++], ie);
		}
		ix = &view;
	}
	if (ret < 0)
		goto out;
	/* one item per path, its flags or'ed (libgit2 lists each path once already) */
	if (found.n)
		qsort(found.v, found.n, sizeof(*found.v), cmp_item);
	items = ss_xcalloc(found.n ? found.n : 1, sizeof(*items));
	st.apart = ss_xcalloc(nskip ? nskip : 1, sizeof(char *));
	for (size_t i = 0; i < found.n; i++) {
		path = found.v[i].path;
		if (n && !strcmp(items[n - 1].path, path)) {
			items[n - 1].flags |= found.v[i].flags;
			continue;
		}
		if (nskip && st.napart < nskip &&
		    bsearch(&path, skip, nskip, sizeof(*skip), cmp_str)) {
			if (!st.napart || strcmp(st.apart[st.napart - 1], path))
				st.apart[st.napart++] = ss_xstrdup(path);
			continue;
		}
		items[n].path = ss_xstrdup(path);
		items[n].flags = found.v[i].flags;
		n++;
	}
	st.entries = ss_xcalloc(n ? n : 1, sizeof(*st.entries));
	for (size_t i = 0; i < n;) {
		ss_status_entry *e = &st.entries[st.count++];
		size_t len = top_len(items[i].path, &e->file), j = i + 1;

		e->name = ss_xstrndup(items[i].path, len);
		e->outside = ss_skilldir_outside(e->name, !e->file);
		while (j < n && strncmp(items[j].path, e->name, len) == 0 &&
		       (items[j].path[len] == '/' || items[j].path[len] == '\0'))
			j++;
		fill_entry(e, items, i, j, head, ix, index);
		i = j;
	}
	st.merging = git_repository_state(git) == GIT_REPOSITORY_STATE_MERGE;
	st.dirs_read = found.dirs_read;
	st.files_hashed = found.files_hashed;
	*out = st;
	st.entries = NULL;
	st.count = 0;
	st.apart = NULL;
	st.napart = 0;
	ret = 0;
out:
	ss_worktree_status_release(&st);
	for (size_t i = 0; i < n; i++)
		free(items[i].path);
	free(items);
	ss_worktree__items_release(&found);
	ss_buf_release(&cache);
	ss_index_file_release(&view);
	git_index_free(index);
	git_tree_free(head);
	return ret;
}

void ss_worktree_status_release(ss_status *status)
{
	if (!status)
		return;
	for (size_t i = 0; i < status->count; i++) {
		free(status->entries[i].name);
		ss_git__strings_free(status->entries[i].paths, status->entries[i].npaths);
		for (size_t j = 0; j < status->entries[i].nconflicts; j++)
			free(status->entries[i].conflicts[j].path);
		free(status->entries[i].conflicts);
	}
	free(status->entries);
	ss_git__strings_free(status->apart, status->napart);
	status->entries = NULL;
	status->count = 0;
	status->apart = NULL;
	status->napart = 0;
}
