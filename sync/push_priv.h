/*
 * push_priv.h: what sync/push*.c share. push.c runs a push over push_preview.c's plan;
 * push_finish.c turns landed writes into the state and the tracking commit; push_recover.c
 * finishes an interrupted push; push_conclude.c merges a tracking commit that is not main's.
 */
#ifndef SS_PUSH_PRIV_H
#define SS_PUSH_PRIV_H

#include "core/state/state_journal.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "sync/push.h"

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

#endif
