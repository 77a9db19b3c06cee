/*
 * review_facts.h: the review gate's facts of one change (core/diff/gate.h, ss_gate_facts), kept
 * in the state per pair of versions (core/state/state_hold.h, gate_facts), so that a change
 * waiting for review, rejected ones too, is not read and audited again on every pull.
 *
 * Rules: the key is the kept subtree, the held subtree and a digest of the audit's rules
 * document (core/skill/audit.h) with this file's FACTS_VERSION, so new rules, or facts computed
 * another way, are facts not kept yet; what is kept are the verdict's facts, one word=0/1 each
 * (a stored text lacking a field is a miss). The caller holds the clone's lock; nothing prints.
 */
#ifndef SS_REVIEW_FACTS_H
#define SS_REVIEW_FACTS_H

#include <stdbool.h>

#include "core/diff/gate.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/error.h"

/* ss_gate_facts(repo, skill, kept, view, out, NULL, NULL, err), from the state when it keeps
 * them, else computed and kept (*computed then true). did and handle of out are left as they
 * are. */
int ss_review_facts(ss_repo *repo, ss_state *st, const char *skill, const ss_oid *kept,
                    const ss_oid *view, ss_gate_change *out, bool *computed, ss_error *err);

#endif
