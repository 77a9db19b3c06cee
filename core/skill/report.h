/*
 * report.h: the problems found in a skill or a record, collected instead of stopping at the
 * first one.
 *
 * Rules: an item is an error (the skill cannot be committed or pushed, a record from the network
 * is never a candidate) or a warning (kept, but worth saying). `file` names the file inside the
 * skill as "<skill>/<path>" (e.g. "pdf/SKILL.md"), `field` the frontmatter or record field when
 * there is one; messages follow git's style (lowercase, no full stop, subject quoted). Formatted,
 * an item is one line: `pdf/SKILL.md: description: longer than 1024 bytes (1300)`.
 */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

typedef enum ss_severity {
	SS_SEV_ERROR,
	SS_SEV_WARNING,
} ss_severity;

typedef struct ss_report_item {
	ss_severity severity;
	char *file;    /* never NULL */
	char *field;   /* NULL when the problem is about the whole file */
	char *message; /* never NULL */
} ss_report_item;

typedef struct ss_report ss_report;

ss_report *ss_report_new(void);
void ss_report_free(ss_report *r);

/* Adds an item; field may be NULL. */
void ss_report_add(ss_report *r, ss_severity sev, const char *file, const char *field,
                   const char *fmt, ...) SS_PRINTF(5, 6);
void ss_report_error(ss_report *r, const char *file, const char *field, const char *fmt, ...)
    SS_PRINTF(4, 5);
void ss_report_warning(ss_report *r, const char *file, const char *field, const char *fmt, ...)
    SS_PRINTF(4, 5);

size_t ss_report_count(const ss_report *r);
const ss_report_item *ss_report_at(const ss_report *r, size_t i);
size_t ss_report_errors(const ss_report *r);
size_t ss_report_warnings(const ss_report *r);

/* Appends "<file>: [<field>: ]<message>" to out (no newline). */
void ss_report_format(const ss_report_item *item, ss_buf *out);

/*
 * Sets err to the first error as one line (SS_EINVALID, "<file>: <field>: <message>") and
 * returns SS_EINVALID; returns 0 when the report holds no error.
 */
int ss_report_to_error(const ss_report *r, ss_error *err);

#endif
