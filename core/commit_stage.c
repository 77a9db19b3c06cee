/* commit_stage.c: staging skills and committing the index on HEAD, concluding merges. */
#include "core/commit.h"

#include <stdlib.h>
#include <string.h>

#include "core/git_priv.h"
#include "core/mem.h"

int ss_commit_stage(ss_repo *repo, const char *const *names, size_t nnames, ss_error *err)
{
	git_index *index = NULL;
	git_strarray spec = {ss_xcalloc(nnames ? nnames : 1, sizeof(char *)), nnames};
	int rc;

	for (size_t i = 0; i < nnames; i++)
		spec.strings[i] = ss_xstrdup(names[i]);

	rc = git_repository_index(&index, ss_repo_git(repo));
	if (rc == 0)
		rc = git_index_read(index, 0);
	if (rc < 0)
		goto fail;
	rc = git_index_add_all(index, nnames ? &spec : NULL, GIT_INDEX_ADD_DISABLE_PATHSPEC_MATCH,
	                       NULL, NULL);
	if (rc < 0)
		goto fail;
	rc = git_index_update_all(index, nnames ? &spec : NULL, NULL, NULL);
	if (rc < 0)
		goto fail;
	rc = git_index_write(index);
	if (rc < 0)
		goto fail;
	git_index_free(index);
	ss_git_strings_free(spec.strings, nnames);
	return 0;
fail:
	git_index_free(index);
	ss_git_strings_free(spec.strings, nnames);
	if (nnames == 1)
		return ss_git_error(err, rc, "cannot stage '%s'", names[0]);
	return ss_git_error(err, rc, "cannot stage the changes");
}

static int add_merge_head(const git_oid *id, void *payload)
{
	git_oid *slot = payload;

	if (!git_oid_is_zero(slot))
		return 1; /* an octopus: not something skillsync makes */
	git_oid_cpy(slot, id);
	return 0;
}

/* SS_EMERGE naming the first conflicted path, when the index has conflicts. */
static int check_conflicts(git_index *index, ss_error *err)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *a, *o, *t;
	int ret = 0;

	if (!git_index_has_conflicts(index))
		return 0;
	if (git_index_conflict_iterator_new(&it, index) == 0 &&
	    git_index_conflict_next(&a, &o, &t, it) == 0) {
		const char *path = o ? o->path : t ? t->path : a->path;
		ret = ss_error_set(err, SS_EMERGE,
		                   "'%s' still has conflicts: fix it, then stage and commit", path);
	} else {
		ret = ss_error_set(err, SS_EMERGE, "the merge still has conflicts");
	}
	git_index_conflict_iterator_free(it);
	return ret;
}

int ss_commit_staged(ss_repo *repo, const char *message, ss_oid *out, ss_error *err)
{
	git_repository *git = ss_repo_git(repo);
	git_index *index = NULL;
	git_oid tree_id, merge_head;
	ss_oid parents[2], tree, head_tree, id, zero;
	size_t nparents = 0;
	bool merging = false, has_head;
	ss_commit_opts opts = {0};
	int rc, ret = -1;

	memset(&merge_head, 0, sizeof(merge_head));
	ss_oid_clear(&zero);
	rc = git_repository_index(&index, git);
	if (rc == 0)
		rc = git_index_read(index, 0);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot read the index");
		goto out;
	}
	ret = check_conflicts(index, err);
	if (ret < 0)
		goto out;
	rc = git_index_write_tree(&tree_id, index);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot write the index's tree");
		goto out;
	}
	ss_git_oid_out(&tree, &tree_id);
	ret = ss_commit_read_ref(repo, "HEAD", &parents[0], err);
	if (ret < 0 && err->code != SS_ENOTFOUND)
		goto out;
	has_head = ret == 0;
	if (has_head)
		nparents = 1;
	if (git_repository_state(git) == GIT_REPOSITORY_STATE_MERGE) {
		rc = git_repository_mergehead_foreach(git, add_merge_head, &merge_head);
		if (rc < 0 || git_oid_is_zero(&merge_head) || !has_head) {
			ret = ss_error_set(err, SS_ERROR, "cannot read MERGE_HEAD");
			goto out;
		}
		ss_git_oid_out(&parents[nparents++], &merge_head);
		merging = true;
	}
	if (!merging) {
		if (has_head) {
			ret = ss_commit_tree(repo, &parents[0], &head_tree, err);
			if (ret < 0)
				goto out;
		}
		if (has_head ? ss_oid_equal(&head_tree, &tree) : git_index_entrycount(index) == 0) {
			ret = ss_error_set(err, SS_EINVALID, "nothing to commit");
			goto out;
		}
	}
	opts.ref = "HEAD";
	opts.expected_old = has_head ? &parents[0] : &zero;
	ret = ss_commit_create(repo, &opts, &tree, parents, nparents, message, &id, err);
	if (ret < 0)
		goto out;
	if (merging) {
		rc = git_repository_state_cleanup(git);
		if (rc < 0) {
			ret = ss_git_error(err, rc, "cannot clean up the merge state");
			goto out;
		}
	}
	if (out)
		*out = id;
	ret = 0;
out:
	git_index_free(index);
	return ret;
}
