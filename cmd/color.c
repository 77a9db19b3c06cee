/*
 * color.c: what goes to the terminal beside the text: progress lines and colour, each
 * decided once per run from the person's settings (sync/setting.h, docs/CONFIG.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/util/utf8.h"
#include "sync/setting.h"

int cli_progress(ss_ctx *ctx, bool quiet, bool *out)
{
	bool never;

	if (ss_setting_is(ctx->state, "progress", "never", &never, &ctx->err) < 0)
		return -1;
	*out = !quiet && !never && isatty(STDERR_FILENO);
	return 0;
}

void cli_progress_count(cli_progress_line *p, const char *title, size_t done, size_t total)
{
	int pct;

	if (!p->on || total == 0)
		return;
	pct = (int)(done >= total ? 100 : done * 100 / total);
	if (p->shown && pct == p->pct && done != total)
		return;
	fprintf(stderr, "\r%s: %3d%% (%zu/%zu)", title, pct, done, total);
	p->pct = pct;
	p->shown = true;
}

void cli_progress_records(cli_progress_line *p, size_t records, size_t done, size_t members)
{
	if (!p->on)
		return;
	fprintf(stderr, "\rReceiving skills: %zu records, %zu/%zu members", records, done, members);
	p->shown = true;
}

void cli_progress_clear(cli_progress_line *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
	p->pct = -1;
}

int cli_color_option(ss_ctx *ctx, const char *arg, int *consumed)
{
	*consumed = 0;
	if (!strcmp(arg, "--color")) {
		ctx->color_flag = "always";
	} else if (!strncmp(arg, "--color=", 8)) {
		const char *v = arg + 8;

		if (strcmp(v, "always") && strcmp(v, "never") && strcmp(v, "auto"))
			return cli_usage_error(ctx, "--color takes always, never or auto, not '%s'",
			                       v);
		ctx->color_flag = v;
	} else if (!strcmp(arg, "--no-color")) {
		ctx->color_flag = "never";
	} else {
		return 0;
	}
	*consumed = 1;
	return 0;
}

int cli_color_init(ss_ctx *ctx)
{
	const char *no = getenv("NO_COLOR");
	char *v = NULL;
	bool on;

	/* --color=<when> first (asked for on this command line), then NO_COLOR (no-color.org),
	 * then the color setting. */
	if (ctx->color_flag) {
		v = strdup(ctx->color_flag);
	} else if (no && *no) {
		v = strdup("never");
	} else if (ss_setting_get(ctx->state, "color", &v, NULL, &ctx->err) < 0) {
		return -1;
	}
	on = v && (!strcmp(v, "always") || (!strcmp(v, "auto") && isatty(STDOUT_FILENO)));
	if (on) {
		const char *term = getenv("TERM");

		/* auto on a dumb terminal: none, as git */
		if (!strcmp(v, "auto") && term && !strcmp(term, "dumb"))
			on = false;
	}
	free(v);
	ctx->color = on;
	return 0;
}

const char *cli_color(const ss_ctx *ctx, const char *code)
{
	return ctx->color ? code : "";
}

/* The colour of the patch line at p (git's: headers bold, hunks cyan, + green, - red). */
static const char *patch_color(const char *p)
{
	if (!strncmp(p, "diff ", 5) || !strncmp(p, "index ", 6) || !strncmp(p, "--- ", 4) ||
	    !strncmp(p, "+++ ", 4) || !strncmp(p, "new file", 8) || !strncmp(p, "deleted file", 12))
		return CLI_BOLD;
	if (!strncmp(p, "@@", 2))
		return CLI_CYAN;
	if (*p == '+')
		return CLI_GREEN;
	if (*p == '-')
		return CLI_RED;
	return NULL;
}

void cli_print_patch(const ss_ctx *ctx, const char *patch, size_t len)
{
	const char *p = patch, *end = patch + len;
	ss_buf line = SS_BUF_INIT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *code = ctx->color && n ? patch_color(p) : NULL;

		/* the newlines are the patch's structure; each line's bytes, file contents and
		 * names a member wrote, go through the escape rule (docs/SECURITY.md) */
		ss_buf_clear(&line);
		ss_utf8_escape(&line, p, n, SS_ESCAPE_TEXT);
		if (code)
			printf("%s%s%s", code, line.ptr, CLI_RESET);
		else
			fputs(line.ptr, stdout);
		if (nl)
			putchar('\n');
		p += n + (nl ? 1 : 0);
	}
	ss_buf_release(&line);
}
