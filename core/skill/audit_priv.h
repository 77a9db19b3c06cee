/*
 * audit_priv.h: what the audit's files share: the rules as compiled (core/skill/audit_rules.c)
 * and the one way a finding is added (core/skill/audit.c).
 */
#ifndef SS_AUDIT_PRIV_H
#define SS_AUDIT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	SS_AUDIT_KIND_BINARY,     /* a binary file (ss_audit__binary): not searched as text */
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
	/* "commands": in Markdown that is not a program, the rule's level holds only where
	 * commands are (ss_audit__commands_only); elsewhere its findings are info */
	bool commands;
	/* "foldConfusables": the pattern runs over the text with look-alikes folded
	 * (ss_audit__unconfuse) */
	bool fold_confusables;
	/* "weakLevel": a match in which the pattern's group named "weak" took part (a weaker form
	 * of what the rule looks for) is at info.weak_level, if lower; weak_group is that group's
	 * number, 0 when the rule has none. The group does not place the finding. */
	int weak_group;
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

/* The file a finding is about. */
typedef struct ss_audit__file {
	const char *skill, *path;
	const char *bytes;
	size_t len;
} ss_audit__file;

/* One run of a rule's pattern: over text[start, end), the file itself or a copy of it (map[i]:
 * the file's offset of the copy's byte i; NULL when the offsets are the file's), its findings
 * at level; a line that holds one of r's findings [skip_start, skip_end) is not reported. */
typedef struct ss_audit__pass {
	const char *text;
	size_t start, end;
	const uint32_t *map;
	ss_audit_level level;
	size_t skip_start, skip_end;
	size_t max_steps; /* the match limit; 0: in proportion to the text (below) */
} ss_audit__pass;

/*
 * Runs rule's pattern as p says and adds what it finds (audit_rules.c). The regex engine's
 * limits are set, in proportion to the text (SS_AUDIT_STEPS_PER_BYTE): a search that reaches
 * one adds a high finding of rule "audit-limit" naming the rule, where the search started, and
 * the rule stops there for this file (fail closed: a match is never dropped silently).
 */
#define SS_AUDIT_STEPS_PER_BYTE 64
#define SS_AUDIT_STEPS_MIN      200000
void ss_audit__match(ss_audit_report *r, const ss_audit__rule *rule, const ss_audit__file *f,
                     const ss_audit__pass *p);

/* Adds a finding: line 0 with excerpt "" for the whole file; excerpt is escaped here. */
void ss_audit__add(ss_audit_report *r, const ss_audit__rule *rule, const char *skill,
                   const char *path, size_t line, const char *excerpt, size_t excerpt_len);
/* Adds a finding at level at byte pos of the file: its line and that line as the excerpt. */
void ss_audit__add_at(ss_audit_report *r, const ss_audit__rule *rule, ss_audit_level level,
                      const ss_audit__file *f, size_t pos, size_t line);

/* The copies some rules look at (audit_text.c). */
/* Whether path is Markdown (.md, .markdown, .mdx, any case). */
bool ss_audit__markdown(const char *path);
/* Whether a file is binary: its name says a binary format (.ttf, .pdf, .png, .zip, .gz, .docx,
 * ...) and its bytes agree (that format's signature at the start, or a NUL byte in the first
 * 8 KiB, git's rule). A file named as text (SKILL.md, Markdown, a script) is text whatever it
 * holds: what would make it "binary" would also hide text an agent reads from the rules. */
bool ss_audit__binary(const char *path, const char *bytes, size_t len);
/*
 * A Markdown file with its prose blanked (spaces; newlines kept, so offsets and lines are the
 * file's): what is left is where commands are: fenced and indented code blocks (not their
 * fences), inline code spans with their backticks, everything before body (SKILL.md's
 * frontmatter), and, in SKILL.md, lines that tell the agent to run something (with the
 * word run, execute, exec, invoke, paste, install or launch, or a "$ " prompt). free() the result.
 */
char *ss_audit__commands_only(const char *bytes, size_t len, bool skill_md, size_t body);
/*
 * The text with letters of other scripts that look like Latin ones (Cyrillic, Greek, IPA,
 * fullwidth forms) folded onto them and invisible characters (zero-width, soft hyphen, BOM)
 * left out: "Ignоre" with a Cyrillic о reads "Ignore". *out_len is set; *map (free()) holds,
 * for each byte of the result and one past its end, the offset in bytes. free() the result.
 */
char *ss_audit__unconfuse(const char *bytes, size_t len, size_t *out_len, uint32_t **map);

#endif
