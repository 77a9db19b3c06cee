/*
 * cmd_space.c: `skillsync space create|members ...`: what a permissioned space's authority does
 * to it, with its own session on its own PDS (sync/space/space_admin.h; docs/SPACE-ADMIN.md).
 *
 * The space is named with --space (a key of the signed-in account's own spaces, or an at://
 * URI); without it, a clone of a permissioned space names its own (state config "space").
 * The acting session is --as, else the space's authority when the URI names it, else the only
 * one signed in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/atproto/syntax.h"
#include "core/util/mem.h"
#include "sync/identity/identity.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"
#include "sync/setting.h"
#include "sync/space/space_admin.h"
#include "sync/space/space_proto.h"

/* The state config key of a clone of a permissioned space: its at:// URI. */
#define CONFIG_SPACE "space"

enum { OPT_SPACE = 1, OPT_AS = 2, OPT_JSON = 4, OPT_READ_ONLY = 8, OPT_POLICIES = 16 };

typedef struct space_opts {
	const char *space;
	const char *as;
	const char *read_policy;
	const char *write_policy;
	bool json;
	bool read_only;
	const char *arg; /* the one positional argument: the key, or who */
} space_opts;

/* Options with a value: "--x v" or "--x=v"; *i moves past what was used. */
static const char *value_of(const char *name, int argc, char **argv, int *i)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

/* Parses argv[first..] by the options allowed; want_arg: one positional argument needed. */
static int parse(ss_ctx *ctx, int argc, char **argv, int first, int allowed, const char *want_arg,
                 space_opts *o)
{
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if ((allowed & OPT_SPACE) && (v = value_of("--space", argc, argv, &i)))
			o->space = v;
		else if ((allowed & OPT_AS) && (v = value_of("--as", argc, argv, &i)))
			o->as = v;
		else if ((allowed & OPT_POLICIES) &&
		         (v = value_of("--read-policy", argc, argv, &i)))
			o->read_policy = v;
		else if ((allowed & OPT_POLICIES) &&
		         (v = value_of("--write-policy", argc, argv, &i)))
			o->write_policy = v;
		else if ((allowed & OPT_JSON) && !strcmp(a, "--json"))
			o->json = true;
		else if ((allowed & OPT_READ_ONLY) && !strcmp(a, "--read-only"))
			o->read_only = true;
		else if (a[0] == '-' && a[1])
			return cli_usage_error(ctx, "unknown option '%s'", a);
		else if (!want_arg || o->arg)
			return cli_usage_error(ctx, "unexpected argument '%s'", a);
		else
			o->arg = a;
		if (v && !*v)
			return cli_usage_error(ctx, "'%s' needs a value", a);
	}
	if (want_arg && !o->arg)
		return cli_usage_error(ctx, "missing %s", want_arg);
	return 0;
}

/* The session to act with (x, info) and the space (ref), as the header says. */
typedef struct admin {
	ss_http *http;
	ss_xrpc *x;
	ss_session_info me;
	ss_space_admin_ref ref;
} admin;

static void admin_release(admin *a)
{
	ss_space_admin_ref_release(&a->ref);
	ss_session_info_release(&a->me);
	ss_xrpc_free(a->x);
	ss_http_free(a->http);
}

/* The space of the clone around the current directory (config "space"), into *out. */
static int space_of_clone(ss_ctx *ctx, char **out)
{
	int ret = cli_open_clone(ctx);

	if (ret < 0 && ctx->err.code == SS_ENOTFOUND)
		return ss_error_set(
		    &ctx->err, SS_EINVALID,
		    "which space? name it with --space <key-or-uri> (or run this in "
		    "a clone of it)");
	if (ret < 0)
		return ret;
	if (ss_state_config_get(ctx->state, CONFIG_SPACE, out, &ctx->err) < 0 &&
	    ctx->err.code != SS_ENOTFOUND)
		return -1;
	if (!*out)
		return ss_error_set(
		    &ctx->err, SS_EINVALID,
		    "this clone follows a public space, which has no member list to "
		    "manage: name a permissioned space with --space");
	return 0;
}

