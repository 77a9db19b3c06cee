/*
 * login.c: `skillsync login <handle-or-did> [--password-stdin]`.
 *
 * The password comes from $SKILLSYNC_PASSWORD, from stdin with --password-stdin, or from a
 * prompt without echo on a terminal; never from argv. It is wiped from memory after use and
 * never printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/util/buf.h"
#include "core/util/secret.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"
#include "sync/setting.h"

#define MAX_PASSWORD 1024

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

static int cmd_login(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_login_def = {
    "login", cmd_login, "sign in to an account's PDS and keep the session",
    "usage: skillsync login [--password-stdin] <handle-or-did>\n"
    "\n"
    "Resolves the account, signs in on its PDS and keeps the session (mode 0600) under\n"
    "$SKILLSYNC_CONFIG_HOME (default $XDG_CONFIG_HOME/skillsync or ~/.config/skillsync).\n"
    "The password comes from $SKILLSYNC_PASSWORD, from stdin, or from a prompt on the\n"
    "terminal; never from the command line.\n"
    "\n"
    "Which password: an app password is enough for public spaces, and safest. Reading a\n"
    "permissioned space needs the account password: your PDS gives the delegation token\n"
    "that reading takes to a full sign-in only, never to an app-password session. The\n"
    "session kept is then a full-access one: mode 0600, refreshed as it is used, and ended\n"
    "on the server by 'skillsync logout'.\n"
    "\n"
    "    --password-stdin    read the password from the first line of stdin\n"};

static int cmd_login(ss_ctx *ctx, int argc, char **argv)
{
	const char *who = NULL;
	char *env = getenv(SS_SECRET_ENV_PASSWORD);
	ss_session_info info = {0};
	ss_buf password = SS_BUF_INIT;
	bool from_stdin = false;
	ss_http *http = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--password-stdin"))
			from_stdin = true;
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
	if (ss_setting_http_new(&http, NULL, &ctx->err) < 0 ||
	    ss_session_login(http, who, password.ptr, &info, &ctx->err) < 0)
		goto fail;
	printf("signed in as ");
	cli_print_safe(stdout, info.handle ? info.handle : info.did);
	printf(" (%s) on ", info.did);
	cli_print_safe(stdout, info.pds);
	putchar('\n');
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
