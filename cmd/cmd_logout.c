/* cmd_logout.c: `skillsync logout [<handle-or-did>]`. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"
#include "sync/setting.h"

static int cmd_logout(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_logout_def = {
    "logout", cmd_logout, "end a session and forget it",
    "usage: skillsync logout [<handle-or-did>]\n"
    "\n"
    "Ends the session on the server (best effort) and removes it locally: a password\n"
    "session is deleted on the PDS, an OAuth session's tokens are revoked at its\n"
    "authorization server. Without an argument, the only signed-in account.\n"};

static int cmd_logout(ss_ctx *ctx, int argc, char **argv)
{
	ss_session_info info = {0};
	const char *who = NULL;
	ss_http *http = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		if (who)
			return cli_usage_error(ctx, "too many arguments");
		who = argv[i];
	}
	if (ss_setting_http_new(&http, NULL, &ctx->err) < 0 ||
	    ss_session_logout(http, who, &info, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	printf("signed out of ");
	cli_print_safe(stdout, info.handle ? info.handle : info.did);
	printf(" (%s)\n", info.did);
	ret = SS_EXIT_OK;
out:
	ss_session_info_release(&info);
	ss_http_free(http);
	return ret;
}
