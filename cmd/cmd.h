/*
 * cmd.h: what every command shares: the context the dispatcher hands it, the exit codes, and
 * the two ways a command reports failure (a usage error, or an ss_error).
 *
 * Only cmd/ prints and picks exit codes. A command's file exports exactly its table entry,
 * `const ss_command cmd_<name>_def`, defined just above its
 * `static int cmd_<name>(ss_ctx *ctx, int argc, char **argv)` so that the help text sits next
 * to the options it describes; cmd/main.c's table lists the entries. argv[0] is the command's
 * name, and `--help` never reaches it (the dispatcher answers it from the entry). A command
 * that works in a clone parses its options first (a bad one is a usage error, exit 129, in a
 * clone or not), then calls cli_open_clone. So the dispatcher never opens the clone itself
 * (git's RUN_SETUP opens it before parsing); the command table has no "needs" field.
 *
 * Names: `cmd_<name>` is a command and nothing else, in cmd/cmd_<name>.c; what the commands
 * share is `cli_*`, in files named by what they do.
 */
#ifndef SS_CMD_H
#define SS_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/json_out.h"
#include "core/diff/outgoing.h"
#include "core/diff/plan.h"
#include "core/diff/provenance.h"
#include "core/state/state.h"
#include "core/state/state_hold.h"
#include "core/state/state_member.h"
#include "core/util/buf.h"
#include "core/util/error.h"

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

struct ss_repo;
struct ss_state;

typedef struct ss_ctx {
	const char *cmd; /* the command's name, for messages */
	ss_error err;
	struct ss_repo *repo;   /* set by cli_open_clone; the dispatcher frees it */
	struct ss_state *state; /* the clone's local state: the same */
	const char *color_flag; /* --color=<when> when given (cli_color_option) */
	bool color;             /* print colours (cli_color_init) */
} ss_ctx;

typedef struct ss_command {
	const char *name;
	int (*fn)(ss_ctx *ctx, int argc, char **argv);
	const char *summary; /* one line for `skillsync --help` */
	const char *usage;   /* the whole `skillsync <name> --help` text */
} ss_command;

/* Prints "skillsync: <message>" on stderr and returns the exit code for err->code (a failure:
 * never SS_EXIT_OK). */
int cli_fail(const ss_error *err);

/* Prints "skillsync <cmd>: <message> (see 'skillsync <cmd> --help')"; returns SS_EXIT_USAGE. */
int cli_usage_error(const ss_ctx *ctx, const char *fmt, ...) SS_PRINTF(2, 3);
/* Reads the arguments of a command whose only option is --json: 0, or cli_usage_error's code. */
int cli_json_only(const ss_ctx *ctx, int argc, char **argv, bool *json);
/* The options of the commands that colour and report (ls, status, log, diff): takes arg when
 * it is --color[=<when>], --no-color (cli_color_option) or --json (*json set), *consumed 1 then;
 * 0, or SS_EXIT_USAGE (printed) for a bad <when>. cli_color_json_only reads the arguments of a
 * command that has only these: 0, or cli_usage_error's code. */
int cli_color_json_option(ss_ctx *ctx, const char *arg, bool *json, int *consumed);
int cli_color_json_only(ss_ctx *ctx, int argc, char **argv, bool *json);

/*
 * The shared helpers below (cli_open_clone, cmd_lock_*, cli_members_load, cli_commit_message)
 * follow core/util/error.h like the library: 0, or a negative value with ctx->err filled; they
 * print nothing. The command turns a failure into its one line and exit code once, with
 * `return cli_fail(&ctx->err)`. Only option parsing returns exit codes (cli_usage_error).
 */

/*
 * Opens the clone around the current directory and its local state into ctx->repo and
 * ctx->state (the dispatcher frees them after the command). Returns 0, or -1 with ctx->err
 * saying "not a skillsync clone ..." or why the clone cannot be opened. Calling it again once
 * open does nothing.
 */
int cli_open_clone(ss_ctx *ctx);
/* Whether the open clone follows a permissioned space (config "transport" is "space"). */
bool cli_space_clone(ss_ctx *ctx);

/* The exit code for an SS_E* code. */
int cli_exit_code(int code);

/*
 * Printing text that came from elsewhere (handles, notes, reasons, record keys, servers' words,
 * commit messages): always through these, which follow core/util/utf8.h's escape rule.
 */
/* s with its unsafe characters as \xNN, in tmp (cleared first; "" for NULL): for printf. */
const char *cli_safe(ss_buf *tmp, const char *s);
/* The same, printed on out. */
void cli_print_safe(FILE *out, const char *s);
/* "warning: skipped '<key>' of '<member>': <reason>" on stderr (clone, fetch, pull). */
void cli_print_skip(const char *did, const char *handle, const char *rkey, const char *reason);
/* A note's first line, at most max bytes (0: all), " ..." when something is left out. */
void cli_print_note(FILE *out, const char *note, size_t max);
/* One audit finding (core/skill/audit.h) as `skillsync audit` prints it: a line
 * `<skill>/<path>:<line>: <level> <rule>: <message>: <excerpt>` on stdout, or its JSON object in w
 * (cmd/cmd_audit.c; `review` shows a held change's findings the same way). */
