/*
 * skilldir.h: a skill <-> a directory on disk (thin wrappers over the file set in skill.h).
 *
 * Reading refuses symlinks and reports anything that is not a regular file or a directory;
 * file sizes are capped before reading. Writing validates every path first, then creates each
 * file fresh (O_CREAT|O_EXCL|O_NOFOLLOW, through directory descriptors opened with O_NOFOLLOW),
 * so nothing lands outside the directory and nothing existing is overwritten; mode 0755 for
 * executable files, 0644 otherwise.
 */
#ifndef SS_SKILLDIR_H
#define SS_SKILLDIR_H

#include <stdbool.h>

#include "core/skill/report.h"
#include "core/util/error.h"

struct ss_skill;

/*
 * Whether the top-level entry name of a clone (a directory when is_dir) is outside the skills:
 * a file (README.md, .gitignore) or a directory whose name starts with a dot (.github). Every
 * other top-level directory is a skill directory: `commit` validates it, `push` sends it.
 * Outside entries are committed but never pushed. The one place this is decided.
 */
bool ss_skilldir_outside(const char *name, bool is_dir);

/* The most directory entries a skill directory may hold before reading stops. */
#define SS_SKILLDIR_MAX_ENTRIES 1000

/*
 * Reads the skill in directory dir (its last component is the skill's directory name). Problems
 * go into report; returns 0 and sets *out when there were no errors, else a negative value with
 * err->code SS_EINVALID when the skill has errors (the report lists them), another code when
 * dir cannot be read at all.
 */
int ss_skilldir_read(const char *dir, struct ss_skill **out, ss_report *report, ss_error *err);

/*
 * Writes skill into dir (created if missing; any file already there makes it fail with
 * SS_EEXISTS). Returns 0, or a negative code with err set.
 */
int ss_skilldir_write(const struct ss_skill *skill, const char *dir, ss_error *err);

#endif
