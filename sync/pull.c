/* pull.c: `fetch` and `pull` as one run (see pull.h). */
#include "sync/pull.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/commit.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/crash.h"
#include "core/util/mem.h"

#define MERGE_MESSAGE "Merge the space's changes (" SS_REPO_TRACKING_REF ")\n"

static void changes_release(ss_pull_changes *c)
{
	for (size_t i = 0; i < c->count; i++) {
		free(c->items[i].name);
		free(c->items[i].did);
		free(c->items[i].handle);
		free(c->items[i].note);
	}
	free(c->items);
	c->items = NULL;
	c->count = 0;
}

void ss_pull_result_release(ss_pull_result *r)
{
	if (!r)
		return;
	changes_release(&r->fetched);
	changes_release(&r->merged);
	ss_merge_result_release(&r->merge);
	ss_fetch_result_release(&r->fetch);
}

/* Reads a ref; a missing ref gives the zero id. */
static int read_ref(ss_repo *repo, const char *name, ss_oid *out, ss_error *err)
{
	int ret = ss_commit_read_ref(repo, name, out, err);

	if (ret < 0 && err->code == SS_ENOTFOUND) {
		ss_oid_clear(out);
		return 0;
	}
	return ret;
}

/* Who wrote the version of name now in the view, and its note, from the state. */
static void describe(ss_state *st, ss_pull_change *c)
{
	ss_state_view_entry v;
	ss_state_member m;
	ss_state_record r;
	ss_error ignored;

	if (ss_state_view_get(st, c->name, &v, &ignored) < 0)
		return;
	c->did = ss_xstrdup(v.did);
	c->mine = ss_state_me(st) && !strcmp(ss_state_me(st), v.did);
	if (ss_state_member_get(st, v.did, &m, &ignored) == 0) {
		if (m.handle)
			c->handle = ss_xstrdup(m.handle);
		ss_state_member_release(&m);
	}
	if (ss_state_record_get(st, v.did, c->name, &r, &ignored) == 0) {
		if (r.note && *r.note)
			c->note = ss_xstrdup(r.note);
		ss_state_record_release(&r);
	}
	ss_state_view_entry_release(&v);
}

/* The skills (top-level directories) that differ between two commits' trees. */
static int changes_between(ss_repo *repo, ss_state *st, const ss_oid *from, const ss_oid *to,
                           ss_pull_changes *out, ss_error *err)
{
	ss_oid a, b;
	ss_changes diff = {NULL, 0};
	size_t alloc = 0;
	int ret;

	if (!ss_oid_is_zero(from) && (ret = ss_commit_tree(repo, from, &a, err)) < 0)
		return ret;
	if ((ret = ss_commit_tree(repo, to, &b, err)) < 0)
		return ret;
	ret = ss_tree_diff_top(repo, ss_oid_is_zero(from) ? NULL : &a, &b, &diff, err);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < diff.count; i++) {
		const ss_change *d = &diff.items[i];
		ss_pull_change *c;

		if (d->old_mode != SS_MODE_TREE && d->new_mode != SS_MODE_TREE)
			continue; /* a top-level file: not a skill */
		ss_xgrow((void **)&out->items, sizeof(*out->items), out->count + 1, &alloc);
		c = &out->items[out->count++];
		memset(c, 0, sizeof(*c));
		c->name = ss_xstrdup(d->path);
		c->kind = d->new_mode != SS_MODE_TREE   ? SS_CHANGE_REMOVED
		          : d->old_mode != SS_MODE_TREE ? SS_CHANGE_ADDED
		                                        : SS_CHANGE_MODIFIED;
		if (c->kind != SS_CHANGE_REMOVED)
			describe(st, c);
	}
	ss_tree_changes_release(&diff);
	return 0;
}

/* Whether a has a commit that b does not. */
static int ahead(ss_repo *repo, const ss_oid *a, const ss_oid *b, bool *out, ss_error *err)
{
	ss_commit_list l = {NULL, 0};
	int ret = ss_commit_log(repo, b, a, NULL, 1, &l, err);

	*out = l.count > 0;
	ss_commit_list_release(&l);
	return ret;
}

/* Step 2. */
static int merge(ss_repo *repo, ss_state *st, const ss_pull_opts *opts, ss_pull_result *out,
                 ss_error *err)
{
	ss_oid head;
	bool own, behind;
	int ret;

	if (ss_oid_is_zero(&out->tracking))
		return 0; /* nothing fetched yet: nothing to merge */
	if (ss_merge_in_progress(repo))
		return ss_error_set(err, SS_EMERGE,
		                    "a merge is waiting to be concluded: fix the conflicts, then "
		                    "'skillsync commit' (the space's changes were fetched)");
	if ((ret = read_ref(repo, "HEAD", &head, err)) < 0)
		return ret;
	if (opts->ff_only && !ss_oid_is_zero(&head)) {
		if ((ret = ahead(repo, &head, &out->tracking, &own, err)) < 0 ||
		    (ret = ahead(repo, &out->tracking, &head, &behind, err)) < 0)
			return ret;
		if (own && behind)
			return ss_error_set(err, SS_EINVALID,
			                    "not possible to fast-forward: main has commits the "
			                    "space does not have; pull without --ff-only to merge");
	}
	out->merge_ran = true;
	if ((ret = ss_review_gate(repo, st, &out->tracking, &out->gated, err)) < 0)
		return ret;
	ret = ss_merge_commit_progress(repo, &out->gated.theirs, MERGE_MESSAGE, opts->checkout,
	                               opts->fetch ? opts->fetch->payload : NULL, &out->merge, err);
	if (ret < 0)
		return ret;
	if ((ret = ss_state_hold_waiting(st, &out->waiting, err)) < 0)
		return ret;
	if (out->merge.kind == SS_MERGE_FAST_FORWARD || out->merge.kind == SS_MERGE_MERGED ||
	    out->gated.released)
		ret = changes_between(repo, st, &head, &out->merge.head, &out->merged, err);
	return ret;
}

int ss_pull_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_pull_opts *opts,
                ss_pull_result *out, ss_error *err)
{
	ss_oid before;
	int ret;

	memset(out, 0, sizeof(*out));
	ss_crash_point("pull-recovered");
	if ((ret = read_ref(repo, SS_REPO_TRACKING_REF, &before, err)) < 0)
		return ret;
	if ((ret = ss_fetch_run(repo, st, sp, opts->fetch, &out->fetch, err)) < 0)
		return ret;
	if ((ret = read_ref(repo, SS_REPO_TRACKING_REF, &out->tracking, err)) < 0)
		return ret;
	if (out->fetch.changed &&
	    (ret = changes_between(repo, st, &before, &out->tracking, &out->fetched, err)) < 0)
		return ret;
	if (!opts->merge)
		return 0;
	ss_crash_point("pull-fetched");
	return merge(repo, st, opts, out, err);
}
