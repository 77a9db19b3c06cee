/* gate_facts.c: what the review gate is told about one change, read from the repository
 * (see ss_gate_facts in core/diff/gate.h). */
#include "core/diff/gate.h"

#include <stdlib.h>
#include <string.h>

#include "core/git/tree.h"
#include "core/skill/audit.h"
#include "core/skill/grants.h"
#include "core/skill/program.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

/* One file in one version: its bytes, and whether the version has it at all. */
typedef struct side {
	ss_buf bytes;
	bool present;
} side;

/* Reads path in tree (no tree, or a removed side: not present). */
static int read_side(ss_repo *repo, const ss_oid *tree, const char *path, unsigned mode, side *s,
                     ss_error *err)
{
	ss_buf_clear(&s->bytes);
	s->present = tree && mode;
	return s->present ? ss_tree_read_file(repo, tree, path, &s->bytes, err) : 0;
}

static const char *bytes_of(const side *s)
{
	return s->present ? (s->bytes.ptr ? s->bytes.ptr : "") : NULL;
}

/* The facts one added or changed file gives, both versions audited (kept: the old one's). A
 * binary file is code until proven otherwise: nobody reads what it does in a review. */
static void judge(const char *skill, const ss_change *c, const side *was, const side *is,
                  ss_gate_change *out, ss_audit_report *kept, ss_audit_report *now)
{
	bool was_exec = c->old_mode == SS_MODE_EXEC, is_exec = c->new_mode == SS_MODE_EXEC;

	ss_audit_file(now, skill, c->path, bytes_of(is), is->bytes.len, is_exec);
	if (ss_program_is(c->path, bytes_of(is), is->bytes.len, is_exec) ||
	    !ss_utf8_text(bytes_of(is), is->bytes.len))
		out->scripts = true;
	if (was->present) {
		ss_audit_file(kept, skill, c->path, bytes_of(was), was->bytes.len, was_exec);
		if (ss_program_is(c->path, bytes_of(was), was->bytes.len, was_exec))
			out->scripts = true;
	}
	if (!strcmp(c->path, "SKILL.md") &&
	    ss_grants_widen(bytes_of(was), was->bytes.len, bytes_of(is), is->bytes.len))
		out->grant = true;
}

/* Reads and judges each file the new version adds or changes. */
static int judge_all(ss_repo *repo, const char *skill, const ss_oid *old_tree,
                     const ss_oid *new_tree, const ss_changes *diff, ss_gate_change *out,
                     ss_audit_report *kept, ss_audit_report *now, ss_error *err)
{
	side was = {SS_BUF_INIT, false}, is = {SS_BUF_INIT, false};
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < diff->count; i++) {
		const ss_change *c = &diff->items[i];

		if (c->kind == SS_CHANGE_REMOVED)
			continue; /* nothing comes in that could run */
		if ((ret = read_side(repo, old_tree, c->path, c->old_mode, &was, err)) == 0 &&
		    (ret = read_side(repo, new_tree, c->path, c->new_mode, &is, err)) == 0)
			judge(skill, c, &was, &is, out, kept, now);
	}
	ss_buf_release(&was.bytes);
	ss_buf_release(&is.bytes);
	return ret;
}

int ss_gate_facts(ss_repo *repo, const char *skill, const ss_oid *old_tree, const ss_oid *new_tree,
                  ss_gate_change *out, ss_changes *files, ss_audit_report *findings, ss_error *err)
{
	ss_changes diff = {NULL, 0};
	ss_audit_report kept, now;
	int ret = 0;

	out->scripts = out->high_finding = out->grant = false;
	if (!new_tree) { /* the skill left the view: nothing comes in that could run */
		if (files)
			*files = diff;
		return 0;
	}
	if ((ret = ss_tree_diff_files(repo, old_tree, new_tree, &diff, err)) < 0)
		return ret;
	ss_audit_report_init(&kept);
	ss_audit_report_init(&now);
	if ((ret = judge_all(repo, skill, old_tree, new_tree, &diff, out, &kept, &now, err)) < 0) {
		ss_tree_changes_release(&diff);
		ss_audit_report_release(&kept);
		ss_audit_report_release(&now);
		return ret;
	}
	out->high_finding = ss_gate_introduced(old_tree ? &kept : NULL, &now) > 0;
	ss_audit_report_release(&kept);
	if (findings) {
		ss_audit_report_release(findings);
		*findings = now;
	} else {
		ss_audit_report_release(&now);
	}
	if (files)
		*files = diff;
	else
		ss_tree_changes_release(&diff);
	return 0;
}

/* ---- the high findings a change introduces ---- */

static int by_key(const void *a, const void *b)
{
	const ss_audit_finding *x = *(const ss_audit_finding *const *)a;
	const ss_audit_finding *y = *(const ss_audit_finding *const *)b;
	int d = strcmp(x->path, y->path);

	if (!d)
		d = strcmp(x->rule, y->rule);
	return d ? d : strcmp(x->excerpt, y->excerpt);
}

/* r's high findings, sorted by (path, rule, excerpt); *n set; free() the result. */
static const ss_audit_finding **highs(const ss_audit_report *r, size_t *n)
{
	const ss_audit_finding **out = ss_xmalloc((r ? r->n : 0) * sizeof(*out) + 1);

	*n = 0;
	for (size_t i = 0; r && i < r->n; i++)
		if (r->findings[i].level == SS_AUDIT_HIGH)
			out[(*n)++] = &r->findings[i];
	qsort(out, *n, sizeof(*out), by_key);
	return out;
}

size_t ss_gate_introduced(const ss_audit_report *kept, const ss_audit_report *now)
{
	size_t nk, nn, i = 0, j = 0, fresh = 0;
	const ss_audit_finding **k = highs(kept, &nk), **n = highs(now, &nn);

	/* a merge of the two sorted lists: each finding of now matches at most one of kept */
	while (j < nn) {
		int d = i < nk ? by_key(&k[i], &n[j]) : 1;

		if (d < 0) {
			i++;
		} else if (d == 0) {
			i++;
			j++;
		} else {
			fresh++;
			j++;
		}
	}
	free(k);
	free(n);
	return fresh;
}
