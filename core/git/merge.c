/*
 * merge.c: bringing a commit into HEAD. The order of the steps (see docs/GIT-MODEL.md):
 *
 * Fast-forward and clean three-way merges are reduced to one move of HEAD from `old` to a
 * commit `new` (for a clean merge, the merge commit is written first, as an object only):
 *   1. verify, writing nothing: libgit2's safe checkout of just the paths that differ between
 *      old and new, as a dry run (a path that differs from old, in the files or the index, or
 *      an untracked file in the way, refuses the merge naming the files) and the move's own
 *      check (no symbolic link on the way of any path: merge_priv.h);
 *   2. journal "old <id>\nnew <id>\n" to <statedir>/merge (atomic write): from here on every
 *      path the move touches holds old's content, as verified;
 *   3. safe checkout of new's tree, the same paths only; a failure after it may have written (a
 * file libgit2 cannot write) puts old's content back on the paths and removes the journal;
 *   4. compare-and-swap HEAD's branch from old to new;
 *   5. remove the journal.
 * Killed after 2, ss_merge_recover() sees the journal and finishes the move (forced checkout
 * of just those paths, then the ref) if each path still holds old's or new's content and has
 * no symbolic link on its way; else it stops naming the path and keeps the journal.
 *
 * A conflicting merge never moves HEAD: the same verification of the merge's files, journal
 * "old <id>\nconflict <theirs>\n", then git_merge() (merge state files, checkout, and the
 * index with its conflicts written last), then remove the journal. Killed before the index was
 * written, recovery undoes it under the same rule and the repository is as before.
 */
#include "core/git/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/git/commit.h"
#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/merge_priv.h"
#include "core/util/buf.h"
#include "core/util/crash.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

void ss_merge_result_release(ss_merge_result *result)
{
	if (!result)
		return;
	ss_git__strings_free(result->paths, result->npaths);
	result->paths = NULL;
	result->npaths = 0;
}

bool ss_merge_in_progress(ss_repo *repo)
{
	return git_repository_state(repo->git) == GIT_REPOSITORY_STATE_MERGE;
}

int ss_merge_message(ss_repo *repo, ss_buf *out, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	int ret;

	if (!ss_merge_in_progress(repo))
		return ss_error_set(err, SS_ENOTFOUND, "no merge in progress");
	ss_fs_join(&path, repo->gitdir, "MERGE_MSG");
	ret = ss_fs_read_file(out, path.ptr, 1 << 20, err);
	ss_buf_release(&path);
	return ret;
}

static int journal_write(ss_repo *repo, const char *kind, const ss_oid *old, const ss_oid *target,
                         ss_error *err)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	char a[SS_OID_HEXSZ + 1], b[SS_OID_HEXSZ + 1];
	int ret;

	ss_oid_fmt(a, old);
	ss_oid_fmt(b, target);
	ss_buf_printf(&text, "old %s\n%s %s\n", a, kind, b);
	ss_merge__journal_path(&path, repo);
	ret = ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, err);
	ss_buf_release(&path);
	ss_buf_release(&text);
	return ret;
}

static void journal_remove(ss_repo *repo)
{
	ss_buf path = SS_BUF_INIT;

	ss_merge__journal_path(&path, repo);
	unlink(path.ptr);
	ss_buf_release(&path);
}

static void add_path(ss_merge_result *r, size_t *alloc, const char *path)
{
	ss_xgrow((void **)&r->paths, sizeof(char *), r->npaths + 1, alloc);
	r->paths[r->npaths++] = ss_xstrdup(path);
}

typedef struct refusal {
	ss_merge_result *result;
	size_t alloc;
} refusal;

static int note_conflict(git_checkout_notify_t why, const char *path, const git_diff_file *baseline,
                         const git_diff_file *target, const git_diff_file *workdir, void *payload)
{
	refusal *r = payload;

	(void)why, (void)baseline, (void)target, (void)workdir;
	add_path(r->result, &r->alloc, path);
	return 0;
}

