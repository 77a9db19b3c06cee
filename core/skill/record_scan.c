/*
 * record_scan.c: the record decoder's fast path. A scanner for the shapes records have in
 * practice (the keys the encoder writes, the `frontmatter` object of a skill's other SKILL.md
 * keys, keys of other clients), straight from the text into the skill, without jansson's tree
 * (its lexer and allocations were a quarter of a clone's main thread).
 *
 * It takes only records the general path (core/skill/record_decode.c) would decode without a
 * problem of its own (the validation's rules run the same afterwards), and leaves everything
 * else to it (returns false): a key given twice at any depth, a wrong type, a number with a
 * fraction or an exponent, an integer beyond 2^53 - 1, nesting deeper than the frontmatter
 * allows, \u0000 or a lone surrogate, invalid UTF-8, a control character, any text that is
 * not JSON. So what it takes decodes exactly as jansson would have it (strings, \u escapes
 * and surrogate pairs, integers, key order), and every error message still comes from one
 * place. tests/core/record.c and tests/fuzz/record.c decode inputs both ways and compare.
 */
#include "core/skill/record_priv.h"

#include <string.h>

#include "core/skill/skill.h"
#include "core/skill/skillmd.h"
#include "core/skill/validate.h"
#include "core/skill/value.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "core/util/utf8.h"

typedef struct scan {
	const char *p, *end;
	ss_buf str; /* the string just scanned */
} scan;

static void scan_space(scan *sc)
{
	while (sc->p < sc->end &&
	       (*sc->p == ' ' || *sc->p == '\n' || *sc->p == '\r' || *sc->p == '\t'))
		sc->p++;
}

/* Whether the next token is the character c (consumed). */
static bool scan_char(scan *sc, char c)
{
	scan_space(sc);
	if (sc->p < sc->end && *sc->p == c) {
		sc->p++;
		return true;
	}
	return false;
}

