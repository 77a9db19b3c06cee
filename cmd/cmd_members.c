/*
 * cmd_members.c: `skillsync members [--json]`, `skillsync members add|remove
 * <handle-or-did>`: who writes in the space this clone follows. Changes take
 * effect at the next fetch. Who may be in the space, in which role, is core/diff/members.h's rule;
 * sync/clone.h resolves the name and applies it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/util/lock.h"
#include "sync/clone.h"
#include "sync/net/http.h"
#include "sync/setting.h"

static const char *role_name(ss_state_role r)
{
	switch (r) {
	case SS_ROLE_AUTHORITY:
		return "authority";
	case SS_ROLE_ME:
		return "me";
	default:
		return "member";
	}
}

static int list(ss_ctx *ctx, bool json)
{
	cli_member_list m;
	ss_buf text = SS_BUF_INIT;
	cli_json w;

	if (cli_members_load(ctx, &m) < 0)
		return cli_fail(&ctx->err);
	cli_json_init(&w, stdout);
	if (json)
		cli_json_array(&w, NULL);
	for (size_t i = 0; i < m.n; i++) {
		const ss_state_member *x = &m.list[i];

		if (json) {
			cli_json_object(&w, NULL);
			cli_json_str(&w, "did", x->did);
			cli_json_str(&w, "handle", x->handle);
			cli_json_str(&w, "role", role_name(x->role));
			cli_json_str(&w, "rev", x->rev);
			cli_json_end(&w);
		} else {
			printf("%-10s %-30s ", role_name(x->role),
			       x->handle ? cli_safe(&text, x->handle) : "-");
			printf("%s\n", cli_safe(&text, x->did));
		}
	}
	if (json)
		cli_json_finish(&w);
	else if (cli_space_clone(ctx))
		fprintf(stderr, "These are the writers the space host listed at the last fetch "
		                "(listRepos), with the authority and you: the space names its "
		                "members, this clone keeps no member list of its own.\n");
	ss_buf_release(&text);
	cli_members_release(&m);
	return SS_EXIT_OK;
}

static int add(ss_ctx *ctx, ss_http *http, const char *who)
{
	ss_clone_named named;
	int ret = ss_clone_member_add(ctx->state, http, who, &named, &ctx->err);

	if (ret == 0 && named.added)
		printf("Added '%s' (%s); its skills arrive with the next pull\n", who, named.did);
	else if (ret == 0)
		cli_print_member_kept(stdout, who, named.role);
	ss_clone_named_release(&named);
	return ret;
}

static int change(ss_ctx *ctx, bool adding, const char *who)
{
	ss_lock *lock = NULL;
	ss_http *http = NULL;
	int ret = -1;

	if (cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    ss_setting_http_new(&http, ctx->state, &ctx->err) < 0)
		goto out;
	if (adding)
		ret = add(ctx, http, who);
	else if ((ret = ss_clone_member_remove(ctx->state, http, who, &ctx->err)) == 0)
		printf("Removed '%s'; its skills leave the view with the next pull\n", who);
out:
	ss_http_free(http);
	ss_lock_free(lock);
	return ret < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

static int cmd_members(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_members_def = {
    "members", cmd_members, "list, add or remove the space's members",
    "usage: skillsync members [--json]\n"
    "       skillsync members add <handle-or-did>\n"
    "       skillsync members remove <handle-or-did>\n"
    "\n"
    "The accounts whose skill records make up the space: the authority, the members, and\n"
    "you. A change takes effect at the next pull. The authority and you cannot be removed.\n"
    "In a clone of a permissioned space (at://...), the space host names the writers: the\n"
    "list is theirs as of the last fetch, and only the authority changes it ('skillsync\n"
    "space members').\n"
    "\n"
    "    --json    print a JSON array of {did, handle, role, rev}\n"};

static int cmd_members(ss_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int ret;

	if (argc >= 2 && (!strcmp(argv[1], "add") || !strcmp(argv[1], "remove"))) {
		if (argc != 3)
			return cli_usage_error(ctx, "'%s' needs one handle or DID", argv[1]);
		if (cli_open_clone(ctx) < 0)
			return cli_fail(&ctx->err);
		if (cli_space_clone(ctx)) {
			ss_error_set(&ctx->err, SS_EINVALID,
			             "this clone follows a permissioned space, whose writers the "
			             "space host names: its authority changes them with 'skillsync "
			             "space members %s'",
			             argv[1]);
			return cli_fail(&ctx->err);
		}
		return change(ctx, !strcmp(argv[1], "add"), argv[2]);
	}
	if ((ret = cli_json_only(ctx, argc, argv, &json)) != 0)
		return ret;
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	return list(ctx, json);
}
