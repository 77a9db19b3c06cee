/* skillmd.c: reading SKILL.md (the split, strict YAML through libyaml, the lenient fallback). */
#include "core/skill/skillmd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/util/mem.h"

typedef struct parse_ctx {
	yaml_parser_t parser;
	const char *file;
	ss_report *report;
	int line_base; /* file line of the frontmatter's first line, minus one */
	bool failed_yaml;
	ss_buf yaml_problem; /* libyaml's complaint, for the lenient warning */
} parse_ctx;

/* Length of the line at p (up to end) without its line break; *next gets the next line. */
static size_t line_at(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

	*next = nl ? nl + 1 : end;
	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

static bool is_marker(const char *p, size_t n)
{
	if (n < 3 || memcmp(p, "---", 3))
		return false;
	for (size_t i = 3; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return false;
	return true;
}

static bool resolve_int(const char *s, size_t len, int64_t *out)
{
	size_t i = s[0] == '-' ? 1 : 0;
	char *endp;
	long long v;

	if (i >= len || (s[i] == '0' && len > i + 1))
		return false;
	for (size_t j = i; j < len; j++)
		if (s[j] < '0' || s[j] > '9')
			return false;
	if (i == 1 && len == 2 && s[1] == '0')
		return false; /* "-0" stays text */
	errno = 0;
	v = strtoll(s, &endp, 10);
	if (errno || endp != s + len || v > SS_VALUE_INT_MAX || v < -SS_VALUE_INT_MAX)
		return false; /* beyond what the PDS stores: kept as text, like a float */
	*out = v;
	return true;
}

static bool word_in(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

/* A plain scalar's value under the core schema (see skillmd.h). s is NUL-terminated. */
static ss_value *resolve_plain(const char *s, size_t len)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", NULL};
	static const char *const falses[] = {"false", "False", "FALSE", NULL};
	int64_t i;

	if (strlen(s) == len) {
		if (word_in(s, nulls))
			return ss_value_new_null();
		if (word_in(s, trues))
			return ss_value_new_bool(true);
		if (word_in(s, falses))
			return ss_value_new_bool(false);
		if (resolve_int(s, len, &i))
			return ss_value_new_int(i);
	}
	return ss_value_new_string(s, len);
}

static ss_value *scalar_value(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    (tag && !strcmp(tag, YAML_STR_TAG)) || (tag && !strcmp(tag, "!")))
		return ss_value_new_string(s, len);
	return resolve_plain(s, len);
}

static int yaml_fail(parse_ctx *c)
{
	yaml_parser_t *p = &c->parser;

	c->failed_yaml = true;
	ss_buf_clear(&c->yaml_problem);
	ss_buf_printf(&c->yaml_problem, "line %d: %s", (int)p->problem_mark.line + c->line_base + 1,
	              p->problem ? p->problem : "malformed YAML");
	if (p->context)
		ss_buf_printf(&c->yaml_problem, " (%s)", p->context);
	return SS_EINVALID;
}

static int next_event(parse_ctx *c, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&c->parser, ev))
		return yaml_fail(c);
	return 0;
}

static int parse_node(parse_ctx *c, yaml_event_t *first, const char *where, int depth,
                      ss_value **out);

static int report_at(parse_ctx *c, const char *where, const yaml_event_t *ev, const char *what)
{
	ss_report_error(c->report, c->file, where[0] ? where : NULL, "%s (line %d)", what,
	                (int)ev->start_mark.line + c->line_base + 1);
	return SS_EINVALID;
}

/* The top-level keys the Agent Skills specification defines as text: any scalar under them is
 * read as its text (`name: 123` is "123", `description: true` is "true"), as the reference
 * validator reads them, never as a number, a boolean or null. */
static bool text_field(const char *key)
{
	return !strcmp(key, "name") || !strcmp(key, "description");
}

