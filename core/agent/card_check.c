/*
 * card_check.c: a card against the lexicon document itself (core/agent/card_lexicon.c): types,
 * required fields, maxLength (bytes, or items), maxGraphemes, formats, at every depth.
 */
#include "core/agent/card_priv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grapheme.h"
#include "core/util/time.h"
#include "core/util/utf8.h"

json_t *ss_card_lexicon__load(void)
{
	json_t *doc = json_loads(ss_card_lexicon, 0, NULL);

	if (!doc)
		abort(); /* the compiled-in text is JSON: tests/core/card.c reads it */
	return doc;
}

static size_t size_of(const json_t *schema, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(schema, key));

	return v > 0 ? (size_t)v : 0;
}

static bool is_type(const json_t *schema, const char *type)
{
	const char *t = json_string_value(json_object_get(schema, "type"));

	return t && !strcmp(t, type);
}

static const json_t *resolve(const json_t *defs, const json_t *schema)
{
	const char *ref;

	while (schema && is_type(schema, "ref")) {
		ref = json_string_value(json_object_get(schema, "ref"));
		schema = json_object_get(defs, ref && ref[0] == '#' ? ref + 1 : "");
	}
	return schema;
}

ss_card_limit ss_card__limit_of(const json_t *lexicon, const char *def, const char *prop)
{
	const json_t *d = json_object_get(json_object_get(lexicon, "defs"), def), *p;
	ss_card_limit l = {0, 0, 0};

	if (json_object_get(d, "record"))
		d = json_object_get(d, "record");
	p = json_object_get(json_object_get(d, "properties"), prop);
	l.max_length = size_of(p, "maxLength");
	l.max_graphemes = size_of(p, "maxGraphemes");
	l.item_max_length = size_of(json_object_get(p, "items"), "maxLength");
	return l;
}

