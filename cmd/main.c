/*
 * main.c: the command table and the dispatcher (git's git.c, libgit2's src/cli/main.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/repo.h"
#include "core/secret.h"
#include "core/state.h"
#include "core/utf8.h"

static int cmd_help(ss_ctx *ctx, int argc, char **argv);

static const ss_command commands[] = {
    {"validate", cmd_validate, SS_NEED_NOTHING, "check skills against the format and the lexicon",
     "usage: skillsync validate [--json] [<path>...]\n"
     "\n"
     "Checks skill directories against the Agent Skills frontmatter rules and the\n"
     "garden.engram.skill lexicon's limits. A path is a skill directory, a SKILL.md, or a\n"
     "directory of skills (default: the skills in the current directory).\n"
     "\n"
     "    --json    print one JSON object per skill per line, with its errors and warnings\n"
     "\n"
     "Exit status: 0 when every skill is valid (warnings allowed), 1 when any is not.\n"},
    {"clone", cmd_clone, SS_NEED_NOTHING, "copy a memory space into a new git working tree",
     "usage: skillsync clone <authority> [<dir>] [--member <handle-or-did>]... [--as "
     "<handle-or-did>]\n"
     "\n"
     "Creates <dir> (default: the authority's handle) holding one directory per skill in the\n"
     "view: for each name, your own version, else the authority's, else the most recently\n"
     "updated one. The space is the authority's repo and the members' repos; records that fail\n"
     "validation are skipped with one warning each. The clone is an ordinary git repository;\n"
     "refs/remotes/space/main holds the view as fetched, and the local state lives in .git/.\n"
     "\n"
     "    -m, --member <h>   a member of the space (repeat for each; change later with\n"
     "                       'skillsync members add|remove')\n"
     "    --as <h>           the signed-in account that is you (default: the only one signed\n"
     "                       in; with none, a read-only clone with no \"mine\")\n"},
    {"ls", cmd_ls, SS_NEED_CLONE, "list the skills in the view and where they come from",
     "usage: skillsync ls [--json]\n"
     "\n"
     "One line per skill in the view: its name, why its version wins (mine, authority,\n"
     "newest), who wrote it, when it was updated, and the versions it shadows.\n"
     "\n"
     "    --json    print a JSON array of {name, winner, shadows}\n"},
    {"show", cmd_show, SS_NEED_CLONE, "show every version of one skill and which one wins",
     "usage: skillsync show <name> [--json]\n"
     "\n"
     "Every member's version of the skill, best first: the one in the view and why, then the\n"
     "ones it shadows, then invalid ones with the reason they are never candidates.\n"
     "\n"
     "    --json    print a JSON object {name, winner, shadows}\n"},
    {"status", cmd_status, SS_NEED_CLONE, "show changed skills, conflicts and what push would send",
     "usage: skillsync status [--json]\n"
     "\n"
     "Where main stands against the space: the commits not yet pushed and what 'push' would\n"
     "send, the space's changes fetched but not merged yet ('skillsync pull'), a merge that\n"
     "waits to be concluded. Then the changed, new and deleted skills, staged and not staged,\n"
     "the conflicted files of a waiting merge and what each side did (fix them, then\n"
     "'skillsync commit'), what deleting a skill does in the space, and the problems of\n"
     "changed skills that 'commit' would refuse. Files outside skill directories are marked:\n"
     "they are never pushed. After a pull killed while it updated the files, status says only\n"
     "that ('skillsync pull' finishes it): the half-written files are not your edits.\n"
     "\n"
     "    --json    print one JSON object: interrupted, merging, changes, unmerged, toPush,\n"
     "              unpushedCommits, behind, notices, invalid (when interrupted is true,\n"
     "              only branch and interrupted)\n"},
    {"commit", cmd_commit, SS_NEED_CLONE, "record the changed skills on main",
     "usage: skillsync commit [-m <message>... | -F <file>] [--] [<skill>...]\n"
     "\n"
     "Checks every changed skill (or only the skills named) with the rules of 'validate',\n"
     "stages it and commits it on main. Any problem refuses the whole commit with one line\n"
     "per problem. Files outside skill directories (a README, .gitignore) may be committed\n"
     "but are never pushed. Without -m or -F, an editor opens ($GIT_EDITOR, $VISUAL,\n"
     "$EDITOR, else vi) when a terminal is attached; a waiting merge is concluded with its\n"
     "own message when none is given and there is no terminal.\n"
     "\n"
     "    -m, --message <msg>   the message (several -m make paragraphs)\n"
     "    -F, --file <file>     read the message from <file> (- for stdin); not with -m\n"},
    {"diff", cmd_diff, SS_NEED_CLONE, "show changes by skill, then as a unified diff",
     "usage: skillsync diff [--staged | --pushed] [--stat] [--json] [--] [<skill>...]\n"
     "\n"
     "Without an option: the working tree against the index (what 'commit' would stage).\n"
     "A summary per skill (created, updated or deleted; files added, removed, changed; lines)\n"
     "comes first, each file marked A (added), M (modified) or D (deleted) as in git, then\n"
     "the unified diff.\n"
     "\n"
     "    --staged    the index against HEAD (also --cached)\n"
     "    --pushed    what 'push' would send: the space's view (tracking ref) against HEAD;\n"
     "                like push, refused (exit 3) while a fetch is not merged: pull first\n"
     "    --stat      the summary only\n"
     "    --json      the summary as JSON: [{name, change, files: [{path, change, added,\n"
     "                removed}]}] (with --pushed also op and note per skill)\n"},
    {"push", cmd_push, SS_NEED_CLONE, "send your committed skill changes to your repo",
     "usage: skillsync push [--dry-run] [--json]\n"
     "\n"
     "Sends what HEAD changed against the space's view (the tracking ref) as record writes to\n"
     "your own repo: a new skill is created, a changed one updated (a skill whose version came\n"
     "from someone else becomes your own version), a deleted one removed (only yours; when\n"
     "another member has one, theirs applies after). Each record carries a note made from the\n"
     "commit subjects and a summary of what changed. If your repo moved since the last fetch,\n"
     "nothing is written: run 'skillsync pull' first (exit status 3). Files outside skill\n"
     "directories are never pushed.\n"
     "\n"
     "    -n, --dry-run   show what would be sent, send nothing\n"
     "    --json          print the writes, notes and notices as JSON\n"},
    {"login", cmd_login, SS_NEED_NOTHING, "sign in to an account's PDS and keep the session",
     "usage: skillsync login [--password-stdin] <handle-or-did>\n"
     "\n"
     "Resolves the account, signs in on its PDS and keeps the session (mode 0600) under\n"
     "$SKILLSYNC_CONFIG_HOME (default $XDG_CONFIG_HOME/skillsync or ~/.config/skillsync).\n"
     "The password (an app password is best) comes from $SKILLSYNC_PASSWORD, from stdin, or\n"
     "from a prompt on the terminal; never from the command line.\n"
     "\n"
     "    --password-stdin    read the password from the first line of stdin\n"},
    {"logout", cmd_logout, SS_NEED_NOTHING, "end a session and forget it",
     "usage: skillsync logout [<handle-or-did>]\n"
     "\n"
     "Ends the session on the server (best effort) and removes it locally. Without an\n"
     "argument, the only signed-in account.\n"},
    {"whoami", cmd_whoami, SS_NEED_NOTHING, "show the signed-in accounts",
     "usage: skillsync whoami [--json]\n"
     "\n"
     "Prints each signed-in account: handle, DID and PDS, one a line. Exit status 5 when\n"
     "none is signed in (with --json: prints [] and exits 0).\n"
     "\n"
     "    --json    print a JSON array of {did, handle, pds}\n"},
    {"members", cmd_members, SS_NEED_CLONE, "list, add or remove the space's members",
     "usage: skillsync members [--json]\n"
     "       skillsync members add <handle-or-did>\n"
     "       skillsync members remove <handle-or-did>\n"
     "\n"
     "The accounts whose skill records make up the space: the authority, the members, and\n"
     "you. A change takes effect at the next pull. The authority and you cannot be removed.\n"
     "\n"
     "    --json    print a JSON array of {did, handle, role, rev}\n"},
    {"fetch", cmd_fetch, SS_NEED_CLONE, "bring the space's changes into the tracking ref",
     "usage: skillsync fetch [--quiet] [--json]\n"
     "\n"
     "Asks each member's repo for its revision (one small request per member), lists the\n"
     "records of the members whose repo moved, and when the view changed writes one commit on\n"
     "refs/remotes/space/main saying skill by skill what changed, who changed it, and the\n"
     "record's note. main and your files are not touched: 'skillsync pull' merges.\n"
     "\n"
     "    -q, --quiet   print nothing unless something changed or failed\n"
     "    --json        print one JSON object: the changes, skipped records, requests sent\n"
     "\n"
     "Exit status: 0, 4 network, 5 authentication, 6 another skillsync holds the clone.\n"},
    {"pull", cmd_pull, SS_NEED_CLONE, "fetch, then merge the space's changes into main",
     "usage: skillsync pull [--ff-only] [--quiet] [--json]\n"
     "\n"
     "Fetches (see 'skillsync fetch --help'), then merges the space's view into main: a\n"
     "fast-forward when main has no commits of its own, else a three-way merge. Conflicting\n"
     "edits of the same lines leave conflict markers; 'skillsync status' lists them; fix them\n"
     "and run 'skillsync commit'. Uncommitted changes are never overwritten: when the merge\n"
     "would touch them, pull fetches, then stops naming the files. Made for cron and systemd\n"
     "timers (docs/SCHEDULE.md): it never prompts, and a second run waits for the first\n"
     "($SKILLSYNC_LOCK_WAIT seconds, default 5), then gives up.\n"
     "\n"
     "    --ff-only     merge only when main can fast-forward; else stop (exit status 1)\n"
     "    -q, --quiet   print nothing unless something changed or failed\n"
     "    --json        print one JSON object: fetch, merge, changes, requests sent, error\n"
     "\n"
     "Exit status: 0 up to date or merged, 1 failure (e.g. uncommitted changes in the way),\n"
     "2 conflicts to resolve, 4 network, 5 authentication, 6 another skillsync holds the\n"
     "clone.\n"},
    {"log", cmd_log, SS_NEED_CLONE, "show the history: who changed what, and the notes",
     "usage: skillsync log [<skill>] [-n <count>] [--json]\n"
     "\n"
     "The clone's history, newest first: what the space changed (one commit per fetch that\n"
     "changed the view, saying skill by skill what changed, who changed it, and the record's\n"
     "note), your commits, and the merges that brought the space's changes in. Changes fetched\n"
     "but not merged yet come first, marked \"not merged yet\". With <skill>, only the commits\n"
     "that changed that skill, and of each fetch only what it says about that skill.\n"
     "\n"
     "    -n, --max-count <n>   show at most n commits\n"
     "    --json                print a JSON array of {commit, kind (space, local, merge),\n"
     "                          merged, date, author, subject, message, about}\n"},
    {"help", cmd_help, SS_NEED_NOTHING, "show help for a command",
     "usage: skillsync help [<command>]\n"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const ss_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
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
		fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee 'skillsync help <command>' for one command's options.\n");
}

static int cmd_help(ss_ctx *ctx, int argc, char **argv)
{
	const ss_command *c;

	if (argc < 2) {
		print_main_help(stdout);
		return SS_EXIT_OK;
	}
	if (argc > 2)
		return cmd_usage_error(ctx, "too many arguments");
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	fputs(c->usage, stdout);
	return SS_EXIT_OK;
}

int cmd_exit_code(int code)
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

int cmd_fail(const ss_error *err)
{
	/* Messages quote what servers and records said: printed through the escape rule. */
	fputs("skillsync: ", stderr);
	cmd_print_safe(stderr, err->message[0] ? err->message : "unknown error");
	fputc('\n', stderr);
	return err->code == SS_OK ? SS_EXIT_ERROR : cmd_exit_code(err->code);
}

