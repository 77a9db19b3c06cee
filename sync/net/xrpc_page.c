/*
 * xrpc_page.c: reading a listRecords page without building it in memory.
 *
 * A page is walked by a small scanner in one pass, in constant memory whatever the page holds
 * (a 60 MB page of `[]` values costs its bytes, no JSON tree): it finds the page's `records`
 * and `cursor`, and in each entry its `uri` (or `rkey`: com.atproto.space.listRecords), `cid`
 * and the raw text of its `value`. Each
 * record's value is then decoded on its own by the record decoder (core/skill/record_decode.c, with
 * duplicate keys refused, integers beyond int64 and nesting deeper than jansson's limit
 * refused), so one bad record is skipped with its reason and the rest of the page syncs.
 * Only a page that is not JSON at all fails as a whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/skill/record.h"
#include "core/util/mem.h"
#include "sync/net/xrpc_priv.h"
#include "sync/net/xrpc_repo.h"

/* Longest uri, cid, cursor or key we decode. */
#define MAX_SHORT_STRING 8192

typedef struct scan {
	const char *p, *end;
} scan;

static void ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool eat(scan *s, char c)
{
	ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

/* Past a string starting at s->p (a '"'); false at the end of the text. */
static bool skip_string(scan *s)
{
	for (s->p++; s->p < s->end; s->p++) {
		if (*s->p == '\\')
			s->p++;
		else if (*s->p == '"') {
			s->p++;
			return true;
		}
	}
	return false;
}

/*
 * Past one value of any depth, counting brackets (no stack, no recursion): the value's text is
 * checked by whoever decodes it. False when the text ends first or holds no value.
 */
static bool skip_value(scan *s)
{
	size_t depth = 0;

	ws(s);
	do {
		if (s->p >= s->end)
			return false;
		switch (*s->p) {
		case '"':
			if (!skip_string(s))
				return false;
			break;
		case '{':
		case '[':
			depth++;
			s->p++;
			break;
		case '}':
		case ']':
			if (!depth)
				return false;
			depth--;
			s->p++;
			break;
		case ',':
		case ':':
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			if (!depth)
				return false;
			s->p++;
			break;
		default: { /* a number or a literal: at least one byte, or the page is not JSON */
			static const char stops[] = ",:]} \t\n\r\"[{";
			const char *start = s->p;

			/* memchr, not strchr: a NUL byte is no stop (strchr finds the terminator)
			 */
			while (s->p < s->end && !memchr(stops, *s->p, sizeof(stops) - 1))
				s->p++;
			if (s->p == start)
				return false;
		}
		}
	} while (depth);
	return true;
}

/* The string value text[0..len) (quotes included) as a C string, or NULL when it is not one. */
static char *decode_string(const char *text, size_t len)
{
	json_t *v;
	char *out = NULL;

	if (len < 2 || text[0] != '"' || len > MAX_SHORT_STRING)
		return NULL;
	if (!memchr(text, '\\', len))
		return ss_xmemdup(text + 1, len - 2);
	v = json_loadb(text, len, JSON_DECODE_ANY, NULL);
	if (json_is_string(v))
		out = ss_xmemdup(json_string_value(v), json_string_length(v));
	json_decref(v);
	return out;
}

/* Reads a key and its colon; *key is NULL for a key too long to be one we read. */
static bool read_key(scan *s, char **key)
{
	const char *start;
	size_t len;

	ws(s);
	start = s->p;
	*key = NULL;
	if (s->p >= s->end || *s->p != '"' || !skip_string(s))
		return false;
	len = (size_t)(s->p - start);
	if (!eat(s, ':'))
		return false;
	*key = decode_string(start, len);
	return true;
}

/* One entry of `records`, an object, into rec; a record it cannot read gets rec->problem. */
static bool read_entry(scan *s, ss_xrpc_record *rec, const char **problem, char *why, size_t whylen)
{
	const char *vstart = NULL, *vend = NULL;
	bool seen_uri = false, seen_cid = false, seen_value = false;

	*problem = NULL;
	if (!eat(s, '{'))
		return false;
	if (eat(s, '}'))
		goto done;
	do {
		const char *start;
		char *key;
		bool ok;

		if (!read_key(s, &key))
			return false;
		ws(s);
		start = s->p;
		ok = skip_value(s);
		if (ok && key && !strcmp(key, "uri")) {
			if (seen_uri)
				*problem = "the record's entry names its uri twice";
			seen_uri = true;
			free(rec->uri);
			rec->uri = decode_string(start, (size_t)(s->p - start));
		} else if (ok && key && !strcmp(key, "rkey")) {
			/* com.atproto.space.listRecords names the key instead of a uri */
			if (rec->rkey)
				*problem = "the record's entry names its rkey twice";
			free(rec->rkey);
			rec->rkey = decode_string(start, (size_t)(s->p - start));
		} else if (ok && key && !strcmp(key, "cid")) {
			if (seen_cid)
				*problem = "the record's entry names its cid twice";
			seen_cid = true;
			free(rec->cid);
			rec->cid = decode_string(start, (size_t)(s->p - start));
		} else if (ok && key && !strcmp(key, "value")) {
			if (seen_value)
				*problem = "the record's entry holds two values";
			seen_value = true;
			vstart = start;
			vend = s->p;
		}
		free(key);
		if (!ok)
			return false;
	} while (eat(s, ','));
	if (!eat(s, '}'))
		return false;
done:
	if (!*problem && !seen_value)
		*problem = "the server sent the record without a value";
	if (!*problem && (size_t)(vend - vstart) > SS_RECORD_MAX_INPUT) {
		snprintf(why, whylen, "record larger than %d bytes (%zu)", SS_RECORD_MAX_INPUT,
		         (size_t)(vend - vstart));
		*problem = why;
	}
	if (!*problem) {
		rec->value_len = (size_t)(vend - vstart);
		rec->value_json = ss_xmemdup(vstart, rec->value_len);
	}
	return true;
}

static const char *uri_rkey(const char *uri)
{
	const char *slash = uri ? strrchr(uri, '/') : NULL;

	return slash ? slash + 1 : NULL;
}

/* Walks `records`: every entry goes to fn. */
static int walk_records(scan *s, ss_xrpc_record_fn fn, void *payload, size_t *count, ss_error *err)
{
	if (!eat(s, '['))
		return 1;
	if (eat(s, ']'))
		return 0;
	do {
		ss_xrpc_record rec;
		const char *problem = NULL;
		char why[128];
		int ret;

		memset(&rec, 0, sizeof(rec));
		ws(s);
		if (s->p < s->end && *s->p == '{') {
			if (!read_entry(s, &rec, &problem, why, sizeof(why))) {
				ss_xrpc_record_release(&rec);
				return 1;
			}
		} else if (skip_value(s)) {
			problem = "an entry of the page is not an object";
		} else {
			return 1;
		}
		if (!rec.rkey && rec.uri && uri_rkey(rec.uri))
			rec.rkey = ss_xstrdup(uri_rkey(rec.uri));
		rec.problem = problem;
		(*count)++;
		ret = fn(payload, &rec, err);
		ss_xrpc_record_release(&rec);
		if (ret < 0)
			return ret;
	} while (eat(s, ','));
	return eat(s, ']') ? 0 : 1;
}

int ss_xrpc__walk_page(const char *nsid, const char *body, size_t len, ss_xrpc_record_fn fn,
                       void *payload, size_t *count, char **cursor, ss_error *err)
{
	scan s = {body, body + len};
	bool seen_records = false;
	int ret = 1;

	*cursor = NULL;
	*count = 0;
	if (!eat(&s, '{'))
		goto bad;
	if (eat(&s, '}'))
		goto end;
	do {
		const char *start;
		bool null_cursor = false;
		char *key;

		if (!read_key(&s, &key))
			goto bad;
		ws(&s);
		start = s.p;
		if (key && !strcmp(key, "records") && !seen_records) {
			seen_records = true;
			ret = walk_records(&s, fn, payload, count, err);
		} else if (key && !strcmp(key, "cursor") && !*cursor) {
			ret = skip_value(&s) ? 0 : 1;
			if (!ret && (size_t)(s.p - start) == 4 && !memcmp(start, "null", 4))
				null_cursor = true;
			else
				*cursor = decode_string(start, (size_t)(s.p - start));
			if (!ret && !*cursor && !null_cursor)
				ret = ss_error_set(err, SS_ERROR,
				                   "%s: the server's cursor is not a short string",
				                   nsid);
		} else {
			ret = skip_value(&s) ? 0 : 1;
		}
		free(key);
		if (ret)
			goto out;
	} while (eat(&s, ','));
	if (!eat(&s, '}'))
		goto bad;
end:
	ws(&s);
	if (s.p != s.end)
		goto bad;
	if (!seen_records)
		return ss_error_set(err, SS_ERROR, "%s: the server's answer has no records", nsid);
	return 0;
bad:
	ret = 1;
out:
	if (ret > 0)
		ret = ss_error_set(err, SS_ERROR,
		                   "%s: the server's answer is not valid JSON (at byte %zu)", nsid,
		                   (size_t)(s.p - body));
	if (ret < 0) {
		free(*cursor);
		*cursor = NULL;
	}
	return ret;
}