/* A URI that names its authority by handle gets its DID in its place. */
static int authority_did(admin *a, ss_error *err)
{
	char *did = NULL;
	ss_buf uri = SS_BUF_INIT;
	int ret;

	if (ss_syntax_is_did(a->ref.authority))
		return 0;
	if ((ret = ss_identity_resolve_handle(a->http, a->ref.authority, &did, err)) < 0)
		return ret;
	ss_buf_printf(&uri, "at://%s/space/%s/%s", did, a->ref.type, a->ref.skey);
	free(a->ref.authority);
	free(a->ref.uri);
	a->ref.authority = did;
	a->ref.uri = ss_buf_detach(&uri, NULL);
	return 0;
}

static int admin_open(ss_ctx *ctx, const space_opts *o, admin *a)
{
	char *from_clone = NULL; /* config_get leaves it NULL when the key is absent */
	const char *space = o->space;
	int ret;

	memset(a, 0, sizeof(*a));
	if (!space && (ret = space_of_clone(ctx, &from_clone)) < 0)
		return ret;
	if (!space)
		space = from_clone;
	if ((ret = ss_setting_http_new(&a->http, ctx->state, &ctx->err)) < 0)
		goto out;
	/* a URI: at://, or a newer alpha's spelling, which the parse refuses in one line */
	if (ss_space_proto_uri_form(space) != SS_SPACE_URI_OTHER) {
		if ((ret = ss_space_admin_ref_parse(space, NULL, &a->ref, &ctx->err)) < 0 ||
		    (ret = authority_did(a, &ctx->err)) < 0)
			goto out;
		ret = ss_session_open(a->http, o->as ? o->as : a->ref.authority, &a->x, &a->me,
		                      &ctx->err);
	} else if ((ret = ss_space_admin_check_skey(space, &ctx->err)) == 0 &&
	           (ret = ss_session_open(a->http, o->as, &a->x, &a->me, &ctx->err)) == 0) {
		ret = ss_space_admin_ref_parse(space, a->me.did, &a->ref, &ctx->err);
	}
out:
	free(from_clone);
	return ret;
}

static const char *label(const ss_session_info *me)
{
	return me->handle ? me->handle : me->did;
}

