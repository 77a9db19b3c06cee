/* gate.c: the review gate's one decision, pure (see core/diff/gate.h). */
#include "core/diff/gate.h"

#include <string.h>

/* By DID alone: a handle can later name another account (review.trust is stored as DIDs). */
static bool trusted(const ss_gate_change *c, const ss_gate_rules *r)
{
	for (size_t i = 0; c->did && i < r->ntrust; i++)
		if (r->trust[i] && !strcmp(r->trust[i], c->did))
			return true;
	return false;
}

ss_gate_verdict ss_gate_decide(const ss_gate_change *c, const ss_gate_rules *r)
{
	if (c->did && r->me && !strcmp(c->did, r->me))
		return SS_GATE_MINE;
	if (r->pinned)
		return SS_GATE_HOLD_PINNED;
	if (trusted(c, r))
		return SS_GATE_TRUSTED;
	switch (r->policy) {
	case SS_GATE_OFF:
		return SS_GATE_MERGE;
	case SS_GATE_ALL:
		return SS_GATE_HOLD_ALL;
	case SS_GATE_SCRIPTS:
		break;
	}
	if (c->high_finding)
		return SS_GATE_HOLD_FINDING;
	if (c->grant)
		return SS_GATE_HOLD_GRANT;
	if (c->scripts)
		return SS_GATE_HOLD_SCRIPTS;
	return SS_GATE_MERGE;
}

bool ss_gate_held(ss_gate_verdict v)
{
	return v >= SS_GATE_HOLD_PINNED;
}

const char *ss_gate_reason(ss_gate_verdict v)
{
	switch (v) {
	case SS_GATE_HOLD_PINNED:
		return "pinned";
	case SS_GATE_HOLD_FINDING:
		return "a high audit finding";
	case SS_GATE_HOLD_SCRIPTS:
		return "changes scripts";
	case SS_GATE_HOLD_ALL:
		return "review.policy is all";
	case SS_GATE_HOLD_GRANT:
		return "widens allowed-tools";
	case SS_GATE_MERGE:
	case SS_GATE_MINE:
	case SS_GATE_TRUSTED:
		break;
	}
	return "";
}

bool ss_gate_policy_parse(const char *s, ss_gate_policy *out)
{
	static const struct {
		const char *name;
		ss_gate_policy p;
	} names[] = {{"scripts", SS_GATE_SCRIPTS}, {"all", SS_GATE_ALL}, {"off", SS_GATE_OFF}};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].p;
			return true;
		}
	return false;
}