int cmd_usage_error(const ss_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skillsync %s: ", ctx->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'skillsync %s --help')\n", ctx->cmd);
	return SS_EXIT_USAGE;
}

void cmd_print_json_string(const char *s)
{
	ss_buf b = SS_BUF_INIT;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	ss_utf8_escape(&b, s, strlen(s), SS_ESCAPE_JSON);
	printf("\"%s\"", b.ptr);
	ss_buf_release(&b);
}

const char *cmd_safe(ss_buf *tmp, const char *s)
{
	ss_buf_clear(tmp);
	if (s)
		ss_utf8_escape(tmp, s, strlen(s), SS_ESCAPE_TEXT);
	return tmp->ptr;
}

void cmd_print_safe(FILE *out, const char *s)
{
	ss_buf b = SS_BUF_INIT;

	fputs(cmd_safe(&b, s), out);
	ss_buf_release(&b);
}

void cmd_print_skip(const char *did, const char *handle, const char *rkey, const char *reason)
{
	fputs("warning: skipped '", stderr);
	cmd_print_safe(stderr, rkey);
	fputs("' of '", stderr);
	cmd_print_safe(stderr, handle ? handle : did);
	fputs("': ", stderr);
	cmd_print_safe(stderr, reason);
	fputc('\n', stderr);
}

void cmd_print_note(FILE *out, const char *note, size_t max)
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

int cmd_open_clone(ss_ctx *ctx)
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
		printf("skillsync %s\n", SS_VERSION);
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
	ss_state_free(ctx.state); /* opened by the command (cmd_open_clone) after its options */
	ss_repo_free(ctx.repo);
	return ret;
}
