/* history.c: the clone's history for `log` (see history.h). */
#include "core/git/history.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

void ss_history_release(ss_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->count; i++) {
		ss_commit_info *c = &h->items[i].info;
		free(c->subject);
		free(c->message);
		free(c->author_name);
		free(c->author_email);
	}
	free(h->items);
	h->items = NULL;
	h->count = 0;
}

const char *ss_history_kind_name(ss_history_kind kind)
{
	switch (kind) {
	case SS_HISTORY_SPACE:
		return "space";
	case SS_HISTORY_LOCAL:
		return "local";
	case SS_HISTORY_MERGE:
		return "merge";
	}
	return "unknown";
}

static int oid_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(ss_oid));
}

/* The ids of the commits reachable from main and not from the tracking ref, sorted. */
typedef struct oid_set {
	ss_oid *ids;
	size_t count;
} oid_set;

static int local_commits(ss_repo *repo, const ss_oid *tracking, const ss_oid *head, oid_set *out,
                         ss_error *err)
{
	ss_commit_list list = {NULL, 0};
	int ret;

	out->ids = NULL;
	out->count = 0;
	ret = ss_commit_log(repo, tracking, head, NULL, 0, &list, err);
	if (ret < 0)
		return ret;
	out->ids = ss_xcalloc(list.count ? list.count : 1, sizeof(ss_oid));
	for (size_t i = 0; i < list.count; i++)
		out->ids[i] = list.items[i].oid;
	out->count = list.count;
	qsort(out->ids, out->count, sizeof(ss_oid), oid_cmp);
	ss_commit_list_release(&list);
	return 0;
}

static bool in_set(const oid_set *s, const ss_oid *id)
{
	return s->count && bsearch(id, s->ids, s->count, sizeof(ss_oid), oid_cmp) != NULL;
}

/*
 * Whether skillsync wrote the commit as a tracking commit (its own author). Needed for the
 * commits reachable from both main and the tracking ref: after a push the ref may name main's
 * own commit, so the person's commits are in the tracking history too.
 */
static bool by_skillsync(const ss_commit_info *c)
{
	return c->author_name && c->author_email &&
	       !strcmp(c->author_name, SS_COMMIT_DEFAULT_NAME) &&
	       !strcmp(c->author_email, SS_COMMIT_DEFAULT_EMAIL);
}

/* Moves the commits of list into h (the list is emptied). */
static void take(ss_history *h, size_t *alloc, ss_commit_list *list, bool merged,
                 const oid_set *local)
{
	for (size_t i = 0; i < list->count; i++) {
		ss_history_entry *e;

		ss_xgrow((void **)&h->items, sizeof(*h->items), h->count + 1, alloc);
		e = &h->items[h->count++];
		e->info = list->items[i];
		e->merged = merged;
		if (!merged)
			e->kind = SS_HISTORY_SPACE;
		else if (e->info.nparents > 1)
			e->kind = SS_HISTORY_MERGE;
		else if (in_set(local, &e->info.oid) || !by_skillsync(&e->info))
			e->kind = SS_HISTORY_LOCAL;
		else
			e->kind = SS_HISTORY_SPACE;
	}
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

int ss_history_list(ss_repo *repo, const char *skill, size_t max, ss_history *out, ss_error *err)
{
	ss_oid head, tracking;
	bool has_head = true, has_tracking = true;
	ss_commit_list fetched = {NULL, 0}, merged = {NULL, 0};
	ss_history h = {NULL, 0};
	oid_set local = {NULL, 0};
	size_t alloc = 0;
	int ret;

	ret = ss_commit_read_ref(repo, "HEAD", &head, err);
	if (ret < 0 && err->code == SS_ENOTFOUND)
		has_head = false;
	else if (ret < 0)
		return ret;
	ret = ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, &tracking, err);
	if (ret < 0 && err->code == SS_ENOTFOUND)
		has_tracking = false;
	else if (ret < 0)
		return ret;
	if (has_tracking) {
		ret = ss_commit_log(repo, has_head ? &head : NULL, &tracking, skill, max, &fetched,
		                    err);
		if (ret < 0)
			goto out;
	}
	if (has_head && (!max || fetched.count < max)) {
		ret = ss_commit_log(repo, NULL, &head, skill, max ? max - fetched.count : 0,
		                    &merged, err);
		if (ret == 0)
			ret = local_commits(repo, has_tracking ? &tracking : NULL, &head, &local,
			                    err);
		if (ret < 0)
			goto out;
	}
	take(&h, &alloc, &fetched, false, &local);
	take(&h, &alloc, &merged, true, &local);
	*out = h;
	h.items = NULL;
	h.count = 0;
	ret = 0;
out:
	ss_history_release(&h);
	ss_commit_list_release(&fetched);
	ss_commit_list_release(&merged);
	free(local.ids);
	return ret;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Whether [p, end) names skill as a whole word. */
static bool names(const char *p, const char *end, const char *skill)
{
	size_t n = strlen(skill);

	if (!n)
		return false;
	for (const char *q = p; q + n <= end; q++) {
		if (memcmp(q, skill, n) != 0)
			continue;
		if ((q == p || !name_char(q[-1])) && (q + n == end || !name_char(q[n])))
			return true;
	}
	return false;
}

static bool blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

static void flush(const char *item, const char *stop, const char *skill, ss_buf *out)
{
	if (!item || !names(item, stop, skill))
		return;
	ss_buf_put(out, item, (size_t)(stop - item));
	if (out->len && out->ptr[out->len - 1] != '\n')
		ss_buf_putc(out, '\n');
}

void ss_history_excerpt(const char *message, const char *skill, ss_buf *out)
{
	const char *p = message, *item = NULL;

	/* An item: a line at the margin and the indented lines under it, up to a blank line. */
	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);

		if (blank(p, end)) {
			flush(item, p, skill, out);
			item = NULL;
		} else if (*p != ' ' && *p != '\t') {
			flush(item, p, skill, out);
			item = p;
		}
		p = eol ? eol + 1 : end;
	}
	flush(item, p, skill, out);
}
