/*
 * note.h: the `note` a pushed record carries (what changed and why). Datetimes: core/util/time.h.
 *
 * Pure: no I/O, no git. The caller hands over the commit subjects since the last push that
 * touched the skill (the why) and the skill's file changes (the what); the note reads
 *
 *     Fix the order of step 3
 *     Add a check script
 *
 *     SKILL.md: section 'Step 3' rewritten (+4 -2 lines); added scripts/check.sh
 *
 * Rules that hold: the note is valid UTF-8 (invalid bytes in a subject become U+FFFD), at most
 * SS_NOTE_MAX bytes, and cut on a character boundary with an ellipsis when longer; the summary
 * keeps at least half of the room when both parts are long. Changed lines are placed by the
 * nearest Markdown heading above them (ATX headings outside fenced code), or by the frontmatter
 * key of SKILL.md they fall in.
 */
#ifndef SS_NOTE_H
#define SS_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"

#define SS_NOTE_MAX 2000

typedef enum ss_note_file_kind {
	SS_NOTE_FILE_ADDED,
	SS_NOTE_FILE_REMOVED,
	SS_NOTE_FILE_CHANGED,
} ss_note_file_kind;

/* One file of a skill that differs; texts are borrowed (old for CHANGED/REMOVED, new for
 * CHANGED/ADDED). Paths are relative to the skill's directory. */
typedef struct ss_note_file {
	ss_note_file_kind kind;
	const char *path;
	const char *old_text;
	size_t old_len;
	const char *new_text;
	size_t new_len;
	bool old_exec, new_exec;
} ss_note_file;

typedef struct ss_note_input {
	const char *const *subjects; /* commit subjects, in the order they should read */
	size_t nsubjects;
	const ss_note_file *files;
	size_t nfiles;
	bool created;             /* a skill new to the space (files list what it holds) */
	const char *renamed_from; /* the directory this skill was renamed from, or NULL */
	const char *based_on;     /* whose version my new version starts from, or NULL */
} ss_note_input;

/* Appends the note for in to out (out is cleared first). */
void ss_note_build(ss_buf *out, const ss_note_input *in);

/* Appends the summary of the file changes alone ("SKILL.md: ... ; added x"), uncapped. */
void ss_note_summary(ss_buf *out, const ss_note_file *files, size_t nfiles);

/* Shortens b to at most max bytes on a UTF-8 boundary, ending with "…" when it cut. */
void ss_note_cut(ss_buf *b, size_t max);

/* Appends s to out with every invalid UTF-8 sequence replaced by U+FFFD. */
void ss_note_put_utf8(ss_buf *out, const char *s, size_t len);

#endif