/* "uncommitted changes to 'a', 'b' would be overwritten by the merge; commit them first" */
static int refuse(ss_merge_result *r, ss_error *err)
{
	ss_buf names = SS_BUF_INIT;
	int ret;

	for (size_t i = 0; i < r->npaths && i < 5; i++)
		ss_buf_printf(&names, "%s'%s'", i ? ", " : "", r->paths[i]);
	if (r->npaths > 5)
		ss_buf_puts(&names, " and more");
	ret = ss_error_set(err, SS_EEXISTS,
	                   "uncommitted changes to %s would be overwritten by the merge; commit "
	                   "them first",
	                   names.ptr);
	ss_buf_release(&names);
	return ret;
}

/* Test-only: a kill after the checkout wrote some files and before it wrote the rest. */
static void checkout_progress(const char *path, size_t done, size_t total, void *payload)
{
	(void)path, (void)payload;
	if (done >= 1 && done < total)
		ss_crash_point("merge-checkout-midway");
}

/* Checkout options for a move: only m's paths when it moves to a tree (git_merge takes no
 * paths), its conflicts noted in r. */
static void checkout_init(git_checkout_options *opts, unsigned strategy, const ss_merge_move *m,
                          refusal *r)
{
	git_checkout_options_init(opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts->checkout_strategy = strategy | GIT_CHECKOUT_CONFLICT_STYLE_MERGE;
	if (m->target) {
		opts->checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		opts->paths = m->paths;
	}
	opts->notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	opts->notify_cb = note_conflict;
	opts->notify_payload = r;
	opts->our_label = SS_MERGE_OUR_LABEL;
	opts->their_label = SS_MERGE_THEIR_LABEL;
}

/*
 * Step 1: whether the move may write every path it touches: libgit2's safe checkout as a dry
 * run (uncommitted changes, staged ones included, and untracked files in the way), then the
 * move's own check (no symbolic link on the way). Nothing is written either way.
 */
static int verify(ss_repo *repo, const ss_merge_move *m, git_object *target, git_index *index,
                  ss_merge_result *result, ss_error *err)
{
	git_checkout_options opts;
	refusal r = {result, 0};
	int rc;

	checkout_init(&opts,
	              GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DRY_RUN |
	                  (index ? GIT_CHECKOUT_ALLOW_CONFLICTS : 0),
	              m, &r);
	rc = index ? git_checkout_index(repo->git, index, &opts)
	           : git_checkout_tree(repo->git, target, &opts);
	if (rc < 0)
		return result->npaths ? refuse(result, err)
		                      : ss_git__error(err, rc, "cannot update the working tree");
	if (ss_merge_move__check(repo, m, err) < 0)
		return ss_error_prefix(err, "cannot merge the space's changes");
	return 0;
}

/* A checkout that failed after it may have written (a full disk): put back what it wrote (the
 * journal goes once that worked; else it stays for the next command's recovery). err already
 * says why the checkout failed. No check first: verify() found every path as the person left
 * it, under the clone's lock, so a file that now matches neither side is one this checkout
 * cut short. */
static int undo(ss_repo *repo, const ss_merge_move *m, ss_error *err)
{
	ss_error why;

	memset(&why, 0, sizeof(why));
	if (ss_merge_move__write(repo, m, false, &why) == 0)
		journal_remove(repo);
	else
		ss_error_prefix(
		    err, "files left half written (the next skillsync command puts them back)");
	return err->code;
}

/* Moves HEAD (and the files) from old (zero: no commit yet) to target: steps 1-5 above. */
/* The progress callback of ss_merge_commit_progress. */
typedef struct progress_to {
	ss_worktree_progress fn;
	void *payload;
} progress_to;

static int move_head(ss_repo *repo, const ss_oid *old, const ss_oid *target, const progress_to *p,
                     ss_merge_result *result, ss_error *err)
{
	ss_merge_move m;
	int ret;

	if ((ret = ss_merge_move__init(&m, repo, old, target, false, err)) < 0)
		return ret;
	m.progress = p->fn;
	m.payload = p->payload;
	if ((ret = verify(repo, &m, (git_object *)m.target, NULL, result, err)) < 0 ||
	    (ret = journal_write(repo, "new", old, target, err)) < 0)
		goto out;
	ss_crash_point("merge-journaled");
	if ((ret = ss_merge_move__check(repo, &m, err)) < 0) {
		/* a change made since step 1: refused before writing */
		journal_remove(repo);
		ss_error_prefix(err, "cannot merge the space's changes");
		goto out;
	}
	if ((ret = ss_merge_move__write(repo, &m, true, err)) < 0) {
		ret = undo(repo, &m, err);
		goto out;
	}
	ss_crash_point("merge-checked-out");
	ret = ss_commit_update_ref(repo, "HEAD", target, old, "merge: skillsync pull", err);
	if (ret < 0)
		goto out; /* the journal stays: recovery finishes or reports */
	ss_crash_point("merge-ref-moved");
	journal_remove(repo);
	result->head = *target;
out:
	ss_merge_move__release(&m);
	return ret;
}

/* Collects the conflicted paths of the repository's index into result. */
static int list_conflicts(ss_repo *repo, ss_merge_result *result, ss_error *err)
{
	git_index *index = NULL;
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *a, *o, *t;
	size_t alloc = 0;
	int rc;

	rc = git_repository_index(&index, repo->git);
	if (rc == 0)
		rc = git_index_read(index, 1);
	if (rc == 0)
		rc = git_index_conflict_iterator_new(&it, index);
	while (rc == 0 && (rc = git_index_conflict_next(&a, &o, &t, it)) == 0)
		add_path(result, &alloc, o ? o->path : t ? t->path : a->path);
	git_index_conflict_iterator_free(it);
	git_index_free(index);
	if (rc != GIT_ITEROVER)
		return ss_git__error(err, rc, "cannot read the conflicts");
	return 0;
}

/* Writes MERGE_MSG: the message, then the conflicted paths as git does. */
static int write_merge_msg(ss_repo *repo, const char *message, const ss_merge_result *r,
                           ss_error *err)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	int ret;

	ss_buf_puts(&text, message);
	if (text.len && text.ptr[text.len - 1] != '\n')
		ss_buf_putc(&text, '\n');
	ss_buf_puts(&text, "\nConflicts:\n");
	for (size_t i = 0; i < r->npaths; i++)
		ss_buf_printf(&text, "\t%s\n", r->paths[i]);
	ss_fs_join(&path, repo->gitdir, "MERGE_MSG");
	ret = ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0644, err);
	ss_buf_release(&path);
	ss_buf_release(&text);
	return ret;
}

