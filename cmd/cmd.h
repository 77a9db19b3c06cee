/*
 * cmd.h: what every command shares: the context the dispatcher hands it, the exit codes, and
 * the two ways a command reports failure (a usage error, or an ss_error).
 *
 * Only cmd/ prints and picks exit codes. A command exports exactly
 * `int cmd_<name>(struct ss_ctx *ctx, int argc, char **argv)`; argv[0] is the command's name,
 * and `--help` never reaches it (the dispatcher answers it from the command table). A command
 * that works in a clone parses its options first (a bad one is a usage error, exit 129, in a
 * clone or not), then calls cmd_open_clone.
 */
#ifndef SS_CMD_H
#define SS_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/provenance.h"
#include "core/state.h"

/* Exit codes: documented in docs/EXIT-CODES.md; keep the two in step. */
enum {
	SS_EXIT_OK = 0,
	SS_EXIT_ERROR = 1,    /* the command failed: invalid input, a refused operation */
	SS_EXIT_CONFLICT = 2, /* a merge stopped with conflicts to resolve */
	SS_EXIT_REJECTED = 3, /* the space moved since the last fetch: pull first */
	SS_EXIT_NETWORK = 4,  /* a server could not be reached or failed */
	SS_EXIT_AUTH = 5,     /* no usable session, or the server refused the credentials */
	SS_EXIT_LOCKED = 6,   /* another skillsync is working in this clone */
	SS_EXIT_USAGE = 129,  /* unknown command or option, missing argument */
};

/* What a command works on (the command opens it with cmd_open_clone after its options). */
enum {
	SS_NEED_NOTHING = 0,
	SS_NEED_CLONE = 1 << 0, /* a skillsync clone around the current directory: repo + state */
};

struct ss_repo;
struct ss_state;

typedef struct ss_ctx {
	const char *cmd; /* the command's name, for messages */
	ss_error err;
	struct ss_repo *repo;   /* set by cmd_open_clone; the dispatcher frees it */
	struct ss_state *state; /* the clone's local state: the same */
} ss_ctx;

typedef struct ss_command {
	const char *name;
	int (*fn)(ss_ctx *ctx, int argc, char **argv);
	int needs;
	const char *summary; /* one line for `skillsync --help` */
	const char *usage;   /* the whole `skillsync <name> --help` text */
} ss_command;

/* Prints "skillsync: <message>" on stderr and returns the exit code for err->code (a failure:
 * never SS_EXIT_OK). */
int cmd_fail(const ss_error *err);

/* Prints "skillsync <cmd>: <message> (see 'skillsync <cmd> --help')"; returns SS_EXIT_USAGE. */
int cmd_usage_error(const ss_ctx *ctx, const char *fmt, ...) SS_PRINTF(2, 3);

/*
 * The shared helpers below (cmd_open_clone, cmd_lock_*, cmd_members_load, cmd_commit_message)
 * follow core/error.h like the library: 0, or a negative value with ctx->err filled; they
 * print nothing. The command turns a failure into its one line and exit code once, with
 * `return cmd_fail(&ctx->err)`. Only option parsing returns exit codes (cmd_usage_error).
 */

/*
 * Opens the clone around the current directory and its local state into ctx->repo and
 * ctx->state (the dispatcher frees them after the command). Returns 0, or -1 with ctx->err
 * saying "not a skillsync clone ..." or why the clone cannot be opened. Calling it again once
 * open does nothing.
 */
int cmd_open_clone(ss_ctx *ctx);

/* The exit code for an SS_E* code. */
int cmd_exit_code(int code);

/*
 * Printing text that came from elsewhere (handles, notes, reasons, record keys, servers' words,
 * commit messages): always through these, which follow core/utf8.h's escape rule.
 */
