/*
 * man.c: the commands' help texts (their ss_command entries' usage) rendered for the
 * install: as man(7) pages (`skillsync help --man [<command>]`, run at build time by
 * cmake/man.cmake for every command the table lists) and as the option lists the shell
 * completions read (`skillsync help --options <command>`). One source: the text `--help`
 * prints.
 *
 * A usage text is: its synopsis ("usage: skillsync ..." and lines indented under it), then
 * paragraphs separated by blank lines. A paragraph whose lines start with four spaces and a
 * dash lists options ("    -n, --dry-run   what it does", continued by deeper-indented
 * lines); one that starts with "Exit status:" says the exit codes; the others describe.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

/* The line that starts at s: its length without the newline. */
static size_t line_len(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? (size_t)(nl - s) : strlen(s);
}

static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : s + strlen(s);
}

static bool is_option_line(const char *s)
{
	return !strncmp(s, "    -", 5);
}

static size_t skip_spaces(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	return i;
}

/* Writes len bytes of text for roff: backslashes escaped, dashes as \- when literal (option
 * names, commands), a control character at the start of a line neutralised. */
static void roff(FILE *out, const char *s, size_t len, bool literal, bool line_start)
{
	for (size_t i = 0; i < len; i++) {
		if (line_start && i == 0 && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", out);
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-' && literal)
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

/* The option spec of an option line: up to the first two spaces after the indent. */
static size_t option_spec_len(const char *s, size_t len)
{
	const char *gap;
	size_t i = skip_spaces(s, len);

	gap = strstr(s + i, "  ");
	if (!gap || (size_t)(gap - s) > len)
		return len;
	return (size_t)(gap - s);
}

/* Past the synopsis: the first blank line. */
static const char *render_synopsis(FILE *out, const char *p)
{
	fputs(".SH SYNOPSIS\n.nf\n", out);
	while (*p && *p != '\n') {
		size_t len = line_len(p), i = 0;

		if (!strncmp(p, "usage: ", 7))
			i = 7;
		i += skip_spaces(p + i, len - i);
		roff(out, p + i, len - i, true, true);
		fputc('\n', out);
		p = next_line(p);
	}
	fputs(".fi\n", out);
	return p;
}

static const char *render_options(FILE *out, const char *p)
{
	while (*p && *p != '\n') {
		size_t len = line_len(p), spec, i;

		if (is_option_line(p)) {
			spec = option_spec_len(p, len);
			fputs(".TP\n.B ", out);
			i = skip_spaces(p, spec);
			roff(out, p + i, spec - i, true, false);
			fputc('\n', out);
			i = spec + skip_spaces(p + spec, len - spec);
		} else {
			i = skip_spaces(p, len);
		}
		if (i < len) {
			roff(out, p + i, len - i, false, true);
			fputc('\n', out);
		}
		p = next_line(p);
	}
	return p;
}

static const char *render_paragraph(FILE *out, const char *p)
{
	while (*p && *p != '\n') {
		size_t len = line_len(p), i = skip_spaces(p, len);

		roff(out, p + i, len - i, false, true);
		fputc('\n', out);
		p = next_line(p);
	}
	return p;
}

static void man_header(FILE *out, const char *name, const char *summary)
{
	fputs(".TH \"", out);
	for (const char *s = name; *s; s++)
		if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s, out);
	fprintf(out, "\" 1 \"\" \"skillsync %s\" \"skillsync Manual\"\n.SH NAME\n", SS_VERSION);
	roff(out, name, strlen(name), true, true);
	fputs(" \\- ", out);
	roff(out, summary, strlen(summary), false, false);
	fputc('\n', out);
}

void cli_help_man(FILE *out, const ss_command *c)
{
	const char *p = c->usage;
	bool described = false, options = false;
	char name[64];

	snprintf(name, sizeof(name), "skillsync-%s", c->name);
	man_header(out, name, c->summary);
	p = render_synopsis(out, p);
	while (*p) {
		while (*p == '\n')
			p++;
		if (!*p)
			break;
		if (is_option_line(p)) {
			if (!options)
				fputs(".SH OPTIONS\n", out);
			options = true;
			p = render_options(out, p);
		} else if (!strncmp(p, "Exit status:", 12)) {
			fputs(".SH \"EXIT STATUS\"\n", out);
			p = render_paragraph(out, p + 12 + skip_spaces(p + 12, line_len(p + 12)));
		} else {
			fputs(described ? ".PP\n" : ".SH DESCRIPTION\n", out);
			described = true;
			p = render_paragraph(out, p);
		}
	}
	fputs(".SH \"SEE ALSO\"\n.BR skillsync (1)\n", out);
}

void cli_help_man_main(FILE *out, const ss_command *const *commands, size_t n)
{
	man_header(out, "skillsync",
	           "keep a memory space's agent skills in a local git repository");
	fputs(".SH SYNOPSIS\n.nf\nskillsync [\\-\\-version] [\\-\\-help] <command> [<args>]\n.fi\n"
	      ".SH DESCRIPTION\n"
	      "skillsync keeps the agent skills of an ATProto memory space in a local git\n"
	      "repository: clone a space, edit skills with any editor or agent, commit, push, and\n"
	      "pull the others' changes on a schedule.\n"
	      ".SH COMMANDS\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		fputs(".TP\n.BR ", out);
		roff(out, "skillsync-", 10, true, false);
		roff(out, commands[i]->name, strlen(commands[i]->name), true, false);
		fputs(" (1)\n", out);
		roff(out, commands[i]->summary, strlen(commands[i]->summary), false, true);
		fputc('\n', out);
	}
	fputs(".SH OPTIONS\n.TP\n.B \\-\\-version\n"
	      "print the version and the git commit skillsync was built from\n"
	      ".TP\n.B \\-\\-help\nlist the commands\n",
	      out);
}

void cli_help_options(FILE *out, const ss_command *c)
{
	for (const char *p = c->usage; *p; p = next_line(p)) {
		size_t len = line_len(p), spec, i;

		if (!is_option_line(p))
			continue;
		spec = option_spec_len(p, len);
		/* "-m, --member <h>": the words that start with a dash, without ", ". */
		for (i = skip_spaces(p, spec); i < spec;) {
			size_t w = i;

			while (w < spec && p[w] != ' ' && p[w] != ',')
				w++;
			if (p[i] == '-')
				fprintf(out, "%.*s\n", (int)(w - i), p + i);
			i = w;
			while (i < spec && (p[i] == ' ' || p[i] == ','))
				i++;
		}
	}
	fputs("--help\n", out);
}
