#include "core/util/linediff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

/* Past this edit distance the middle becomes one hunk (memory ~ 4 * SS_DMAX^2 bytes). */
#define SS_DMAX 1500

typedef struct line {
	const char *p;
	size_t len;
	uint32_t hash;
} line;

static uint32_t hash_bytes(const char *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 16777619u;
	}
	return h;
}

size_t ss_linediff_count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (s[i] == '\n')
			n++;
	if (len && s[len - 1] != '\n')
		n++;
	return n;
}

static line *split_lines(const char *s, size_t len, size_t *count)
{
	size_t n = ss_linediff_count_lines(s, len), i = 0, start = 0;
	line *lines = ss_xcalloc(n ? n : 1, sizeof(*lines));

	for (size_t pos = 0; pos < len; pos++) {
		if (s[pos] != '\n' && pos + 1 < len)
			continue;
		lines[i].p = s + start;
		lines[i].len = pos + 1 - start;
		lines[i].hash = hash_bytes(lines[i].p, lines[i].len);
		i++;
		start = pos + 1;
	}
	*count = n;
	return lines;
}

static bool same(const line *a, const line *b)
{
	return a->hash == b->hash && a->len == b->len && !memcmp(a->p, b->p, a->len);
}

/*
 * Marks the deleted lines of a and the inserted lines of b (both of the trimmed middle).
 * Returns false when the edit distance passes SS_DMAX.
 */
static bool myers(const line *a, int n, const line *b, int m, bool *del, bool *ins)
{
	int dmax = n + m < SS_DMAX ? n + m : SS_DMAX;
	int **trace = ss_xcalloc((size_t)dmax + 1, sizeof(*trace));
	int *v = ss_xcalloc(2 * (size_t)dmax + 3, sizeof(*v));
	int off = dmax + 1, dfound = -1;
	bool ok = false;

	for (int d = 0; d <= dmax && dfound < 0; d++) {
		for (int k = -d; k <= d; k += 2) {
			int x, y;

			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && same(&a[x], &b[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				dfound = d;
				break;
			}
		}
		trace[d] = (int *)ss_xmemdup(v + off - d, (2 * (size_t)d + 1) * sizeof(*v));
	}
	if (dfound < 0)
		goto out;
	for (int d = dfound, x = n, y = m; d > 0; d--) {
		const int *prev = trace[d - 1];
		int k = x - y, pk, px;

		if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = prev[pk + d - 1];
		if (pk == k + 1)
			ins[px - pk] = true;
		else
			del[px] = true;
		x = px;
		y = px - pk;
	}
	ok = true;
out:
	for (int d = 0; d <= dmax; d++)
		free(trace[d]);
	free(trace);
	free(v);
	return ok;
}

static void add_hunk(ss_linediff *d, size_t *alloc, size_t os, size_t oc, size_t ns, size_t nc)
{
	ss_xgrow((void **)&d->hunks, sizeof(*d->hunks), d->nhunks + 1, alloc);
	d->hunks[d->nhunks].old_start = os;
	d->hunks[d->nhunks].old_count = oc;
	d->hunks[d->nhunks].new_start = ns;
	d->hunks[d->nhunks].new_count = nc;
	d->nhunks++;
	d->removed += oc;
	d->added += nc;
}

void ss_linediff_compute(ss_linediff *d, const char *a, size_t alen, const char *b, size_t blen)
{
	size_t na, nb, pre = 0, suf = 0, alloc = 0, ma, mb;
	line *la = split_lines(a, alen, &na), *lb = split_lines(b, blen, &nb);
	bool *del = NULL, *ins = NULL;

	memset(d, 0, sizeof(*d));
	while (pre < na && pre < nb && same(&la[pre], &lb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre && same(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	ma = na - pre - suf;
	mb = nb - pre - suf;
	if (!ma && !mb)
		goto out;
	del = ss_xcalloc(ma + 1, sizeof(*del));
	ins = ss_xcalloc(mb + 1, sizeof(*ins));
	if (ma > INT32_MAX / 4 || mb > INT32_MAX / 4 ||
	    !myers(la + pre, (int)ma, lb + pre, (int)mb, del, ins)) {
		add_hunk(d, &alloc, pre, ma, pre, mb);
		goto out;
	}
	for (size_t i = 0, j = 0; i < ma || j < mb;) {
		size_t si = i, sj = j;

		if (!(i < ma && del[i]) && !(j < mb && ins[j])) {
			i++;
			j++;
			continue;
		}
		while (i < ma && del[i])
			i++;
		while (j < mb && ins[j])
			j++;
		add_hunk(d, &alloc, pre + si, i - si, pre + sj, j - sj);
	}
out:
	free(del);
	free(ins);
	free(la);
	free(lb);
}

void ss_linediff_release(ss_linediff *d)
{
	if (!d)
		return;
	free(d->hunks);
	memset(d, 0, sizeof(*d));
}
