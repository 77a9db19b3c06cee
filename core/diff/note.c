#include "core/diff/note.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/linediff.h"
#include "core/util/mem.h"

#define ELLIPSIS   "\xe2\x80\xa6"
#define MAX_PLACES 3

/* ---- UTF-8 ---- */

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void ss_note_put_utf8(ss_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i, len - i);

		if (n) {
			ss_buf_put(out, p + i, n);
			i += n;
		} else {
			ss_buf_puts(out, "\xef\xbf\xbd");
			i++;
		}
	}
}

void ss_note_cut(ss_buf *b, size_t max)
{
	size_t keep;

	if (b->len <= max)
		return;
	if (max < strlen(ELLIPSIS)) {
		ss_buf_truncate(b, 0);
		return;
	}
	keep = max - strlen(ELLIPSIS);
	while (keep > 0 && ((unsigned char)b->ptr[keep] & 0xc0) == 0x80)
		keep--;
	ss_buf_truncate(b, keep);
	ss_buf_puts(b, ELLIPSIS);
}

/* ---- where changed lines are: headings and frontmatter keys ---- */

typedef struct place {
	const char *p; /* NULL: the text before the first heading */
	size_t len;
	bool key; /* a frontmatter key of SKILL.md */
} place;

typedef struct text_places {
	place *of_line; /* one per line */
	size_t nlines;
} text_places;

static bool is_markdown(const char *path)
{
	size_t n = strlen(path);

	return n >= 3 && !strcasecmp(path + n - 3, ".md");
}

static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

/* An ATX heading's text, or false. */
static bool atx_heading(const char *p, size_t n, place *out)
{
	size_t i = 0, hashes = 0, end;

	while (i < n && i < 3 && p[i] == ' ')
		i++;
	while (i < n && p[i] == '#' && hashes < 7)
		i++, hashes++;
	if (hashes == 0 || hashes > 6 || (i < n && p[i] != ' ' && p[i] != '\t'))
		return false;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	end = n;
	while (end > i && (p[end - 1] == ' ' || p[end - 1] == '\t'))
		end--;
	while (end > i && p[end - 1] == '#')
		end--;
	while (end > i && (p[end - 1] == ' ' || p[end - 1] == '\t'))
		end--;
	out->p = p + i;
	out->len = end - i;
	out->key = false;
	return out->len > 0;
}

static bool fence(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && i < 3 && p[i] == ' ')
		i++;
	return n - i >= 3 && (!memcmp(p + i, "```", 3) || !memcmp(p + i, "~~~", 3));
}