static int merge_conflicting(ss_repo *repo, const ss_oid *old, const ss_oid *theirs,
                             const char *message, ss_merge_result *result, ss_error *err)
{
	git_repository *git = repo->git;
	git_annotated_commit *ann = NULL;
	const git_annotated_commit *heads[1];
	git_merge_options mopts;
	git_checkout_options copts;
	ss_merge_move m;
	refusal r = {result, 0};
	git_oid id;
	int rc, ret;

	if ((ret = ss_merge_move__init(&m, repo, old, theirs, true, err)) < 0)
		return ret;
	ret = verify(repo, &m, NULL, m.merged, result, err);
	if (ret == 0)
		ret = journal_write(repo, "conflict", old, theirs, err);
	if (ret < 0)
		goto out;
	ss_crash_point("merge-conflict-journaled");
	git_merge_options_init(&mopts, GIT_MERGE_OPTIONS_VERSION);
	checkout_init(&copts, GIT_CHECKOUT_SAFE | GIT_CHECKOUT_ALLOW_CONFLICTS, &m, &r);
	copts.progress_cb = checkout_progress;
	ss_git__oid_in(&id, theirs);
	rc = git_annotated_commit_lookup(&ann, git, &id);
	heads[0] = ann;
	if (rc == 0)
		rc = git_merge(git, heads, 1, &mopts, &copts);
	git_annotated_commit_free(ann);
	if (rc < 0) {
		/* no merge state must stay behind, nor files it wrote */
		ret = result->npaths ? refuse(result, err) : ss_git__error(err, rc, "cannot merge");
		git_repository_state_cleanup(git);
		if (result->npaths)
			journal_remove(repo); /* refused before writing */
		else
			undo(repo, &m, err);
		goto out;
	}
	ss_merge_move__release(&m);
	journal_remove(repo);
	result->kind = SS_MERGE_CONFLICTED;
	result->head = *old;
	ret = list_conflicts(repo, result, err);
	if (ret == 0)
		ret = write_merge_msg(repo, message, result, err);
	if (ret < 0)
		return ret;
	if (result->npaths == 1)
		return ss_error_set(err, SS_EMERGE, "conflict in '%s': fix it, then commit",
		                    result->paths[0]);
	return ss_error_set(err, SS_EMERGE, "conflicts in %zu files: fix them, then commit",
	                    result->npaths);
out:
	ss_merge_move__release(&m);
	return ret;
}

