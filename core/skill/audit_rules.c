/*
 * audit_rules.c: the audit's rules, read from the document compiled in
 * (core/skill/audit_rules.json, docs/AUDIT.md) and their patterns compiled with PCRE2 once per
 * process (JIT where the machine has it); the one module that includes pcre2.h.
 *
 * Patterns are compiled with PCRE2_UTF (and PCRE2_MATCH_INVALID_UTF: a file that is not UTF-8
 * is still searched, each valid stretch on its own: ^ does not match after a bad byte, which is
 * why the rules anchor with (?<![^\n]) instead), PCRE2_MULTILINE (^ and $ at every line) and
 * PCRE2_NEWLINE_ANYCRLF. A rule's finding sits where its first capture group that took part
 * starts, else where the match starts; a rule reports a line once. Every search runs under
 * match, depth and heap limits that grow with the text (limits_for); one that reaches a limit,
 * or fails in any other way, is a high "audit-limit" finding, never a quiet end.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <pcre2.h>

#include "core/skill/audit_priv.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

static struct {
	pthread_once_t once;
	ss_audit__rule *rules;
	size_t n;
	char *broken; /* why the rules could not be compiled, or NULL */
} compiled = {PTHREAD_ONCE_INIT, NULL, 0, NULL};

static int level_of(const char *s, ss_audit_level *out)
{
	static const char *const names[] = {"info", "low", "medium", "high"};

	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, names[i])) {
			*out = (ss_audit_level)i;
			return 0;
		}
	return -1;
}

static int kind_of(const char *s, ss_audit_kind *out)
{
	static const char *const names[] = {"regex", "executable", "scripts", "symlink", "binary"};

	for (int i = 0; i < 5; i++)
		if (!strcmp(s ? s : "regex", names[i])) {
			*out = (ss_audit_kind)i;
			return 0;
		}
	return -1;
}

static int scope_of(const char *s, ss_audit_scope *out)
{
	static const char *const names[] = {"any", "code", "frontmatter"};

	for (int i = 0; i < 3; i++)
		if (!strcmp(s ? s : "any", names[i])) {
			*out = (ss_audit_scope)i;
			return 0;
		}
	return -1;
}

/* The rule's "needs": a list of lists of lowercase ASCII strings. 0, or -1 when malformed. */
static int read_needs(json_t *jn, ss_audit__rule *out)
{
	size_t i, k;
	json_t *group, *needle;

	out->needs = NULL;
	if (!jn)
		return 0;
	if (!json_is_array(jn) || !json_array_size(jn))
		return -1;
	out->needs = ss_xcalloc(json_array_size(jn) + 1, sizeof(*out->needs));
	json_array_foreach(jn, i, group)
	{
		if (!json_is_array(group) || !json_array_size(group))
			return -1;
		out->needs[i] = ss_xcalloc(json_array_size(group) + 1, sizeof(**out->needs));
		json_array_foreach(group, k, needle)
		{
			const char *s = json_string_value(needle);
			for (const char *c = s; c && *c; c++)
				if ((unsigned char)*c >= 0x80 || (*c >= 'A' && *c <= 'Z'))
					return -1;
			if (!s || !*s)
				return -1;
			out->needs[i][k] = ss_xstrdup(s);
		}
	}
	return 0;
}

/* The rule's "weakLevel" and its pattern's group "weak": both or neither. 0, or -1 with why. */
static int read_weak(json_t *jr, ss_audit__rule *out, ss_buf *why)
{
	json_t *jl = json_object_get(jr, "weakLevel");
	int group = pcre2_substring_number_from_name(out->code, (PCRE2_SPTR) "weak");

	out->weak_group = group > 0 ? group : 0;
	out->info.weak_level = out->info.level;
	if (!jl && !out->weak_group)
		return 0;
	if (!out->weak_group || level_of(json_string_value(jl), &out->info.weak_level) < 0) {
		ss_buf_printf(why, "rule '%s': weakLevel and a group named weak go together",
		              out->info.id);
		return -1;
	}
	return 0;
}

