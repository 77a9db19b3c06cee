/* grants.c: allowed-tools, and whether a new version grants more (core/skill/grants.h). */
#include "core/skill/grants.h"

#include <stdlib.h>
#include <string.h>

#include "core/skill/report.h"
#include "core/skill/skillmd.h"
#include "core/skill/value.h"
#include "core/util/mem.h"

/* One entry: the tool's name, and its pattern when it has one (pat NULL: the whole tool). */
typedef struct entry {
	const char *name, *pat;
	size_t name_len, pat_len;
} entry;

/* The entries of one allowed-tools value; borrowed from the frontmatter's strings. */
typedef struct grants {
	entry *items;
	size_t n, alloc;
	bool odd; /* a value of another shape than a string or a list of strings */
} grants;

static void add(grants *g, const char *s, size_t len)
{
	const char *open = memchr(s, '(', len);
	entry *e;

	ss_xgrow((void **)&g->items, sizeof(*g->items), g->n + 1, &g->alloc);
	e = &g->items[g->n++];
	e->name = s;
	e->name_len = len;
	e->pat = NULL;
	e->pat_len = 0;
	if (open && s[len - 1] == ')') {
		e->name_len = (size_t)(open - s);
		e->pat = open + 1;
		e->pat_len = len - e->name_len - 2;
	}
}

/* Splits s at spaces and commas outside parentheses. */
static void split(grants *g, const char *s, size_t len)
{
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? s[i] : ' ';

		if (c == '(')
			depth++;
		else if (c == ')' && depth > 0)
			depth--;
		else if (!depth && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',')) {
			if (i > start)
				add(g, s + start, i - start);
			start = i + 1;
		}
	}
}

static void collect(grants *g, const ss_value *v)
{
	size_t len;
	const char *s;

	if (!v)
		return;
	if (ss_value_type_of(v) == SS_VALUE_STRING) {
		s = ss_value_string(v, &len);
		split(g, s, len);
	} else if (ss_value_type_of(v) == SS_VALUE_LIST) {
		for (size_t i = 0; i < ss_value_count(v); i++) {
			const ss_value *item = ss_value_at(v, i, NULL);

			if (ss_value_type_of(item) != SS_VALUE_STRING)
				g->odd = true;
			else
				collect(g, item);
		}
	} else {
		g->odd = true;
	}
}

/* SKILL.md's frontmatter, or NULL when it cannot be read. */
static ss_value *frontmatter(const char *md, size_t len)
{
	ss_report *report = ss_report_new();
	ss_value *fm = NULL;
	size_t body;

	if (md && ss_skillmd_parse(md, len, "SKILL.md", &fm, &body, report) < 0)
		fm = NULL;
	ss_report_free(report);
	return fm;
}

static bool same(const char *a, size_t alen, const char *b)
{
	return alen == strlen(b) && !memcmp(a, b, alen);
}

static bool unrestricted(const entry *o)
{
	return !o->pat || same(o->pat, o->pat_len, "") || same(o->pat, o->pat_len, "*") ||
	       same(o->pat, o->pat_len, ":*") || same(o->pat, o->pat_len, "*:*");
}

/* The text before o's trailing wildcard (":*", " *", "**") when the rest has none; else 0
 * with *lit NULL. */
static size_t literal_prefix(const entry *o, const char **lit)
{
	size_t n = o->pat_len;

	*lit = NULL;
	if (n < 2 || o->pat[n - 1] != '*')
		return 0;
	if (o->pat[n - 2] == ':' || o->pat[n - 2] == '*')
		n -= 2;
	else if (o->pat[n - 2] == ' ')
		n -= 1; /* the space stays: "git *" covers "git log", not "gitx" */
	else
		return 0;
	if (memchr(o->pat, '*', n))
		return 0;
	*lit = o->pat;
	return n;
}

/* Whether old entry o grants everything new entry e does. */
static bool covers(const entry *o, const entry *e)
{
	const char *lit;
	size_t n;

	if (same(o->name, o->name_len, "*") && unrestricted(o))
		return true;
	if (o->name_len != e->name_len || memcmp(o->name, e->name, o->name_len))
		return false;
	if (unrestricted(o))
		return true;
	if (!e->pat)
		return false;
	if (o->pat_len == e->pat_len && !memcmp(o->pat, e->pat, o->pat_len))
		return true;
	n = literal_prefix(o, &lit);
	/* after a ":*" prefix, the command's next word must start where the prefix ends */
	return lit && e->pat_len >= n && !memcmp(lit, e->pat, n) &&
	       (o->pat[o->pat_len - 2] != ':' || e->pat_len == n || e->pat[n] == ' ' ||
	        e->pat[n] == ':');
}

static bool wider(const grants *old, const grants *now)
{
	if (now->odd)
		return true;
	for (size_t i = 0; i < now->n; i++) {
		bool granted = false;

		for (size_t j = 0; j < old->n && !granted; j++)
			granted = covers(&old->items[j], &now->items[i]);
		if (!granted)
			return true;
	}
	return false;
}

bool ss_grants_widen(const char *old_md, size_t old_len, const char *new_md, size_t new_len)
{
	ss_value *old_fm = frontmatter(old_md, old_len), *new_fm = frontmatter(new_md, new_len);
	const ss_value *was = old_fm ? ss_value_map_get(old_fm, "allowed-tools") : NULL;
	const ss_value *is = new_fm ? ss_value_map_get(new_fm, "allowed-tools") : NULL;
	grants g_old = {NULL, 0, 0, false}, g_new = {NULL, 0, 0, false};
	bool widens;

	if (new_md && !new_fm)
		widens = true; /* cannot tell what it grants: fail closed */
	else if (!is || (was && ss_value_equal(was, is)))
		widens = false;
	else {
		collect(&g_old, was);
		collect(&g_new, is);
		widens = wider(&g_old, &g_new);
	}
	free(g_old.items);
	free(g_new.items);
	ss_value_free(old_fm);
	ss_value_free(new_fm);
	return widens;
}
