/*
 * validate.h: the rules a skill must follow to be committed, pushed, or taken from the network
 * (the Agent Skills frontmatter rules and the garden.engram.skill lexicon's limits, which count
 * UTF-8 bytes). docs/VALIDATION.md lists every rule and its message.
 *
 * Problems go into a report, each naming the file ("<dir>/SKILL.md", "<dir>/<path>") and the
 * field; unknown frontmatter keys are warnings (they are kept), everything else is an error.
 */
#ifndef SS_VALIDATE_H
#define SS_VALIDATE_H

#include <stddef.h>

#include "core/buf.h"
#include "core/pds.h" /* SS_PDS_MAX_REQUEST */
#include "core/report.h"

struct ss_skill;

#define SS_MAX_NAME          64
#define SS_MAX_DESCRIPTION   1024
#define SS_MAX_COMPATIBILITY 500 /* characters (Agent Skills) */
#define SS_MAX_INSTRUCTIONS  200000
#define SS_MAX_FILES         32
#define SS_MAX_PATH          512
#define SS_MAX_CONTENT       200000
#define SS_MAX_NOTE          2000
/* Room kept for the request around the record (repo, collection, rkey, swap CIDs, a note). */
#define SS_RECORD_ENVELOPE 16384
/* The largest encoded record (compact JSON, as ss_record_encode writes it) we accept. */
#define SS_MAX_RECORD (SS_PDS_MAX_REQUEST - SS_RECORD_ENVELOPE)

enum {
	SS_VALIDATE_SKIP_NAME = 1 << 0,        /* already reported (missing, wrong type) */
	SS_VALIDATE_SKIP_DESCRIPTION = 1 << 1, /* already reported */
	SS_VALIDATE_SKIP_FIELDS = 1 << 2,      /* SKILL.md could not be read: files only */
};

/*
 * Checks every rule for skill s living in directory dirname (the name must match it). extra
 * counts files that exist but are not in s (already reported), toward the file limit.
 */
void ss_validate_skill(const struct ss_skill *s, const char *dirname, size_t extra, int flags,
                       ss_report *report);

/* NULL when name is a valid skill name, else what is wrong with it (a static string). */
const char *ss_validate_name(const char *name);

/*
 * NULL when path (len bytes) is safe as a file path inside a skill directory, else what is
 * wrong with it: empty, too long, absolute, a backslash, an empty, "." or ".." component, a
 * ".git" component in any case, SKILL.md itself, control characters, not UTF-8.
 */
const char *ss_validate_path(const char *path, size_t len);

/* Appends s for a message: at most 80 bytes, control characters shown as '?'. */
void ss_validate_quote(ss_buf *out, const char *s, size_t len);

#endif
