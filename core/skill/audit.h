/*
 * audit.h: what a skill's files ask of the agent and the machine, checked against the audit
 * rules (docs/AUDIT.md): hidden or misleading text, scripts that download and run, reach for
 * credentials, write outside the skill or switch off TLS checks, instructions that try to take
 * the agent over, unrestricted shell in allowed-tools, and every program the skill carries.
 *
 * Rules: the rules are data, in one place (core/skill/audit_rules.json, compiled in), and are
 * compiled once per process, on first use (thread-safe); a rule that cannot be compiled makes
 * every audit report a high finding of rule "audit-broken" rather than pass quietly. Every
 * pattern is linear in its input and runs under the regex engine's limits: a search that
 * reaches one is a high finding of rule "audit-limit" naming the rule (fail closed).
 * A rule that looks for commands keeps its level in Markdown only where commands are (code
 * blocks, inline code, SKILL.md's lines that say to run something); elsewhere in Markdown its
 * findings are info. A binary file is one finding ("binary-file"), not searched as text.
 * ss_audit_file is pure: it reads only the bytes it is given. A finding's line is the file's
 * own, 1-based (0: about the file as a whole); its excerpt is the offending line as a terminal
 * may show it (core/util/utf8.h's escape rule: no control or invisible character raw), cut to
 * SS_AUDIT_EXCERPT_MAX bytes before escaping; "" for a finding about the whole file.
 * Findings come in the order of the calls; one file's by line (0 first), then in the order of
 * the rules.
 */
#ifndef SS_AUDIT_H
#define SS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/error.h"

typedef enum ss_audit_level {
	SS_AUDIT_INFO,
	SS_AUDIT_LOW,
	SS_AUDIT_MEDIUM,
	SS_AUDIT_HIGH
} ss_audit_level;

typedef struct ss_audit_finding {
	char *skill; /* the skill's directory name */
	char *path;  /* the file, relative to the skill's directory ("SKILL.md", "scripts/x.sh") */
	size_t line; /* 1-based line in that file; 0 for a finding about the file as a whole */
	const char *rule;     /* the rule's id (static) */
	ss_audit_level level; /* the rule's; info for a command rule's match in Markdown prose */
	char *message;        /* one line, what and why */
	/* the offending text, escaped for a terminal (no control or invisible char raw) */
	char *excerpt;
} ss_audit_finding;

typedef struct ss_audit_report {
	ss_audit_finding *findings;
	size_t n, alloc;
} ss_audit_report;

/* The longest excerpt, in bytes of the file, before escaping (" ..." marks a cut). */
#define SS_AUDIT_EXCERPT_MAX 160

void ss_audit_report_init(ss_audit_report *r);
void ss_audit_report_release(ss_audit_report *r);

/* Checks one file of a skill (SKILL.md included) and appends what it finds; pure, no I/O. */
void ss_audit_file(ss_audit_report *r, const char *skill, const char *path, const char *bytes,
                   size_t len, bool executable);

/* ss_audit_file with the rule at index rule (ss_audit_rule_at) only, or every rule for
 * SIZE_MAX: bench/audit_rules.c times the rules one by one with it. */
void ss_audit_file_rule(ss_audit_report *r, const char *skill, const char *path, const char *bytes,
                        size_t len, bool executable, size_t rule);

/* The highest level in r (SS_AUDIT_INFO when empty). */
ss_audit_level ss_audit_worst(const ss_audit_report *r);
const char *ss_audit_level_name(ss_audit_level l); /* "high", "medium", "low", "info" */

/* The rules, for listings (SARIF's tool.driver.rules); borrowed, static. */
typedef struct ss_audit_rule_info {
	const char *id;
	ss_audit_level level;
	const char *message; /* the message of its findings */
	/* the level of its weaker form (docs/AUDIT.md, "weakLevel"); level when it has none */
	ss_audit_level weak_level;
} ss_audit_rule_info;

/*
 * Compiles the rules if that has not been done yet: 0, or SS_ERROR naming the first rule that
 * cannot be compiled (a broken build: ss_audit_file then reports "audit-broken", high, for
 * every file). Commands call it first, to say so in one line.
 */
int ss_audit_ready(ss_error *err);
/* The rules in the order of the rules file; ss_audit_rule_at is NULL past the end. */
size_t ss_audit_rule_count(void);
const ss_audit_rule_info *ss_audit_rule_at(size_t i);
/* The rules document as compiled in (core/skill/audit_rules.json): the tests run its cases. */
const char *ss_audit_rules_document(size_t *len);

/*
 * Audits the skill directory dir (named skill in the findings): every file under it, depth
 * first with each directory's entries in byte order, .git left out; a symbolic link is not
 * followed but is a finding of rule "symlink" (its target as the excerpt). 0, or SS_ENOTFOUND
 * when dir is not a directory, SS_ETOOBIG naming a file over SS_AUDIT_FILE_MAX (the record
 * format's limit is far below it), SS_ERROR when something cannot be read.
 */
#define SS_AUDIT_FILE_MAX (4u << 20)
int ss_audit_dir(ss_audit_report *r, const char *skill, const char *dir, ss_error *err);

#endif
