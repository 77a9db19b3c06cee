/* audit.c: the audit report and its levels (core/skill/audit.h). */
#include <stdlib.h>

#include "core/skill/audit.h"
#include "core/util/mem.h"

void ss_audit_report_init(ss_audit_report *r)
{
	r->findings = NULL;
	r->n = r->alloc = 0;
}

void ss_audit_report_release(ss_audit_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->findings[i].skill);
		free(r->findings[i].path);
		free(r->findings[i].message);
		free(r->findings[i].excerpt);
	}
	free(r->findings);
	ss_audit_report_init(r);
}

ss_audit_level ss_audit_worst(const ss_audit_report *r)
{
	ss_audit_level worst = SS_AUDIT_INFO;

	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].level > worst)
			worst = r->findings[i].level;
	return worst;
}

const char *ss_audit_level_name(ss_audit_level l)
{
	switch (l) {
	case SS_AUDIT_HIGH:
		return "high";
	case SS_AUDIT_MEDIUM:
		return "medium";
	case SS_AUDIT_LOW:
		return "low";
	case SS_AUDIT_INFO:
		break;
	}
	return "info";
}

/* Not yet: the rules arrive with core/skill/audit_rules.json. */
void ss_audit_file(ss_audit_report *r, const char *skill, const char *path, const char *bytes,
                   size_t len, bool executable)
{
	(void)r, (void)skill, (void)path, (void)bytes, (void)len, (void)executable;
}
