/*
 * state_journal.h: the push journal, part of the local state (core/state/state_journal.c).
 *
 * A push writes its whole intent here before its first request: where it started (my repo's
 * commit, the tracking commit, the HEAD it pushes, its push time) and every write with the
 * request (batch) it goes in. Before a batch is sent the journal says so; after it landed, the
 * new CIDs and my repo's commit are noted. The journal is removed in the same transaction that
 * saves the state after the push. So a journal found at the start of a push or pull means a
 * push was interrupted somewhere; the server, not the journal, then says what landed (the
 * journal only names what to ask about), and sync/push.h finishes the push from there.
 *
 * The notes of a push's writes are made once, by that push: a write that did not land keeps
 * its note (ss_state_journal_keep_note, by name and pushed tree), so that the push that sends
 * it again sends the same note (core/diff/outgoing_fill.c), not one made anew against the partly
 * pushed view (whose "pushed" commit already covers the subjects). A kept note goes when a
 * write of that name lands (ss_state_journal_drop_note) or when a new journal begins without
 * a write of that name and tree (superseded: the skill changed since).
 *
 * Rules: at most one journal exists (SS_EEXISTS otherwise); the caller holds the clone's lock
 * and wraps calls in ss_state_begin/ss_state_commit where several must land together.
 */
#ifndef SS_STATE_JOURNAL_H
#define SS_STATE_JOURNAL_H

#include <stddef.h>

#include "core/atproto/write.h"
#include "core/state/state.h"
#include "core/util/error.h"

typedef struct ss_journal_write {
	ss_write_op op;
	const char *rkey;
	const char *swap_cid;   /* UPDATE/DELETE: the CID it replaces */
	const char *created_at; /* CREATE/UPDATE */
	const char *tree;       /* CREATE/UPDATE: the pushed subtree (OID hex) */
	const char *note;       /* CREATE/UPDATE: the record's note */
	size_t batch;           /* 0-based request number */
	const char *cid;        /* the new CID once its batch landed; NULL before */
} ss_journal_write;

typedef struct ss_journal {
	const char *base_commit;   /* my repo's commit the push is guarded by (NULL: no commit) */
	const char *base_tracking; /* the tracking commit the plan was made from */
	const char *head;          /* the commit pushed */
	const char *push_time;     /* the records' updatedAt */
	size_t nbatches;
	size_t sent;              /* batches whose sending began */
	size_t landed;            /* batches known to have landed */
	const char *commit, *rev; /* my repo after the last batch known to have landed */
	ss_journal_write *writes;
	size_t nwrites;
} ss_journal;

/* Frees what ss_state_journal_get handed out. */
void ss_state_journal_release(ss_journal *j);

/* Saves j (its sent/landed/commit/cid fields are ignored: nothing sent yet) and drops the kept
 * notes it supersedes. */
int ss_state_journal_begin(ss_state *st, const ss_journal *j, ss_error *err);

/* Reads the journal; SS_ENOTFOUND when there is none. */
int ss_state_journal_get(ss_state *st, ss_journal *out, ss_error *err);

/* Notes that batch is about to be sent. */
int ss_state_journal_sending(ss_state *st, size_t batch, ss_error *err);

/* Notes that batch landed: the CIDs of its writes in order (NULL for deletes), my repo's
 * commit and rev after it. */
int ss_state_journal_landed(ss_state *st, size_t batch, char *const *cids, size_t ncids,
                            const char *commit, const char *rev, ss_error *err);

/* Removes the journal (a missing one is fine); kept notes stay. */
int ss_state_journal_clear(ss_state *st, ss_error *err);

/* Keeps w's note for the next push of w's name with w's tree (deletes have none). */
int ss_state_journal_keep_note(ss_state *st, const ss_journal_write *w, ss_error *err);

/* *note (new string): the kept note of rkey with tree (OID hex); SS_ENOTFOUND when none. */
int ss_state_journal_kept_note(ss_state *st, const char *rkey, const char *tree, char **note,
                               ss_error *err);

/* Drops the kept notes of rkey (its write landed). */
int ss_state_journal_drop_note(ss_state *st, const char *rkey, ss_error *err);

#endif
