/* json_out.c: the commands' JSON writer (json_out.h). */
#include "cmd/json_out.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/util/utf8.h"

void cli_json_init(cli_json *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

static void newline(cli_json *w, unsigned indent)
{
	fputc('\n', w->out);
	for (unsigned i = 0; i < indent; i++)
		fputs("  ", w->out);
}

static void quoted(cli_json *w, const char *s, size_t len)
{
	ss_buf b = SS_BUF_INIT;

	ss_utf8_escape(&b, s, len, SS_ESCAPE_JSON);
	fputc('"', w->out);
	fwrite(b.ptr, 1, b.len, w->out);
	fputc('"', w->out);
	ss_buf_release(&b);
}

/* What comes before a value: the comma and the layout of its container, then its key. */
static void start(cli_json *w, const char *key)
{
	cli_json_level *l = &w->level[w->depth];

	if (w->depth && l->used)
		fputs(l->style == CLI_JSON_SPACED ? ", " : ",", w->out);
	if (w->depth && l->style >= CLI_JSON_LINES)
		newline(w, l->indent);
	l->used = true;
	if (key) {
		quoted(w, key, strlen(key));
		fputs(l->style == CLI_JSON_COMPACT ? ":" : ": ", w->out);
	}
}

static void begin(cli_json *w, const char *key, char open, char close)
{
	unsigned indent = w->level[w->depth].indent;
	cli_json_level *l;

	if (w->depth + 1 >= CLI_JSON_MAX_DEPTH)
		abort(); /* the commands' documents are a few levels deep */
	start(w, key);
	fputc(open, w->out);
	l = &w->level[++w->depth];
	l->style = w->style;
	l->indent = indent + (w->style == CLI_JSON_LINES);
	l->used = false;
	l->close = close;
}

void cli_json_object(cli_json *w, const char *key)
{
	begin(w, key, '{', '}');
}

void cli_json_array(cli_json *w, const char *key)
{
	begin(w, key, '[', ']');
}

void cli_json_end(cli_json *w)
{
	char close = w->level[w->depth].close;

	if (w->level[w->depth].used && w->level[w->depth].style >= CLI_JSON_LINES)
		newline(w, w->level[w->depth - 1].indent);
	w->depth--;
	fputc(close, w->out);
}

void cli_json_finish(cli_json *w)
{
	while (w->depth)
		cli_json_end(w);
	fputc('\n', w->out);
}

void cli_json_strn(cli_json *w, const char *key, const char *s, size_t len)
{
	start(w, key);
	quoted(w, s, len);
}

void cli_json_str(cli_json *w, const char *key, const char *s)
{
	if (s)
		cli_json_strn(w, key, s, strlen(s));
	else
		cli_json_null(w, key);
}

void cli_json_int(cli_json *w, const char *key, intmax_t n)
{
	start(w, key);
	fprintf(w->out, "%jd", n);
}

void cli_json_bool(cli_json *w, const char *key, bool b)
{
	cli_json_raw(w, key, b ? "true" : "false");
}

void cli_json_null(cli_json *w, const char *key)
{
	cli_json_raw(w, key, "null");
}

void cli_json_raw(cli_json *w, const char *key, const char *json)
{
	start(w, key);
	fputs(json, w->out);
}
