/*
 * outgoing.h: what `push` would send: HEAD's tree against the tracking commit's tree, made
 * into record writes to MY repo (core/diff/plan.h), each with its note and record text.
 *
 * Work follows the change: the two trees are compared at the top level only; a name is looked
 * up in the state and its subtree read only when it differs. A top-level entry is a skill
 * directory unless ss_skilldir_outside says it is outside (a README, .gitignore, .github/),
 * which is never pushed. A skill that was removed and one that was added in
 * the same push are a rename when at least half of their files are the same (SKILL.md compared
 * without its name line).
 *
 * Notes: the why is the subjects of the commits that touched the skill since the last push
 * (config "pushed" in the state: the HEAD the last push sent) and not in the tracking history,
 * oldest first; the what compares with the version the view holds (or the renamed directory).
 *
 * Checks: with SS_OUTGOING_CHECK (implied by SS_OUTGOING_RECORDS) each created or updated skill
 * is read from HEAD through the same rules as `validate` and its record must fit
 * SS_MAX_RECORD; a skill that breaks them is not an error of the computation but a refusal,
 * listed with every problem it has (ss_outgoing_refused), so push, `push --dry-run` and
 * `status` name all of them at once. Whether anything is sent then is the caller's decision
 * (a push sends nothing: sync/push.h).
 */
#ifndef SS_OUTGOING_H
#define SS_OUTGOING_H

#include <stddef.h>
#include <stdint.h>

#include "core/diff/plan.h"
#include "core/git/repo.h"
#include "core/skill/report.h"
#include "core/state/state.h"
#include "core/util/error.h"

/* What ss_outgoing_new computes besides the plan. */
enum {
	SS_OUTGOING_NOTES = 1 << 0,   /* the note of each create/update */
	SS_OUTGOING_RECORDS = 1 << 1, /* the record text of each create/update (implies NOTES
	                               * and CHECK) */
	SS_OUTGOING_CHECK = 1 << 2,   /* the checks a push makes (see above), no record kept */
};

typedef struct ss_outgoing_item {
	const ss_plan_write *write; /* borrowed from the plan */
	ss_oid tree;                /* CREATE/UPDATE: HEAD's subtree for the name */
	ss_oid old_tree;            /* the version compared with (zero: none) */
	char *note;                 /* with SS_OUTGOING_NOTES; NULL for deletes */
	char *record;               /* with SS_OUTGOING_RECORDS; NULL for deletes */
	size_t record_len;
	size_t blobs; /* with SS_OUTGOING_CHECK: its files that travel as blobs (blobFiles) */
} ss_outgoing_item;

typedef struct ss_outgoing ss_outgoing;

/*
 * Computes what pushing head (a commit) over tracking (the tracking commit; zero: none) would
 * send, for me (my DID; NULL: a read-only clone, every change then becomes a create of "mine"
 * that cannot be sent). push_ms is the push time (ms since the epoch). The state is only
 * read, in one read transaction (ss_state_read_begin): not inside one that writes.
 */
int ss_outgoing_new(ss_outgoing **out, ss_repo *repo, ss_state *st, const char *me,
                    const ss_oid *tracking, const ss_oid *head, int64_t push_ms, unsigned flags,
                    ss_error *err);
void ss_outgoing_free(ss_outgoing *o);

const ss_plan *ss_outgoing_plan(const ss_outgoing *o);
/* The items, in the plan's order (item i is the plan's write i). */
size_t ss_outgoing_count(const ss_outgoing *o);
const ss_outgoing_item *ss_outgoing_get(const ss_outgoing *o, size_t i);
/* Top-level names outside skill directories that differ between the trees (never pushed). */
size_t ss_outgoing_outside_count(const ss_outgoing *o);
const char *ss_outgoing_outside(const ss_outgoing *o, size_t i);
/* A skill a push refuses (SS_OUTGOING_CHECK), in the plan's order: its name and its report
 * (every error, warnings too), both living as long as o. */
typedef struct ss_outgoing_refusal {
	const char *name;
	const ss_report *report;
} ss_outgoing_refusal;

size_t ss_outgoing_refused_count(const ss_outgoing *o);
const ss_outgoing_refusal *ss_outgoing_refused(const ss_outgoing *o, size_t i);

/* The push time as a record datetime. */
const char *ss_outgoing_time(const ss_outgoing *o);

/* Whether tree's entry name is a skill directory (a tree, not outside: ss_skilldir_outside). */
int ss_outgoing_is_skill(ss_repo *repo, const ss_oid *tree, const char *name, ss_oid *subtree,
                         bool *is_skill, ss_error *err);

#endif
