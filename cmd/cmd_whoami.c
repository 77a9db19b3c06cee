/* cmd_whoami.c: `skillsync whoami [--json]`: the stored sessions, without tokens. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "sync/identity/session.h"

static int cmd_whoami(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_whoami_def = {
    "whoami", cmd_whoami, "show the signed-in accounts",
    "usage: skillsync whoami [--json]\n"
    "\n"
    "Prints each signed-in account: handle, DID, PDS and the kind of session, one a line:\n"
    "'password' (it may do anything the account can) or 'oauth' (it may do only what its\n"
    "scope says, on the indented line that follows: write garden.engram.skill records and\n"
    "the agent card). Exit status 5 when none is signed in (with --json: prints [] and\n"
    "exits 0).\n"
    "\n"
    "    --json    print a JSON array of {did, handle, pds, session, scope}\n"};

static int cmd_whoami(ss_ctx *ctx, int argc, char **argv)
{
	ss_session_info *list = NULL;
	bool json = false;
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cli_usage_error(ctx, "too many arguments");
	}
	if (ss_session_list(&list, &n, &ctx->err) < 0)
		return cli_fail(&ctx->err);
	if (json) {
		cli_json w;

		cli_json_init(&w, stdout);
		cli_json_array(&w, NULL);
		for (size_t i = 0; i < n; i++) {
			cli_json_object(&w, NULL);
			cli_json_str(&w, "did", list[i].did);
			cli_json_str(&w, "handle", list[i].handle);
			cli_json_str(&w, "pds", list[i].pds);
			cli_json_str(&w, "session", list[i].oauth ? "oauth" : "password");
			cli_json_str(&w, "scope", list[i].scope);
			cli_json_end(&w);
		}
		cli_json_finish(&w);
	} else if (!n) {
		ss_session_list_free(list, n);
		ss_error_set(&ctx->err, SS_EAUTH, "not signed in (run 'skillsync login <handle>')");
		return cli_fail(&ctx->err);
	} else {
		ss_buf text = SS_BUF_INIT;

		for (size_t i = 0; i < n; i++) {
			printf("%s ", list[i].handle ? cli_safe(&text, list[i].handle) : "-");
			printf("%s ", cli_safe(&text, list[i].did));
			printf("%s ", cli_safe(&text, list[i].pds));
			printf("%s\n", list[i].oauth ? "oauth" : "password");
			if (list[i].oauth)
				printf("  scope: %s\n",
				       cli_safe(&text, list[i].scope ? list[i].scope : ""));
		}
		ss_buf_release(&text);
	}
	ss_session_list_free(list, n);
	return SS_EXIT_OK;
}
