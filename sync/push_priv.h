/*
 * push_priv.h: what sync/push*.c share. push.c runs a push over push_preview.c's plan;
 * push_finish.c turns landed writes into the state and the tracking commit; push_recover.c
 * finishes an interrupted push; push_conclude.c merges a tracking commit that is not main's;
 * push_decide.c holds the decisions push.c and push_recover.c make about the journal, pure.
 */
#ifndef SS_PUSH_PRIV_H
#define SS_PUSH_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/state/state_journal.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "sync/push.h"
#include "sync/transport/space.h"

/* Landed writes to record (each with its cid; deletes without). */
typedef struct ss_push_landed {
	const ss_journal_write *writes;
	size_t n;
	const char *push_time;
	const char *head;         /* the commit pushed (hex) */
	const char *commit, *rev; /* my repo after them; NULL: leave what the state says */
	ss_space *sp;             /* told where my repo is now (ss_space_landed); NULL: none */
} ss_push_landed;

/*
 * In one state transaction: my records, the view, my repo's head, a new tracking commit
 * (parent: the state's current one) and "pushed"; the journal is cleared. Then the ref moves,
 * and l->sp (when set) hears where my repo is now.
 */
int ss_push__finish(ss_repo *repo, ss_state *st, const char *me, const ss_push_landed *l,
                    ss_oid *tracking, ss_error *err);

/* *out: whether commit is tip or one of its ancestors. */
int ss_push__contains(ss_repo *repo, const ss_oid *tip, const ss_oid *commit, bool *out,
                      ss_error *err);

/*
 * What a push does when a request failed. Only a server's refusal (SS_ECONFLICT: my repo is
 * no longer at the commit the request was guarded by; SS_EINVALID, SS_EAUTH, SS_ETOOBIG) says
 * that nothing of the request was written; any other failure (an answer lost, cut or garbled,
 * a server error) may hide writes that landed.
 */
typedef enum ss_push_failure {
	SS_PUSH_CONFLICT, /* the swap was refused, nothing landed: drop the journal, "pull first" */
	SS_PUSH_REFUSED,  /* refused otherwise, nothing landed: drop the journal, say the error */
	SS_PUSH_INTERRUPTED, /* writes landed or may have: the journal stays for ss_push_recover */
} ss_push_failure;

/* The decision for a request that failed with code (its err->code); landed: how many writes
 * of this push are known to have landed (the requests' before it, and this one's). */
ss_push_failure ss_push__decide(int code, size_t landed);

/* The code the person sees for decision d over the request's code: an interrupted push's swap
 * conflict is a network failure (it may be this push's own write, resent after a lost answer:
 * the next push asks the server, no reason to pull first); any other code is kept. */
int ss_push__reported(ss_push_failure d, int code);

/* What my repo holds under a journal write's name, as the server lists it now. */
typedef struct ss_push_held {
	bool present;           /* a record of that name is listed */
	const char *updated_at; /* its updatedAt; NULL when it has none or could not be read */
} ss_push_held;

/* Whether my repo moved from the journal's base commit (NULL: no commit) to what heads()
 * says of it now (mine NULL: I am not listed): when it did not, nothing of the push landed. */
bool ss_push__moved(const char *base_commit, const ss_space_head *mine);

/* Whether journal write w landed, from what the server holds under its name: a create or
 * update landed when the record is there with this push's updatedAt (push_time: every record
 * a push writes carries it), a delete when the record is gone. A record with another updatedAt
 * is someone else's write, or an earlier push's: w did not land. */
bool ss_push__landed(const ss_journal_write *w, const char *push_time, const ss_push_held *held);

/* What the blob upload of a push needs (sync/push_blobs.c). */
typedef struct ss_push_blobs {
	ss_repo *repo;
	ss_state *st;
	ss_space *sp;
	const char *me;
	const ss_outgoing *o;
} ss_push_blobs;

/*
 * Before the writes first .. first + n - 1 are sent: every blob their records name that my
 * repo's version of the skill (the state's) does not name goes up (ss_space_upload_blob), and
 * values[i] (NULL: the item's record) becomes the record naming the mimeType the PDS stored.
 * A failure is the batch's: nothing of it was written.
 */
int ss_push__upload_blobs(const ss_push_blobs *pb, size_t first, size_t n, char **values,
                          ss_push_result *out, ss_error *err);

#endif
