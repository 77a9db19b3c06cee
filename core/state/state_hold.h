/*
 * state_hold.h: the review gate's state (core/state/state_hold.c, tables holds and pins of
 * schema version 7, what review showed and gate_facts of version 8): the changes held for
 * review, and the pinned skills.
 *
 * A hold is one skill's version that the space's view has and main does not (docs/GIT-MODEL.md,
 * "Held changes"): who wrote it, its record's CID, its subtree, the subtree main keeps
 * meanwhile (NULL: main has none, a new skill), why it is held, and whether the person
 * rejected it (no reminder until that member writes another version: a put with another CID
 * clears it). Which version `review` last showed (seen): none, this one, or an earlier one
 * that a pull has since replaced; accept takes a hold only as it was shown (sync/review.h).
 * A pin is a skill name whose changes by others are all held. The gate's facts of a change
 * are kept per (kept subtree, held subtree, rules key) so that a waiting change is not read
 * and audited again on every pull; what the facts and the key are is the caller's.
 * Rules: one hold per name; the caller holds the clone's lock; writes go with the state's
 * transaction when one is open. Both are mirrored in <gitdir>/skillsync/holds, from which a
 * damaged state gets them back (core/state/state_mirror.c).
 */
#ifndef SS_STATE_HOLD_H
#define SS_STATE_HOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/state/state.h"
#include "core/util/error.h"

/* What `review` showed of a hold. */
typedef enum ss_state_seen {
	SS_SEEN_NEVER = 0, /* not shown */
	SS_SEEN_THIS,      /* this version (same held subtree and CID) */
	SS_SEEN_EARLIER,   /* an earlier version, replaced since by a pull */
} ss_state_seen;

typedef struct ss_state_hold {
	const char *name;
	const char *did;        /* who wrote the held version; NULL: the name left the view */
	const char *cid;        /* its record's CID; NULL when it left the view */
	const char *view_tree;  /* the held subtree (40 hex); NULL when it left the view */
	const char *kept_tree;  /* what main keeps meanwhile; NULL: nothing (a new skill) */
	const char *reason;     /* why it is held (ss_gate_reason) */
	const char *updated_at; /* the record's updatedAt; NULL when unknown */
	bool rejected;
	ss_state_seen seen;
	bool replaced; /* the last pull put this version in place of another held one */
} ss_state_hold;

void ss_state_hold_release(ss_state_hold *h);
/* *out becomes a copy of h that it owns (ss_state_hold_release). */
void ss_state_hold_copy(ss_state_hold *out, const ss_state_hold *h);

/* Inserts or replaces name's hold; rejected is kept when the CID is the same, else cleared
 * (h->rejected is ignored); seen is kept when the version (held subtree and CID) is the same,
 * else SS_SEEN_EARLIER when one was shown (h->seen is ignored). */
int ss_state_hold_put(ss_state *st, const ss_state_hold *h, ss_error *err);
/* SS_ENOTFOUND when name is not held. */
int ss_state_hold_get(ss_state *st, const char *name, ss_state_hold *out, ss_error *err);
/* A missing hold is fine. */
int ss_state_hold_remove(ss_state *st, const char *name, ss_error *err);
/* SS_ENOTFOUND when name is not held. */
int ss_state_hold_reject(ss_state *st, const char *name, ss_error *err);
/* review showed name's hold as the version (view_tree, cid; NULL: none): marked
 * SS_SEEN_THIS when the hold still names that version, else nothing changes. */
int ss_state_hold_shown(ss_state *st, const char *name, const char *view_tree, const char *cid,
                        ss_error *err);
/* Every hold by name; borrowed for the call; non-zero from fn stops and is returned. */
typedef int (*ss_state_hold_fn)(const ss_state_hold *h, void *payload);
int ss_state_hold_each(ss_state *st, ss_state_hold_fn fn, void *payload, ss_error *err);
/* How many holds wait (not rejected). */
int ss_state_hold_waiting(ss_state *st, size_t *out, ss_error *err);

/* The gate's facts of the change from kept (NULL: none) to view under rules: *facts (free())
 * or SS_ENOTFOUND; put stores them; prune forgets those of every pair no hold names. */
int ss_state_hold_facts_get(ss_state *st, const char *kept, const char *view, const char *rules,
                            char **facts, ss_error *err);
int ss_state_hold_facts_put(ss_state *st, const char *kept, const char *view, const char *rules,
                            const char *facts, ss_error *err);
int ss_state_hold_facts_prune(ss_state *st, ss_error *err);

/* Pins: set (on) or removed; whether name is pinned; every pinned name, sorted. */
int ss_state_pin_set(ss_state *st, const char *name, bool on, ss_error *err);
int ss_state_pin_get(ss_state *st, const char *name, bool *out, ss_error *err);
typedef int (*ss_state_pin_fn)(const char *name, void *payload);
int ss_state_pin_each(ss_state *st, ss_state_pin_fn fn, void *payload, ss_error *err);

#endif