/* Writes the merge commit of a clean in-memory merge (an object only); err->code SS_EMERGE if
 * the merge has conflicts (then nothing is written). */
static int merge_in_memory(ss_repo *repo, const ss_oid *ours, const ss_oid *theirs,
                           const char *message, ss_oid *out, ss_error *err)
{
	git_repository *git = repo->git;
	git_index *index = NULL;
	git_oid tree_id;
	ss_oid tree, parents[2];
	int rc, ret = -1;

	rc = ss_merge__index(&index, repo, ours, theirs);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot merge");
		goto out;
	}
	if (git_index_has_conflicts(index)) {
		ret = ss_error_set(err, SS_EMERGE, "the merge has conflicts");
		goto out;
	}
	rc = git_index_write_tree_to(&tree_id, index, git);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot write the merged tree");
		goto out;
	}
	ss_git__oid_out(&tree, &tree_id);
	parents[0] = *ours;
	parents[1] = *theirs;
	ret = ss_commit_create(repo, NULL, &tree, parents, 2, message, out, err);
out:
	git_index_free(index);
	return ret;
}

int ss_merge_base(ss_repo *repo, const ss_oid *a, const ss_oid *b, ss_oid *out, ss_error *err)
{
	git_oid x, y, base;
	int rc;

	ss_git__oid_in(&x, a);
	ss_git__oid_in(&y, b);
	rc = git_merge_base(&base, repo->git, &x, &y);
	if (rc == GIT_ENOTFOUND)
		return ss_error_set(err, SS_ENOTFOUND, "the two commits have no common ancestor");
	if (rc < 0)
		return ss_git__error(err, rc, "cannot find the merge base");
	ss_git__oid_out(out, &base);
	return 0;
}

int ss_merge_commit(ss_repo *repo, const ss_oid *theirs, const char *message,
                    ss_merge_result *result, ss_error *err)
{
	return ss_merge_commit_progress(repo, theirs, message, NULL, NULL, result, err);
}

int ss_merge_commit_progress(ss_repo *repo, const ss_oid *theirs, const char *message,
                             ss_worktree_progress progress, void *payload, ss_merge_result *result,
                             ss_error *err)
{
	progress_to p = {progress, payload};
	git_repository *git = repo->git;
	git_oid h, t;
	ss_oid head, merged;
	int ret;

	memset(result, 0, sizeof(*result));
	if (git_repository_state(git) != GIT_REPOSITORY_STATE_NONE)
		return ss_error_set(
		    err, SS_EINVALID,
		    "a merge is in progress: resolve the conflicts and commit first");
	ret = ss_commit_read_ref(repo, "HEAD", &head, err);
	if (ret < 0 && err->code == SS_ENOTFOUND) {
		ss_oid_clear(&head);
		result->kind = SS_MERGE_FAST_FORWARD;
		return move_head(repo, &head, theirs, &p, result, err);
	}
	if (ret < 0)
		return ret;
	result->head = head;
	ss_git__oid_in(&h, &head);
	ss_git__oid_in(&t, theirs);
	if (ss_oid_equal(&head, theirs) || git_graph_descendant_of(git, &h, &t) == 1) {
		result->kind = SS_MERGE_UP_TO_DATE;
		return 0;
	}
	if (git_graph_descendant_of(git, &t, &h) == 1) {
		result->kind = SS_MERGE_FAST_FORWARD;
		return move_head(repo, &head, theirs, &p, result, err);
	}
	ret = merge_in_memory(repo, &head, theirs, message, &merged, err);
	if (ret == 0) {
		result->kind = SS_MERGE_MERGED;
		return move_head(repo, &head, &merged, &p, result, err);
	}
	if (err->code != SS_EMERGE)
		return ret;
	ss_error_clear(err);
	return merge_conflicting(repo, &head, theirs, message, result, err);
}