static int create(ss_ctx *ctx, const space_opts *o)
{
	ss_space_admin_policy read = SS_SPACE_POLICY_MEMBERS, write = SS_SPACE_POLICY_MEMBERS;
	ss_http *http = NULL;
	ss_xrpc *x = NULL;
	ss_session_info me = {0};
	ss_buf tmp = SS_BUF_INIT;
	char *uri = NULL;
	cli_json w;
	int ret = -1;

	/* Everything that can be refused here is, before a request. */
	if ((o->read_policy && ss_space_admin_policy_parse(o->read_policy, &read, &ctx->err) < 0) ||
	    (o->write_policy &&
	     ss_space_admin_policy_parse(o->write_policy, &write, &ctx->err) < 0) ||
	    ss_space_admin_check_skey(o->arg, &ctx->err) < 0)
		goto out;
	if (ss_setting_http_new(&http, NULL, &ctx->err) < 0 ||
	    ss_session_open(http, o->as, &x, &me, &ctx->err) < 0 ||
	    ss_space_admin_create(x, o->arg, read, write, &uri, &ctx->err) < 0)
		goto out;
	if (o->json) {
		cli_json_init(&w, stdout);
		cli_json_object(&w, NULL);
		cli_json_str(&w, "uri", uri);
		cli_json_str(&w, "readPolicy", ss_space_admin_policy_name(read));
		cli_json_str(&w, "writePolicy", ss_space_admin_policy_name(write));
		cli_json_finish(&w);
	} else {
		printf("Created %s (read: %s, write: %s) for ", cli_safe(&tmp, uri),
		       ss_space_admin_policy_name(read), ss_space_admin_policy_name(write));
		printf("%s\n", cli_safe(&tmp, label(&me)));
		printf("Add members: skillsync space members add <handle> --space %s\n", o->arg);
		printf("Clone it:    skillsync clone %s\n", cli_safe(&tmp, uri));
	}
	ret = 0;
out:
	free(uri);
	ss_buf_release(&tmp);
	ss_session_info_release(&me);
	ss_xrpc_free(x);
	ss_http_free(http);
	return ret < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

static const char *access_name(const ss_space_admin_member *m)
{
	if (m->read && m->write)
		return "read-write";
	if (m->read)
		return "read-only";
	return m->write ? "write-only" : "none";
}

static int list(ss_ctx *ctx, const space_opts *o)
{
	ss_space_admin_member *m = NULL;
	ss_buf tmp = SS_BUF_INIT;
	size_t n = 0;
	cli_json w;
	admin a;
	int ret = -1;

	if (admin_open(ctx, o, &a) < 0 ||
	    ss_space_admin_list_members(a.x, a.ref.uri, &m, &n, &ctx->err) < 0)
		goto out;
	cli_json_init(&w, stdout);
	if (o->json)
		cli_json_array(&w, NULL);
	for (size_t i = 0; i < n; i++) {
		ss_identity id = {0};
		ss_error ignored; /* a DID that does not resolve is shown without a handle */

		ss_identity_resolve(a.http, m[i].did, &id, &ignored);
		if (o->json) {
			cli_json_object(&w, NULL);
			cli_json_str(&w, "did", m[i].did);
			cli_json_str(&w, "handle", id.handle);
			cli_json_bool(&w, "read", m[i].read);
			cli_json_bool(&w, "write", m[i].write);
			cli_json_end(&w);
		} else {
			printf("%-10s %-30s ", access_name(&m[i]),
			       id.handle ? cli_safe(&tmp, id.handle) : "-");
			printf("%s\n", cli_safe(&tmp, m[i].did));
		}
		ss_identity_release(&id);
	}
	if (o->json)
		cli_json_finish(&w);
	else if (!n)
		printf("%s has no members yet (add one with 'skillsync space members add')\n",
		       cli_safe(&tmp, a.ref.uri));
	ret = 0;
out:
	ss_space_admin_members_free(m, n);
	ss_buf_release(&tmp);
	admin_release(&a);
	return ret < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

/* The member's row in the space's list (NULL: not in it). */
static const ss_space_admin_member *find(const ss_space_admin_member *m, size_t n, const char *did)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].did, did))
			return &m[i];
	return NULL;
}

static int change(ss_ctx *ctx, const space_opts *o, bool adding)
{
	ss_space_admin_member *m = NULL;
	const ss_space_admin_member *was;
	const char *name; /* who, as shown: the verified handle when known */
	ss_identity id = {0};
	ss_buf tmp = SS_BUF_INIT;
	size_t n = 0;
	admin a;
	int ret = -1;

	if (admin_open(ctx, o, &a) < 0)
		goto out;
	/* A DID to remove needs no resolving: its document may be gone. */
	if (!adding && ss_syntax_is_did(o->arg))
		id.did = ss_xstrdup(o->arg);
	else if (ss_identity_resolve(a.http, o->arg, &id, &ctx->err) < 0)
		goto out;
	if (ss_space_admin_list_members(a.x, a.ref.uri, &m, &n, &ctx->err) < 0)
		goto out;
	name = id.handle ? id.handle : o->arg;
	was = find(m, n, id.did);
	if (!adding && !was) {
		ss_error_set(&ctx->err, SS_ENOTFOUND, "'%s' is not a member of %s", o->arg,
		             a.ref.uri);
		goto out;
	}
	if (adding && was && was->read && was->write == !o->read_only) {
		printf("'%s' is already a member (%s): nothing changed\n", cli_safe(&tmp, name),
		       access_name(was));
		ret = 0;
		goto out;
	}
	if (adding &&
	    ss_space_admin_put_member(a.x, a.ref.uri, id.did, !o->read_only, &ctx->err) < 0)
		goto out;
	if (!adding && ss_space_admin_remove_member(a.x, a.ref.uri, id.did, &ctx->err) < 0)
		goto out;
	printf("%s '%s' (%s) ", adding ? (was ? "Changed" : "Added") : "Removed",
	       cli_safe(&tmp, name), id.did);
	if (adding)
		printf("%s %s: %s\n", was ? "in" : "to", a.ref.uri,
		       o->read_only ? "read-only" : "read-write");
	else
		printf("from %s; its records leave the members' views at their next pull\n",
		       a.ref.uri);
	ret = 0;
out:
	ss_space_admin_members_free(m, n);
	ss_identity_release(&id);
	ss_buf_release(&tmp);
	admin_release(&a);
	return ret < 0 ? cli_fail(&ctx->err) : SS_EXIT_OK;
}

