/*
 * audit.h: what a skill's files ask of the agent and the machine, checked against the audit
 * rules (docs/AUDIT.md): hidden or misleading text, scripts that download and run, reach for
 * credentials, write outside the skill or switch off TLS checks, instructions that try to take
 * the agent over, unrestricted shell in allowed-tools, and every program the skill carries.
 *
 * Rules: the rules are data, in one place (core/skill/audit_rules.json, compiled in), and are
 * compiled once per process, on first use (thread-safe); a rule that cannot be compiled makes
 * every audit report a high finding of rule "audit-broken" rather than pass quietly.
 * ss_audit_file is pure: it reads only the bytes it is given. A finding's line is the file's
 * own, 1-based (0: about the file as a whole); its excerpt is the offending line as a terminal
 * may show it (core/util/utf8.h's escape rule: no control or invisible character raw), cut to
 * SS_AUDIT_EXCERPT_MAX bytes before escaping; "" for a finding about the whole file.
 * Findings come in the order of the calls, then of the rules, then of their place in the file.
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
	const char *rule; /* the rule's id (static) */
	ss_audit_level level;
	char *message; /* one line, what and why */
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

/* The highest level in r (SS_AUDIT_INFO when empty). */
ss_audit_level ss_audit_worst(const ss_audit_report *r);
const char *ss_audit_level_name(ss_audit_level l); /* "high", "medium", "low", "info" */

#endif
