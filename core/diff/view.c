#include "core/diff/view.h"

#include <string.h>

static bool is(const char *a, const char *b)
{
	return a && b && *a && !strcmp(a, b);
}

ss_view_why ss_view_why_of(const ss_view_version *v, const char *me, const char *authority)
{
	if (!v->valid)
		return SS_VIEW_INVALID;
	if (is(v->did, me))
		return SS_VIEW_MINE;
	if (is(v->did, authority))
		return SS_VIEW_AUTHORITY;
	return SS_VIEW_NEWEST;
}

const char *ss_view_why_name(ss_view_why why)
{
	switch (why) {
	case SS_VIEW_MINE:
		return "mine";
	case SS_VIEW_AUTHORITY:
		return "authority";
	case SS_VIEW_NEWEST:
		return "newest";
	default:
		return "invalid";
	}
}

/* < 0 when a ranks before b. */
static int compare(const ss_view_version *a, const ss_view_version *b, const char *me,
                   const char *authority)
{
	ss_view_why wa = ss_view_why_of(a, me, authority);
	ss_view_why wb = ss_view_why_of(b, me, authority);

	if (wa != wb) {
		/* MINE (1) < AUTHORITY (2) < NEWEST (3) < INVALID (0, moved last) */
		int ra = wa == SS_VIEW_INVALID ? 4 : (int)wa;
		int rb = wb == SS_VIEW_INVALID ? 4 : (int)wb;
		return ra - rb;
	}
	if (wa == SS_VIEW_NEWEST && a->updated_us != b->updated_us)
		return a->updated_us > b->updated_us ? -1 : 1;
	return strcmp(a->did ? a->did : "", b->did ? b->did : "");
}

size_t ss_view_rank(const ss_view_version *versions, size_t n, const char *me,
                    const char *authority, size_t *order)
{
	size_t valid = 0;

	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		if (versions[i].valid)
			valid++;
	}
	/* Insertion sort: a name has one version per member, a handful in practice. */
	for (size_t i = 1; i < n; i++) {
		size_t cur = order[i], j = i;

		while (j > 0 &&
		       compare(&versions[cur], &versions[order[j - 1]], me, authority) < 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = cur;
	}
	return valid;
}
