/*
 * skill.h: one skill in memory (the Agent Skills format), and its file set.
 *
 * A skill is what a directory `<name>/` holds: SKILL.md's frontmatter fields, its body (the
 * instructions, byte for byte after the closing `---` line), and the other files with their
 * executable bit, sorted by path. Frontmatter keys other than name, description and
 * disable-model-invocation are kept in order in `frontmatter` (never dropped).
 *
 * The file set never touches the disk: the git layer writes blobs from memory and reads skills
 * back from trees. ss_skill_to_files() yields SKILL.md then each file; an ss_skill_reader is fed
 * (path, bytes, executable) entries one by one and builds the skill, collecting every problem in
 * a report (ss_validate rules) instead of stopping at the first.
 *
 * SKILL.md's frontmatter as written travels with the skill (`frontmatter_text`): ss_skill_md()
 * writes it back verbatim while it still reads as the skill's values, else the canonical form.
 *
 * Fields may be read directly; set them through the functions (they own their memory).
 */
#ifndef SS_SKILL_H
#define SS_SKILL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/skill/report.h"
#include "core/skill/value.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* The frontmatter key and the record field of the "load only when asked by name" flag. */
#define SS_KEY_DISABLE_MODEL_INVOCATION   "disable-model-invocation"
#define SS_FIELD_DISABLE_MODEL_INVOCATION "disableModelInvocation"
#define SS_SKILL_MD                       "SKILL.md"
/* The record field carrying SKILL.md's frontmatter as written, and its largest size in bytes
 * (the room SS_MAX_SKILLMD keeps beside the body). */
#define SS_FIELD_FRONTMATTER_TEXT "frontmatterText"
#define SS_MAX_FRONTMATTER_TEXT   65536

typedef enum ss_dmi {
	SS_DMI_ABSENT = -1,
	SS_DMI_FALSE = 0,
	SS_DMI_TRUE = 1,
} ss_dmi;

typedef struct ss_skill_file {
	char *path;    /* relative, forward slashes */
	char *content; /* len bytes, NUL-terminated after them; NULL while awaited (below) */
	size_t len;
	bool executable;
	/* a file a record carries as a blob (its blobFiles, core/skill/record.h): the blob's CID;
	 * NULL for a file read from a directory, a tree or the record's files[]. Until
	 * ss_skill_fill_blob gives its bytes, content is NULL and len the size the record says. */
	char *blob_cid;
} ss_skill_file;

typedef struct ss_skill {
	char *name;        /* never NULL ("" until set) */
	char *description; /* never NULL */
	ss_dmi disable_model_invocation;
	char *instructions; /* instructions_len bytes, NUL-terminated after them */
	size_t instructions_len;
	ss_value *frontmatter; /* a map of the other keys, in order; never NULL */
	/* SKILL.md's bytes before the body as written (BOM, fences and line breaks included),
	 * frontmatter_text_len of them, NUL-terminated; NULL when not known. */
	char *frontmatter_text;
	size_t frontmatter_text_len;
	ss_skill_file *files; /* sorted by path (ss_skill_sort_files) */
	size_t nfiles, files_alloc;
} ss_skill;

ss_skill *ss_skill_new(void);
void ss_skill_free(ss_skill *s);

void ss_skill_set_name(ss_skill *s, const char *name);
void ss_skill_set_description(ss_skill *s, const char *description);
void ss_skill_set_instructions(ss_skill *s, const char *bytes, size_t len);
/* Replaces the extra frontmatter map (takes ownership; NULL means empty). */
void ss_skill_set_frontmatter(ss_skill *s, ss_value *map);
/* Sets (copies) the frontmatter as written; NULL forgets it (the canonical form is written). */
void ss_skill_set_frontmatter_text(ss_skill *s, const char *text, size_t len);
/* Adds a file (copies path and bytes); call ss_skill_sort_files() when done. */
void ss_skill_add_file(ss_skill *s, const char *path, const void *bytes, size_t len,
                       bool executable);
void ss_skill_sort_files(ss_skill *s);
/* Adds a file whose bytes are awaited from the blob cid (size bytes, as the record says). */
void ss_skill_add_blob_file(ss_skill *s, const char *path, const char *cid, size_t size,
                            bool executable);
/* Whether a file of s still awaits its bytes (none: the skill can be written). */
bool ss_skill_awaits_blobs(const ss_skill *s);
/* Gives an awaited file its bytes (copied; the caller checked them against its CID). */
void ss_skill_fill_blob(ss_skill_file *f, const void *bytes, size_t len);
/* The file at path, or NULL. */
const ss_skill_file *ss_skill_file_get(const ss_skill *s, const char *path);

/*
 * Appends the SKILL.md for s to out: its frontmatter text then the body, byte for byte, when
 * that reads back as s (the body starts where the text ends; the frontmatter gives s's name,
 * description, disable-model-invocation and other values, keys in any order); else the
 * canonical frontmatter (ss_skillmd_emit: the skill's keys, then the others in order), then
 * the body. Depends only on s.
 */
void ss_skill_md(const ss_skill *s, ss_buf *out);

/* Same content: fields, frontmatter values and text, body bytes, files and their bits. */
bool ss_skill_equal(const ss_skill *a, const ss_skill *b);

/*
 * Calls cb for SKILL.md, then for each file in path order. A non-zero return from cb stops the
 * walk and is returned. Every file must have its bytes (ss_skill_awaits_blobs false): a file
 * still awaited stops the walk with SS_EINVALID.
 */
typedef int (*ss_skill_file_cb)(const char *path, const char *bytes, size_t len, bool executable,
                                void *ud);
int ss_skill_to_files(const ss_skill *s, ss_skill_file_cb cb, void *ud);

/* Builds a skill from entries fed one by one (e.g. from a git tree or a directory). */
typedef struct ss_skill_reader ss_skill_reader;

/* dirname: the skill's directory name (the name must match it); problems go into report. */
ss_skill_reader *ss_skill_reader_new(const char *dirname, ss_report *report);
/* Feeds one regular file (path relative to the skill directory); bytes are copied. */
void ss_skill_reader_add(ss_skill_reader *r, const char *path, const void *bytes, size_t len,
                         bool executable);
/* Counts a file that exists but could not be taken (its problem is already reported). */
void ss_skill_reader_skip(ss_skill_reader *r, const char *path);
/*
 * Parses SKILL.md, validates the whole skill and frees r. Returns 0 and sets *out when the
 * report gained no error since ss_skill_reader_new (warnings allowed; a file skipped was
 * reported, so it counts); else returns SS_EINVALID and sets nothing.
 */
int ss_skill_reader_finish(ss_skill_reader *r, ss_skill **out);
/* Drops a reader without finishing it. */
void ss_skill_reader_free(ss_skill_reader *r);

/* The directory label a report uses for a skill's files: "<dirname>/<path>". */
void ss_skill_label(ss_buf *out, const char *dirname, const char *path);

#endif
