/*
 * main.c: the command table and the dispatcher (git's git.c, libgit2's src/cli/main.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/secret.h"
#include "core/util/utf8.h"
#include "ss_commit.h" /* generated at build time: cmake/version.cmake */

static int cmd_help(ss_ctx *ctx, int argc, char **argv);

static const ss_command help_def = {
    "help", cmd_help, "show help for a command",
    "usage: skillsync help [<command>]\n"
    "       skillsync help --man [<command>]\n"
    "       skillsync help --commands | --options <command>\n"
    "\n"
    "Prints the help of a command (the same text as 'skillsync <command> --help'), or the\n"
    "list of commands.\n"
    "\n"
    "    --man          the help as a man(7) page (the build makes the installed man pages\n"
    "                   with it)\n"
    "    --commands     the commands' names, one a line (for shell completion)\n"
    "    --options      the command's options, one a line (for shell completion)\n"};

/* The commands, in the order `skillsync --help` lists them; each cmd/<name>.c defines its
 * entry next to the options it parses. */
static const ss_command *const commands[] = {
    &cmd_validate_def, &cmd_audit_def,  &cmd_clone_def,   &cmd_ls_def,     &cmd_show_def,
    &cmd_status_def,   &cmd_commit_def, &cmd_diff_def,    &cmd_push_def,   &cmd_login_def,
    &cmd_logout_def,   &cmd_whoami_def, &cmd_members_def, &cmd_fetch_def,  &cmd_pull_def,
    &cmd_log_def,      &cmd_review_def, &cmd_accept_def,  &cmd_reject_def, &cmd_pin_def,
    &cmd_unpin_def,    &cmd_space_def,  &cmd_card_def,    &cmd_link_def,   &cmd_unlink_def,
    &cmd_verify_def,   &cmd_config_def, &cmd_prompt_def,  &cmd_mcp_def,    &help_def,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const ss_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "skillsync: '%s' is not a skillsync command (see 'skillsync --help')\n",
	        name);
	return SS_EXIT_USAGE;
}

static void print_main_help(FILE *out)
{
	fprintf(out, "usage: skillsync [--version] [--help] <command> [<args>]\n\n"
	             "Keeps a memory space's agent skills in a local git repository.\n\n"
	             "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "   %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nSee 'skillsync help <command>' for one command's options.\n");
}

static int cmd_help(ss_ctx *ctx, int argc, char **argv)
{
	const ss_command *c;
	const char *mode = NULL;

	if (argc > 1 && (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--commands") ||
	                 !strcmp(argv[1], "--options")))
		mode = argv[1];
	if (mode && !strcmp(mode, "--commands")) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i]->name);
		return SS_EXIT_OK;
	}
	if (mode && !strcmp(mode, "--man") && argc == 2) {
		cli_help_man_main(stdout, commands, NCOMMANDS);
		return SS_EXIT_OK;
	}
	if (mode) {
		argc--;
		argv++;
	}
	if (argc < 2) {
		if (mode)
			return cli_usage_error(ctx, "'%s' needs a command", mode);
		print_main_help(stdout);
		return SS_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(ctx, "too many arguments");
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	if (mode && !strcmp(mode, "--man"))
		cli_help_man(stdout, c);
	else if (mode)
		cli_help_options(stdout, c);
	else
		fputs(c->usage, stdout);
	return SS_EXIT_OK;
}

int cli_exit_code(int code)
{
	switch (code) {
	case SS_OK:
		return SS_EXIT_OK;
	case SS_EMERGE:
		return SS_EXIT_CONFLICT;
	case SS_ECONFLICT:
		return SS_EXIT_REJECTED;
	case SS_ENETWORK:
		return SS_EXIT_NETWORK;
	case SS_EAUTH:
		return SS_EXIT_AUTH;
	case SS_ELOCKED:
		return SS_EXIT_LOCKED;
	default:
		return SS_EXIT_ERROR;
	}
}

int cli_fail(const ss_error *err)
{
	/* Messages quote what servers and records said: printed through the escape rule. */
	fputs("skillsync: ", stderr);
	cli_print_safe(stderr, err->message[0] ? err->message : "unknown error");
	fputc('\n', stderr);
	return err->code == SS_OK ? SS_EXIT_ERROR : cli_exit_code(err->code);
}

int cli_usage_error(const ss_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skillsync %s: ", ctx->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'skillsync %s --help')\n", ctx->cmd);
	return SS_EXIT_USAGE;
}

