/* skillmd_emit.c: writing SKILL.md (block YAML that strict parsers read back exactly). */
#include "core/skill/skillmd.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/util/utf8.h"

/* Printable as is inside a YAML scalar (and not one of libyaml's extra line breaks). */
static bool printable(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) ||
	       (c >= 0xA0 && c <= 0xD7FF && c != 0x2028 && c != 0x2029) ||
	       (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) || c >= 0x10000;
}

static bool reserved_word(const char *s, size_t len)
{
	static const char *const words[] = {"null", "true", "false", "yes", "no", "on",
	                                    "off",  "y",    "n",     "~",   NULL};
	char low[8];

	if (len >= sizeof(low))
		return false;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	low[len] = '\0';
	for (size_t i = 0; words[i]; i++)
		if (!strcmp(low, words[i]))
			return true;
	return false;
}

/* Whether s can be written plain and read back as the same string (conservative). */
static bool plain_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!len || strchr(" \t-?:,[]{}#&*!|>'\"%@`.~+<=0123456789", s[0]) || reserved_word(s, len))
		return false;
	if (s[len - 1] == ' ' || s[len - 1] == ':')
		return false;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = ss_utf8_next(u + i, len - i, &c);

		if (!n || !printable(c))
			return false;
		if (c == ':' && i + 1 < len && s[i + 1] == ' ')
			return false;
		if (c == '#' && s[i - 1] == ' ')
			return false;
		i += n;
	}
	return true;
}

static void put_escaped(uint32_t c, ss_buf *out)
{
	switch (c) {
	case '"':
		ss_buf_puts(out, "\\\"");
		return;
	case '\\':
		ss_buf_puts(out, "\\\\");
		return;
	case '\n':
		ss_buf_puts(out, "\\n");
		return;
	case '\t':
		ss_buf_puts(out, "\\t");
		return;
	case '\r':
		ss_buf_puts(out, "\\r");
		return;
	case 0:
		ss_buf_puts(out, "\\0");
		return;
	}
	if (c <= 0xFF)
		ss_buf_printf(out, "\\x%02X", (unsigned)c);
	else
		ss_buf_printf(out, "\\u%04X", (unsigned)c);
}

void ss_skillmd_emit_string(const char *s, size_t len, ss_buf *out)
{
	const unsigned char *u = (const unsigned char *)s;

	if (plain_ok(s, len)) {
		ss_buf_put(out, s, len);
		return;
	}
	ss_buf_putc(out, '"');
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = ss_utf8_next(u + i, len - i, &c);

		if (!n) { /* not UTF-8: cannot come from YAML or JSON; keep the byte's value */
			put_escaped(u[i], out);
			i++;
			continue;
		}
		if (c == '"' || c == '\\' || !printable(c))
			put_escaped(c, out);
		else
			ss_buf_put(out, s + i, n);
		i += n;
	}
	ss_buf_putc(out, '"');
}

static void indent(ss_buf *out, int n)
{
	for (int i = 0; i < n; i++)
		ss_buf_putc(out, ' ');
}

static bool is_block(const ss_value *v)
{
	ss_value_type t = ss_value_type_of(v);
	return (t == SS_VALUE_LIST || t == SS_VALUE_MAP) && ss_value_count(v) > 0;
}

static void emit_scalar(const ss_value *v, ss_buf *out)
{
	size_t len;
	const char *s;

	switch (ss_value_type_of(v)) {
	case SS_VALUE_NULL:
		ss_buf_puts(out, "null");
		break;
	case SS_VALUE_BOOL:
		ss_buf_puts(out, ss_value_bool(v) ? "true" : "false");
		break;
	case SS_VALUE_INT:
		ss_buf_printf(out, "%" PRId64, ss_value_int(v));
		break;
	case SS_VALUE_STRING:
		s = ss_value_string(v, &len);
		ss_skillmd_emit_string(s, len, out);
		break;
	case SS_VALUE_LIST:
		ss_buf_puts(out, "[]");
		break;
	case SS_VALUE_MAP:
		ss_buf_puts(out, "{}");
		break;
	}
}

/* Writes a non-empty list or map as a block at column col; every line ends with '\n'. */
static void emit_block(const ss_value *v, int col, ss_buf *out)
{
	bool map = ss_value_type_of(v) == SS_VALUE_MAP;

	for (size_t i = 0; i < ss_value_count(v); i++) {
		const char *key;
		const ss_value *item = ss_value_at(v, i, &key);

		indent(out, col);
		if (map) {
			ss_skillmd_emit_string(key, strlen(key), out);
			ss_buf_putc(out, ':');
		} else {
			ss_buf_putc(out, '-');
		}
		if (is_block(item)) {
			ss_buf_putc(out, '\n');
			emit_block(item, col + 2, out);
		} else {
			ss_buf_putc(out, ' ');
			emit_scalar(item, out);
			ss_buf_putc(out, '\n');
		}
	}
}

void ss_skillmd_emit(const ss_value *frontmatter, const ss_value *more, const char *body,
                     size_t body_len, ss_buf *out)
{
	ss_buf_puts(out, "---\n");
	if (ss_value_count(frontmatter))
		emit_block(frontmatter, 0, out);
	if (more && ss_value_count(more))
		emit_block(more, 0, out);
	if (!ss_value_count(frontmatter) && !(more && ss_value_count(more)))
		/* an empty document would read back as "frontmatter is empty" */
		ss_buf_puts(out, "{}\n");
	ss_buf_puts(out, "---\n");
	ss_buf_put(out, body, body_len);
}