/* An absolute URI: a scheme, ':', then no space or control character. */
bool ss_card__is_uri(const char *s)
{
	size_t i = 0;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	while (s[i] && s[i] != ':') {
		char ch = s[i++];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.'))
			return false;
	}
	if (s[i] != ':' || !s[i + 1])
		return false;
	for (i++; s[i]; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static bool is_did(const char *s)
{
	size_t n = strlen(s);

	if (strncmp(s, "did:", 4) || n > 2048)
		return false;
	for (size_t i = 4; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("._:%-", s[i])))
			return false;
	return strchr(s + 4, ':') && s[n - 1] != ':' && s[n - 1] != '%';
}

static void check(const json_t *defs, const json_t *schema, const json_t *v, const char *path,
                  ss_report *r);

static void check_string(const json_t *schema, const json_t *v, const char *path, ss_report *r)
{
	const char *s = json_string_value(v), *format;
	size_t len = json_string_length(v), max = size_of(schema, "maxLength"), graphemes;
	size_t maxg = size_of(schema, "maxGraphemes");
	int64_t us;
	ss_error err;

	if (!json_is_string(v)) {
		ss_report_error(r, "card", path, "not a string");
		return;
	}
	if (memchr(s, 0, len)) {
		ss_report_error(r, "card", path, "holds a NUL character");
		return;
	}
	if (max && len > max)
		ss_report_error(r, "card", path, "longer than %zu bytes (%zu)", max, len);
	if (maxg) {
		if (ss_grapheme_count(s, len, &graphemes, &err) < 0)
			ss_report_error(r, "card", path, "%s", err.message);
		else if (graphemes > maxg)
			ss_report_error(r, "card", path, "longer than %zu graphemes (%zu)", maxg,
			                graphemes);
	}
	format = json_string_value(json_object_get(schema, "format"));
	if (!format)
		return;
	if (!strcmp(format, "datetime") && ss_time_parse(s, &us) < 0)
		ss_report_error(r, "card", path, "not a datetime");
	else if (!strcmp(format, "uri") && !ss_card__is_uri(s))
		ss_report_error(r, "card", path, "not an absolute URI");
	else if (!strcmp(format, "did") && !is_did(s))
		ss_report_error(r, "card", path, "not a DID");
}

static void check_array(const json_t *defs, const json_t *schema, const json_t *v, const char *path,
                        ss_report *r)
{
	size_t max = size_of(schema, "maxLength"), i;
	const json_t *item;
	ss_buf sub = SS_BUF_INIT;

	if (!json_is_array(v)) {
		ss_report_error(r, "card", path, "not an array");
		return;
	}
	if (max && json_array_size(v) > max) {
		ss_report_error(r, "card", path, "more than %zu items (%zu)", max,
		                json_array_size(v));
		return; /* not walked: it may be huge */
	}
	json_array_foreach(v, i, item)
	{
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s[%zu]", path, i);
		check(defs, json_object_get(schema, "items"), item, sub.ptr, r);
	}
	ss_buf_release(&sub);
}

static void check_object(const json_t *defs, const json_t *schema, const json_t *v,
                         const char *path, ss_report *r)
{
	const json_t *req;
	json_t *props = json_object_get(schema, "properties"), *sub_schema;
	const char *key;
	size_t i;
	ss_buf sub = SS_BUF_INIT;

	if (!json_is_object(v)) {
		ss_report_error(r, "card", path, "not an object");
		return;
	}
	json_array_foreach(json_object_get(schema, "required"), i, req)
	{
		if (!json_object_get(v, json_string_value(req)))
			ss_report_error(r, "card", path[0] ? path : NULL, "'%s' is missing",
			                json_string_value(req));
	}
	json_object_foreach(props, key, sub_schema)
	{
		const json_t *item = json_object_get(v, key);

		if (!item)
			continue;
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s%s%s", path, path[0] ? "." : "", key);
		check(defs, sub_schema, item, sub.ptr, r);
	}
	ss_buf_release(&sub);
}

static void check(const json_t *defs, const json_t *schema, const json_t *v, const char *path,
                  ss_report *r)
{
	const char *type;

	schema = resolve(defs, schema);
	if (json_object_get(schema, "record"))
		schema = json_object_get(schema, "record");
	type = json_string_value(json_object_get(schema, "type"));
	if (!type)
		return;
	if (!strcmp(type, "object"))
		check_object(defs, schema, v, path, r);
	else if (!strcmp(type, "array"))
		check_array(defs, schema, v, path, r);
	else if (!strcmp(type, "string"))
		check_string(schema, v, path, r);
	else if (!strcmp(type, "boolean") && !json_is_boolean(v))
		ss_report_error(r, "card", path, "not a boolean");
	else if (!strcmp(type, "integer") && !json_is_integer(v))
		ss_report_error(r, "card", path, "not an integer");
}

/* The most a card's JSON text may be before it is parsed (the PDS's record limit). */
#define SS_CARD_MAX_TEXT 1000000

int ss_card_check(const char *json, size_t len, ss_report *report, ss_error *err)
{
	json_t *v, *lex;
	json_error_t jerr;
	const char *type;

	if (len > SS_CARD_MAX_TEXT) {
		ss_report_error(report, "card", NULL, "longer than %d bytes (%zu)",
		                SS_CARD_MAX_TEXT, len);
		return ss_report_to_error(report, err);
	}
	v = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!v) {
		ss_report_error(report, "card", NULL, "not JSON: %s", jerr.text);
		return ss_report_to_error(report, err);
	}
	type = json_string_value(json_object_get(v, "$type"));
	if (json_is_object(v) && (!type || strcmp(type, SS_CARD_NSID)))
		ss_report_error(report, "card", "$type", "not '%s'", SS_CARD_NSID);
	lex = ss_card_lexicon__load();
	check(json_object_get(lex, "defs"), json_object_get(json_object_get(lex, "defs"), "main"),
	      v, "", report);
	json_decref(lex);
	json_decref(v);
	return ss_report_to_error(report, err);
}