static int cmd_space(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_space_def = {
    "space", cmd_space, "create a permissioned space, manage its members (its authority)",
    "usage: skillsync space create <key> [--read-policy members|public]\n"
    "                              [--write-policy members|public] [--as <h>] [--json]\n"
    "       skillsync space members [--space <key-or-uri>] [--as <h>] [--json]\n"
    "       skillsync space members add <handle-or-did> [--read-only] [--space <key-or-uri>]\n"
    "                                   [--as <h>]\n"
    "       skillsync space members remove <handle-or-did> [--space <key-or-uri>] [--as <h>]\n"
    "\n"
    "For the authority of a permissioned space (an engram memory space whose records only its\n"
    "members may read): talks to the authority's own PDS with its session. 'create' makes\n"
    "at://<your DID>/space/garden.engram.space/<key> and says how to clone it; 'members'\n"
    "lists who may read (and write) in it, 'add' lets one more account in (or changes its\n"
    "access), 'remove' takes one out. Members' records count as the space host lists them.\n"
    "\n"
    "    --space <s>          the space: a key of your own spaces, or its at:// URI (default:\n"
    "                         the space of the clone you are in)\n"
    "    --as <h>             the signed-in account that acts (default: the space's\n"
    "                         authority, else the only one signed in)\n"
    "    --read-policy <p>    who may read: 'members' (default) or 'public'\n"
    "    --write-policy <p>   who may write: 'members' (default) or 'public'\n"
    "    --read-only          the member may read, not write\n"
    "    --json               create: {uri, readPolicy, writePolicy}; members: an array of\n"
    "                         {did, handle, read, write}\n"};

static int cmd_space(ss_ctx *ctx, int argc, char **argv)
{
	space_opts o;
	int ret;

	memset(&o, 0, sizeof(o));
	if (argc < 2)
		return cli_usage_error(ctx, "missing 'create' or 'members'");
	if (!strcmp(argv[1], "create")) {
		ret = parse(ctx, argc, argv, 2, OPT_AS | OPT_JSON | OPT_POLICIES, "<key>", &o);
		return ret ? ret : create(ctx, &o);
	}
	if (strcmp(argv[1], "members"))
		return cli_usage_error(ctx, "unknown %s '%s'",
		                       argv[1][0] == '-' ? "option" : "subcommand", argv[1]);
	if (argc >= 3 && !strcmp(argv[2], "add")) {
		ret = parse(ctx, argc, argv, 3, OPT_SPACE | OPT_AS | OPT_READ_ONLY,
		            "<handle-or-did>", &o);
		return ret ? ret : change(ctx, &o, true);
	}
	if (argc >= 3 && !strcmp(argv[2], "remove")) {
		ret = parse(ctx, argc, argv, 3, OPT_SPACE | OPT_AS, "<handle-or-did>", &o);
		return ret ? ret : change(ctx, &o, false);
	}
	ret = parse(ctx, argc, argv, 2, OPT_SPACE | OPT_AS | OPT_JSON, NULL, &o);
	return ret ? ret : list(ctx, &o);
}
