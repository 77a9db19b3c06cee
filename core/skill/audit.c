/*
 * audit.c: the audit of one file (core/skill/audit.h): which rules look at it, the findings and
 * their excerpts, the report and its levels. The rules themselves: core/skill/audit_rules.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/skill/audit_priv.h"
#include "core/skill/program.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

void ss_audit_report_init(ss_audit_report *r)
{
	r->findings = NULL;
	r->n = r->alloc = 0;
}

void ss_audit_report_release(ss_audit_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->findings[i].skill);
		free(r->findings[i].path);
		free(r->findings[i].message);
		free(r->findings[i].excerpt);
	}
	free(r->findings);
	ss_audit_report_init(r);
}

ss_audit_level ss_audit_worst(const ss_audit_report *r)
{
	ss_audit_level worst = SS_AUDIT_INFO;

	for (size_t i = 0; i < r->n; i++)
		if (r->findings[i].level > worst)
			worst = r->findings[i].level;
	return worst;
}

const char *ss_audit_level_name(ss_audit_level l)
{
	switch (l) {
	case SS_AUDIT_HIGH:
		return "high";
	case SS_AUDIT_MEDIUM:
		return "medium";
	case SS_AUDIT_LOW:
		return "low";
	case SS_AUDIT_INFO:
		break;
	}
	return "info";
}

/* Adds a finding whose excerpt is escaped already (taken over). */
static void push(ss_audit_report *r, const ss_audit__rule *rule, ss_audit_level level,
                 const char *skill, const char *path, size_t line, char *excerpt)
{
	ss_audit_finding *f;

	ss_xgrow((void **)&r->findings, sizeof(*r->findings), r->n + 1, &r->alloc);
	f = &r->findings[r->n++];
	f->skill = ss_xstrdup(skill);
	f->path = ss_xstrdup(path);
	f->line = line;
	f->rule = rule->info.id;
	f->level = level;
	f->message = ss_xstrdup(rule->info.message);
	f->excerpt = excerpt;
}

void ss_audit__add(ss_audit_report *r, const ss_audit__rule *rule, const char *skill,
                   const char *path, size_t line, const char *excerpt, size_t excerpt_len)
{
	ss_buf esc = SS_BUF_INIT;

	ss_utf8_escape(&esc, excerpt, excerpt_len, SS_ESCAPE_TEXT);
	push(r, rule, rule->info.level, skill, path, line, ss_buf_detach(&esc, NULL));
}

/* How far before the match an excerpt of a long line starts. */
#define LEAD 40

void ss_audit__add_at(ss_audit_report *r, const ss_audit__rule *rule, ss_audit_level level,
                      const ss_audit__file *f, size_t pos, size_t line)
{
	const char *bytes = f->bytes;
	size_t len = f->len, ls = pos, le, s, n;
	ss_buf ex = SS_BUF_INIT;

	while (ls > 0 && bytes[ls - 1] != '\n')
		ls--;
	le = pos;
	while (le < len && bytes[le] != '\n')
		le++;
	if (le > ls && bytes[le - 1] == '\r')
		le--;
	for (s = ls; s < pos && s < le && (bytes[s] == ' ' || bytes[s] == '\t'); s++)
		;
	if (pos > s && pos - s > SS_AUDIT_EXCERPT_MAX - LEAD) {
		/* a long line: start a little before the match, on a character boundary */
		s = pos - LEAD;
		while (s > ls && ((unsigned char)bytes[s] & 0xc0) == 0x80)
			s--;
		ss_buf_puts(&ex, "... ");
	}
	n = ss_utf8_cut(bytes + s, le > s ? le - s : 0, SS_AUDIT_EXCERPT_MAX);
	ss_utf8_escape(&ex, bytes + s, n, SS_ESCAPE_TEXT);
	if (s + n < le)
		ss_buf_puts(&ex, " ...");
	push(r, rule, level, f->skill, f->path, line, ss_buf_detach(&ex, NULL));
}

/* Orders one file's findings by line, keeping the rules' order within a line (stable). */
static void by_line(ss_audit_finding *f, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		ss_audit_finding x = f[i];
		size_t j = i;

		for (; j > 0 && f[j - 1].line > x.line; j--)
			f[j] = f[j - 1];
		f[j] = x;
	}
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether a file is a program, as the review gate sees it too (core/skill/program.h). */
static bool is_code(const char *path, const char *bytes, size_t len, bool executable)
{
	return ss_program_is(path, bytes, len, executable);
}

/* The end of the line at off (past its newline), or len. */
static size_t line_end(const char *bytes, size_t len, size_t off)
{
	const char *nl = off < len ? memchr(bytes + off, '\n', len - off) : NULL;

	return nl ? (size_t)(nl - bytes) + 1 : len;
}

