/*
 * view.h: the precedence rule (docs/concepts/precedence.md), pure and deterministic.
 *
 * For me (maybe nobody: a read-only clone) and the space's authority, among the versions of
 * one skill name written by different members:
 *   1. my own version, if it is valid;
 *   2. else the authority's version, if it is valid;
 *   3. else the valid version with the latest updatedAt instant; equal instants go to the
 *      smaller DID in byte order (strcmp), so every member computes the same view.
 * An invalid version is never a candidate: it is ranked after every valid one and its reason
 * stays with it for `ls`/`show`. The rule only reads its input; nothing here allocates.
 * updatedAt is compared as an instant (core/util/time.h), never as text.
 */
#ifndef SS_VIEW_H
#define SS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One member's version of one name (all fields borrowed from the caller). */
typedef struct ss_view_version {
	const char *did;
	const char *cid;
	int64_t updated_us; /* updatedAt as an instant (ss_time_parse) */
	bool valid;
	const char *reason; /* why it is not a candidate; NULL when valid */
} ss_view_version;

/* Why a version ranks where it does. */
typedef enum ss_view_why {
	SS_VIEW_INVALID = 0, /* not a candidate */
	SS_VIEW_MINE,        /* my own version */
	SS_VIEW_AUTHORITY,   /* the authority's version (and it is not mine) */
	SS_VIEW_NEWEST,      /* neither: ranked by updatedAt, then DID */
} ss_view_why;

/*
 * Sorts the indices 0..n-1 of versions into order, best first: order[0] is the winner when
 * the return value (the number of valid versions) is > 0; then the versions it shadows, in
 * the order they would win if the ones before them went away; invalid versions last, by DID.
 * me may be NULL or "" (no "mine"); authority may be NULL. The DIDs must be distinct.
 */
size_t ss_view_rank(const ss_view_version *versions, size_t n, const char *me,
                    const char *authority, size_t *order);

/* Why v is ranked where it is, for me and authority (the same rules as ss_view_rank). */
ss_view_why ss_view_why_of(const ss_view_version *v, const char *me, const char *authority);

/* "mine", "authority", "newest" or "invalid" (stable words, used in --json output). */
const char *ss_view_why_name(ss_view_why why);

#endif
