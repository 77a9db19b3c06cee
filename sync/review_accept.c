/* review_accept.c: accept, what was reviewed and nothing else (see ss_review_accept in
 * sync/review.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/git/commit.h"
#include "core/skill/record.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "sync/review.h"
#include "sync/review_priv.h"

void ss_review_accepted_release(ss_review_accepted *a)
{
	if (!a)
		return;
	ss_buf_release(&a->message);
	for (size_t i = 0; i < a->nskipped; i++)
		free(a->skipped[i].name);
	free(a->skipped);
	memset(a, 0, sizeof(*a));
}

/* The names without their "@<id>" (new strings in bare), the ids (borrowed, NULL: none). */
static void split_names(const char *const *names, size_t n, char **bare, const char **ids)
{
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr(names[i], '@');

		bare[i] =
		    at ? ss_xstrndup(names[i], (size_t)(at - names[i])) : ss_xstrdup(names[i]);
		ids[i] = at ? at + 1 : NULL;
	}
}

/* Whether id names h's version: "removed" for a removal, else 7 to 40 hex digits that
 * begin its held subtree's id. */
static bool names_version(const ss_state_hold *h, const char *id)
{
	size_t n = strlen(id);

	if (!h->view_tree)
		return !strcmp(id, "removed");
	return n >= 7 && n <= SS_OID_HEXSZ && !strncmp(h->view_tree, id, n);
}

/* Why a named hold cannot be taken as it is (0: it can); id: the one named, or NULL. */
static int refuse_named(const ss_state_hold *h, const char *id, ss_error *err)
{
	if (id && !names_version(h, id))
		return ss_error_set(err, SS_EINVALID,
		                    "the change to %s is not version '%s' (it moved, or the id is "
		                    "not the one review shows): run 'skillsync review %s' again",
		                    h->name, id, h->name);
	if (id) /* the person names the version: their word that they saw it */
		return 0;
	if (h->seen == SS_SEEN_EARLIER)
		return ss_error_set(err, SS_EINVALID,
		                    "the change to %s moved since you reviewed it: run 'skillsync "
		                    "review %s' again",
		                    h->name, h->name);
	if (h->seen == SS_SEEN_NEVER)
		return ss_error_set(err, SS_EINVALID,
		                    "the change to %s was never shown by review: run 'skillsync "
		                    "review %s' first",
		                    h->name, h->name);
	return 0;
}

/* Why --all leaves h out (NULL: it takes it). */
static const char *skip_reason(const ss_state_hold *h)
{
	if (h->rejected)
		return "rejected";
	if (h->seen == SS_SEEN_NEVER)
		return "not reviewed yet";
	if (h->seen == SS_SEEN_EARLIER)
		return "changed since you reviewed it";
	return NULL;
}

/* The id named with name (NULL: none). */
static const char *id_of(const char *name, char *const *bare, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(bare[i], name) && ids[i])
			return ids[i];
	return NULL;
}

/* Which of l's items accept takes (take[i]; *ntake how many): the names as they are named,
 * or with all those --all takes (the others into out->skipped). */
static int choose(const ss_review_items *l, char *const *bare, const char *const *ids, size_t n,
                  bool all, bool *take, size_t *ntake, ss_review_accepted *out, ss_error *err)
{
	*ntake = 0;
	out->skipped = ss_xcalloc(l->count + 1, sizeof(*out->skipped));
	for (size_t i = 0; i < l->count; i++) {
		const ss_state_hold *h = &l->items[i].hold;
		const char *why = all ? skip_reason(h) : NULL;

		if (!all && refuse_named(h, id_of(h->name, bare, ids, n), err) < 0)
			return -1;
		take[i] = !why;
		*ntake += take[i];
		if (why) {
			out->skipped[out->nskipped].name = ss_xstrdup(h->name);
			out->skipped[out->nskipped++].why = why;
		}
	}
	if (all && l->count && !*ntake)
		return ss_error_set(err, SS_ENOTFOUND,
		                    "no change review showed as it is now waits: run 'skillsync "
		                    "review'");
	return 0;
}
/* The commit's message for the taken items. */
static void accept_message(ss_state *st, const ss_review_items *l, const bool *take, size_t ntake,
                           ss_buf *msg)
{
	for (size_t i = 0; ntake == 1 && i < l->count; i++) {
		const char *h = l->items[i].handle;
		const ss_state_hold *x = &l->items[i].hold;

		if (!take[i])
			continue;
		if (x->did)
			ss_buf_printf(msg, "Accept %s's version of %s (at://%s/%s/%s, cid %s)\n",
			              h ? h : x->did, x->name, x->did, SS_RECORD_TYPE, x->name,
			              x->cid ? x->cid : "?");
		else
			ss_buf_printf(msg, "Accept the removal of %s from the space\n", x->name);
	}
	if (ntake == 1)
		return;
	ss_buf_printf(msg, "Accept %zu versions held for review\n\n", ntake);
	for (size_t i = 0; i < l->count; i++)
		if (take[i])
			ss_review__who_line(msg, st, l->items[i].hold.name, l->items[i].hold.did,
			                    l->items[i].hold.cid, NULL);
}

