/* The audit (core/skill/audit.h): any file, as SKILL.md, as Markdown beside it and as a program,
 * is audited without a crash or a sanitizer report; every finding's line is one of the file's
 * (0 for the file as a whole), its excerpt holds no raw control character, and a rule's
 * finding has the rule's level, its weaker form's or, for a command rule in Markdown prose,
 * info. */
#include "tests/fuzz/fuzz.h"

#include "core/skill/audit.h"

static const char *const paths[] = {"SKILL.md", "references/notes.md", "scripts/run.sh"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *bytes = (const char *)data;
	size_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += bytes[i] == '\n';
	for (size_t p = 0; p < sizeof(paths) / sizeof(*paths); p++) {
		ss_audit_report r;

		ss_audit_report_init(&r);
		ss_audit_file(&r, "fuzz", paths[p], bytes, size, p == 2);
		for (size_t i = 0; i < r.n; i++) {
			const ss_audit_finding *f = &r.findings[i];
			const ss_audit_rule_info *rule = NULL;

			fuzz_check(f->line <= lines, "a finding past the file's last line");
			for (const char *c = f->excerpt; *c; c++)
				fuzz_check(((unsigned char)*c >= 0x20 || *c == '\t') && *c != 0x7f,
				           "a raw control character in an excerpt");
			for (size_t k = 0; k < ss_audit_rule_count(); k++)
				if (!strcmp(ss_audit_rule_at(k)->id, f->rule))
					rule = ss_audit_rule_at(k);
			fuzz_check(!rule || f->level == rule->level ||
			               f->level == rule->weak_level || f->level == SS_AUDIT_INFO,
			           "a finding at a level its rule does not give");
		}
		ss_audit_report_release(&r);
	}
	return 0;
}
