/*
 * history.h: the clone's history for `skillsync log`: the person's commits, the merges that
 * brought the space's changes in, and the tracking commits (one per fetch that changed the
 * view, whose messages say what changed, who changed it, and the records' notes).
 *
 * The history is every commit reachable from main, then the tracking commits fetched but not
 * merged yet (listed first, as the newest). Each entry says where it came from: a merge; a
 * tracking commit (fetched and not merged, or reachable from the tracking ref and authored by
 * skillsync itself: after a push the tracking ref may name main's own commit); else the
 * person's commit. A person without a git identity commits as skillsync's default author, so
 * their pushed commits read as the space's. Work follows the length of the history asked for,
 * never the size of the space (a skill's history compares one top-level entry per commit).
 */
#ifndef SS_HISTORY_H
#define SS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/util/buf.h"
#include "core/util/error.h"

typedef enum ss_history_kind {
	SS_HISTORY_SPACE = 1, /* a tracking commit: what the space changed */
	SS_HISTORY_LOCAL,     /* the person's commit on main */
	SS_HISTORY_MERGE,     /* a merge of the space's changes into main */
} ss_history_kind;

typedef struct ss_history_entry {
	ss_commit_info info; /* owned by the list */
	ss_history_kind kind;
	bool merged; /* reachable from main (false: fetched, not merged yet) */
} ss_history_entry;

typedef struct ss_history {
	ss_history_entry *items; /* newest first */
	size_t count;
} ss_history;

/*
 * The history of the clone, or of one skill (a top-level name: only the commits that changed
 * it), at most max entries (0: all). An empty repository gives an empty list.
 */
int ss_history_list(ss_repo *repo, const char *skill, size_t max, ss_history *out, ss_error *err);
void ss_history_release(ss_history *h);

/* The name of a kind, for --json: "space", "local", "merge". */
const char *ss_history_kind_name(ss_history_kind kind);

/*
 * Appends to out the part of a commit message about one skill: the paragraphs (blocks of lines
 * separated by blank lines, or a line starting at the margin with the indented lines under it)
 * that name the skill as a whole word. Appends nothing when no part names it.
 */
void ss_history_excerpt(const char *message, const char *skill, ss_buf *out);

#endif