/* Main moves first, then the state forgets the holds taken (a kill between: the next pull
 * sees main has them and drops the holds). */
static int take_accepted(ss_repo *repo, ss_state *st, const ss_review_items *l, const bool *take,
                         size_t ntake, const char *msg, ss_merge_result *merge, ss_error *err)
{
	ss_review__take *takes = ss_xcalloc(ntake + 1, sizeof(*takes));
	ss_commit_opts o;
	ss_oid head, head_tree;
	size_t k = 0;
	int ret = -1;

	memset(&o, 0, sizeof(o));
	for (size_t i = 0; i < l->count; i++) {
		if (!take[i])
			continue;
		takes[k].name = (char *)(uintptr_t)l->items[i].hold.name; /* borrowed */
		if (ss_review__parse_opt(l->items[i].hold.view_tree, &takes[k].tree, &takes[k].has,
		                         err) < 0)
			goto out;
		k++;
	}
	if (ss_commit_read_ref(repo, "HEAD", &head, err) < 0 ||
	    ss_commit_tree(repo, &head, &head_tree, err) < 0 ||
	    ss_review__take_in(repo, &head, &head_tree, takes, k, msg, &o, merge, NULL, err) < 0)
		goto out;
	ss_crash_point("accept-merged");
	if (ss_state_begin(st, err) < 0)
		goto out;
	for (size_t i = 0; i < l->count; i++)
		if (take[i] && ss_state_hold_remove(st, l->items[i].hold.name, err) < 0) {
			ss_state_rollback(st);
			goto out;
		}
	if (ss_state_commit(st, err) < 0) {
		ss_state_rollback(st);
		goto out;
	}
	ret = 0;
out:
	free(takes);
	return ret;
}

int ss_review_accept(ss_repo *repo, ss_state *st, const char *const *names, size_t nnames, bool all,
                     ss_merge_result *merge, ss_review_accepted *out, ss_error *err)
{
	char **bare = ss_xcalloc(nnames + 1, sizeof(*bare));
	const char **ids = ss_xcalloc(nnames + 1, sizeof(*ids));
	ss_review_items l = {NULL, 0};
	bool *take = NULL;
	size_t ntake = 0;
	int ret = -1;

	memset(merge, 0, sizeof(*merge));
	split_names(names, nnames, bare, ids);
	if (ss_review_list(repo, st, all ? NULL : (const char *const *)bare, all ? 0 : nnames,
	                   false, &l, err) < 0)
		goto out;
	if (!l.count) {
		ret = ss_error_set(err, SS_ENOTFOUND, "no change waits for review");
		goto out;
	}
	take = ss_xcalloc(l.count, sizeof(*take));
	if (choose(&l, bare, ids, nnames, all, take, &ntake, out, err) < 0)
		goto out;
	accept_message(st, &l, take, ntake, &out->message);
	ret = take_accepted(repo, st, &l, take, ntake, out->message.ptr, merge, err);
out:
	for (size_t i = 0; i < nnames; i++)
		free(bare[i]);
	free(bare);
	free(ids);
	free(take);
	ss_review_items_release(&l);
	return ret;
}
