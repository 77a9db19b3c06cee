/*
 * skill_md.c: a skill's SKILL.md (ss_skill_md in core/skill/skill.h): the frontmatter as written
 * while it still says the skill's values, else the canonical one (docs/RECORD-FORMAT.md,
 * "Writing SKILL.md back").
 */
#include "core/skill/skill.h"

#include <stdlib.h>
#include <string.h>

#include "core/skill/skillmd.h"
#include "core/util/mem.h"

typedef struct entry {
	const char *key;
	const ss_value *v;
} entry;

static int by_key(const void *a, const void *b)
{
	return strcmp(((const entry *)a)->key, ((const entry *)b)->key);
}

/* A map's entries sorted by key (a reader refused keys given twice); free() it. */
static entry *sorted(const ss_value *map)
{
	size_t n = ss_value_count(map);
	entry *e = ss_xcalloc(n + 1, sizeof(*e));

	for (size_t i = 0; i < n; i++)
		e[i].v = ss_value_at(map, i, &e[i].key);
	qsort(e, n, sizeof(*e), by_key);
	return e;
}

/* Same values, the keys of maps in any order: a record's object has none (DAG-CBOR sorts it). */
static bool same_value(const ss_value *a, const ss_value *b)
{
	ss_value_type t = ss_value_type_of(a);
	size_t n = ss_value_count(a);
	entry *ea, *eb;
	bool same = true;

	if (t != ss_value_type_of(b) || n != ss_value_count(b))
		return false;
	if (t == SS_VALUE_LIST) {
		for (size_t i = 0; same && i < n; i++)
			same = same_value(ss_value_at(a, i, NULL), ss_value_at(b, i, NULL));
		return same;
	}
	if (t != SS_VALUE_MAP)
		return ss_value_equal(a, b);
	ea = sorted(a);
	eb = sorted(b);
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(ea[i].key, eb[i].key) && same_value(ea[i].v, eb[i].v);
	free(ea);
	free(eb);
	return same;
}

static bool string_is(const ss_value *v, const char *want)
{
	size_t len;
	const char *s =
	    v && ss_value_type_of(v) == SS_VALUE_STRING ? ss_value_string(v, &len) : NULL;

	return s && len == strlen(want) && !memcmp(s, want, len);
}

static bool dmi_is(const ss_value *v, ss_dmi want)
{
	if (!v)
		return want == SS_DMI_ABSENT;
	return ss_value_type_of(v) == SS_VALUE_BOOL &&
	       want == (ss_value_bool(v) ? SS_DMI_TRUE : SS_DMI_FALSE);
}

/* Whether fm (a SKILL.md's frontmatter, emptied of the skill's own keys here) says s's values. */
static bool says(ss_value *fm, const ss_skill *s)
{
	ss_value *name = ss_value_map_take(fm, "name");
	ss_value *desc = ss_value_map_take(fm, "description");
	ss_value *dmi = ss_value_map_take(fm, SS_KEY_DISABLE_MODEL_INVOCATION);
	bool same = string_is(name, s->name) && string_is(desc, s->description) &&
	            dmi_is(dmi, s->disable_model_invocation) && same_value(fm, s->frontmatter);

	ss_value_free(name);
	ss_value_free(desc);
	ss_value_free(dmi);
	return same;
}

/* Whether md (s's frontmatter text, then its body) reads back as s, the body where it was. */
static bool reads_as(const char *md, size_t len, const ss_skill *s)
{
	ss_report *quiet = ss_report_new();
	ss_value *fm = NULL;
	size_t body_off = 0;
	bool same = ss_skillmd_parse(md, len, SS_SKILL_MD, &fm, &body_off, quiet) == 0 &&
	            body_off == s->frontmatter_text_len && says(fm, s);

	ss_value_free(fm);
	ss_report_free(quiet);
	return same;
}

static void canonical(const ss_skill *s, ss_buf *out)
{
	ss_value *fm = ss_value_new_map();

	ss_value_map_append(fm, "name", ss_value_new_string(s->name, strlen(s->name)));
	ss_value_map_append(fm, "description",
	                    ss_value_new_string(s->description, strlen(s->description)));
	if (s->disable_model_invocation != SS_DMI_ABSENT)
		ss_value_map_append(fm, SS_KEY_DISABLE_MODEL_INVOCATION,
		                    ss_value_new_bool(s->disable_model_invocation == SS_DMI_TRUE));
	ss_skillmd_emit(fm, s->frontmatter, s->instructions, s->instructions_len, out);
	ss_value_free(fm);
}

/* Whether out, from start, is s's frontmatter text then its body (the canonical form ends with
 * the body). */
static bool is_text_and_body(const ss_buf *out, size_t start, const ss_skill *s)
{
	return out->len - start == s->frontmatter_text_len + s->instructions_len &&
	       !memcmp(out->ptr + start, s->frontmatter_text, s->frontmatter_text_len);
}

void ss_skill_md(const ss_skill *s, ss_buf *out)
{
	size_t start = out->len;

	canonical(s, out);
	/* A text that is the canonical one needs no reading (most skills' frontmatter). */
	if (!s->frontmatter_text || is_text_and_body(out, start, s))
		return;
	ss_buf_truncate(out, start);
	ss_buf_put(out, s->frontmatter_text, s->frontmatter_text_len);
	ss_buf_put(out, s->instructions, s->instructions_len);
	if (reads_as(out->ptr + start, out->len - start, s))
		return;
	ss_buf_truncate(out, start);
	canonical(s, out);
}
