/*
 * audit_text.c: the copies of a file some rules look at instead of the file itself
 * (core/skill/audit_priv.h): a Markdown file with its prose blanked, leaving only where commands
 * are; the text with look-alike letters folded onto Latin ones; and whether a file is binary.
 */
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include "core/skill/audit_priv.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

bool ss_audit__markdown(const char *path)
{
	return ends_with_ci(path, ".md") || ends_with_ci(path, ".markdown") ||
	       ends_with_ci(path, ".mdx");
}

/* Whether path's suffix is that of a binary format (fonts, documents, images, archives,
 * compiled code, databases, media). */
static bool binary_suffix(const char *path)
{
	static const char *const suffixes[] = {
	    ".ttf",    ".otf",     ".woff", ".woff2", ".eot", ".pdf",   ".png",  ".jpg",
	    ".jpeg",   ".gif",     ".webp", ".ico",   ".bmp", ".tif",   ".tiff", ".zip",
	    ".gz",     ".tgz",     ".bz2",  ".xz",    ".7z",  ".tar",   ".jar",  ".whl",
	    ".docx",   ".xlsx",    ".pptx", ".odt",   ".ods", ".odp",   ".pyc",  ".so",
	    ".dylib",  ".dll",     ".exe",  ".o",     ".a",   ".class", ".wasm", ".db",
	    ".sqlite", ".sqlite3", ".mp3",  ".mp4",   ".wav", ".ogg",   ".webm", ".mov"};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (ends_with_ci(path, suffixes[i]))
			return true;
	return false;
}

bool ss_audit__binary(const char *path, const char *bytes, size_t len)
{
	static const struct {
		const char *magic;
		size_t n;
	} magic[] = {
	    {"%PDF-", 5},
	    {"\x89PNG\r\n\x1a\n", 8},
	    {"\xff\xd8\xff", 3},
	    {"GIF87a", 6},
	    {"GIF89a", 6},
	    {"PK\x03\x04", 4},
	    {"\x1f\x8b", 2},
	    {"wOFF", 4},
	    {"wOF2", 4},
	    {"OTTO", 4},
	    {"\x7f"
	     "ELF",
	     4},
	    {"\xca\xfe\xba\xbe", 4},
	    {"\xcf\xfa\xed\xfe", 4},
	    {"SQLite format 3", 16},
	};

	if (!binary_suffix(path))
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(*magic); i++)
		if (len >= magic[i].n && !memcmp(bytes, magic[i].magic, magic[i].n))
			return true;
	return memchr(bytes, '\0', len < 8192 ? len : 8192) != NULL;
}

/* Blanks out[s, e) but its newlines. */
static void blank(char *out, size_t s, size_t e)
{
	for (; s < e; s++)
		if (out[s] != '\n')
			out[s] = ' ';
}

/* The width of line[0, n)'s indentation (a tab counts 4) and whether the line is blank. */
static size_t indent(const char *line, size_t n, bool *is_blank)
{
	size_t i = 0, w = 0;

	for (; i < n && (line[i] == ' ' || line[i] == '\t'); i++)
		w += line[i] == '\t' ? 4 : 1;
	*is_blank = i == n || (i + 1 == n && line[i] == '\r');
	return w;
}

/* A code fence (``` or ~~~, three or more, indented at most 3): its length, else 0. */
static size_t fence(const char *line, size_t n, char *ch)
{
	size_t i = 0, k;

	while (i < n && i < 3 && line[i] == ' ')
		i++;
	if (i >= n || (line[i] != '`' && line[i] != '~'))
		return 0;
	for (k = i; k < n && line[k] == line[i]; k++)
		;
	if (k - i < 3 || (line[i] == '`' && memchr(line + k, '`', n - k)))
		return 0;
	*ch = line[i];
	return k - i;
}

static bool is_letter(char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Whether the word at s (n bytes left) is one of words, ASCII case ignored, followed by a
 * character that is not a letter; its length in *len. */
static bool word_in(const char *s, size_t n, const char *const *words, size_t *len)
{
	for (; *words; words++) {
		size_t m = strlen(*words);

		if (n >= m && !strncasecmp(s, *words, m) && (n == m || !is_letter(s[m]))) {
			*len = m;
			return true;
		}
	}
	return false;
}

/* Whether a line of SKILL.md tells the agent to run something: it has the word "run",
 * "execute", "exec", "invoke", "paste", "install" or "launch" (any case), or starts with a
 * shell prompt "$ " (after blanks or a quote). */
static bool run_line(const char *s, size_t n)
{
	static const char *const verbs[] = {"run",   "execute", "exec",   "invoke",
	                                    "paste", "install", "launch", NULL};
	size_t i = 0, m;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '>'))
		i++;
	if (n - i >= 2 && s[i] == '$' && s[i + 1] == ' ')
		return true;
	for (; i < n; i++)
		if (is_letter(s[i]) && (i == 0 || !is_letter(s[i - 1])) &&
		    word_in(s + i, n - i, verbs, &m))
			return true;
	return false;
}

/* Backtick runs longer than this are text, not the delimiters of a code span. */
#define SPAN_RUN_MAX 8

