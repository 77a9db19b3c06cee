#include "core/util/utf8.h"

#include <string.h>

size_t ss_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		c = s[0] & 0x1F;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		c = s[0] & 0x0F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
		return 0;
	*cp = c;
	return len;
}

bool ss_utf8_text(const char *s, size_t len)
{
	return !memchr(s, '\0', len) && ss_utf8_valid(s, len);
}

bool ss_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c;

	for (size_t i = 0; i < len;) {
		size_t n;
		uint64_t w;

		/* ASCII eight bytes at a time (most of a skill's text): a profile of a clone had
		 * this function at 4% of its CPU, one code point at a time */
		if (len - i >= 8) {
			memcpy(&w, u + i, 8);
			if (!(w & 0x8080808080808080u)) {
				i += 8;
				continue;
			}
		}
		n = ss_utf8_next(u + i, len - i, &c);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

size_t ss_utf8_count(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

size_t ss_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

bool ss_utf8_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 ||
	       cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

void ss_utf8_trim(const char *s, size_t len, size_t *start, size_t *end)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	bool seen = false;

	*start = *end = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = ss_utf8_next(u + i, len - i, &cp);
		bool space = n && ss_utf8_space(cp);

		if (!n)
			n = 1;
		if (!space && !seen)
			*start = i;
		if (!space)
			*end = i + n;
		seen |= !space;
		i += n;
	}
	if (!seen)
		*start = *end = len;
}

/* True for the characters the escape rule in utf8.h calls unsafe (a valid code point). */
static bool unsafe(uint32_t c)
{
	return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f) || c == 0x061c ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2069) || c == 0xfeff || (c >= 0xe0000 && c <= 0xe007f);
}

static void escape_json(ss_buf *out, uint32_t c)
{
	switch (c) {
	case '"':
		ss_buf_puts(out, "\\\"");
		break;
	case '\\':
		ss_buf_puts(out, "\\\\");
		break;
	case '\t':
		ss_buf_puts(out, "\\t");
		break;
	case '\n':
		ss_buf_puts(out, "\\n");
		break;
	case '\r':
		ss_buf_puts(out, "\\r");
		break;
	default:
		if (c > 0xffff) /* a surrogate pair: JSON's \u holds four hex digits */
			ss_buf_printf(out, "\\u%04x\\u%04x",
			              0xd800 + ((unsigned)(c - 0x10000) >> 10),
			              0xdc00 + ((unsigned)(c - 0x10000) & 0x3ff));
		else
			ss_buf_printf(out, "\\u%04x", (unsigned)c);
	}
}

/* The entity for c in XML, or NULL when c goes out as it is (or as \xNN when unsafe). */
static const char *xml_entity(uint32_t c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	case '\t':
		return "&#9;";
	case '\n':
		return "&#10;";
	case '\r':
		return "&#13;";
	default:
		return NULL;
	}
}

void ss_utf8_escape(ss_buf *out, const char *s, size_t len, ss_escape_style style)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		uint32_t c = 0;
		size_t n = ss_utf8_next(u + i, len - i, &c);

		if (style == SS_ESCAPE_JSON) {
			if (!n)
				ss_buf_puts(out, "\\ufffd");
			else if (unsafe(c) || c == '"' || c == '\\' || c == '\t')
				escape_json(out, c);
			else
				ss_buf_put(out, u + i, n);
		} else if (style == SS_ESCAPE_XML && n && xml_entity(c)) {
			ss_buf_puts(out, xml_entity(c));
		} else if (!n || unsafe(c)) {
			for (size_t k = 0; k < (n ? n : 1); k++)
				ss_buf_printf(out, "\\x%02x", u[i + k]);
		} else {
			ss_buf_put(out, u + i, n);
		}
		i += n ? n : 1;
	}
}

void ss_utf8_escape_line(ss_buf *out, const char *s, size_t max)
{
	size_t line = strcspn(s, "\n");
	size_t n = max && line > max ? ss_utf8_cut(s, line, max) : line;

	ss_utf8_escape(out, s, n, SS_ESCAPE_TEXT);
	if (n < line || s[line])
		ss_buf_puts(out, " ...");
}
