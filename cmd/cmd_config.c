/*
 * cmd_config.c: `skillsync config [--global] [--list | --unset <key> | <key> [<value>]]`: the
 * person's settings (sync/setting.h, docs/CONFIG.md), in the clone's state or, with
 * --global, in the per-user file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/state/state_member.h"
#include "core/util/lock.h"
#include "sync/setting.h"

static int cmd_config(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_config_def = {
    "config", cmd_config, "get and set settings",
    "usage: skillsync config [--global] <key> [<value>]\n"
    "       skillsync config [--global] --unset <key>\n"
    "       skillsync config [--global] --list\n"
    "\n"
    "Reads or sets a setting (docs/CONFIG.md lists them). Without --global a value is set\n"
    "in this clone only (in its local state); with --global for every clone, in\n"
    "$XDG_CONFIG_HOME/skillsync/config (default ~/.config/skillsync/config). A setting's\n"
    "environment variable wins over both; then the clone's value, then the per-user one,\n"
    "then the default. Reading a key prints the value a command here would use (with\n"
    "--global: the per-user file's, exit status 1 when it has none).\n"
    "\n"
    "Keys: timeout (seconds a request may take), pull.ff (true or only), link.agents (the agents\n"
    "'link' uses without --agent, comma-separated), color (auto, always, never), progress\n"
    "(auto, never), review.policy (scripts, all, off), review.trust (members whose changes are\n"
    "never held: a handle given is resolved once and kept as its DID; reading the key shows\n"
    "each DID with its handle when the clone knows it).\n"
    "\n"
    "    --global       the per-user file instead of the clone\n"
    "    --list         every key with the value in use, as key=value (with --global:\n"
    "                   the keys the per-user file sets)\n"
    "    --unset <key>  removes the key's value (from the clone, or with --global the file)\n"};

/* Opens the clone when there is one; outside a clone, st stays NULL (for reading). */
static int open_optional(ss_ctx *ctx)
{
	if (cli_open_clone(ctx) == 0)
		return 0;
	if (ctx->err.code != SS_ENOTFOUND)
		return -1;
	ss_error_clear(&ctx->err);
	return 0;
}

static int list(ss_ctx *ctx, bool global)
{
	if (!global && open_optional(ctx) < 0)
		return cli_fail(&ctx->err);
	for (size_t i = 0; i < ss_setting_count(); i++) {
		const char *key = ss_setting_at(i)->key;
		char *v = NULL;
		int rc = global ? ss_setting_global_get(key, &v, &ctx->err)
		                : ss_setting_get(ctx->state, key, &v, NULL, &ctx->err);

		if (rc < 0)
			return cli_fail(&ctx->err);
		if (!v)
			continue;
		printf("%s=", key);
		cli_print_safe(stdout, v);
		printf("\n");
		free(v);
	}
	return SS_EXIT_OK;
}

/* review.trust as get shows it: each DID with its member's handle when the clone knows it. */
static void print_trust(ss_ctx *ctx, const char *v)
{
	ss_buf one = SS_BUF_INIT;

	for (const char *p = v; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		ss_state_member m;
		ss_error ignored;

		ss_buf_clear(&one);
		ss_buf_put(&one, p, n);
		printf("%s", p == v ? "" : ", ");
		cli_print_safe(stdout, one.ptr);
		if (ctx->state && ss_state_member_get(ctx->state, one.ptr, &m, &ignored) == 0) {
			if (m.handle) {
				printf(" (");
				cli_print_safe(stdout, m.handle);
				printf(")");
			}
			ss_state_member_release(&m);
		}
		p = comma ? comma + 1 : p + n;
	}
	ss_buf_release(&one);
}

static int get(ss_ctx *ctx, const char *key, bool global)
{
	char *v = NULL;

	if (ss_setting_check(key, NULL, &ctx->err) < 0)
		return cli_fail(&ctx->err);
	if (global) {
		int rc = ss_setting_global_get(key, &v, &ctx->err);

		if (rc <= 0) /* none: exit status 1 and nothing printed, as git config */
			return rc < 0 ? cli_fail(&ctx->err) : SS_EXIT_ERROR;
	} else if (open_optional(ctx) < 0 ||
	           ss_setting_get(ctx->state, key, &v, NULL, &ctx->err) < 0) {
		return cli_fail(&ctx->err);
	}
	if (!strcmp(key, "review.trust"))
		print_trust(ctx, v);
	else
		cli_print_safe(stdout, v);
	printf("\n");
	free(v);
	return SS_EXIT_OK;
}

/* review.trust's handles -> DIDs (in a clone, its members' first), then set */
static int set_trust(ss_ctx *ctx, const char *value, bool global)
{
	ss_lock *lock = NULL;
	char *dids = NULL;
	int rc = -1;

	if (!global && (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0))
		return cli_fail(&ctx->err);
	if (ss_setting_trust_dids(global ? NULL : ctx->state, value, &dids, &ctx->err) == 0)
		rc = ss_setting_set(global ? NULL : ctx->state, "review.trust", dids, &ctx->err);
	ss_lock_free(lock);
	free(dids);
	return rc < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

static int set(ss_ctx *ctx, const char *key, const char *value, bool global)
{
	ss_lock *lock = NULL;
	int rc;

	if (value && !strcmp(key, "review.trust"))
		return set_trust(ctx, value, global);
	if (ss_setting_check(key, value, &ctx->err) < 0)
		return cli_fail(&ctx->err);
	if (global)
		return ss_setting_set(NULL, key, value, &ctx->err) < 0 ? cli_fail(&ctx->err)
		                                                       : SS_EXIT_OK;
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0)
		return cli_fail(&ctx->err);
	rc = ss_setting_set(ctx->state, key, value, &ctx->err);
	ss_lock_free(lock);
	return rc < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

static int cmd_config(ss_ctx *ctx, int argc, char **argv)
{
	const char *args[2] = {NULL, NULL};
	bool global = false, do_list = false, unset = false;
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--global"))
			global = true;
		else if (!strcmp(argv[i], "--list") || !strcmp(argv[i], "-l"))
			do_list = true;
		else if (!strcmp(argv[i], "--unset"))
			unset = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else if (n < 2)
			args[n++] = argv[i];
		else
			return cli_usage_error(ctx, "too many arguments");
	}
	if (do_list)
		return n || unset ? cli_usage_error(ctx, "--list takes no key") : list(ctx, global);
	if (!n)
		return cli_usage_error(ctx, "needs a key");
	if (unset)
		return n > 1 ? cli_usage_error(ctx, "--unset takes only a key")
		             : set(ctx, args[0], NULL, global);
	return n == 1 ? get(ctx, args[0], global) : set(ctx, args[0], args[1], global);
}