struct ss_audit_finding;
void cli_audit_print_finding(const struct ss_audit_finding *f);
void cli_audit_json_finding(cli_json *w, const struct ss_audit_finding *f);

/*
 * Takes the lock of the open clone (ctx->repo, ctx->state; waiting $SKILLSYNC_LOCK_WAIT
 * seconds, default SS_LOCK_WAIT_MS; then SS_ELOCKED naming the holder), then finishes what a
 * killed run left (ss_recover_clone, sync/recover.h; sp, the space, may be NULL: an
 * interrupted push then waits for a command that has one). *recovered (may be NULL) says what
 * was finished; the state's cached values are read again (ss_state_reload: another run may
 * have changed them while this one waited). Release *out with ss_lock_free.
 */
struct ss_lock;
struct ss_space;
struct ss_recovered;
int cli_lock_clone(ss_ctx *ctx, struct ss_space *sp, struct ss_lock **out,
                   struct ss_recovered *recovered);
/*
 * The status of the open clone for a command that only reads (status, diff): when no other
 * skillsync holds the clone's lock (taken without waiting, released before returning) and no
 * killed pull waits to be finished, the files' refreshed stat data is written back into the
 * index (SS_STATUS_REFRESH), as git's status does; otherwise the same status, nothing written.
 * skip as ss_worktree_status_apart's (NULL/0: none).
 */
struct ss_status;
int cli_status_refresh(ss_ctx *ctx, const char *const *skip, size_t nskip, struct ss_status *out);
/*
 * For a command whose arguments are skill names and nothing else (pin, unpin, reject): at least
 * one name, no option (else the usage error's exit code), then the clone opened and locked and
 * fn called for each name in one state transaction, all or none. 0 with the lock in *lock
 * (ss_lock_free it), or the exit code of the failure, already printed.
 */
typedef int (*cli_name_fn)(ss_ctx *ctx, const char *name, void *payload);
int cli_each_name_locked(ss_ctx *ctx, int argc, char **argv, const char *verb, cli_name_fn fn,
                         void *payload, struct ss_lock **lock);

/* The length of path without its trailing slashes ("pdf/" -> 3; "/" keeps its one). */
size_t cli_path_len(const char *path);

/* The members of the clone with their roles (cmd/provenance_print.c), for printing handles. */
typedef struct cli_member_list {
	ss_state_member *list;
	size_t n;
} cli_member_list;
int cli_members_load(ss_ctx *ctx, cli_member_list *out);
void cli_members_release(cli_member_list *m);
/* "'<who>' is already in the space: it is <role>" (clone --member, members add). */
void cli_print_member_kept(FILE *out, const char *who, ss_state_role role);
/* The member's handle when known, else did (borrowed). */
const char *cli_who(const cli_member_list *m, const char *did);
/* The review gate's marks for ls and show (cmd/provenance_print.c): the names with a hold and the
 * pinned names, read once. */
typedef struct cli_gate_marks {
	char **held, **pinned;
	size_t nheld, npinned, held_alloc, pinned_alloc;
} cli_gate_marks;
int cli_gate_marks_load(ss_ctx *ctx, cli_gate_marks *out);
void cli_gate_marks_release(cli_gate_marks *g);
bool cli_gate_pinned(const cli_gate_marks *g, const char *name);
/* Whether name has a hold (waiting or rejected). */
bool cli_gate_held(const cli_gate_marks *g, const char *name);
/* name's hold into *out (ss_state_hold_release): 1 when it has one, 0 when not, -1 on error. */
int cli_gate_hold(ss_ctx *ctx, const cli_gate_marks *g, const char *name, ss_state_hold *out);
/* One skill's versions as a JSON object in w: {"name", "winner": {...} | null, "shadows": [...],
 * "pinned": bool, "held": {did, handle, cid, updatedAt, reason, new, rejected} | null}; hold
 * NULL: none. */
void cli_provenance_json(cli_json *w, const char *name, const cli_member_list *m,
                         const ss_provenance *p, bool pinned, const ss_state_hold *hold);

/* Appends what deleting name does in the space (cmd/notice.c), one line without newline. */
void cli_notice_format(ss_buf *out, ss_plan_notice_kind kind, const char *name, const char *who);

/*
 * The skills a push refuses (ss_outgoing_refused), said once for push, `push --dry-run` and
 * status: cli_refused_print writes each error as one line, "<prefix><file>: <field>:
 * <message>", escaped; cli_refused_json writes the JSON array (empty when o is NULL)
 * [{"name": ..., "problems": ["<file>: <field>: <message>", ...]}, ...] as w's member key.
 */
void cli_refused_print(FILE *out, const ss_outgoing *o, const char *prefix);
void cli_refused_json(cli_json *w, const char *key, const ss_outgoing *o);