/* Compiles one rule from its JSON object: 0, or -1 with why in *why. */
static int compile_rule(json_t *jr, ss_audit__rule *out, ss_buf *why)
{
	const char *id = json_string_value(json_object_get(jr, "id"));
	const char *message = json_string_value(json_object_get(jr, "message"));
	const char *pattern = json_string_value(json_object_get(jr, "pattern"));
	int code = 0;
	PCRE2_SIZE at = 0;
	pcre2_compile_context *cc;

	if (!id || !message ||
	    level_of(json_string_value(json_object_get(jr, "level")), &out->info.level) < 0 ||
	    kind_of(json_string_value(json_object_get(jr, "kind")), &out->kind) < 0 ||
	    scope_of(json_string_value(json_object_get(jr, "scope")), &out->scope) < 0 ||
	    (out->kind == SS_AUDIT_KIND_REGEX) != (pattern != NULL)) {
		ss_buf_printf(why, "rule '%s' lacks an id, message, level, kind or pattern",
		              id ? id : "?");
		return -1;
	}
	out->info.id = ss_xstrdup(id);
	out->info.message = ss_xstrdup(message);
	out->code = NULL;
	out->non_ascii = json_is_true(json_object_get(jr, "needsNonAscii"));
	out->commands = json_is_true(json_object_get(jr, "commands"));
	out->fold_confusables = json_is_true(json_object_get(jr, "foldConfusables"));
	if (read_needs(json_object_get(jr, "needs"), out) < 0) {
		ss_buf_printf(why, "rule '%s': needs is not a list of lists of lowercase strings",
		              id);
		return -1;
	}
	if (!pattern)
		return 0;
	cc = pcre2_compile_context_create(NULL);
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
	out->code =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	                  PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_MULTILINE, &code, &at, cc);
	pcre2_compile_context_free(cc);
	if (!out->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof(msg));
		ss_buf_printf(why, "rule '%s': pattern at offset %zu: %s", id, (size_t)at,
		              (const char *)msg);
		return -1;
	}
	pcre2_jit_compile(out->code, PCRE2_JIT_COMPLETE); /* no JIT: the interpreter runs it */
	return read_weak(jr, out, why);
}

static void compile_all(void)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)ss_audit__rules_json, ss_audit__rules_json_len,
	                         JSON_ALLOW_NUL, &jerr);
	json_t *rules = json_object_get(doc, "rules");
	ss_buf why = SS_BUF_INIT;
	size_t i;

	if (!json_is_array(rules) || !json_array_size(rules)) {
		ss_buf_printf(&why, "the rules document is not readable: %s",
		              doc ? "no rules" : jerr.text);
		goto out;
	}
	compiled.rules = ss_xcalloc(json_array_size(rules), sizeof(*compiled.rules));
	for (i = 0; i < json_array_size(rules); i++)
		if (compile_rule(json_array_get(rules, i), &compiled.rules[i], &why) < 0)
			goto out;
	compiled.n = i;
out:
	if (why.len) {
		compiled.broken = ss_buf_detach(&why, NULL);
		compiled.n = 0;
	}
	json_decref(doc);
}

const ss_audit__rule *ss_audit__rules(size_t *n, const char **broken)
{
	pthread_once(&compiled.once, compile_all);
	*n = compiled.n;
	*broken = compiled.broken;
	return compiled.broken ? NULL : compiled.rules;
}

int ss_audit_ready(ss_error *err)
{
	size_t n;
	const char *broken;

	if (!ss_audit__rules(&n, &broken))
		return ss_error_set(err, SS_ERROR, "the audit's rules cannot be used: %s", broken);
	return 0;
}

size_t ss_audit_rule_count(void)
{
	size_t n;
	const char *broken;

	ss_audit__rules(&n, &broken);
	return n;
}

const ss_audit_rule_info *ss_audit_rule_at(size_t i)
{
	size_t n;
	const char *broken;
	const ss_audit__rule *rules = ss_audit__rules(&n, &broken);

	return rules && i < n ? &rules[i].info : NULL;
}

const char *ss_audit_rules_document(size_t *len)
{
	*len = ss_audit__rules_json_len;
	return (const char *)ss_audit__rules_json;
}

char *ss_audit__fold(const char *bytes, size_t len, size_t *out_len)
{
	char *f = ss_xmalloc(len + 1);
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)bytes[i];

		if (c >= 'A' && c <= 'Z') {
			f[n++] = (char)(c - 'A' + 'a');
		} else if (c == 0xe2 && i + 2 < len && !memcmp(bytes + i, "\xe2\x84\xaa", 3)) {
			f[n++] = 'k';
			i += 2;
		} else if (c == 0xc5 && i + 1 < len && (unsigned char)bytes[i + 1] == 0xbf) {
			f[n++] = 's';
			i++;
		} else {
			f[n++] = (char)c;
		}
	}
	f[n] = '\0';
	*out_len = n;
	return f;
}

/* Whether needle (n > 0 bytes) is in s[0, len): memchr for its first byte, then memcmp (memmem
 * is not POSIX). */
static bool contains(const char *s, size_t len, const char *needle, size_t n)
{
	const char *p = s, *end = s + len;

	while ((size_t)(end - p) >= n && (p = memchr(p, needle[0], (size_t)(end - p) - n + 1))) {
		if (!memcmp(p, needle, n))
			return true;
		p++;
	}
	return false;
}

bool ss_audit__needs_met(const ss_audit__rule *rule, const char *folded, size_t len, bool non_ascii)
{
	if (rule->non_ascii && !non_ascii)
		return false;
	for (char ***group = rule->needs; group && *group; group++) {
		bool found = false;
		for (char **needle = *group; !found && *needle; needle++)
			found = contains(folded, len, *needle, strlen(*needle));
		if (!found)
			return false;
	}
	return true;
}

/* The start of the line after the one holding pos, or end. */
static size_t next_line(const char *text, size_t pos, size_t end)
{
	const char *nl = pos < end ? memchr(text + pos, '\n', end - pos) : NULL;

	return nl ? (size_t)(nl - text) + 1 : end;
}

