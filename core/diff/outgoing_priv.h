/*
 * outgoing_priv.h: what core/diff/outgoing*.c share (nothing else includes it).
 * outgoing.c diffs the trees and asks the state; outgoing_fill.c finds renames and builds the
 * notes and record texts.
 */
#ifndef SS_OUTGOING_PRIV_H
#define SS_OUTGOING_PRIV_H

#include <stdint.h>

#include "core/diff/note.h"
#include "core/diff/outgoing.h"
#include "core/git/commit.h"
#include "core/state/state_record.h"

#define SS_OUTGOING_SKILL_MD "SKILL.md"

/* A change's subtree in the tracking tree (old) and in HEAD's (new); zero on a missing side. */
typedef struct ss_outgoing_subtrees {
	ss_oid old, new;
} ss_outgoing_subtrees;

struct ss_outgoing {
	ss_repo *repo;
	ss_state *st;
	char *me;
	char *time; /* the push time as a record datetime */
	ss_oid tracking, tracking_tree, head, head_tree;
	ss_plan_change *changes; /* names and renamed_from owned */
	size_t nchanges, changes_alloc;
	ss_outgoing_subtrees *subtrees; /* per change, from the top-level diff */
	size_t subtrees_alloc;
	char **outside;
	size_t noutside, outside_alloc;
	ss_plan *plan;
	ss_outgoing_item *items;
	size_t nitems;
	ss_outgoing_refusal *refused; /* names borrowed from the plan, reports owned */
	size_t nrefused;
};

/* The plan's lookup over the state (payload: ss_outgoing_lookup). */
typedef struct ss_outgoing_lookup {
	ss_state *st;
	const char *me;
	const char *authority;
	ss_state_record mine;
	ss_state_view_entry view;
	char *view_from, *next_from;
} ss_outgoing_lookup;

int ss_outgoing_lookup_fn(void *payload, const char *name, ss_plan_owner *out, ss_error *err);
void ss_outgoing__lookup_release(ss_outgoing_lookup *l);

/* Pairs removed and added skills that are one renamed directory (sets renamed_from). */
int ss_outgoing__find_renames(ss_outgoing *o, ss_error *err);

/* Builds the items (trees, notes, records) for the plan. */
int ss_outgoing__fill(ss_outgoing *o, unsigned flags, ss_error *err);

#endif