/* Where `commit` gets its message (cmd/commit_msg.c). */
typedef struct cli_commit_msg_opts {
	const char **messages; /* -m, joined by blank lines */
	size_t nmessages;
	const char *file;    /* -F (- for stdin) */
	const char *summary; /* '#' lines for the editor: what is being committed */
} cli_commit_msg_opts;
/* Fills out with the cleaned message; returns 0, or -1 with ctx->err set (none, or empty). */
int cli_commit_message(ss_ctx *ctx, const cli_commit_msg_opts *o, ss_buf *out);

/* The help texts rendered for the install (cmd/man.c): a command's man(7) page, the
 * skillsync(1) page listing the commands, the command's options one a line. */
void cli_help_man(FILE *out, const ss_command *c);
void cli_help_man_main(FILE *out, const ss_command *const *commands, size_t n);
void cli_help_options(FILE *out, const ss_command *c);

/* Agent folders (cmd/cmd_link.c, docs/AGENTS.md). cli_link_status prints, for `status`, the
 * links `link` made that are missing or point elsewhere (nothing when all are in place).
 * cli_link_pull, under the clone's lock after a pull merged: removes the links of skills that
 * left the view, refreshes copies (when the pull changed something), links new skills when
 * `link --auto` asked for it, else names them (when say_new); messages on stderr. 0, or -1
 * with ctx->err set. */
void cli_link_status(ss_ctx *ctx, FILE *out);
int cli_link_pull(ss_ctx *ctx, bool changed, bool say_new);

/*
 * Progress and colour (cmd/color.c). cli_progress: *out says whether to draw progress lines
 * on stderr (a terminal, no quiet, the progress setting not "never"). cli_color_option takes
 * --color[=<when>] and --no-color (*consumed 1): 0, or SS_EXIT_USAGE (printed) for a bad
 * <when>.
 * cli_color_init, once the clone is open: ctx->color from --color, else never under
 * $NO_COLOR, else the color setting (auto: stdout is a terminal). cli_color(ctx, code): code
 * when colouring, else "". The two follow core/util/error.h (0 or -1, ctx->err set).
 */
#define CLI_RED    "\033[31m"
#define CLI_GREEN  "\033[32m"
#define CLI_YELLOW "\033[33m"
#define CLI_CYAN   "\033[36m"
#define CLI_BOLD   "\033[1m"
#define CLI_RESET  "\033[m"
int cli_progress(ss_ctx *ctx, bool quiet, bool *out);
/* One updating progress line on stderr, git's "<title>: <pct>% (<done>/<total>)": drawn when on
 * (from cli_progress) and the percentage moved or done reached total; cli_progress_clear
 * erases a drawn line (before other stderr output, and at the end). */
typedef struct cli_progress_line {
	bool on, shown;
	int pct; /* last drawn; -1 none */
} cli_progress_line;
void cli_progress_count(cli_progress_line *p, const char *title, size_t done, size_t total);
/* The fetch's line (clone, fetch, pull): records received, members listed of members. */
void cli_progress_records(cli_progress_line *p, size_t records, size_t done, size_t members);
void cli_progress_clear(cli_progress_line *p);
int cli_color_option(ss_ctx *ctx, const char *arg, int *consumed);
int cli_color_init(ss_ctx *ctx);
const char *cli_color(const ss_ctx *ctx, const char *code);
/* A unified diff on stdout, coloured as git's (headers bold, hunks cyan, +/- green/red), each
 * line through the escape rule (only the newlines are kept: docs/SECURITY.md). */
void cli_print_patch(const ss_ctx *ctx, const char *patch, size_t len);

/* The commands (cmd/cmd_<name>.c each). */
extern const ss_command cmd_validate_def;
extern const ss_command cmd_audit_def;
extern const ss_command cmd_review_def;
extern const ss_command cmd_accept_def;
extern const ss_command cmd_reject_def;
extern const ss_command cmd_pin_def;
extern const ss_command cmd_unpin_def;
extern const ss_command cmd_clone_def;
extern const ss_command cmd_ls_def;
extern const ss_command cmd_verify_def;
extern const ss_command cmd_show_def;
extern const ss_command cmd_status_def;
extern const ss_command cmd_members_def;
extern const ss_command cmd_push_def;
extern const ss_command cmd_commit_def;
extern const ss_command cmd_diff_def;
extern const ss_command cmd_login_def;
extern const ss_command cmd_logout_def;
extern const ss_command cmd_whoami_def;
extern const ss_command cmd_log_def;
extern const ss_command cmd_fetch_def;
extern const ss_command cmd_pull_def;
extern const ss_command cmd_space_def;
extern const ss_command cmd_card_def;
extern const ss_command cmd_link_def;
extern const ss_command cmd_unlink_def;
extern const ss_command cmd_config_def;
extern const ss_command cmd_prompt_def;
extern const ss_command cmd_mcp_def;

#endif