/* s as a quoted JSON string on stdout (the commands' --json output); null when s is NULL. */
void cmd_print_json_string(const char *s);
/* s with its unsafe characters as \xNN, in tmp (cleared first; "" for NULL): for printf. */
const char *cmd_safe(ss_buf *tmp, const char *s);
/* The same, printed on out. */
void cmd_print_safe(FILE *out, const char *s);
/* "warning: skipped '<key>' of '<member>': <reason>" on stderr (clone, fetch, pull). */
void cmd_print_skip(const char *did, const char *handle, const char *rkey, const char *reason);
/* A note's first line, at most max bytes (0: all), " ..." when something is left out. */
void cmd_print_note(FILE *out, const char *note, size_t max);

/*
 * Takes the clone's lock (waiting $SKILLSYNC_LOCK_WAIT seconds, default SS_LOCK_WAIT_MS; then
 * SS_ELOCKED naming the holder), finishes or undoes a merge a killed run left
 * (*recovered, may be NULL, says whether there was one) and, when ctx->state is open, reads
 * its cached values again (ss_state_reload). Release *out with ss_lock_release.
 */
struct ss_repo;
struct ss_lock;
int cmd_lock_clone(ss_ctx *ctx, struct ss_repo *repo, struct ss_lock **out, bool *recovered);
/* The same wait on the lock file at path, for a clone still being built (cmd/clone.c). */
int cmd_lock_path(ss_ctx *ctx, const char *path, struct ss_lock **out);

/* The length of path without its trailing slashes ("pdf/" -> 3; "/" keeps its one). */
size_t cmd_path_len(const char *path);

/* The members of the clone (cmd/provenance.c), for printing handles. */
typedef struct cmd_member_list {
	ss_state_member *list;
	size_t n;
} cmd_member_list;
int cmd_members_load(ss_ctx *ctx, cmd_member_list *out);
void cmd_members_release(cmd_member_list *m);
/* The member's handle when known, else did (borrowed). */
const char *cmd_who(const cmd_member_list *m, const char *did);
/* One skill's versions as a JSON object: {"name", "winner": {...} | null, "shadows": [...]}. */
void cmd_print_json_provenance(const char *name, const cmd_member_list *m, const ss_provenance *p);

/* Appends what deleting name does in the space (cmd/notice.c), one line without newline. */
void cmd_notice_format(ss_buf *out, ss_plan_notice_kind kind, const char *name, const char *who);

/* Where `commit` gets its message (cmd/commit_msg.c). */
typedef struct cmd_commit_msg_opts {
	const char **messages; /* -m, joined by blank lines */
	size_t nmessages;
	const char *file;    /* -F (- for stdin) */
	const char *summary; /* '#' lines for the editor: what is being committed */
} cmd_commit_msg_opts;
/* Fills out with the cleaned message; returns 0, or -1 with ctx->err set (none, or empty). */
int cmd_commit_message(ss_ctx *ctx, const cmd_commit_msg_opts *o, ss_buf *out);

int cmd_validate(ss_ctx *ctx, int argc, char **argv);
int cmd_clone(ss_ctx *ctx, int argc, char **argv);
int cmd_ls(ss_ctx *ctx, int argc, char **argv);
int cmd_show(ss_ctx *ctx, int argc, char **argv);
int cmd_status(ss_ctx *ctx, int argc, char **argv);
int cmd_members(ss_ctx *ctx, int argc, char **argv);
int cmd_push(ss_ctx *ctx, int argc, char **argv);
int cmd_commit(ss_ctx *ctx, int argc, char **argv);
int cmd_diff(ss_ctx *ctx, int argc, char **argv);
int cmd_login(ss_ctx *ctx, int argc, char **argv);
int cmd_logout(ss_ctx *ctx, int argc, char **argv);
int cmd_whoami(ss_ctx *ctx, int argc, char **argv);
int cmd_log(ss_ctx *ctx, int argc, char **argv);
int cmd_fetch(ss_ctx *ctx, int argc, char **argv);
int cmd_pull(ss_ctx *ctx, int argc, char **argv);

#endif