/* Four hex digits at p (4 bytes there), or -1. */
static long hex4(const unsigned char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int d = p[i] >= '0' && p[i] <= '9'   ? p[i] - '0'
		        : p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10
		        : p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10
		                                     : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/*
 * A \u escape at *pp (its backslash; a high surrogate with the \u escape of its low one) as
 * UTF-8 into out: false for what jansson refuses (\u0000, a lone or reversed surrogate, a
 * digit that is not hex).
 */
static bool scan_unicode(const unsigned char **pp, const unsigned char *end, ss_buf *out)
{
	const unsigned char *p = *pp;
	long cp, low;
	char utf8[4];
	size_t n;

	if (end - p < 6 || (cp = hex4(p + 2)) <= 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
		return false;
	p += 6;
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || (low = hex4(p + 2)) < 0xDC00 ||
		    low > 0xDFFF)
			return false;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
		p += 6;
	}
	if (cp < 0x80) {
		utf8[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		utf8[0] = (char)(0xC0 | cp >> 6);
		utf8[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		utf8[0] = (char)(0xE0 | cp >> 12);
		utf8[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		utf8[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		utf8[0] = (char)(0xF0 | cp >> 18);
		utf8[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		utf8[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		utf8[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	ss_buf_put(out, utf8, n);
	*pp = p;
	return true;
}

/* A string into out (cleared; NUL-terminated; never holding a NUL): false for anything left
 * to jansson. */
static bool scan_string_into(scan *sc, ss_buf *out)
{
	const unsigned char *p, *end = (const unsigned char *)sc->end;
	static const char simple[256] = {['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
	                                 ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};

	ss_buf_clear(out);
	if (!scan_char(sc, '"'))
		return false;
	p = (const unsigned char *)sc->p;
	for (;;) {
		const unsigned char *run = p;
		uint32_t cp;
		size_t n;

		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		ss_buf_put(out, run, (size_t)(p - run));
		if (p == end || *p < 0x20)
			return false;
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (end - p >= 2 && p[1] == 'u') {
				if (!scan_unicode(&p, end, out))
					return false;
				continue;
			}
			if (end - p < 2 || !simple[p[1]])
				return false;
			ss_buf_putc(out, simple[p[1]]);
			p += 2;
			continue;
		}
		if (!(n = ss_utf8_next(p, (size_t)(end - p), &cp)))
			return false;
		ss_buf_put(out, p, n);
		p += n;
	}
	sc->p = (const char *)p + 1;
	return true;
}

static bool scan_string(scan *sc)
{
	return scan_string_into(sc, &sc->str);
}

/* The literal word (true, false, null) at the cursor (consumed). */
static bool scan_word(scan *sc, const char *word)
{
	size_t n = strlen(word);

	scan_space(sc);
	if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, word, n))
		return false;
	sc->p += n;
	return true;
}

static bool scan_bool(scan *sc, bool *v)
{
	if (scan_word(sc, "true"))
		*v = true;
	else if (scan_word(sc, "false"))
		*v = false;
	else
		return false;
	return true;
}

/* An integer within +-(2^53 - 1) (what a record may hold); false for a fraction, an exponent,
 * a larger integer, or a number that is not JSON. */
static bool scan_int(scan *sc, ss_value **out)
{
	const char *p = sc->p, *end = sc->end;
	bool neg = false;
	int64_t v = 0;
	int digits = 0;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p == end || *p < '0' || *p > '9')
		return false;
	if (*p == '0') {
		if (++p < end && *p >= '0' && *p <= '9')
			return false;
	} else {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (++digits > 16) /* 2^53 - 1 has 16 digits */
				return false;
			v = v * 10 + (*p - '0');
		}
	}
	if ((p < end && (*p == '.' || *p == 'e' || *p == 'E')) || v > SS_VALUE_INT_MAX)
		return false;
	sc->p = p;
	*out = ss_value_new_int(neg ? -v : v);
	return true;
}

static bool scan_value(scan *sc, int depth, ss_value **out);

/* An object's members into map (the '{' consumed). */
static bool scan_members(scan *sc, int depth, ss_value *map)
{
	ss_buf key = SS_BUF_INIT;
	bool ok = false;

	if (scan_char(sc, '}'))
		return true;
	do {
		ss_value *item;

		if (!scan_string_into(sc, &key) || !scan_char(sc, ':') ||
		    ss_value_count(map) >= SS_SCAN_MAX_KEYS || ss_value_map_get(map, key.ptr) ||
		    !scan_value(sc, depth + 1, &item))
			goto out;
		ss_value_map_append(map, key.ptr, item);
	} while (scan_char(sc, ','));
	ok = scan_char(sc, '}');
out:
	ss_buf_release(&key);
	return ok;
}

/*
 * One JSON value at depth (the frontmatter object is 0) into *out, as the general path's
 * json_to_value makes it: false (nothing in *out) for what it would refuse or jansson would.
 */
static bool scan_value(scan *sc, int depth, ss_value **out)
{
	ss_value *v = NULL;
	bool b;

	*out = NULL;
	if (depth > SS_SKILLMD_MAX_DEPTH)
		return false;
	scan_space(sc);
	if (sc->p == sc->end)
		return false;
	switch (*sc->p) {
	case '"':
		if (!scan_string(sc))
			return false;
		*out = ss_value_new_string(sc->str.ptr, sc->str.len);
		return true;
	case '{':
		sc->p++;
		v = ss_value_new_map();
		if (!scan_members(sc, depth, v))
			goto fail;
		break;
	case '[':
		sc->p++;
		v = ss_value_new_list();
		if (scan_char(sc, ']'))
			break;
		do {
			ss_value *item;
			if (!scan_value(sc, depth + 1, &item))
				goto fail;
			ss_value_list_append(v, item);
		} while (scan_char(sc, ','));
		if (!scan_char(sc, ']'))
			goto fail;
		break;
	case 't':
	case 'f':
		if (!scan_bool(sc, &b))
			return false;
		v = ss_value_new_bool(b);
		break;
	case 'n':
		if (!scan_word(sc, "null"))
			return false;
		v = ss_value_new_null();
		break;
	default:
		return scan_int(sc, out);
	}
	*out = v;
	return true;
fail:
	ss_value_free(v);
	return false;
}

/* Whether the object goes on (a ',' consumed), or ends (a '}' consumed: *done). */
static bool scan_next(scan *sc, bool *done)
{
	if (scan_char(sc, ','))
		return true;
	*done = scan_char(sc, '}');
	return *done;
}

static bool scan_file(scan *sc, ss_skill *s, ss_buf *path, ss_buf *content)
{
	bool exec = false, done = false;
	unsigned seen = 0;

	if (!scan_char(sc, '{'))
		return false;
	while (!done) {
		unsigned bit;
		bool ok;

		if (!scan_string(sc) || !scan_char(sc, ':'))
			return false;
		bit = ss_record_scan__file_key(sc->str.ptr, sc->str.len);
		ok = bit == 1   ? scan_string_into(sc, path)
		     : bit == 2 ? scan_string_into(sc, content)
		                : bit == 4 && scan_bool(sc, &exec);
		if (!ok || (seen & bit))
			return false;
		seen |= bit;
		if (!scan_next(sc, &done))
			return false;
	}
	if ((seen & 3) != 3)
		return false;
	ss_skill_add_file(s, path->ptr, content->ptr, content->len, exec);
	return true;
}

static bool scan_files(scan *sc, ss_skill *s)
{
	ss_buf path = SS_BUF_INIT, content = SS_BUF_INIT;
	size_t n = 0;
	bool ok = false;

	if (!scan_char(sc, '['))
		return false;
	if (scan_char(sc, ']'))
		return true;
	do {
		if (++n > SS_MAX_FILES || !scan_file(sc, s, &path, &content))
			goto out;
	} while (scan_char(sc, ','));
	ok = scan_char(sc, ']');
out:
	ss_buf_release(&path);
	ss_buf_release(&content);
	return ok;
}

/* The frontmatter object (an object of any values the general path takes). */
static bool scan_frontmatter(scan *sc, ss_skill *s)
{
	ss_value *fm;

	scan_space(sc);
	if (sc->p == sc->end || *sc->p != '{' || !scan_value(sc, 0, &fm))
		return false;
	ss_skill_set_frontmatter(s, fm);
	return true;
}

/*
 * One top-level key's value (seen: the keys so far; other: the keys the decoder does not read,
 * with their values, kept only to find one given twice); false to leave the record to jansson.
 */
static bool scan_field(scan *sc, const char *key, size_t klen, const char *rkey, ss_skill *s,
                       ss_record_meta *m, unsigned *seen, ss_value *other)
{
	unsigned bit;
	ss_value *v;
	bool b;

	switch (ss_record_scan__key(key, klen, &bit)) {
	case SS_SCAN_STRING:
		return scan_string(sc) &&
		       ss_record_scan__string(bit, sc->str.ptr, sc->str.len, rkey, s, m, seen);
	case SS_SCAN_BOOL:
		if ((*seen & bit) || !scan_bool(sc, &b))
			return false;
		*seen |= bit;
		s->disable_model_invocation = b ? SS_DMI_TRUE : SS_DMI_FALSE;
		return true;
	case SS_SCAN_FILES:
		if (*seen & bit)
			return false;
		*seen |= bit;
		return scan_files(sc, s);
	case SS_SCAN_FRONTMATTER:
		if (*seen & bit)
			return false;
		*seen |= bit;
		return scan_frontmatter(sc, s);
	case SS_SCAN_GENERAL:
		return false;
	case SS_SCAN_OTHER:
		break;
	}
	/* Read by nobody, but jansson checks it is JSON without a key given twice. */
	if (ss_value_count(other) >= SS_SCAN_MAX_KEYS || ss_value_map_get(other, key) ||
	    !scan_value(sc, 0, &v))
		return false;
	ss_value_map_append(other, key, v);
	return true;
}

bool ss_record__scan(const char *json, size_t len, const char *rkey, ss_skill *s, ss_record_meta *m)
{
	scan sc = {json, json + len, SS_BUF_INIT};
	ss_buf key = SS_BUF_INIT;
	ss_value *other = ss_value_new_map();
	unsigned seen = 0;
	bool done = false, ok = false;

	if (!scan_char(&sc, '{'))
		goto out;
	while (!done) {
		if (!scan_string_into(&sc, &key) || key.len != strlen(key.ptr) ||
		    !scan_char(&sc, ':') ||
		    !scan_field(&sc, key.ptr, key.len, rkey, s, m, &seen, other) ||
		    !scan_next(&sc, &done))
			goto out;
	}
	scan_space(&sc);
	ok = sc.p == sc.end && ss_record_scan__end(seen, s);
out:
	ss_value_free(other);
	ss_buf_release(&key);
	ss_buf_release(&sc.str);
	return ok;
}
