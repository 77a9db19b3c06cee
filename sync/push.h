/*
 * push.h: send my committed skill changes to my repo in the space (docs/PUSH.md).
 *
 * One run (what a killed run left was finished by ss_recover_clone, sync/recover.h, when the
 * caller took the lock): compute what HEAD changes against the tracking commit
 * (core/diff/outgoing.h) and check every skill it sends; when any is refused, send nothing
 * (SS_EINVALID; the result's outgoing lists every refused skill with all its problems: a push
 * sends HEAD whole, as git pushes one ref, or nothing; a dry run fails the same way); journal
 * the writes; send them in requests of at most 200 writes and
 * ~1,000,000 bytes, the first guarded by my repo's commit as of the last fetch (moved
 * meanwhile: SS_ECONFLICT "pull first", nothing written), each next one by the commit the
 * previous made; then, in one state transaction, record the new CIDs, my repo's new commit,
 * and the tracking commit: HEAD itself when the new view holds exactly HEAD's skills (as git
 * push moves origin/main: no merge on main), else a new commit (parent: the previous one)
 * whose tree is the new view, pushed skills keeping the exact subtrees HEAD has, which
 * ss_push_conclude merges into main; the ref follows.
 *
 * Crash safety: the journal (core/state/state_journal.h) is written before any request. A run
 * killed anywhere leaves it; the next push or pull (ss_recover_clone, before anything else reaches
 * the space) asks the server which journaled writes landed (my records' CIDs and updatedAt),
 * and finishes exactly those: nothing sent twice, nothing lost, no false "pull first".
 *
 * Rules: the caller holds the clone's lock; nothing here prints or exits, except the test-only
 * kill points (core/util/crash.h: "before-batch-N", "after-batch-N", "before-state", "before-ref",
 * "before-main"; docs/PUSH.md), which also fire when a recovery finishes landed writes.
 */
#ifndef SS_PUSH_H
#define SS_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diff/outgoing.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/error.h"
#include "sync/transport/space.h"

typedef struct ss_push_opts {
	bool dry_run;   /* compute, check and return the plan, send nothing */
	int64_t now_ms; /* the push time; 0: now */
	/* May be NULL: the writes that landed so far of all this run sends, called with payload
	 * before the first request (0) and after each. */
	void (*progress)(void *payload, size_t written, size_t total);
	void *payload;
} ss_push_opts;

typedef struct ss_push_result {
	ss_outgoing *outgoing; /* what was (or would be) sent, and the refused skills (set also when
	                        * the run fails for them); NULL when nothing was computed */
	size_t sent;           /* writes that landed */
	size_t requests;       /* write requests sent */
	bool changed;          /* a new tracking commit was written */
	ss_oid tracking;       /* the tracking commit after the run */
	size_t blobs_uploaded; /* files sent as blobs (docs/RECORD-FORMAT.md), and their bytes */
	size_t blob_bytes;
} ss_push_result;

void ss_push_result_release(ss_push_result *r);

/* What a push would send now (filled by ss_push_preview). */
typedef struct ss_push_plan {
	ss_outgoing *outgoing; /* the writes, notes and notices; NULL until computed */
	const char *me;        /* my DID (borrowed from the state); NULL in a read-only clone */
	ss_oid head;           /* the commit a push would send */
	ss_oid tracking;       /* the tracking commit it is compared with; zero: none */
} ss_push_plan;

/*
 * Computes, without writing anything, what pushing HEAD now would send (core/diff/outgoing.h with
 * flags, push time now_ms): the one computation behind push, `push --dry-run`, `status` and
 * `diff --pushed`. SS_EINVALID when nothing is committed yet; SS_ECONFLICT "run 'skillsync
 * pull' first" when HEAD does not contain the tracking commit (a fetch brought changes not
 * merged yet: a plan against that view would undo them). Release *out in every case.
 */
int ss_push_preview(ss_repo *repo, ss_state *st, int64_t now_ms, unsigned flags, ss_push_plan *out,
                    ss_error *err);
void ss_push_plan_release(ss_push_plan *p);

int ss_push_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_push_opts *opts,
                ss_push_result *out, ss_error *err);

/*
 * Finishes an interrupted push, if the journal holds one: *landed (may be NULL) receives the
 * number of its writes found on the server. A no-op without a journal. Run by
 * ss_recover_clone only (sync/recover.h), which then concludes.
 */
int ss_push_recover(ss_repo *repo, ss_state *st, ss_space *sp, size_t *landed, ss_error *err);

/*
 * Makes main contain the tracking commit the last push made when that is not HEAD itself (the
 * view differs from main), so that main is not "behind" and the next pull has nothing to
 * merge: a merge commit of HEAD and that tracking commit whose tree is HEAD's own (merging
 * changes no file). Done only when the tracking ref is still the push's commit (config
 * "pushed_tracking"), main does not contain it yet, main contains the pushed HEAD (config
 * "pushed"), and no merge is in progress; a push runs it after its ref update, and
 * ss_recover_clone runs it to finish a push killed before. *concluded (may be NULL).
 */
int ss_push_conclude(ss_repo *repo, ss_state *st, bool *concluded, ss_error *err);

#endif
