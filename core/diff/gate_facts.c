/* gate_facts.c: what the review gate is told about one change, read from the repository
 * (see ss_gate_facts in core/diff/gate.h). */
#include "core/diff/gate.h"

#include <string.h>

#include "core/git/tree.h"
#include "core/skill/audit.h"
#include "core/util/buf.h"

/* A file the gate counts as code: executable, or anywhere under scripts/. */
static bool is_code(const ss_change *c)
{
	return !strncmp(c->path, "scripts/", 8) || c->new_mode == SS_MODE_EXEC;
}

int ss_gate_facts(ss_repo *repo, const char *skill, const ss_oid *old_tree, const ss_oid *new_tree,
                  ss_gate_change *out, ss_changes *files, ss_audit_report *findings, ss_error *err)
{
	ss_changes diff = {NULL, 0};
	ss_audit_report audit;
	ss_buf bytes = SS_BUF_INIT;
	int ret = 0;

	ss_audit_report_init(&audit);
	out->scripts = false;
	out->high_finding = false;
	if (!new_tree) { /* the skill left the view: nothing comes in that could run */
		if (files)
			*files = diff;
		return 0;
	}
	if ((ret = ss_tree_diff_files(repo, old_tree, new_tree, &diff, err)) < 0)
		return ret;
	/* what comes in: each file the new version adds or changes, audited as it is */
	for (size_t i = 0; ret == 0 && i < diff.count; i++) {
		const ss_change *c = &diff.items[i];

		if (c->kind == SS_CHANGE_REMOVED)
			continue;
		if (is_code(c))
			out->scripts = true;
		ss_buf_clear(&bytes);
		if ((ret = ss_tree_read_file(repo, new_tree, c->path, &bytes, err)) == 0)
			ss_audit_file(&audit, skill, c->path, bytes.ptr ? bytes.ptr : "", bytes.len,
			              c->new_mode == SS_MODE_EXEC);
	}
	ss_buf_release(&bytes);
	if (ret < 0) {
		ss_tree_changes_release(&diff);
		ss_audit_report_release(&audit);
		return ret;
	}
	out->high_finding = ss_audit_worst(&audit) == SS_AUDIT_HIGH;
	if (findings) {
		ss_audit_report_release(findings);
		*findings = audit;
	} else {
		ss_audit_report_release(&audit);
	}
	if (files)
		*files = diff;
	else
		ss_tree_changes_release(&diff);
	return 0;
}
