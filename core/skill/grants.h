/*
 * grants.h: what SKILL.md's allowed-tools pre-approves (the tools the agent may use without
 * asking), and whether a new version of it grants more than the version before. The review
 * gate holds such a change (core/diff/gate.h).
 *
 * allowed-tools is one string of entries separated by spaces or commas ("Read Grep
 * Bash(git status:*)"), or a YAML list of such strings. An entry is a tool's name alone (the
 * whole tool) or with a pattern in parentheses. An entry of the new version was granted
 * already when the old version has: the same entry; the same tool unrestricted (alone, or with
 * the pattern "", "*", ":*" or "*:*"); or the same tool with a pattern that ends in a wildcard
 * (":*" for a command and its arguments, " *", "**") whose text before it begins the new
 * pattern (Bash(git:*) covers Bash(git status:*)). Anything else widens: a tool not granted
 * before, a pattern turned wider, a pattern dropped (Bash(git:*) -> Bash). Names compare
 * exactly.
 *
 * Fails closed: a new SKILL.md whose frontmatter cannot be read, or whose allowed-tools is
 * neither a string nor a list of strings, widens unless the value is the same as before; an
 * old one that cannot be read granted nothing. Pure: the bytes only.
 */
#ifndef SS_GRANTS_H
#define SS_GRANTS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether new_md's allowed-tools grants something old_md's does not; NULL for a version
 * without SKILL.md (it grants nothing). */
bool ss_grants_widen(const char *old_md, size_t old_len, const char *new_md, size_t new_len);

#endif
