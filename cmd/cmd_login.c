/*
 * cmd_login.c: `skillsync login [--oauth [--paste] [--no-browser]] <handle-or-did>` and
 * `skillsync login [--password-stdin | --password-prompt] <handle-or-did>`.
 *
 * With OAuth (--oauth, or by default on a terminal when no password is given and the PDS
 * offers it) the person signs in on their PDS's own page (sync/identity/signin.h): its URL is
 * printed and opened with $BROWSER (else xdg-open); the session kept has no password in it and
 * may only do what its scope says. Otherwise the password comes from $SKILLSYNC_PASSWORD, from
 * stdin with --password-stdin, or from a prompt without echo on a terminal; never from argv. It is
 * wiped from memory after use and never printed.
 */
#include <errno.h>
#include <spawn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "sync/identity/session.h"
#include "sync/identity/signin.h"
#include "sync/net/http.h"
#include "sync/setting.h"

#define MAX_PASSWORD 1024
/* How long an OAuth sign-in waits for the person, by default. */
#define SIGNIN_TIMEOUT_S 300

/*
 * The least an OAuth session needs (docs/ATPROTO-CLIENT.md says which command needs which):
 * to create, update and delete garden.engram.skill records in the account's repo (push;
 * reads are public), to put its agent card (card --publish), and the same skill writes and
 * the reads of the spaces it uses (SPACE_SCOPE: a permissioned space's delegation token needs
 * its read). Skills carry no blobs: no blob scope.
 */
#define SKILL_SCOPE "repo:garden.engram.skill?action=create&action=update&action=delete"
#define CARD_SCOPE  "repo:site.filae.agent.card?action=create&action=update"
#define SPACE_SCOPE                                                                                \
	"space:garden.engram.space?authority=*&collection=garden.engram.skill&action=read&"        \
	"action=create&action=update&action=delete"
#define OAUTH_SCOPE "atproto " SKILL_SCOPE " " CARD_SCOPE " " SPACE_SCOPE

/* Reads one line from fd into out (without the newline); SS_ETOOBIG past the cap. */
static int read_line(int fd, ss_buf *out)
{
	char c;
	ssize_t n;

	out->max = MAX_PASSWORD;
	while ((n = read(fd, &c, 1)) == 1 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (c == '\n')
			break;
		if (ss_buf_putc(out, c) < 0)
			return SS_ETOOBIG;
	}
	if (out->len && out->ptr[out->len - 1] == '\r')
		ss_buf_truncate(out, out->len - 1);
	return n < 0 ? SS_ERROR : 0;
}

/* Prompts on the controlling terminal with echo off; SS_EAUTH when there is none. */
static int prompt(const char *who, ss_buf *out, ss_error *err)
{
	struct termios old, quiet;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	int ret;

	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &old) < 0) {
		if (fd >= 0)
			close(fd);
		return ss_error_set(err, SS_EAUTH,
		                    "no password: set SKILLSYNC_PASSWORD or use --password-stdin "
		                    "(there is no terminal to ask on)");
	}
	dprintf(fd, "Password for %s: ", who);
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	quiet.c_lflag |= ICANON;
	tcsetattr(fd, TCSAFLUSH, &quiet);
	ret = read_line(fd, out);
	tcsetattr(fd, TCSAFLUSH, &old);
	dprintf(fd, "\n");
	close(fd);
	if (ret < 0)
		return ss_error_set(err, SS_EAUTH, "cannot read the password");
	return 0;
}

/* Opens url with $BROWSER, else xdg-open; best effort (the URL is printed either way). Only
 * the URL goes to the browser: the session's secrets are not made yet, the listener is not
 * inherited (close-on-exec), nor is $SKILLSYNC_PASSWORD (ss_secret_child_env). */
static void open_browser(const char *url)
{
	const char *browser = getenv("BROWSER");
	char *prog = ss_xstrdup(browser && *browser ? browser : "xdg-open"),
	     *page = ss_xstrdup(url);
	char *argv[] = {prog, page, NULL}, **env = ss_secret_child_env();
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, env) != 0)
		fprintf(stderr, "skillsync: cannot start '%s': open the page yourself\n", argv[0]);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	free(prog);
	free(page);
}

/* What a session may do, in words. */
static void print_powers(const ss_session_info *info)
{
	if (!info->oauth) {
		printf("password session: may do anything the account can\n");
		return;
	}
	printf("OAuth session: may create, update and delete garden.engram.skill records%s%s "
	       "(scope: ",
	       info->scope && strstr(info->scope, "site.filae.agent.card") ? ", put its agent card"
	                                                                   : "",
	       info->scope && strstr(info->scope, "space:") ? ", also in spaces" : "");
	cli_print_safe(stdout, info->scope ? info->scope : "");
	printf(")\n");
}

typedef struct oauth_opts {
	bool paste, no_browser;
	int timeout_s;
} oauth_opts;

/* The OAuth sign-in: the page's URL printed (and opened), then the redirect waited for. */
static int login_oauth(ss_http *http, const char *who, const oauth_opts *o, ss_session_info *info,
                       ss_error *err)
{
	ss_signin *s = NULL;
	int ret;

	if ((ret = ss_signin_begin(http, who, OAUTH_SCOPE, &s, err)) < 0)
		return ret;
	printf("Sign in on your PDS's page (it opens in your browser):\n  %s\n", ss_signin_url(s));
	if (o->paste)
		printf("Then paste here the address the browser ended on.\n");
	fflush(stdout);
	if (!o->no_browser)
		open_browser(ss_signin_url(s));
	ret = ss_signin_finish(s, o->paste ? STDIN_FILENO : -1, o->timeout_s, info, err);
	ss_signin_free(s);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return ret;
}