/* A match context whose limits grow with the text: SS_AUDIT_STEPS_PER_BYTE steps a byte, the
 * interpreter's depth one frame a byte (a group repeated over a long line nests), its heap at
 * most 64 MiB. NULL when out of memory (the caller fails closed). */
static pcre2_match_context *limits_for(size_t len, size_t max_steps)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	size_t steps = max_steps ? max_steps : SS_AUDIT_STEPS_MIN + SS_AUDIT_STEPS_PER_BYTE * len;

	if (!mc)
		return NULL;
	pcre2_set_match_limit(mc, steps > UINT32_MAX ? UINT32_MAX : (uint32_t)steps);
	pcre2_set_depth_limit(mc, len + 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(len + 1000));
	pcre2_set_heap_limit(mc, 64 * 1024);
	return mc;
}

/* Adds the high finding of a search of rule that reached a limit at pos (fail closed). */
static void add_limit(ss_audit_report *r, const ss_audit__rule *rule, const ss_audit__file *f,
                      size_t pos, size_t line, int rc)
{
	static const ss_audit__rule limit_rule = {
	    .info = {"audit-limit", SS_AUDIT_HIGH, "a rule reached the regex engine's limit",
	             SS_AUDIT_HIGH}};
	PCRE2_UCHAR why[128];
	ss_buf msg = SS_BUF_INIT;
	ss_audit_finding *added;

	pcre2_get_error_message(rc, why, sizeof(why));
	ss_audit__add_at(r, &limit_rule, SS_AUDIT_HIGH, f, pos, line);
	added = &r->findings[r->n - 1];
	ss_buf_printf(&msg,
	              "rule '%s' stopped here (%s): the rest of the file was not checked by it",
	              rule->info.id, (const char *)why);
	free(added->message);
	added->message = ss_buf_detach(&msg, NULL);
}

/* Whether one of r's findings [*k, end) is on line (they come by line: *k moves on). */
static bool reported(const ss_audit_report *r, size_t *k, size_t end, size_t line)
{
	while (*k < end && r->findings[*k].line < line)
		(*k)++;
	return *k < end && r->findings[*k].line == line;
}

/* A weak match (ss_audit__rule.weak_group) waiting for the end of its line: a stronger match of
 * the rule later on the same line is reported in its place. */
typedef struct weak_match {
	bool set;
	ss_audit_level level;
	size_t at, line;
} weak_match;

static void add_weak(ss_audit_report *r, const ss_audit__rule *rule, const ss_audit__file *f,
                     weak_match *w)
{
	if (w->set)
		ss_audit__add_at(r, rule, w->level, f, w->at, w->line);
	w->set = false;
}

void ss_audit__match(ss_audit_report *r, const ss_audit__rule *rule, const ss_audit__file *f,
                     const ss_audit__pass *p)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(rule->code, NULL);
	pcre2_match_context *mc = limits_for(p->end - p->start, p->max_steps);
	size_t off = p->start, counted = 0, line = 1, k = p->skip_start;
	weak_match weak = {false, SS_AUDIT_INFO, 0, 0};

	while (off < p->end) {
		int rc = md && mc
		             ? pcre2_match(rule->code, (PCRE2_SPTR)p->text, p->end, off, 0, md, mc)
		             : PCRE2_ERROR_NOMEMORY;
		PCRE2_SIZE *ov = md ? pcre2_get_ovector_pointer(md) : NULL;
		ss_audit_level level = p->level;
		bool is_weak;
		size_t pos;

		if (rc ==
		    PCRE2_ERROR_JIT_STACKLIMIT) /* the interpreter keeps its frames on the heap */
			rc = pcre2_match(rule->code, (PCRE2_SPTR)p->text, p->end, off, PCRE2_NO_JIT,
			                 md, mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		pos = rc < 0 ? off : ov[0];
		for (int g = 1; g < rc; g++)
			if (g != rule->weak_group && ov[2 * g] != PCRE2_UNSET) {
				pos = ov[2 * g];
				break;
			}
		is_weak = rule->weak_group && rule->weak_group < rc &&
		          ov[2 * rule->weak_group] != PCRE2_UNSET;
		for (size_t at = p->map ? p->map[pos] : pos; counted < at; counted++)
			line += f->bytes[counted] == '\n';
		if (weak.set && (weak.line != line || rc < 0))
			add_weak(r, rule, f, &weak);
		if (rc < 0) {
			add_limit(r, rule, f, counted, line, rc);
			break;
		}
		if (is_weak) { /* look on along the line for a stronger match */
			if (rule->info.weak_level < level)
				level = rule->info.weak_level;
			if (!weak.set && !reported(r, &k, p->skip_end, line))
				weak = (weak_match){true, level, counted, line};
			off = ov[1] > off ? ov[1] : off + 1;
			continue;
		}
		weak.set = false; /* a stronger match on its line takes its place */
		if (!reported(r, &k, p->skip_end, line))
			ss_audit__add_at(r, rule, level, f, counted, line);
		off = next_line(p->text, pos, p->end);
		if (ov[1] > off)
			off = next_line(p->text, ov[1] - 1, p->end);
	}
	add_weak(r, rule, f, &weak);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
}
