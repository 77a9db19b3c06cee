/*
 * pull.h: `fetch` and `pull` as one run over a clone whose lock the caller holds.
 *
 * What a killed run left was finished when the caller took the lock (ss_recover_clone,
 * sync/recover.h). The steps, each safe to interrupt (docs/SCHEDULE.md lists the kill points):
 *   1. fetch (sync/fetch.h): one request per member, records listed only for members that
 *      moved, one new tracking commit when the view changed, nothing written otherwise;
 *   2. pull only: the review gate (sync/review.h) holds back what must wait for review and
 *      takes in what no longer must; then the tracking commit (or, when something is held,
 *      the hold commit on it) is merged into main (core/git/merge.h): up to date,
 *      fast-forward or three-way. A merge that would touch uncommitted changes stops before
 *      writing anything (SS_EEXISTS naming the files; the fetch stays); conflicts leave
 *      markers and the index conflicts (SS_EMERGE); --ff-only refuses to merge diverged
 *      histories (SS_EINVALID).
 *
 * Rules: nothing here prints or exits; the result says what changed so that cmd/ can print
 * it. The changes name the skills and, from the state, who wrote the version now in the view
 * and its note (borrowed text from the network: print it safely).
 */
#ifndef SS_PULL_H
#define SS_PULL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/state/state.h"
#include "core/util/error.h"
#include "sync/fetch.h"
#include "sync/review.h"
#include "sync/transport/space.h"

typedef struct ss_pull_opts {
	bool merge;                 /* false: fetch only */
	bool ff_only;               /* refuse to merge when main has commits of its own */
	const ss_fetch_opts *fetch; /* reports and progress; may be NULL */
	/* The merge's checkout: done of total files written, from 0 up to total; may be NULL.
	 * Called with fetch->payload. */
	void (*checkout)(void *payload, size_t done, size_t total);
} ss_pull_opts;

/* One skill that changed, with who wrote the version it has now and that version's note. */
typedef struct ss_pull_change {
	char *name;
	ss_change_kind kind;
	char *did;    /* the view's winner now; NULL when removed or unknown */
	char *handle; /* its handle when known */
	char *note;   /* the winning record's note; NULL when none */
	bool mine;    /* the winner is my own record */
} ss_pull_change;

typedef struct ss_pull_changes {
	ss_pull_change *items; /* sorted by name */
	size_t count;
} ss_pull_changes;

typedef struct ss_pull_result {
	ss_fetch_result fetch;
	ss_pull_changes fetched; /* what the fetch changed in the view */
	bool merge_ran;          /* step 2 ran (also when it stopped) */
	ss_merge_result merge;   /* its outcome: kind, head, conflicted or blocking paths */
	ss_pull_changes merged;  /* what the merge changed in main's skills */
	ss_oid tracking;         /* the tracking commit after the run (zero: none) */
	ss_review_gated gated;   /* what the review gate held back or took in (sync/review.h) */
	size_t waiting;          /* changes waiting for review after the run (not rejected) */
} ss_pull_result;

void ss_pull_result_release(ss_pull_result *r);

/*
 * Runs the steps above. Returns 0 (up to date, fetched, fast-forward, merged), or the code
 * of the step that stopped: SS_ENETWORK / SS_EAUTH from the space, SS_EEXISTS (uncommitted
 * changes in the way), SS_EMERGE (conflicts, or a merge still waiting to be concluded),
 * SS_EINVALID (--ff-only and histories diverged). out is filled as far as the run got.
 */
int ss_pull_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_pull_opts *opts,
                ss_pull_result *out, ss_error *err);

#endif
