/*
 * fetch.h: bring the space's records into the clone: the state and a new tracking commit.
 *
 * One run (clone's first fetch, later `fetch` and `pull`):
 *   1. heads: every member's current commit/revision (one small request per member);
 *   2. list only the members whose revision moved since the state last saw them (all members
 *      in flight at once); each record as it arrives: unchanged CID -> kept as is (its
 *      subtree OID stays: stable rendering); else decoded, validated and rendered into a
 *      subtree right away (core/git/render.h), its metadata saved in the state; an invalid
 *      (hostile) record is saved as invalid and reported once through opts->report;
 *   3. the view, computed from the state's metadata alone (core/diff/view.h), becomes the top tree
 *      of a new tracking commit (parent: the previous one) whose message says what changed,
 *      who changed it, and the records' notes; no commit when the view did not change.
 * Memory stays flat as the space grows: record bodies go straight into git objects, only
 * names and ids stay in memory. The state and the tracking ref change together: the state's
 * transaction commits first (it names the new tracking commit), then the ref moves; a run
 * killed in between is finished by the next one (the ref is moved to what the state names).
 */
#ifndef SS_FETCH_H
#define SS_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/error.h"
#include "sync/transport/space.h"

typedef struct ss_fetch_opts {
	/* One skipped record: who wrote it, its key, why (one line), and whether it was refused
	 * because what the server sent does not verify (sync/transport/space.h:
	 * ss_space_record.refused) rather than for being invalid itself. May be NULL. */
	void (*report)(void *payload, const char *did, const char *handle, const char *rkey,
	               const char *reason, bool refused);
	/*
	 * A member that could not be read this time (why: one line naming it). Its last known
	 * versions stay in the view and the others sync. NULL: such a member fails the run.
	 */
	void (*unreachable)(void *payload, const char *did, const char *handle, const char *why);
	/*
	 * A member whose read refused an answer of its server as not verifying (a replayed older
	 * commit, a bad signature, a block that does not hash: docs/SECURITY.md), then checked out
	 * when read again (why: one line naming it and what was wrong). The member synced; the
	 * run goes on. May be NULL.
	 */
	void (*caught)(void *payload, const char *did, const char *handle, const char *why);
	/* Progress: records handled so far, members listed so far of members to list. */
	void (*progress)(void *payload, size_t records, size_t members_done, size_t members);
	void *payload;
	/* The tracking commit's first line when the view changed (default "fetch"). */
	const char *subject;
} ss_fetch_opts;

/* How one member was read this run (sync/transport/space.h: ss_space_read), strings owned. */
typedef struct ss_fetch_read {
	char *did;
	char *path;
	bool verified;
	char *fallback; /* NULL when the incremental way was taken or not asked */
} ss_fetch_read;

/* A member that could not be read this run, or whose read was refused (strings owned). */
typedef struct ss_fetch_failed {
	char *did;
	char *why; /* one line naming it */
} ss_fetch_failed;

typedef struct ss_fetch_result {
	bool changed;       /* a new tracking commit was written */
	ss_oid commit;      /* the tracking commit after the run (zero when there is none) */
	size_t listed;      /* members whose records were listed */
	size_t records;     /* records received */
	size_t skipped;     /* invalid records received */
	size_t refused;     /* ... of which refused as what the server sent does not verify */
	size_t unreachable; /* members that could not be read (opts->unreachable) */
	size_t caught;      /* members synced after an answer refused as not verifying */
	size_t added, updated, removed; /* view changes */
	/* members listed in full, listed since their last revision, and listed in full although
	 * an incremental listing was asked (the server refused `since`, or the tree could not be
	 * completed) */
	size_t full_listings, incremental_listings, fallbacks;
	/* blobs read from the members' PDSes, and taken from the last version's files instead */
	size_t blobs_fetched, blobs_reused;
	/* every member read this run, in the order its read ended (also one refused: verified
	 * false); release with ss_fetch_result_release */
	ss_fetch_read *reads;
	size_t nreads;
	/* the members counted in unreachable or caught, with why, in the order they failed */
	ss_fetch_failed *failed;
	size_t nfailed;
} ss_fetch_result;

void ss_fetch_result_release(ss_fetch_result *r);

/*
 * Runs a fetch over sp for the clone repo/st (the state's members are the ones to follow:
 * heads() must name them). The caller holds the clone's lock. SS_ENETWORK / SS_EAUTH from the
 * transport leave the state and the tracking ref as they were; with opts->unreachable, a
 * member that cannot be read is only reported and the run goes on without it.
 */
int ss_fetch_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_fetch_opts *opts,
                 ss_fetch_result *out, ss_error *err);

/*
 * Finishes a run killed between its state commit and its ref update (see above); a no-op when
 * the tracking ref already names what the state names.
 */
int ss_fetch_recover(ss_repo *repo, ss_state *st, ss_error *err);

#endif