typedef struct span_runs {
	size_t (*run)[3]; /* start, length, the index of the run that closes it (SIZE_MAX: none) */
	size_t n, alloc;
} span_runs;

/* Keeps the inline code spans of line [s, e) of out (backticks included), blanks the rest. A
 * span closes at the next run of as many backticks (CommonMark), on the same line here; each
 * run's closing one is found from the right, once, so the line is read twice. */
static void keep_spans(char *out, size_t s, size_t e, span_runs *runs)
{
	size_t last[SPAN_RUN_MAX + 1], prose = s, j = 0;

	runs->n = 0;
	for (size_t i = s; i < e;) {
		size_t start = i;

		if (out[i] != '`') {
			i++;
			continue;
		}
		while (i < e && out[i] == '`')
			i++;
		ss_xgrow((void **)&runs->run, sizeof(*runs->run), runs->n + 1, &runs->alloc);
		runs->run[runs->n][0] = start;
		runs->run[runs->n++][1] = i - start;
	}
	for (size_t k = 0; k <= SPAN_RUN_MAX; k++)
		last[k] = SIZE_MAX;
	for (size_t k = runs->n; k-- > 0;) {
		size_t len = runs->run[k][1];

		runs->run[k][2] = len <= SPAN_RUN_MAX ? last[len] : SIZE_MAX;
		if (len <= SPAN_RUN_MAX)
			last[len] = k;
	}
	while (j < runs->n) {
		size_t close = runs->run[j][2];

		if (close == SIZE_MAX) {
			j++;
			continue;
		}
		blank(out, prose, runs->run[j][0]);
		prose = runs->run[close][0] + runs->run[close][1];
		j = close + 1;
	}
	blank(out, prose, e);
}

char *ss_audit__commands_only(const char *bytes, size_t len, bool skill_md, size_t body)
{
	char *out = ss_xmalloc(len + 1), fch = 0;
	size_t off = body, flen = 0;
	bool prev_blank = true, in_indented = false;
	span_runs runs = {NULL, 0, 0};

	memcpy(out, bytes, len);
	out[len] = '\0';
	while (off < len) {
		const char *nl = memchr(bytes + off, '\n', len - off);
		size_t e = nl ? (size_t)(nl - bytes) : len, n = e - off, w, f;
		char ch;
		bool is_blank;

		w = indent(bytes + off, n, &is_blank);
		if (flen) { /* inside a fence: code until the closing one */
			if (fence(bytes + off, n, &ch) >= flen && ch == fch)
				blank(out, off, e), flen = 0;
		} else if ((f = fence(bytes + off, n, &ch))) {
			blank(out, off, e);
			flen = f, fch = ch;
		} else if (!is_blank && w >= 4 && (prev_blank || in_indented)) {
			in_indented = true;
		} else if (skill_md && run_line(bytes + off, n)) {
			in_indented = false;
		} else {
			in_indented = in_indented && is_blank;
			keep_spans(out, off, e, &runs);
		}
		prev_blank = is_blank;
		off = e + 1;
	}
	free(runs.run);
	return out;
}

/* Letters of other scripts that look like Latin ones, and the Latin letter each passes for
 * (Cyrillic, Greek, IPA); fullwidth forms are folded by arithmetic. Sorted by code point. */
static const struct {
	unsigned short cp;
	char latin;
} lookalike[] = {
    {0x0131, 'i'}, {0x0251, 'a'}, {0x0261, 'g'}, {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'},
    {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'}, {0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'},
    {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'}, {0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03B1, 'a'},
    {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'}, {0x03BF, 'o'}, {0x03C1, 'p'}, {0x03C5, 'u'},
    {0x03C7, 'x'}, {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'}, {0x0412, 'B'},
    {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'}, {0x0420, 'P'},
    {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'},
    {0x0440, 'p'}, {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'},
    {0x0458, 'j'}, {0x04BB, 'h'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
};

/* The Latin letter cp passes for, 0 for an invisible character (dropped), -1 for neither. */
static int latin_of(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(lookalike) / sizeof(*lookalike);

	if (cp >= 0xFF01 && cp <= 0xFF5E)
		return (int)(cp - 0xFEE0);
	if (cp == 0x00AD || cp == 0x034F || cp == 0x180E || (cp >= 0x200B && cp <= 0x200D) ||
	    (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lookalike[mid].cp == cp)
			return lookalike[mid].latin;
		if (lookalike[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

char *ss_audit__unconfuse(const char *bytes, size_t len, size_t *out_len, uint32_t **map)
{
	char *out = ss_xmalloc(len + 1);
	uint32_t *m = ss_xmalloc((len + 1) * sizeof(*m));
	size_t n = 0, i = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t k = ss_utf8_next((const unsigned char *)bytes + i, len - i, &cp);
		int latin = k > 1 ? latin_of(cp) : -1;

		if (!k)
			k = 1;
		if (latin > 0) {
			m[n] = (uint32_t)i;
			out[n++] = (char)latin;
		} else if (latin < 0) {
			for (size_t j = 0; j < k; j++) {
				m[n] = (uint32_t)(i + j);
				out[n++] = bytes[i + j];
			}
		}
		i += k;
	}
	m[n] = (uint32_t)len;
	out[n] = '\0';
	*out_len = n;
	*map = m;
	return out;
}