static int cmd_login(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_login_def = {
    "login", cmd_login, "sign in to an account's PDS and keep the session",
    "usage: skillsync login [--oauth] [--paste] [--no-browser] [--timeout=S] <handle-or-did>\n"
    "   or: skillsync login [--password-stdin | --password-prompt] <handle-or-did>\n"
    "\n"
    "Resolves the account, signs in on its PDS and keeps the session (mode 0600) under\n"
    "$SKILLSYNC_CONFIG_HOME (default $XDG_CONFIG_HOME/skillsync or ~/.config/skillsync).\n"
    "\n"
    "With OAuth you sign in on your PDS's own page, which opens with $BROWSER (or\n"
    "xdg-open) and whose address is printed: the session kept holds no password and may\n"
    "only create, update and delete garden.engram.skill records (in your repo and the\n"
    "spaces you use) and put your agent card. On a machine without a browser, open the\n"
    "address elsewhere and with --paste give back the address the browser ended on. OAuth\n"
    "is the default on a terminal when no password is given and the PDS offers it.\n"
    "\n"
    "With a password: from $SKILLSYNC_PASSWORD, from stdin, or from a prompt on the\n"
    "terminal (--password-prompt, or when the PDS offers no OAuth); never from the\n"
    "command line.\n"
    "\n"
    "Which password: an app password is enough for public spaces. Reading a permissioned\n"
    "space needs OAuth or the account password: your PDS gives the delegation token that\n"
    "reading takes to those, never to an app-password session. A password session is a\n"
    "full-access one (mode 0600, refreshed as it is used, ended on the server by 'skillsync\n"
    "logout'): prefer OAuth.\n"
    "\n"
    "    --oauth             sign in with OAuth (no password kept; least scope)\n"
    "    --password-prompt   ask for the password on the terminal instead of OAuth\n"
    "    --paste             also take the final address pasted on stdin\n"
    "    --no-browser        do not open a browser: only print the address\n"
    "    --timeout=S         give up the OAuth sign-in after S seconds [300]\n"
    "    --password-stdin    read the password from the first line of stdin\n"};

static int cmd_login(ss_ctx *ctx, int argc, char **argv)
{
	const char *who = NULL;
	char *env = getenv(SS_SECRET_ENV_PASSWORD);
	ss_session_info info = {0};
	ss_buf password = SS_BUF_INIT;
	bool from_stdin = false, oauth = false, ask = false;
	oauth_opts oo = {.timeout_s = SIGNIN_TIMEOUT_S};
	ss_http *http = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--password-stdin"))
			from_stdin = true;
		else if (!strcmp(argv[i], "--oauth"))
			oauth = true;
		else if (!strcmp(argv[i], "--password-prompt"))
			ask = true;
		else if (!strcmp(argv[i], "--paste"))
			oo.paste = true;
		else if (!strcmp(argv[i], "--no-browser"))
			oo.no_browser = true;
		else if (!strncmp(argv[i], "--timeout=", 10) &&
		         (oo.timeout_s = atoi(argv[i] + 10)) > 0)
			continue;
		else if (!strcmp(argv[i], "--password") || !strncmp(argv[i], "--password=", 11) ||
		         !strcmp(argv[i], "-p"))
			return cli_usage_error(ctx,
			                       "passwords are never taken from the command line: "
			                       "use SKILLSYNC_PASSWORD or --password-stdin");
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else if (who)
			return cli_usage_error(ctx, "too many arguments");
		else
			who = argv[i];
	}
	ss_buf_secret(&password);
	if (!who)
		return cli_usage_error(ctx, "missing <handle-or-did>");
	if (oauth && (from_stdin || ask))
		return cli_usage_error(ctx, "--oauth takes no password");
	if (ss_setting_http_new(&http, NULL, &ctx->err) < 0)
		goto fail;
	/* The default on a terminal without a password: OAuth, unless the PDS offers none. */
	if (oauth || (!from_stdin && !ask && !(env && *env) && isatty(STDIN_FILENO))) {
		if (login_oauth(http, who, &oo, &info, &ctx->err) == 0)
			goto done;
		if (oauth || ctx->err.code != SS_ENOTFOUND)
			goto fail;
		ss_error_clear(&ctx->err);
	}
	if (from_stdin) {
		if (read_line(STDIN_FILENO, &password) < 0) {
			ss_error_set(&ctx->err, SS_EAUTH, "cannot read the password from stdin");
			goto fail;
		}
	} else if (env && *env) {
		ss_buf_puts(&password, env);
		ss_secret_wipe(env, strlen(env)); /* our one copy is password's */
	} else if (prompt(who, &password, &ctx->err) < 0) {
		goto fail;
	}
	if (!password.len) {
		ss_error_set(&ctx->err, SS_EAUTH, "the password is empty");
		goto fail;
	}
	if (ss_session_login(http, who, password.ptr, &info, &ctx->err) < 0)
		goto fail;
done:
	printf("signed in as ");
	cli_print_safe(stdout, info.handle ? info.handle : info.did);
	printf(" (%s) on ", info.did);
	cli_print_safe(stdout, info.pds);
	putchar('\n');
	print_powers(&info);
	ret = SS_EXIT_OK;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_buf_release(&password);
	ss_session_info_release(&info);
	ss_http_free(http);
	return ret;
}
