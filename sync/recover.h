/*
 * recover.h: finishing what killed runs left in a clone, once per command, right after it
 * took the clone's lock (cli_lock_clone is the one caller).
 *
 * The steps, in this order (docs/SCHEDULE.md says why):
 *   1. a merge killed midway (ss_merge_recover): finished or undone; it touches only git, and
 *      the steps after it read main. A path that needs the person stops everything here
 *      (SS_EEXISTS naming it), and the next command says the same;
 *   2. an interrupted push (ss_push_recover): the server says which journaled writes landed
 *      and exactly those are recorded as pushed. It needs the space: a command that does not
 *      reach it (sp NULL: commit, members, push --dry-run) leaves the journal to the next push
 *      or pull. It comes before any fetch, which would take the landed writes in as the
 *      space's changes;
 *   3. main takes in the tracking commit a finished push made (ss_push_conclude);
 *   4. a tracking ref the state is ahead of, left by a fetch or push killed between its state
 *      transaction and its ref update (ss_fetch_recover).
 * Each step finishes or drops exactly what it finds and is itself safe to kill.
 */
#ifndef SS_RECOVER_H
#define SS_RECOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/error.h"
#include "sync/transport/space.h"

/* What the recovery finished. */
typedef struct ss_recovered {
	bool merge;  /* a merge killed midway was finished or undone */
	size_t push; /* writes of an interrupted push found landed and recorded */
	bool fetch;  /* the tracking ref moved to the commit the state names */
} ss_recovered;

/* Runs the steps above for the clone repo/st; sp may be NULL (step 2 waits). out may be NULL. */
int ss_recover_clone(ss_repo *repo, ss_state *st, ss_space *sp, ss_recovered *out, ss_error *err);

#endif