const char *cli_safe(ss_buf *tmp, const char *s)
{
	ss_buf_clear(tmp);
	if (s)
		ss_utf8_escape(tmp, s, strlen(s), SS_ESCAPE_TEXT);
	return tmp->ptr;
}

void cli_print_safe(FILE *out, const char *s)
{
	ss_buf b = SS_BUF_INIT;

	fputs(cli_safe(&b, s), out);
	ss_buf_release(&b);
}

void cli_print_skip(const char *did, const char *handle, const char *rkey, const char *reason)
{
	fputs("warning: skipped '", stderr);
	cli_print_safe(stderr, rkey);
	fputs("' of '", stderr);
	cli_print_safe(stderr, handle ? handle : did);
	fputs("': ", stderr);
	cli_print_safe(stderr, reason);
	fputc('\n', stderr);
}

void cli_print_note(FILE *out, const char *note, size_t max)
{
	ss_buf b = SS_BUF_INIT;

	ss_utf8_escape_line(&b, note, max);
	fputs(b.ptr, out);
	ss_buf_release(&b);
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

/* A rebuilt state takes its tracking commit back from git: the ref names it. */
static int rebuilt_tracking(ss_ctx *ctx)
{
	ss_oid tracking;
	int rc = ss_commit_read_ref(ctx->repo, SS_REPO_TRACKING_REF, &tracking, &ctx->err);

	if (rc < 0 && ctx->err.code == SS_ENOTFOUND)
		return 0;
	return rc < 0 ? rc : ss_state_set_tracking(ctx->state, &tracking, &ctx->err);
}

bool cli_space_clone(ss_ctx *ctx)
{
	char *transport = NULL;
	ss_error ignored;
	bool yes;

	if (ss_state_config_get(ctx->state, "transport", &transport, &ignored) < 0)
		return false;
	yes = transport && !strcmp(transport, "space");
	free(transport);
	return yes;
}

int cli_open_clone(ss_ctx *ctx)
{
	int rc;

	if (ctx->repo && ctx->state)
		return 0;
	rc = ss_repo_open(&ctx->repo, ".", &ctx->err);
	if (rc < 0 && ctx->err.code == SS_ENOTFOUND)
		ss_error_set(&ctx->err, SS_ENOTFOUND,
		             "not a skillsync clone (or any of the parent directories)");
	if (rc < 0)
		goto fail;
	rc = ss_state_open_existing(&ctx->state, ss_repo_gitdir(ctx->repo), &ctx->err);
	if (rc == 0 && ss_state_rebuilt(ctx->state)) {
		fprintf(stderr, "warning: %s\n", ss_state_rebuilt(ctx->state));
		rc = rebuilt_tracking(ctx);
	}
	if (rc == 0 && !ss_state_authority(ctx->state))
		rc = ss_error_set(&ctx->err, SS_ENOTFOUND, "local state has no authority");
	if (rc < 0 && ctx->err.code == SS_ENOTFOUND)
		ss_error_set(&ctx->err, SS_ENOTFOUND,
		             "'%s' is a git repository but not a skillsync clone",
		             ss_repo_workdir(ctx->repo));
	if (rc < 0)
		goto fail;
	return 0;
fail:
	ss_state_free(ctx->state);
	ss_repo_free(ctx->repo);
	ctx->state = NULL;
	ctx->repo = NULL;
	return -1;
}

int main(int argc, char **argv)
{
	const ss_command *c;
	ss_ctx ctx;
	int ret;

	ss_secret_no_dumps(); /* sessions' tokens and passwords pass through memory */
	memset(&ctx, 0, sizeof(ctx));
	if (argc < 2) {
		print_main_help(stderr);
		return SS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_help(stdout);
		return SS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("skillsync %s (commit %s)\n", SS_VERSION, SS_COMMIT);
		return SS_EXIT_OK;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "skillsync: unknown option '%s' (see 'skillsync --help')\n",
		        argv[1]);
		return SS_EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	if (wants_help(argc - 1, argv + 1)) {
		fputs(c->usage, stdout);
		return SS_EXIT_OK;
	}
	ctx.cmd = c->name;
	ret = c->fn(&ctx, argc - 1, argv + 1);
	ss_state_free(ctx.state); /* opened by the command (cli_open_clone) after its options */
	ss_repo_free(ctx.repo);
	return ret;
}
