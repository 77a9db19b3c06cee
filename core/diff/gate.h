/*
 * gate.h: the review gate (docs/SECURITY.md, "The review gate"): whether a change the space
 * brought for one skill merges into main, or is held until the person accepts it.
 *
 * One place decides, and it is pure: a function of the change (who wrote the version the
 * view has now, whether it adds or changes a program, whether it introduces a high audit
 * finding, whether it adds or widens an allowed-tools grant), the policy (setting
 * review.policy), the trust list (review.trust), and whether the skill is pinned. The order of
 * the rules:
 *   1. my own version (from any of my clones) is never held;
 *   2. a pinned skill holds every other change;
 *   3. a trusted member's version (by DID alone) is never held;
 *   4. policy off: nothing else is held; all: every other change is;
 *   5. policy scripts (the default): a change that introduces a high finding, or that adds or
 *      widens an allowed-tools grant, or that adds or changes a program, is held (the reason
 *      named is the first of these three that holds); the rest merges.
 * What the facts are made of (the files of the two versions, the audit of both, the grants)
 * is gate_facts.c's.
 */
#ifndef SS_GATE_H
#define SS_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/util/error.h"

typedef enum ss_gate_policy {
	SS_GATE_SCRIPTS = 0, /* the default */
	SS_GATE_ALL,
	SS_GATE_OFF,
} ss_gate_policy;

/* One skill's change, as the gate sees it; strings borrowed. */
typedef struct ss_gate_change {
	const char *did;    /* who wrote the version the view has now; NULL: the name left it */
	const char *handle; /* that member's handle when known */
	bool scripts;       /* adds or changes a program (core/skill/program.h) */
	bool high_finding;  /* introduces an audit finding of severity high */
	bool grant;         /* adds or widens SKILL.md's allowed-tools (core/skill/grants.h) */
} ss_gate_change;

typedef struct ss_gate_rules {
	ss_gate_policy policy;
	const char *me;           /* my DID; NULL in a read-only clone */
	const char *const *trust; /* review.trust: DIDs */
	size_t ntrust;
	bool pinned; /* the skill is pinned (skillsync pin) */
} ss_gate_rules;

typedef enum ss_gate_verdict {
	SS_GATE_MERGE = 0,    /* merges: no rule holds it */
	SS_GATE_MINE,         /* merges: my own version */
	SS_GATE_TRUSTED,      /* merges: a member of review.trust wrote it */
	SS_GATE_HOLD_PINNED,  /* held: the skill is pinned */
	SS_GATE_HOLD_FINDING, /* held: a high audit finding */
	SS_GATE_HOLD_SCRIPTS, /* held: a program added or changed */
	SS_GATE_HOLD_ALL,     /* held: review.policy is all */
	SS_GATE_HOLD_GRANT,   /* held: allowed-tools grants more than before */
} ss_gate_verdict;

/* The rules above. */
ss_gate_verdict ss_gate_decide(const ss_gate_change *c, const ss_gate_rules *r);
bool ss_gate_held(ss_gate_verdict v);
/* Why, in a few words ("changes scripts", "pinned", ...); "" for a change that merges. */
const char *ss_gate_reason(ss_gate_verdict v);

/* "scripts", "all", "off" -> *out; false for anything else. */
bool ss_gate_policy_parse(const char *s, ss_gate_policy *out);

/*
 * The facts of one change read from the repository (core/diff/gate_facts.c), from the version
 * main keeps (old, NULL: none, a new skill) to the new one (new, NULL: the skill left the
 * view), over the files the new version adds or changes:
 * - scripts: one of them is a program (core/skill/program.h) in the new version, or was one in
 *   the old (a program changed into a file that no longer looks like one is still a change of
 *   a program);
 * - high_finding: the audit (core/skill/audit.h) of these files in the new version finds a
 *   high finding that their audit in the old version does not have (ss_gate_introduced); for a
 *   new skill, any high finding;
 * - grant: SKILL.md is one of them and its allowed-tools grants more (core/skill/grants.h).
 * files (may be NULL) receives the file-level changes (ss_tree_changes_release), findings
 * (may be NULL, initialised by the caller) everything the audit finds in these files of the
 * new version, introduced or not.
 */
struct ss_changes;
struct ss_audit_report;
int ss_gate_facts(ss_repo *repo, const char *skill, const ss_oid *old_tree, const ss_oid *new_tree,
                  ss_gate_change *out, struct ss_changes *files, struct ss_audit_report *findings,
                  ss_error *err);

/*
 * How many high findings of now are new: not matched, one for one, by a high finding of kept
 * with the same file path, the same rule and the same excerpt (line numbers do not count: an
 * edit above a finding moves it). kept NULL: every high finding of now. Pure.
 */
size_t ss_gate_introduced(const struct ss_audit_report *kept, const struct ss_audit_report *now);

#endif
