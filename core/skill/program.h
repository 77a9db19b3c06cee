/*
 * program.h: which files of a skill are programs the agent may run. One classification, used
 * by the review gate (core/diff/gate.h: adding or changing one holds a change) and by the audit
 * (core/skill/audit.h: the rules about code look at these files).
 *
 * A file is a program when any of these holds: it has the executable bit; it starts with a #!
 * line (after a UTF-8 byte order mark, if any); its name ends with a script's suffix (.sh, .py,
 * .js, .ps1, ... compared without case); it lies under a top-level scripts/, bin/ or tools/
 * directory, in any case (Scripts/, TOOLS/). Pure: the path and the bytes only.
 *
 * What this cannot see: a file of any other name that SKILL.md tells the agent to run through
 * an interpreter (`python references/x.txt`), or a binary the agent is told to execute after
 * setting its bit. docs/SECURITY.md ("The review gate") says how the audit narrows that.
 */
#ifndef SS_PROGRAM_H
#define SS_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the file at path (relative to the skill's directory, '/'-separated) with these bytes
 * is a program; executable: its mode has the executable bit. */
bool ss_program_is(const char *path, const char *bytes, size_t len, bool executable);

#endif