static int parse_mapping(parse_ctx *c, const char *where, int depth, ss_value **out)
{
	ss_value *map = ss_value_new_map();
	ss_buf key = SS_BUF_INIT, sub = SS_BUF_INIT;
	yaml_event_t ev;
	int ret = -1;

	for (;;) {
		ss_value *item = NULL;

		if ((ret = next_event(c, &ev)) < 0)
			goto out;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			ret = report_at(c, where, &ev, "keys must be plain strings");
			yaml_event_delete(&ev);
			goto out;
		}
		ss_buf_clear(&key);
		ss_buf_put(&key, ev.data.scalar.value, ev.data.scalar.length);
		if (ss_value_map_get(map, key.ptr)) {
			ss_buf_clear(&sub);
			ss_buf_printf(&sub, "duplicate key '%s'", key.ptr);
			ret = report_at(c, where, &ev, sub.ptr);
			yaml_event_delete(&ev);
			goto out;
		}
		yaml_event_delete(&ev);
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s%s%s", where, where[0] ? "." : "", key.ptr);
		if ((ret = next_event(c, &ev)) < 0)
			goto out;
		if (!where[0] && ev.type == YAML_SCALAR_EVENT && text_field(key.ptr)) {
			item = ss_value_new_string((const char *)ev.data.scalar.value,
			                           ev.data.scalar.length);
			yaml_event_delete(&ev);
		} else if ((ret = parse_node(c, &ev, sub.ptr, depth + 1, &item)) < 0) {
			goto out;
		}
		ss_value_map_append(map, key.ptr, item);
	}
	*out = map;
	map = NULL;
	ret = 0;
out:
	ss_value_free(map);
	ss_buf_release(&key);
	ss_buf_release(&sub);
	return ret;
}

static int parse_sequence(parse_ctx *c, const char *where, int depth, ss_value **out)
{
	ss_value *list = ss_value_new_list();
	yaml_event_t ev;
	int ret;

	for (;;) {
		ss_value *item = NULL;

		if ((ret = next_event(c, &ev)) < 0)
			goto out;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if ((ret = parse_node(c, &ev, where, depth + 1, &item)) < 0)
			goto out;
		ss_value_list_append(list, item);
	}
	*out = list;
	list = NULL;
	ret = 0;
out:
	ss_value_free(list);
	return ret;
}

/* Parses the node that starts with first (consumed and deleted here). */
static int parse_node(parse_ctx *c, yaml_event_t *first, const char *where, int depth,
                      ss_value **out)
{
	int ret = SS_EINVALID;

	if (depth > SS_SKILLMD_MAX_DEPTH) {
		ret = report_at(c, where, first, "nested too deeply");
	} else if (first->type == YAML_ALIAS_EVENT) {
		ret = report_at(c, where, first, "aliases are not supported");
	} else if (first->type == YAML_SCALAR_EVENT) {
		*out = scalar_value(first);
		ret = 0;
	} else if (first->type == YAML_MAPPING_START_EVENT) {
		yaml_event_delete(first);
		return parse_mapping(c, where, depth, out);
	} else if (first->type == YAML_SEQUENCE_START_EVENT) {
		yaml_event_delete(first);
		return parse_sequence(c, where, depth, out);
	} else {
		ret = report_at(c, where, first, "unexpected YAML structure");
	}
	yaml_event_delete(first);
	return ret;
}

/* The whole document: exactly one mapping. */
static int parse_strict(parse_ctx *c, const char *yaml, size_t len, ss_value **out)
{
	yaml_event_t ev;
	int ret;

	yaml_parser_set_input_string(&c->parser, (const unsigned char *)yaml, len);
	if ((ret = next_event(c, &ev)) < 0) /* stream start */
		return ret;
	yaml_event_delete(&ev);
	if ((ret = next_event(c, &ev)) < 0)
		return ret;
	if (ev.type != YAML_DOCUMENT_START_EVENT) {
		yaml_event_delete(&ev);
		ss_report_error(c->report, c->file, NULL, "frontmatter is empty");
		return SS_EINVALID;
	}
	yaml_event_delete(&ev);
	if ((ret = next_event(c, &ev)) < 0)
		return ret;
	if (ev.type != YAML_MAPPING_START_EVENT) {
		yaml_event_delete(&ev);
		ss_report_error(c->report, c->file, NULL, "frontmatter is not a mapping of keys");
		return SS_EINVALID;
	}
	if ((ret = parse_node(c, &ev, "", 0, out)) < 0)
		return ret;
	if ((ret = next_event(c, &ev)) < 0) /* document end */
		goto fail;
	yaml_event_delete(&ev);
	if ((ret = next_event(c, &ev)) < 0)
		goto fail;
	if (ev.type != YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		ss_report_error(c->report, c->file, NULL,
		                "frontmatter holds more than one document");
		ret = SS_EINVALID;
		goto fail;
	}
	yaml_event_delete(&ev);
	return 0;
fail:
	ss_value_free(*out);
	*out = NULL;
	return ret;
}

static bool is_key_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '_';
}