static void places_compute(text_places *tp, const char *text, size_t len, bool skill_md)
{
	const char *p = text, *end = text + len;
	place cur = {NULL, 0, false};
	bool in_front = false, in_code = false;

	tp->nlines = ss_linediff_count_lines(text, len);
	tp->of_line = ss_xcalloc(tp->nlines ? tp->nlines : 1, sizeof(*tp->of_line));
	for (size_t i = 0; i < tp->nlines; i++) {
		size_t n = line_len(p, end);
		place h;

		if (skill_md && i == 0 && n == 3 && !memcmp(p, "---", 3)) {
			in_front = true;
			cur.p = "frontmatter", cur.len = 11, cur.key = true;
		} else if (in_front && n == 3 && !memcmp(p, "---", 3)) {
			in_front = false;
			cur.p = NULL, cur.len = 0, cur.key = false;
		} else if (in_front) {
			const char *colon = memchr(p, ':', n);
			if (colon && n && p[0] != ' ' && p[0] != '\t' && p[0] != '#' && p[0] != '-')
				cur.p = p, cur.len = (size_t)(colon - p), cur.key = true;
		} else if (fence(p, n)) {
			in_code = !in_code;
		} else if (!in_code && atx_heading(p, n, &h)) {
			cur = h;
		}
		tp->of_line[i] = cur;
		{
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
	}
}

static bool place_eq(const place *a, const place *b)
{
	return a->key == b->key && a->len == b->len &&
	       (a->p == b->p || !memcmp(a->p, b->p, a->len));
}

static void add_place(place *list, size_t *n, size_t *more, const place *pl)
{
	for (size_t i = 0; i < *n; i++)
		if (place_eq(&list[i], pl))
			return;
	if (*n < MAX_PLACES)
		list[(*n)++] = *pl;
	else
		(*more)++;
}

static void put_place(ss_buf *out, const place *pl, const place *all, size_t n)
{
	size_t sections = 0;

	if (pl->key) {
		ss_note_put_utf8(out, pl->p, pl->len);
		return;
	}
	if (!pl->p) {
		ss_buf_puts(out, "the opening");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!all[i].key && all[i].p)
			sections++;
	/* "section 'A'", or "sections 'A', 'B'" with the word once */
	if (pl == all || all[pl - all - 1].key || !all[pl - all - 1].p)
		ss_buf_puts(out, sections > 1 ? "sections '" : "section '");
	else
		ss_buf_putc(out, '\'');
	ss_note_put_utf8(out, pl->p, pl->len);
	ss_buf_putc(out, '\'');
}

static void put_counts(ss_buf *out, size_t added, size_t removed)
{
	if (added && removed)
		ss_buf_printf(out, "(+%zu -%zu lines)", added, removed);
	else if (added)
		ss_buf_printf(out, "(+%zu line%s)", added, added == 1 ? "" : "s");
	else
		ss_buf_printf(out, "(-%zu line%s)", removed, removed == 1 ? "" : "s");
}

static void summarize_changed(ss_buf *out, const ss_note_file *f)
{
	ss_linediff d;
	bool md = is_markdown(f->path), skill_md = !strcmp(f->path, "SKILL.md");

	ss_linediff_compute(&d, f->old_text, f->old_len, f->new_text, f->new_len);
	ss_note_put_utf8(out, f->path, strlen(f->path));
	if (d.nhunks && md) {
		text_places oldp, newp;
		place list[MAX_PLACES];
		size_t n = 0, more = 0;

		places_compute(&oldp, f->old_text, f->old_len, skill_md);
		places_compute(&newp, f->new_text, f->new_len, skill_md);
		for (size_t i = 0; i < d.nhunks; i++) {
			const ss_linediff_hunk *h = &d.hunks[i];
			if (h->new_count)
				for (size_t l = h->new_start; l < h->new_start + h->new_count; l++)
					add_place(list, &n, &more, &newp.of_line[l]);
			else
				for (size_t l = h->old_start; l < h->old_start + h->old_count; l++)
					add_place(list, &n, &more, &oldp.of_line[l]);
		}
		ss_buf_puts(out, ": ");
		for (size_t i = 0; i < n; i++) {
			if (i)
				ss_buf_puts(out, i + 1 == n && !more ? " and " : ", ");
			put_place(out, &list[i], list, n);
		}
		if (more)
			ss_buf_printf(out, " and %zu more", more);
		ss_buf_puts(out, d.added && d.removed ? " rewritten "
		                 : d.added            ? " extended "
		                                      : " shortened ");
		put_counts(out, d.added, d.removed);
		free(oldp.of_line);
		free(newp.of_line);
	} else if (d.nhunks) {
		ss_buf_puts(out, " changed ");
		put_counts(out, d.added, d.removed);
	}
	if (f->old_exec != f->new_exec)
		ss_buf_puts(out, f->new_exec ? (d.nhunks ? ", made executable" : " made executable")
		                             : (d.nhunks ? ", no longer executable"
		                                         : " no longer executable"));
	else if (!d.nhunks) /* a binary file comes without its texts: it changed */
		ss_buf_puts(out, f->old_text || f->new_text ? " unchanged" : " changed (binary)");
	ss_linediff_release(&d);
}

/* SKILL.md first, then changed files, added, removed; each group by path. */
static int rank(const ss_note_file *f)
{
	if (!strcmp(f->path, "SKILL.md"))
		return 0;
	return f->kind == SS_NOTE_FILE_CHANGED ? 1 : f->kind == SS_NOTE_FILE_ADDED ? 2 : 3;
}

static int file_order(const void *a, const void *b)
{
	const ss_note_file *fa = *(const ss_note_file *const *)a;
	const ss_note_file *fb = *(const ss_note_file *const *)b;
	int ra = rank(fa), rb = rank(fb);

	return ra != rb ? ra - rb : strcmp(fa->path, fb->path);
}

void ss_note_summary(ss_buf *out, const ss_note_file *files, size_t nfiles)
{
	const ss_note_file **sorted = ss_xcalloc(nfiles ? nfiles : 1, sizeof(*sorted));

	for (size_t i = 0; i < nfiles; i++)
		sorted[i] = &files[i];
	qsort(sorted, nfiles, sizeof(*sorted), file_order);
	for (size_t i = 0; i < nfiles; i++) {
		const ss_note_file *f = sorted[i];

		if (i)
			ss_buf_puts(out, "; ");
		if (f->kind == SS_NOTE_FILE_CHANGED) {
			summarize_changed(out, f);
			continue;
		}
		ss_buf_puts(out, f->kind == SS_NOTE_FILE_ADDED ? "added " : "removed ");
		ss_note_put_utf8(out, f->path, strlen(f->path));
	}
	free(sorted);
}

static void build_what(ss_buf *what, const ss_note_input *in)
{
	if (in->created) {
		ss_buf_puts(what, "new skill: ");
		for (size_t i = 0; i < in->nfiles; i++) {
			if (i)
				ss_buf_puts(what, ", ");
			ss_note_put_utf8(what, in->files[i].path, strlen(in->files[i].path));
		}
		return;
	}
	if (in->renamed_from) {
		ss_buf_puts(what, "renamed from '");
		ss_note_put_utf8(what, in->renamed_from, strlen(in->renamed_from));
		ss_buf_puts(what, in->nfiles ? "'; " : "'");
	} else if (in->based_on) {
		ss_buf_puts(what, "my own version of ");
		ss_note_put_utf8(what, in->based_on, strlen(in->based_on));
		ss_buf_puts(what, in->nfiles ? "'s; " : "'s");
	}
	ss_note_summary(what, in->files, in->nfiles);
	if (!in->nfiles && !in->renamed_from && !in->based_on)
		ss_buf_puts(what, "no file changed");
}

static void build_why(ss_buf *why, const ss_note_input *in)
{
	const char *prev = NULL;

	for (size_t i = 0; i < in->nsubjects; i++) {
		const char *s = in->subjects[i];

		if (!s || !*s || (prev && !strcmp(prev, s)))
			continue;
		if (why->len)
			ss_buf_putc(why, '\n');
		ss_note_put_utf8(why, s, strlen(s));
		prev = s;
	}
}

void ss_note_build(ss_buf *out, const ss_note_input *in)
{
	ss_buf why = SS_BUF_INIT, what = SS_BUF_INIT;
	const size_t sep = 2;

	ss_buf_clear(out);
	build_why(&why, in);
	build_what(&what, in);
	if (why.len && why.len + sep + what.len > SS_NOTE_MAX) {
		if (what.len > SS_NOTE_MAX / 2)
			ss_note_cut(&what, SS_NOTE_MAX / 2);
		ss_note_cut(&why, SS_NOTE_MAX - sep - what.len);
	}
	if (why.len) {
		ss_buf_put(out, why.ptr, why.len);
		ss_buf_puts(out, "\n\n");
	}
	ss_buf_put(out, what.ptr, what.len);
	ss_note_cut(out, SS_NOTE_MAX);
	ss_buf_release(&why);
	ss_buf_release(&what);
}
