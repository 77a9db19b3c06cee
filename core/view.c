#include "core/view.h"

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

/* Reads exactly n digits at *p into *out and advances *p. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*p += n;
	*out = v;
	return true;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool ss_view_parse_datetime(const char *s, int64_t *out_us)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	int64_t frac = 0, t;
	const char *p = s;

	if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d) || (*p != 'T' && *p != 't'))
		return false;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
	    !digits(&p, 2, &sec))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 ||
	    mi > 59 || sec > 60)
		return false;
	if (*p == '.') {
		int n = 0;

		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++, n++)
			if (n < 6)
				frac = frac * 10 + (*p - '0');
		for (; n < 6; n++)
			frac *= 10;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
			return false;
	} else {
		return false;
	}
	if (*p)
		return false;
	t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	t -= sign * (oh * 3600 + om * 60);
	*out_us = t * 1000000 + frac;
	return true;
}