/* Whether the line is `key: value` at the top level with a plain value holding ": ". */
static bool needs_quotes(const char *p, size_t n, size_t *value_at)
{
	size_t k = 0, v;

	while (k < n && is_key_char(p[k]))
		k++;
	if (!k || k + 1 >= n || p[k] != ':' || p[k + 1] != ' ')
		return false;
	for (v = k + 1; v < n && p[v] == ' '; v++)
		;
	if (v == n || strchr("\"'[{|>&*!#", p[v]))
		return false;
	for (size_t i = v; i + 1 < n; i++)
		if (p[i] == ':' && p[i + 1] == ' ') {
			*value_at = v;
			return true;
		}
	return false;
}

/*
 * The fallback: quotes the plain values of top-level `key: value` lines that hold ": " (what
 * agents accept: `description: Use when: the user asks`), then parses strictly again. Returns
 * 0 on success, -1 when that did not help (nothing reported), SS_EINVALID when the repaired
 * text has other problems (reported).
 */
static int parse_lenient(parse_ctx *orig, const char *yaml, size_t len, ss_value **out)
{
	const char *p = yaml, *end = yaml + len, *next;
	ss_buf fixed = SS_BUF_INIT;
	bool changed = false;
	parse_ctx c;
	int ret = -1;

	for (; p < end; p = next) {
		size_t n = line_at(p, end, &next), v, e;

		if (!needs_quotes(p, n, &v)) {
			ss_buf_put(&fixed, p, (size_t)(next - p));
			continue;
		}
		for (e = n; e > v && (p[e - 1] == ' ' || p[e - 1] == '\t'); e--)
			;
		ss_buf_put(&fixed, p, v);
		ss_buf_putc(&fixed, '"');
		for (size_t i = v; i < e; i++) {
			if (p[i] == '"' || p[i] == '\\')
				ss_buf_putc(&fixed, '\\');
			ss_buf_putc(&fixed, p[i]);
		}
		ss_buf_puts(&fixed, "\"\n");
		changed = true;
	}
	if (changed) {
		memset(&c, 0, sizeof(c));
		c.file = orig->file;
		c.report = orig->report;
		c.line_base = orig->line_base;
		ss_buf_init(&c.yaml_problem);
		yaml_parser_initialize(&c.parser);
		ret = parse_strict(&c, fixed.ptr, fixed.len, out);
		yaml_parser_delete(&c.parser);
		if (ret < 0 && c.failed_yaml)
			ret = -1;
		ss_buf_release(&c.yaml_problem);
	}
	ss_buf_release(&fixed);
	return ret;
}

int ss_skillmd_parse(const char *data, size_t len, const char *file, ss_value **frontmatter,
                     size_t *body_off, ss_report *report)
{
	const char *p = data, *end = data + len, *next, *yaml_start;
	parse_ctx c;
	ss_value *fm = NULL;
	size_t n;
	int ret;

	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	n = line_at(p, end, &next);
	if (p == end || !is_marker(p, n)) {
		ss_report_error(report, file, NULL,
		                "frontmatter missing (the file must start with a '---' line)");
		return SS_EINVALID;
	}
	yaml_start = p = next;
	for (;;) {
		if (p == end) {
			ss_report_error(report, file, NULL,
			                "frontmatter not closed (no '---' line after it)");
			return SS_EINVALID;
		}
		n = line_at(p, end, &next);
		if (is_marker(p, n))
			break;
		p = next;
	}
	memset(&c, 0, sizeof(c));
	c.file = file;
	c.report = report;
	c.line_base = 1;
	ss_buf_init(&c.yaml_problem);
	yaml_parser_initialize(&c.parser);
	ret = parse_strict(&c, yaml_start, (size_t)(p - yaml_start), &fm);
	yaml_parser_delete(&c.parser);
	if (ret < 0 && c.failed_yaml) {
		ret = parse_lenient(&c, yaml_start, (size_t)(p - yaml_start), &fm);
		if (ret == 0) {
			ss_report_warning(
			    report, file, NULL,
			    "frontmatter is not strict YAML (%s); read the values holding "
			    "': ' as plain text",
			    c.yaml_problem.ptr);
		} else if (ret == -1) {
			ret = SS_EINVALID;
			ss_report_error(report, file, NULL, "invalid YAML in frontmatter (%s)",
			                c.yaml_problem.ptr);
		}
	}
	ss_buf_release(&c.yaml_problem);
	if (ret < 0)
		return SS_EINVALID;
	*frontmatter = fm;
	*body_off = (size_t)(next - data);
	return 0;
}
