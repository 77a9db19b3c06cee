#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/odb_backend.h>

#include "core/git/tree.h"
#include "core/gitfmt/pack_write.h"
#include "core/util/mem.h"

int ss_git__error(ss_error *err, int gitcode, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	char prefix[SS_ERROR_MSG_MAX];
	int code;
	va_list ap;

	switch (gitcode) {
	case GIT_ENOTFOUND:
		code = SS_ENOTFOUND;
		break;
	case GIT_EEXISTS:
	case GIT_ECONFLICT:
		code = SS_EEXISTS;
		break;
	case GIT_EMODIFIED:
	case GIT_ELOCKED:
		code = SS_ECONFLICT;
		break;
	default:
		code = SS_ERROR;
	}
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (e && e->message && *e->message)
		ss_error_set(err, code, "%s: %s", prefix, e->message);
	else
		ss_error_set(err, code, "%s: git error %d", prefix, gitcode);
	return code;
}

int ss_git__tree(git_tree **out, ss_repo *repo, const ss_oid *oid, ss_error *err)
{
	git_oid id;
	char hex[SS_OID_HEXSZ + 1];
	int rc;

	*out = NULL;
	if (!oid || ss_oid_is_zero(oid))
		return 0;
	ss_git__oid_in(&id, oid);
	rc = git_tree_lookup(out, repo->git, &id);
	if (rc < 0) {
		ss_oid_fmt(hex, oid);
		return ss_git__error(err, rc, "cannot read tree '%s'", hex);
	}
	return 0;
}

int ss_git__head_tree(git_tree **out, ss_repo *repo, ss_error *err)
{
	git_reference *head = NULL;
	git_commit *commit = NULL;
	int rc;

	*out = NULL;
	rc = git_repository_head(&head, repo->git);
	if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read HEAD");
	rc = git_commit_lookup(&commit, repo->git, git_reference_target(head));
	if (rc == 0)
		rc = git_commit_tree(out, commit);
	git_commit_free(commit);
	git_reference_free(head);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read HEAD's tree");
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void ss_git__pathspec_split(const char *const *paths, size_t n, const char **out, size_t *first)
{
	const char **sorted = ss_xcalloc(n ? n : 1, sizeof(*sorted));
	size_t k = 0, tail = n;

	if (n) {
		memcpy(sorted, paths, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_str);
	}
	/* sorted, every path that starts with p comes right after p */
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && !strncmp(sorted[i + 1], sorted[i], strlen(sorted[i])))
			out[--tail] = sorted[i];
		else
			out[k++] = sorted[i];
	}
	free(sorted);
	*first = k;
}

void ss_git__strings_free(char **items, size_t count)
{
	if (!items)
		return;
	for (size_t i = 0; i < count; i++)
		free(items[i]);
	free(items);
}

int ss_git__diff_changes(git_diff *diff, ss_changes *out, ss_error *err)
{
	size_t n = git_diff_num_deltas(diff);
	ss_changes changes = {ss_xcalloc(n ? n : 1, sizeof(ss_change)), 0};
	int rc, ret = -1;

	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		ss_change *c = &changes.items[changes.count];
		git_patch *patch = NULL;
		size_t ctx, add = 0, del = 0;

		switch (d->status) {
		case GIT_DELTA_ADDED:
		case GIT_DELTA_UNTRACKED:
			c->kind = SS_CHANGE_ADDED;
			break;
		case GIT_DELTA_DELETED:
			c->kind = SS_CHANGE_REMOVED;
			break;
		case GIT_DELTA_MODIFIED:
		case GIT_DELTA_TYPECHANGE:
		case GIT_DELTA_CONFLICTED:
			c->kind = SS_CHANGE_MODIFIED;
			break;
		default:
			continue;
		}
		rc = git_patch_from_diff(&patch, diff, i);
		if (rc < 0) {
			ret = ss_git__error(err, rc, "cannot compare '%s'", d->new_file.path);
			goto out;
		}
		if (patch)
			git_patch_line_stats(&ctx, &add, &del, patch);
		git_patch_free(patch);
		d = git_diff_get_delta(diff, i);
		c->path =
		    ss_xstrdup(c->kind == SS_CHANGE_REMOVED ? d->old_file.path : d->new_file.path);
		if (c->kind != SS_CHANGE_ADDED) {
			ss_git__oid_out(&c->old_oid, &d->old_file.id);
			c->old_mode = d->old_file.mode;
		}
		if (c->kind != SS_CHANGE_REMOVED) {
			ss_git__oid_out(&c->new_oid, &d->new_file.id);
			c->new_mode = d->new_file.mode;
		}
		c->binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		c->added_lines = c->binary ? 0 : add;
		c->removed_lines = c->binary ? 0 : del;
		changes.count++;
	}
	*out = changes;
	changes.items = NULL;
	changes.count = 0;
	ret = 0;
out:
	ss_tree_changes_release(&changes);
	return ret;
}

static void backend_data_free(void *owner, void *data)
{
	git_odb_backend_data_free(owner, data);
}

void ss_git__backend_data(struct ss_pack_write_obj *obj, git_odb_backend *owner, git_object_t type)
{
	obj->type = type;
	obj->owner = owner;
	obj->free = backend_data_free;
}
