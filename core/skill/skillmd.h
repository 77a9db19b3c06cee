/*
 * skillmd.h: SKILL.md as bytes <-> its frontmatter (a value map) and its body.
 *
 * Reading: a UTF-8 BOM is skipped; the file must open with a `---` line, and the frontmatter
 * ends at the next line that is exactly `---` (trailing spaces and a CR allowed), so `---`
 * inside a quoted value or an indented block never ends it. The frontmatter must be one YAML
 * mapping with string keys and no duplicate key at any depth; aliases are refused; nesting is
 * capped. Plain scalars resolve by YAML 1.2's core schema, except that only canonical decimal
 * integers become integers and nothing becomes a float (such text stays a string), and a scalar
 * under the top-level `name` or `description` is always its text (the specification's text
 * fields, read as the reference validator reads them: `name: 123` is "123"). When strict
 * YAML fails, simple top-level `key: value` lines are accepted with a warning (agents accept an
 * unquoted `: ` in a description). The body is every byte after the closing line.
 *
 * Writing: `---\n`, the map's keys in order as block YAML that strict parsers read back to the
 * same values (a string is quoted whenever plain style could change its meaning), `---\n`, then
 * the body byte for byte. The output depends only on the input (deterministic).
 *
 * libyaml stays inside this module.
 */
#ifndef SS_SKILLMD_H
#define SS_SKILLMD_H

#include <stddef.h>

#include "core/skill/report.h"
#include "core/skill/value.h"
#include "core/util/buf.h"

/* The deepest nesting of lists and maps a frontmatter may have. */
#define SS_SKILLMD_MAX_DEPTH 16

/*
 * Parses SKILL.md bytes. On success sets *frontmatter (a map the caller frees) and *body_off
 * (where the body starts in data) and returns 0; warnings may have been added. On failure adds
 * errors (file names the SKILL.md, e.g. "pdf/SKILL.md") and returns SS_EINVALID.
 */
int ss_skillmd_parse(const char *data, size_t len, const char *file, ss_value **frontmatter,
                     size_t *body_off, ss_report *report);

/* Appends the SKILL.md for frontmatter (a map, its keys followed by those of more when more is
 * not NULL: a skill's own keys, then the other keys it keeps, without copying them) and body
 * to out. */
void ss_skillmd_emit(const ss_value *frontmatter, const ss_value *more, const char *body,
                     size_t body_len, ss_buf *out);

/* Appends s as one YAML scalar (plain when safe, else double-quoted) to out. */
void ss_skillmd_emit_string(const char *s, size_t len, ss_buf *out);

#endif
