/*
 * members.c: `skillsync members [--json]`, `skillsync members add|remove
 * <handle-or-did>`: who writes in the space this clone follows. Changes take
 * effect at the next fetch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/lock.h"
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
	cmd_member_list m;
	ss_buf text = SS_BUF_INIT;

	if (cmd_members_load(ctx, &m) < 0)
		return cmd_fail(&ctx->err);
	if (json)
		putchar('[');
	for (size_t i = 0; i < m.n; i++) {
		const ss_state_member *x = &m.list[i];

		if (json) {
			printf("%s{\"did\":", i ? "," : "");
			cmd_print_json_string(x->did);
			printf(",\"handle\":");
			cmd_print_json_string(x->handle);
			printf(",\"role\":\"%s\",\"rev\":", role_name(x->role));
			cmd_print_json_string(x->rev);
			putchar('}');
		} else {
			printf("%-10s %-30s ", role_name(x->role),
			       x->handle ? cmd_safe(&text, x->handle) : "-");
			printf("%s\n", cmd_safe(&text, x->did));
		}
	}
	if (json)
		printf("]\n");
	ss_buf_release(&text);
	cmd_members_release(&m);
	return SS_EXIT_OK;
}

static int change(ss_ctx *ctx, bool add, const char *who)
{
	ss_lock *lock = NULL;
	ss_http *http = NULL;
	ss_identity id = {NULL, NULL, NULL};
	ss_state_member old;
	int rc, ret = -1;

	memset(&old, 0, sizeof(old));
	if (cmd_lock_clone(ctx, ctx->repo, &lock, NULL) < 0 ||
	    ss_http_new(&http, NULL, &ctx->err) < 0)
		goto out;
	if (ss_identity_resolve(http, who, &id, &ctx->err) < 0) {
		ss_error_prefix(&ctx->err, "cannot resolve '%s'", who);
		goto out;
	}
	rc = ss_state_member_get(ctx->state, id.did, &old, &ctx->err);
	if (rc < 0 && ctx->err.code != SS_ENOTFOUND)
		goto out;
	if (add) {
		ss_state_member m = {id.did, id.handle, id.pds, NULL, NULL, SS_ROLE_MEMBER};

		if (rc == 0 && old.role != SS_ROLE_ME) {
			printf("'%s' is already a member (%s)\n", who, role_name(old.role));
			ret = 0;
			goto out;
		}
		if (ss_state_member_put(ctx->state, &m, &ctx->err) < 0)
			goto out;
		printf("Added '%s' (%s); its skills arrive with the next pull\n", who, id.did);
	} else {
		if (rc < 0) {
			ss_error_set(&ctx->err, SS_ENOTFOUND, "'%s' is not a member of this space",
			             who);
			goto out;
		}
		if (old.role == SS_ROLE_MEMBER && ss_state_me(ctx->state) &&
		    !strcmp(ss_state_me(ctx->state), id.did))
			old.role = SS_ROLE_ME;
		if (old.role != SS_ROLE_MEMBER) {
			ss_error_set(&ctx->err, SS_EINVALID, "cannot remove '%s': it is %s", who,
			             old.role == SS_ROLE_AUTHORITY ? "the space's authority"
			                                           : "you");
			goto out;
		}
		if (ss_state_member_remove(ctx->state, id.did, &ctx->err) < 0)
			goto out;
		printf("Removed '%s'; its skills leave the view with the next pull\n", who);
	}
	ret = 0;
out:
	ss_state_member_release(&old);
	ss_identity_release(&id);
	ss_http_free(http);
	ss_lock_release(lock);
	return ret < 0 ? cmd_fail(&ctx->err) : SS_EXIT_OK;
}

int cmd_members(ss_ctx *ctx, int argc, char **argv)
{
	bool json = false;

	if (argc >= 2 && (!strcmp(argv[1], "add") || !strcmp(argv[1], "remove"))) {
		if (argc != 3)
			return cmd_usage_error(ctx, "'%s' needs one handle or DID", argv[1]);
		if (cmd_open_clone(ctx) < 0)
			return cmd_fail(&ctx->err);
		return change(ctx, !strcmp(argv[1], "add"), argv[2]);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return cmd_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cmd_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	if (cmd_open_clone(ctx) < 0)
		return cmd_fail(&ctx->err);
	return list(ctx, json);
}