/* Whether bytes[off, len) starts with a "---" line. */
static bool fence_at(const char *bytes, size_t len, size_t off)
{
	size_t e = line_end(bytes, len, off), i = off + 3;

	if (len - off < 3 || memcmp(bytes + off, "---", 3))
		return false;
	while (i < e &&
	       (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n'))
		i++;
	return i == e;
}

/* SKILL.md's frontmatter: [*start, *end) between its fences; false when it has none. */
static bool frontmatter(const char *bytes, size_t len, size_t *start, size_t *end)
{
	size_t off = len >= 3 && !memcmp(bytes, "\xef\xbb\xbf", 3) ? 3 : 0;

	if (!fence_at(bytes, len, off))
		return false;
	*start = line_end(bytes, len, off);
	for (off = *start; off < len && !fence_at(bytes, len, off); off = line_end(bytes, len, off))
		;
	*end = off;
	return true;
}

/* One file as the rules see it, with the copies some of them need, made on first need. */
typedef struct view {
	ss_audit__file f;
	bool code, binary, non_ascii, fm;
	size_t fm_start, fm_end;
	char *lower; /* ss_audit__fold of the file, for the needs */
	size_t nlower;
	char *commands; /* Markdown that is not a program: ss_audit__commands_only */
	char *plain;    /* ss_audit__unconfuse of the file, map back to it, its fold */
	uint32_t *map;
	size_t nplain;
	char *plain_lower;
	size_t nplain_lower;
} view;

static void view_release(view *v)
{
	free(v->lower);
	free(v->commands);
	free(v->plain);
	free(v->map);
	free(v->plain_lower);
}

/* Runs a rule's pattern over the file at its level, or over the copy with look-alikes
 * folded when it asks for that, or, in Markdown that is not a program, over where commands
 * are at its level and over the rest at info. */
static void run_regex(ss_audit_report *r, const ss_audit__rule *rule, view *v)
{
	ss_audit__pass p = {v->f.bytes, 0, v->f.len, NULL, rule->info.level, 0, 0, 0};

	if (rule->scope == SS_AUDIT_SCOPE_FRONTMATTER) {
		p.start = v->fm_start;
		p.end = v->fm_end;
		if (v->fm)
			ss_audit__match(r, rule, &v->f, &p);
		return;
	}
	if (rule->scope == SS_AUDIT_SCOPE_CODE && !v->code)
		return;
	if (rule->fold_confusables && v->non_ascii) {
		if (!v->plain) {
			v->plain = ss_audit__unconfuse(v->f.bytes, v->f.len, &v->nplain, &v->map);
			v->plain_lower = ss_audit__fold(v->plain, v->nplain, &v->nplain_lower);
		}
		p.text = v->plain;
		p.end = v->nplain;
		p.map = v->map;
		if (ss_audit__needs_met(rule, v->plain_lower, v->nplain_lower, v->non_ascii))
			ss_audit__match(r, rule, &v->f, &p);
		return;
	}
	if (!ss_audit__needs_met(rule, v->lower, v->nlower, v->non_ascii))
		return;
	if (rule->commands && !v->code && ss_audit__markdown(v->f.path)) {
		bool skill_md = !strcmp(v->f.path, "SKILL.md");

		if (!v->commands)
			v->commands = ss_audit__commands_only(
			    v->f.bytes, v->f.len, skill_md,
			    skill_md && v->fm ? line_end(v->f.bytes, v->f.len, v->fm_end) : 0);
		p.text = v->commands;
		p.skip_start = r->n;
		ss_audit__match(r, rule, &v->f, &p);
		p.text = v->f.bytes;
		p.level = SS_AUDIT_INFO;
		p.skip_end = r->n;
	}
	ss_audit__match(r, rule, &v->f, &p);
}

void ss_audit_file(ss_audit_report *r, const char *skill, const char *path, const char *bytes,
                   size_t len, bool executable)
{
	ss_audit_file_rule(r, skill, path, bytes, len, executable, SIZE_MAX);
}

/* only: the index of the one rule to run, SIZE_MAX for all of them. */
void ss_audit_file_rule(ss_audit_report *r, const char *skill, const char *path, const char *bytes,
                        size_t len, bool executable, size_t only)
{
	static const ss_audit__rule broken_rule = {
	    .info = {"audit-broken", SS_AUDIT_HIGH,
	             "the audit's rules cannot be used: nothing was checked", SS_AUDIT_HIGH}};
	const char *broken;
	size_t n, first;
	const ss_audit__rule *rules = ss_audit__rules(&n, &broken);
	view v;

	if (!rules) {
		/* fail closed: a build whose rules do not compile must not pass every skill */
		ss_audit__add(r, &broken_rule, skill, path, 0, broken, strlen(broken));
		return;
	}
	memset(&v, 0, sizeof(v));
	v.f = (ss_audit__file){skill, path, bytes, len};
	v.code = is_code(path, bytes, len, executable);
	v.binary = ss_audit__binary(path, bytes, len);
	v.fm = !strcmp(path, "SKILL.md") && frontmatter(bytes, len, &v.fm_start, &v.fm_end);
	v.lower = ss_audit__fold(bytes, len, &v.nlower);
	for (size_t i = 0; i < len && !v.non_ascii; i++)
		v.non_ascii = (unsigned char)bytes[i] >= 0x80;
	first = r->n;
	for (size_t i = 0; i < n; i++) {
		const ss_audit__rule *rule = &rules[i];

		if (only != SIZE_MAX && i != only)
			continue;
		switch (rule->kind) {
		case SS_AUDIT_KIND_EXECUTABLE:
			if (executable)
				ss_audit__add(r, rule, skill, path, 0, "", 0);
			break;
		case SS_AUDIT_KIND_SCRIPTS:
			if (!executable && has_prefix(path, "scripts/"))
				ss_audit__add(r, rule, skill, path, 0, "", 0);
			break;
		case SS_AUDIT_KIND_BINARY:
			if (v.binary)
				ss_audit__add(r, rule, skill, path, 0, "", 0);
			break;
		case SS_AUDIT_KIND_SYMLINK:
			break; /* a property of the directory entry: ss_audit_dir */
		case SS_AUDIT_KIND_REGEX:
			if (!v.binary)
				run_regex(r, rule, &v);
			break;
		}
	}
	if (r->n > first)
		by_line(r->findings + first, r->n - first);
	view_release(&v);
}
