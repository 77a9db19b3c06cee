/*
 * audit_priv.h: what the audit's files share: the rules as compiled (core/skill/audit_rules.c)
 * and the one way a finding is added (core/skill/audit.c).
 */
#ifndef SS_AUDIT_PRIV_H
#define SS_AUDIT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/skill/audit.h"

/* The rules document's bytes, made from core/skill/audit_rules.json by cmake/embed.cmake. */
extern const unsigned char ss_audit__rules_json[];
extern const size_t ss_audit__rules_json_len;

/* What a rule looks at: a pattern over some files, or a property of the file itself. */
typedef enum ss_audit_kind {
	SS_AUDIT_KIND_REGEX,      /* "pattern" over the files of "scope" */
	SS_AUDIT_KIND_EXECUTABLE, /* the file has the executable bit */
	SS_AUDIT_KIND_SCRIPTS,    /* the file is under scripts/ and not executable */
	SS_AUDIT_KIND_SYMLINK,    /* a symbolic link (ss_audit_dir only) */
} ss_audit_kind;

typedef enum ss_audit_scope {
	SS_AUDIT_SCOPE_ANY,  /* every file */
	SS_AUDIT_SCOPE_CODE, /* programs: executable, under scripts/, a #! line or a script's suffix
	                      */
	SS_AUDIT_SCOPE_FRONTMATTER, /* SKILL.md's frontmatter */
} ss_audit_scope;

typedef struct ss_audit__rule {
	ss_audit_rule_info info;
	ss_audit_kind kind;
	ss_audit_scope scope;
	void *code; /* pcre2_code for SS_AUDIT_KIND_REGEX */
	/* The quick filter: for each group, one of its needles (lowercase) is in the file's
	 * folded copy (ss_audit__fold); non_ascii: the file has a byte past ASCII. */
	char ***needs; /* NULL-terminated groups of NULL-terminated needles, or NULL */
	bool non_ascii;
} ss_audit__rule;

/* The copy of a file the needles are looked for in: ASCII letters lowercased, and the two
 * characters that PCRE2's caseless matching folds onto ASCII letters (U+212A KELVIN SIGN,
 * U+017F LONG S) as 'k' and 's'. *out_len is set; free() the result. */
char *ss_audit__fold(const char *bytes, size_t len, size_t *out_len);
/* Whether folded (ss_audit__fold) passes rule's filter. */
bool ss_audit__needs_met(const ss_audit__rule *rule, const char *folded, size_t len,
                         bool non_ascii);

/* The compiled rules (compiled on the first call); NULL with *broken set when one failed. */
const ss_audit__rule *ss_audit__rules(size_t *n, const char **broken);

/* Runs rule's pattern over bytes[start, end) and adds what it finds (audit_rules.c). */
void ss_audit__match(ss_audit_report *r, const ss_audit__rule *rule, const char *skill,
                     const char *path, const char *bytes, size_t start, size_t end);

/* Adds a finding: line 0 with excerpt "" for the whole file; excerpt is escaped here. */
void ss_audit__add(ss_audit_report *r, const ss_audit__rule *rule, const char *skill,
                   const char *path, size_t line, const char *excerpt, size_t excerpt_len);
/* Adds a finding at byte pos of bytes[0, len): its line and that line as the excerpt. */
void ss_audit__add_at(ss_audit_report *r, const ss_audit__rule *rule, const char *skill,
                      const char *path, const char *bytes, size_t len, size_t pos, size_t line);

#endif
