/*
 * validate.h: the rules a skill must follow to be committed, pushed, or taken from the network
 * (the Agent Skills frontmatter rules and the garden.engram.skill lexicon's limits, which count
 * UTF-8 bytes). docs/VALIDATION.md lists every rule and its message.
 *
 * Problems go into a report, each naming the file ("<dir>/SKILL.md", "<dir>/<path>") and the
 * field. Never stricter than the Agent Skills reference validator for a frontmatter reason:
 * unknown frontmatter keys, and optional fields of another type than the specification gives
 * (`metadata` values that are lists, an empty `compatibility`), are warnings and kept as
 * written; everything else is an error.
 */
#ifndef SS_VALIDATE_H
#define SS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/pds.h" /* SS_PDS_MAX_REQUEST */
#include "core/skill/report.h"
#include "core/util/buf.h"

struct ss_skill;

#define SS_MAX_NAME          64
#define SS_MAX_DESCRIPTION   1024
#define SS_MAX_COMPATIBILITY 500 /* characters (Agent Skills) */
#define SS_MAX_INSTRUCTIONS  200000
#define SS_MAX_FILES         32
#define SS_MAX_PATH          512
#define SS_MAX_COMPONENT     255 /* bytes in one path component (file systems' name limit) */
#define SS_MAX_DEPTH         32  /* components in one path ("a/b/c" has 3) */
#define SS_MAX_CONTENT       200000
#define SS_MAX_NOTE          2000
/* Files beyond what a record's text holds travel as blobs (docs/RECORD-FORMAT.md); these limits
 * are theirs. The largest file: the reference PDS's default blob limit (5 MiB; a PDS set with
 * PDS_BLOB_UPLOAD_LIMIT takes more or less, says so in describeServer's blobUploadLimit, and
 * refuses a larger upload with HTTP 413, which push reports naming the file). */
#define SS_MAX_BLOB 5242880
/* The most files beside SKILL.md, in files[] and blobFiles together. */
#define SS_MAX_SKILL_FILES 1000
/* The most bytes a skill holds in all: its SKILL.md body and every file. */
#define SS_MAX_SKILL_BYTES 52428800
/* Room a blob ref keeps in the record for the mimeType the PDS names (ss_record_split). */
#define SS_BLOB_MIME_RESERVE 128
/* The largest SKILL.md: the body's limit plus room for the frontmatter. The local reader reads
 * no more, and a skill whose SKILL.md (as ss_skill_md writes it) is larger is refused, so a
 * record that validates always gives a SKILL.md that reads back. */
#define SS_MAX_SKILLMD (SS_MAX_INSTRUCTIONS + 65536)
/* Room kept for the request around the record (repo, collection, rkey, swap CIDs, a note). */
#define SS_RECORD_ENVELOPE 16384
/* The largest encoded record (compact JSON, as ss_record_encode writes it) we accept. */
#define SS_MAX_RECORD (SS_PDS_MAX_REQUEST - SS_RECORD_ENVELOPE)

enum {
	SS_VALIDATE_SKIP_NAME = 1 << 0,        /* already reported (missing, wrong type) */
	SS_VALIDATE_SKIP_DESCRIPTION = 1 << 1, /* already reported */
	SS_VALIDATE_SKIP_FIELDS = 1 << 2,      /* SKILL.md could not be read: files only */
	SS_VALIDATE_SKIP_RECORD_SIZE = 1 << 3, /* the caller knows the record is small enough */
};

/*
 * Checks every rule for skill s living in directory dirname (the name must match it). extra
 * counts files that exist but are not in s (already reported), toward the file limit.
 */
void ss_validate_skill(const struct ss_skill *s, const char *dirname, size_t extra, int flags,
                       ss_report *report);

/* Reports a file (label "<dir>/<path>") of len bytes when it is over SS_MAX_BLOB, saying what
 * to do; returns whether it did. */
bool ss_validate_file_size(ss_report *report, const char *label, size_t len);

/* NULL when name is a valid skill name, else what is wrong with it (a static string). */
const char *ss_validate_name(const char *name);

/*
 * NULL when path (len bytes) is safe as a file path inside a skill directory on every system
 * git runs on, else what is wrong with it: empty, over 512 bytes, a component over 255 bytes,
 * more than 32 components, absolute, a backslash, an empty, "." or ".." component, a ".git"
 * component in any case or a name Windows or macOS reads as ".git" ("git~1", ".git.",
 * ".git ", ".git:x", ".git" with characters HFS+ ignores inside), SKILL.md itself, control
 * characters, not UTF-8. The same rules hold for records and for local skills.
 */
const char *ss_validate_path(const char *path, size_t len);

/* NULL when one path component (n bytes, valid UTF-8, no slash) is acceptable, else why not
 * (the component rules of ss_validate_path). */
const char *ss_validate_component(const char *c, size_t n);

/* Appends s for a message: at most 80 bytes, control characters shown as '?'. */
void ss_validate_quote(ss_buf *out, const char *s, size_t len);

#endif
