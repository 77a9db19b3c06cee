/*
 * review.h: the review gate's runs (docs/GIT-MODEL.md, "Held changes"; docs/SECURITY.md):
 * the pull's step that holds changes back, and review, accept, reject, pin and unpin.
 *
 * How held changes sit in git: the tracking commit stays the space's view, held versions
 * included (git log space/main tells what the space has). The pull merges into main not the
 * tracking commit itself but, when something is held, a hold commit: its one parent the
 * tracking commit, its tree the tracking commit's with each held skill as the merge base had
 * it (absent for a new skill). So main contains the tracking commit (push's "pull first" and
 * status's count see it merged), its tree never contains a held version, `git diff main
 * space/main` shows exactly what waits, and a later merge sees no change of the held skills
 * from that side. The state (core/state/state_hold.h) says which (name, member, record CID)
 * is held and what main keeps meanwhile; push leaves out a held skill whose main copy is
 * still the kept one (core/diff/outgoing.c). accept is an ordinary commit on main taking the
 * held subtrees; a change no longer held (unpinned, the policy changed, my own version came)
 * is taken in the same way by the next pull.
 *
 * What was reviewed is what comes in: review records in the state which version of each hold
 * it showed (held subtree and record CID); a pull that puts a newer version in place of a held
 * one says so (replaced) and the version shown becomes an earlier one; accept takes a hold only
 * when review showed its version as it is now, or when the person names that version by the
 * id review shows. accept --all leaves out rejected holds and holds whose version review has
 * not shown; naming a rejected change takes it (the name is the choice).
 *
 * Rules: the caller holds the clone's lock; nothing prints. The order survives a kill
 * anywhere: a commit that takes versions in moves main first (journaled, core/git/merge.h),
 * then the state forgets their holds; the holds a pull makes are in the state before main
 * moves, and a pull recomputes them from the same trees when it runs again.
 */
#ifndef SS_REVIEW_H
#define SS_REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/diff/gate.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/skill/audit.h"
#include "core/state/state.h"
#include "core/state/state_hold.h"
#include "core/util/error.h"

/* What the pull's gate did. */
typedef struct ss_review_gated {
	ss_oid theirs;   /* the commit to merge: the tracking commit, or the hold commit */
	size_t held;     /* skills held now (this pull's and earlier ones') */
	size_t released; /* skills taken in because they are no longer held */
	size_t replaced; /* holds this pull put a newer version in (hold.replaced) */
} ss_review_gated;

/*
 * The pull's step before its merge: every skill the space changed since main's merge base
 * with tracking, and every skill already held, goes through the gate (core/diff/gate.h) with
 * the settings review.policy and review.trust, my DID and the pins. Held ones go into the
 * state; ones no longer held are committed into main now (a fast-forward of main, which
 * refuses like any merge when uncommitted changes are in the way: SS_EEXISTS); out->theirs
 * is what the pull merges. Returns 0, or the failure's code.
 */
int ss_review_gate(ss_repo *repo, ss_state *st, const ss_oid *tracking, ss_review_gated *out,
                   ss_error *err);

/* One held change, for `review`, `status`, `show` and `pull --json`. */
typedef struct ss_review_item {
	ss_state_hold hold;       /* owned */
	char *handle;             /* the member's handle when known */
	char *note;               /* the held record's note; NULL when none */
	ss_changes files;         /* the file-level changes from the kept version to the held one */
	ss_audit_report findings; /* what the audit finds in the files the held version brings */
	ss_gate_change facts;
} ss_review_item;

typedef struct ss_review_items {
	ss_review_item *items; /* by name */
	size_t count;
} ss_review_items;

void ss_review_items_release(ss_review_items *l);

/* The held changes (names NULL/0: all; else those, SS_ENOTFOUND for a name not held);
 * with_files: their file-level changes too. */
int ss_review_list(ss_repo *repo, ss_state *st, const char *const *names, size_t nnames,
                   bool with_files, ss_review_items *out, ss_error *err);

/* review showed these items: each hold that still names the version shown is marked so
 * (core/state/state_hold.h, seen). */
int ss_review_shown(ss_state *st, const ss_review_items *l, ss_error *err);

/* The id of a hold's version that review shows and accept takes after '@' (`accept
 * pdf-forms@1a2b3c4d5e6f`): its held subtree's first SS_REVIEW_ID_LEN hex digits (full: all
 * 40), or "removed" for a skill's removal. */
#define SS_REVIEW_ID_LEN 12
void ss_review_version(const ss_state_hold *h, bool full, char out[SS_OID_HEXSZ + 1]);

/* The held change as a unified diff against what main has now (git's format), appended to
 * patch. */
int ss_review_diff(ss_repo *repo, const ss_review_item *item, ss_buf *patch, ss_error *err);

/* What accept did: the commit's message, and with --all the holds it left out and why. */
typedef struct ss_review_skip {
	char *name;
	const char *why; /* "rejected", "not reviewed yet", "changed since you reviewed it" */
} ss_review_skip;

typedef struct ss_review_accepted {
	ss_buf message;
	ss_review_skip *skipped;
	size_t nskipped;
} ss_review_accepted;

void ss_review_accepted_release(ss_review_accepted *a);

/*
 * accept: the held versions of names ("<skill>" or "<skill>@<id>", the id as
 * ss_review_version gives it; all of them with all) into main as one commit of the person's
 * ("Accept bob.test's version of pdf-forms (at://..., cid ...)"), checked out like a
 * fast-forward (merge as ss_merge_commit fills it: SS_EEXISTS when uncommitted changes are in
 * the way, nothing written), then their holds forgotten. A name is taken when review showed
 * the hold's version as it is now, or when its id names that version; else SS_EINVALID
 * (moved since it was reviewed, never reviewed, or another id) and nothing is taken.
 * all takes the holds shown as they are and not rejected, the others in out->skipped.
 * SS_ENOTFOUND for a name not held, or when nothing is held (with all: nothing to take).
 */
int ss_review_accept(ss_repo *repo, ss_state *st, const char *const *names, size_t nnames, bool all,
                     ss_merge_result *merge, ss_review_accepted *out, ss_error *err);

/* pin: name must be a skill in main (SS_ENOTFOUND); unpin: SS_ENOTFOUND when not pinned.
 * A change waiting because of the pin is re-decided by the next pull. */
int ss_review_pin(ss_repo *repo, ss_state *st, const char *name, bool on, ss_error *err);

#endif
