/* gate_facts.c: what the review gate is told about one change, read from the repository
 * (see ss_gate_facts in core/diff/gate.h). */
#include "core/diff/gate.h"

#include <string.h>

#include "core/git/tree.h"

/* A file the gate counts as code: executable, or anywhere under scripts/. */
static bool is_code(const ss_change *c)
{
	return !strncmp(c->path, "scripts/", 8) || c->new_mode == SS_MODE_EXEC;
}

int ss_gate_facts(ss_repo *repo, const char *skill, const ss_oid *old_tree, const ss_oid *new_tree,
                  ss_gate_change *out, ss_changes *files, ss_error *err)
{
	ss_changes diff = {NULL, 0};
	int ret;

	(void)skill;
	out->scripts = false;
	out->high_finding = false;
	if (!new_tree) { /* the skill left the view: nothing comes in that could run */
		if (files)
			*files = diff;
		return 0;
	}
	if ((ret = ss_tree_diff_files(repo, old_tree, new_tree, &diff, err)) < 0)
		return ret;
	for (size_t i = 0; i < diff.count; i++)
		if (diff.items[i].kind != SS_CHANGE_REMOVED && is_code(&diff.items[i]))
			out->scripts = true;
	/* TODO(27): the audit's high findings of the added and changed files (core/skill/audit.h)
	 */
	if (files)
		*files = diff;
	else
		ss_tree_changes_release(&diff);
	return 0;
}
