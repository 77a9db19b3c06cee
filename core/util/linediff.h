/*
 * linediff.h: which lines changed between two texts (Myers' O(ND) difference algorithm).
 *
 * Pure and allocation-only (cannot fail). Lines end at '\n'; a last line without one still
 * counts. Hunks are 0-based, in order, and never overlap; a hunk with old_count 0 is a pure
 * insertion before old line old_start, one with new_count 0 a pure deletion. Past a bound on
 * the edit distance (huge rewrites), the middle of the texts becomes one hunk: counts stay
 * true upper bounds and the work stays linear.
 */
#ifndef SS_LINEDIFF_H
#define SS_LINEDIFF_H

#include <stddef.h>

typedef struct ss_linediff_hunk {
	size_t old_start, old_count;
	size_t new_start, new_count;
} ss_linediff_hunk;

typedef struct ss_linediff {
	ss_linediff_hunk *hunks;
	size_t nhunks;
	size_t added, removed; /* lines, summed over the hunks */
} ss_linediff;

/* Fills d (released with ss_linediff_release) with the hunks that turn a into b. */
void ss_linediff_compute(ss_linediff *d, const char *a, size_t alen, const char *b, size_t blen);
void ss_linediff_release(ss_linediff *d);

/* The number of lines of a text (a last line without '\n' counts). */
size_t ss_linediff_count_lines(const char *s, size_t len);

#endif
