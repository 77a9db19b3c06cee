/*
 * members.c: `skillsync members [--json]`, `skillsync members add|remove
 * <handle-or-did>`: who writes in the space this clone follows. Changes take
 * effect at the next fetch. `remove` finds the member in the local state (by DID or handle)
 * without the network, so a member whose DID no longer resolves can be removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "core/lock.h"
#include "core/mem.h"
#include "core/repo.h"
#include "core/state.h"
#include "sync/http.h"
#include "sync/identity.h"

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

	if (cli_members_load(ctx, &m) < 0)
		return cli_fail(&ctx->err);
	if (json)
		putchar('[');
	for (size_t i = 0; i < m.n; i++) {
		const ss_state_member *x = &m.list[i];

		if (json) {
			printf("%s{\"did\":", i ? "," : "");
			cli_print_json_string(x->did);
			printf(",\"handle\":");
			cli_print_json_string(x->handle);
			printf(",\"role\":\"%s\",\"rev\":", role_name(x->role));
			cli_print_json_string(x->rev);
			putchar('}');
		} else {
			printf("%-10s %-30s ", role_name(x->role),
			       x->handle ? cli_safe(&text, x->handle) : "-");
			printf("%s\n", cli_safe(&text, x->did));
		}
	}
	if (json)
		printf("]\n");
	ss_buf_release(&text);
	cli_members_release(&m);
	return SS_EXIT_OK;
}

/*
 * The DID of who (a DID, or a handle) among the state's members, without the network: a
 * member whose DID no longer resolves can still be named, and removed. NULL when none matches.
 */
static char *member_did(ss_ctx *ctx, const char *who)
{
	cli_member_list m;
	char *did = NULL;

	if (who[0] == '@')
		who++;
	if (cli_members_load(ctx, &m) < 0)
		return NULL;
	for (size_t i = 0; i < m.n && !did; i++)
		if (!strcmp(m.list[i].did, who) ||
		    (m.list[i].handle && !strcasecmp(m.list[i].handle, who)))
			did = ss_xstrdup(m.list[i].did);
	cli_members_release(&m);
	return did;
}

static int add(ss_ctx *ctx, ss_http *http, const char *who)
{
	ss_identity id = {NULL, NULL, NULL};
	ss_state_member old, m;
	int rc, ret = -1;

	memset(&old, 0, sizeof(old));
	if (ss_identity_resolve(http, who, &id, &ctx->err) < 0) {
		ss_error_prefix(&ctx->err, "cannot resolve '%s'", who);
		goto out;
	}
	rc = ss_state_member_get(ctx->state, id.did, &old, &ctx->err);
	if (rc < 0 && ctx->err.code != SS_ENOTFOUND)
		goto out;
	if (rc == 0 && old.role != SS_ROLE_ME) {
		printf("'%s' is already a member (%s)\n", who, role_name(old.role));
		ret = 0;
		goto out;
	}
	m = (ss_state_member){id.did, id.handle, id.pds, NULL, NULL, SS_ROLE_MEMBER};
	if (ss_state_member_put(ctx->state, &m, &ctx->err) < 0)
		goto out;
	printf("Added '%s' (%s); its skills arrive with the next pull\n", who, id.did);
	ret = 0;
out:
	ss_state_member_release(&old);
	ss_identity_release(&id);
	return ret;
}

/* By the state's DID or handle first; a handle the state does not know is resolved. */
static int remove_member(ss_ctx *ctx, ss_http *http, const char *who)
{
	ss_identity id = {NULL, NULL, NULL};
	ss_state_member old;
	char *did = member_did(ctx, who);
	const char *me = ss_state_me(ctx->state);
	int ret = -1;

	memset(&old, 0, sizeof(old));
	if (!did && strncmp(who, "did:", 4)) {
		if (ss_identity_resolve(http, who, &id, &ctx->err) < 0) {
			ss_error_prefix(&ctx->err, "cannot resolve '%s'", who);
			goto out;
		}
		did = ss_xstrdup(id.did);
	}
	if (!did || ss_state_member_get(ctx->state, did, &old, &ctx->err) < 0) {
		ss_error_set(&ctx->err, SS_ENOTFOUND, "'%s' is not a member of this space", who);
		goto out;
	}
	if (old.role == SS_ROLE_MEMBER && me && !strcmp(me, did))
		old.role = SS_ROLE_ME;
	if (old.role != SS_ROLE_MEMBER) {
		ss_error_set(&ctx->err, SS_EINVALID, "cannot remove '%s': it is %s", who,
		             old.role == SS_ROLE_AUTHORITY ? "the space's authority" : "you");
		goto out;
	}
	if (ss_state_member_remove(ctx->state, did, &ctx->err) < 0)
		goto out;
	printf("Removed '%s'; its skills leave the view with the next pull\n", who);
	ret = 0;
out:
	free(did);
	ss_state_member_release(&old);
	ss_identity_release(&id);
	return ret;
}

static int change(ss_ctx *ctx, bool adding, const char *who)
{
	ss_lock *lock = NULL;
	ss_http *http = NULL;
	int ret = -1;

	if (cli_lock_clone(ctx, NULL, &lock, NULL) < 0 || ss_http_new(&http, NULL, &ctx->err) < 0)
		goto out;
	ret = adding ? add(ctx, http, who) : remove_member(ctx, http, who);
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
    "\n"
    "    --json    print a JSON array of {did, handle, role, rev}\n"};

static int cmd_members(ss_ctx *ctx, int argc, char **argv)
{
	bool json = false;

	if (argc >= 2 && (!strcmp(argv[1], "add") || !strcmp(argv[1], "remove"))) {
		if (argc != 3)
			return cli_usage_error(ctx, "'%s' needs one handle or DID", argv[1]);
		if (cli_open_clone(ctx) < 0)
			return cli_fail(&ctx->err);
		return change(ctx, !strcmp(argv[1], "add"), argv[2]);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	return list(ctx, json);
}
