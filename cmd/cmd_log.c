/*
 * cmd_log.c: `skillsync log [<skill>] [-n <count>] [--json]`: the clone's history: what the space
 * changed (tracking commits: who changed what, and the records' notes), the person's commits
 * and the merges, newest first; tracking commits fetched but not merged yet come first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/git/history.h"
#include "core/git/repo.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

static void format_time(char out[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%" PRId64, t);
}

/* Prints text with each line indented by four spaces (git log's body), no trailing blanks;
 * through the escape rule: a tracking commit quotes the space's notes. */
static void print_indented(const char *text)
{
	size_t len = strlen(text);
	ss_buf line = SS_BUF_INIT;

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);

		ss_buf_clear(&line);
		ss_utf8_escape(&line, p, n, SS_ESCAPE_TEXT);
		if (n)
			printf("    %s\n", line.ptr);
		else
			putchar('\n');
		p += n + 1;
	}
	ss_buf_release(&line);
}

/* The message as `log <skill>` shows it: the subject, then what the body says about skill. */
static void print_message(const ss_history_entry *e, const char *skill)
{
	const char *body = e->info.message + strlen(e->info.subject);
	ss_buf part = SS_BUF_INIT;

	if (!skill || e->kind != SS_HISTORY_SPACE) {
		print_indented(e->info.message);
		return;
	}
	print_indented(e->info.subject);
	ss_history_excerpt(body, skill, &part);
	if (part.len) {
		putchar('\n');
		print_indented(part.ptr);
	}
	ss_buf_release(&part);
}

static void print_text(const ss_ctx *ctx, const ss_history *h, const char *skill)
{
	char hex[SS_OID_HEXSZ + 1], when[32];
	ss_buf text = SS_BUF_INIT;

	for (size_t i = 0; i < h->count; i++) {
		const ss_history_entry *e = &h->items[i];

		ss_oid_fmt(hex, &e->info.oid);
		format_time(when, e->info.time);
		if (i)
			putchar('\n');
		/* git's colours: the commit line yellow */
		printf("%scommit %s", cli_color(ctx, CLI_YELLOW), hex);
		if (e->kind == SS_HISTORY_SPACE)
			printf(e->merged ? " (space)" : " (space, not merged yet)");
		else if (e->kind == SS_HISTORY_MERGE)
			printf(" (merge)");
		printf("%s\n", cli_color(ctx, CLI_RESET));
		if (e->kind != SS_HISTORY_SPACE) {
			printf("Author: %s", cli_safe(&text, e->info.author_name));
			printf(" <%s>\n", cli_safe(&text, e->info.author_email));
		}
		printf("Date:   %s\n\n", when);
		print_message(e, skill);
	}
	ss_buf_release(&text);
}

static void json_entry(cli_json *w, const ss_history_entry *e, const char *skill, ss_buf *part)
{
	char hex[SS_OID_HEXSZ + 1], when[32];

	ss_oid_fmt(hex, &e->info.oid);
	format_time(when, e->info.time);
	cli_json_object(w, NULL);
	cli_json_str(w, "commit", hex);
	cli_json_str(w, "kind", ss_history_kind_name(e->kind));
	cli_json_bool(w, "merged", e->merged);
	cli_json_str(w, "date", when);
	cli_json_object(w, "author");
	cli_json_str(w, "name", e->info.author_name);
	cli_json_str(w, "email", e->info.author_email);
	cli_json_end(w);
	cli_json_str(w, "subject", e->info.subject);
	cli_json_str(w, "message", e->info.message);
	if (skill && e->kind == SS_HISTORY_SPACE) {
		ss_buf_clear(part);
		ss_history_excerpt(e->info.message + strlen(e->info.subject), skill, part);
		cli_json_str(w, "about", part->ptr);
	}
	cli_json_end(w);
}

static void print_json(const ss_history *h, const char *skill)
{
	ss_buf part = SS_BUF_INIT;
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_array(&w, NULL);
	for (size_t i = 0; i < h->count; i++)
		json_entry(&w, &h->items[i], skill, &part);
	cli_json_finish(&w);
	ss_buf_release(&part);
}

/* A skill name as given on the command line: "name" or "name/" (completion adds a slash). */
static char *skill_arg(const char *arg)
{
	size_t n = cli_path_len(arg);

	if (!n || memchr(arg, '/', n) || (n == 1 && arg[0] == '.') ||
	    (n == 2 && !strncmp(arg, "..", 2)))
		return NULL;
	return ss_xstrndup(arg, n);
}

static int parse_count(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*out = (size_t)v;
	return 0;
}

static int cmd_log(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_log_def = {
    "log", cmd_log, "show the history: who changed what, and the notes",
    "usage: skillsync log [<skill>] [-n <count>] [--json] [--color[=<when>]]\n"
    "\n"
    "The clone's history, newest first: what the space changed (one commit per fetch that\n"
    "changed the view, saying skill by skill what changed, who changed it, and the record's\n"
    "note), your commits, and the merges that brought the space's changes in. Changes fetched\n"
    "but not merged yet come first, marked \"not merged yet\". With <skill>, only the commits\n"
    "that changed that skill, and of each fetch only what it says about that skill.\n"
    "\n"
    "    -n, --max-count <n>   show at most n commits\n"
    "    --color[=<when>]      colour the commit lines: always, never or auto (the default:\n"
    "                          on a terminal, unless $NO_COLOR is set; docs/CONFIG.md)\n"
    "    --json                print a JSON array of {commit, kind (space, local, merge),\n"
    "                          merged, date, author, subject, message, about}\n"};

static int cmd_log(ss_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	size_t max = 0;
	char *skill = NULL;
	ss_history h = {NULL, 0};
	int ret;

	for (int i = 1; i < argc; i++) {
		int used, rc;

		if ((rc = cli_color_json_option(ctx, argv[i], &json, &used)) || used) {
			if (rc) {
				free(skill);
				return rc;
			}
		} else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--max-count")) {
			if (i + 1 == argc || parse_count(argv[i + 1], &max) < 0) {
				free(skill);
				return cli_usage_error(ctx, "'%s' needs a number", argv[i]);
			}
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(skill);
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else if (skill) {
			free(skill);
			return cli_usage_error(ctx, "too many arguments");
		} else if (!(skill = skill_arg(argv[i]))) {
			return cli_usage_error(ctx, "'%s' is not a skill name", argv[i]);
		}
	}
	if (cli_open_clone(ctx) < 0 || cli_color_init(ctx) < 0 ||
	    ss_history_list(ctx->repo, skill, max, &h, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (json)
		print_json(&h, skill);
	else
		print_text(ctx, &h, skill);
	ret = SS_EXIT_OK;
out:
	ss_history_release(&h);
	free(skill);
	return ret;
}
