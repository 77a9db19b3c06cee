/*
 * cmd_verify.c: `skillsync verify [--json]`: every version in the clone checked again against
 * its member's signed commit (sync/public/verify.h): the commit the state holds for the member,
 * signed by the member's #atproto key, and each record's CID in its tree. Offline when the
 * node cache holds the trees; otherwise their blocks are asked of the members' PDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/mem.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/public/verify.h"
#include "sync/setting.h"

typedef struct check {
	const ss_state_member *m;
	const cli_member_list *members;
	ss_verify_tree *tree; /* NULL: the member's tree could not be read */
	cli_json *json;       /* NULL: text */
	size_t versions, problems;
	ss_buf text;
} check;

static void problem(check *c, const char *rkey, const char *why)
{
	ss_buf a = SS_BUF_INIT;

	c->problems++;
	if (c->json) {
		cli_json_object(c->json, NULL);
		cli_json_str(c->json, "did", c->m->did);
		cli_json_str(c->json, "rkey", rkey);
		cli_json_str(c->json, "problem", why);
		cli_json_end(c->json);
	} else {
		printf("FAIL '%s' of '%s': %s\n", cli_safe(&a, rkey),
		       cli_safe(&c->text, cli_who(c->members, c->m->did)), why);
	}
	ss_buf_release(&a);
}

static int on_record(const ss_state_record *r, void *payload)
{
	check *c = payload;
	ss_verify_entry *e;

	if (strcmp(r->did, c->m->did) || !r->valid)
		return 0;
	c->versions++;
	if (!(e = ss_verify_tree_find(c->tree, r->rkey)))
		problem(c, r->rkey, "the member's signed tree holds no such record");
	else if (strcmp(e->cid, r->cid))
		problem(c, r->rkey, "the clone's version is not the one the signed tree names");
	return 0;
}

static int cmd_verify(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_verify_def = {
    "verify", cmd_verify, "check every version in the clone against its member's signed commit",
    "usage: skillsync verify [--json]\n"
    "\n"
    "For each member, the commit the clone last fetched is checked again: its signature by\n"
    "the member's #atproto key (from its DID document), its tree, and every version the clone\n"
    "holds of that member's records must be the one the tree names. Offline when the clone's\n"
    "cache holds the trees. Prints one line per member (\"signed by <did> at rev <rev>\") and\n"
    "one per problem; exits 1 when anything failed (4: a server could not be reached).\n"
    "\n"
    "    --json    print one JSON object: members (did, handle, commit, rev, versions,\n"
    "              error), problems (did, rkey, problem), ok\n"};

/* What verify found for one member. */
typedef struct result {
	const ss_state_member *m;
	char *rev; /* the verified revision; NULL when not verified */
	size_t versions;
	size_t problems;
	char *error; /* why the member's commit or tree failed; NULL when none */
} result;

/* Checks member m (its versions' problems are printed as found). */
static int check_member(ss_ctx *ctx, ss_http *http, ss_idcache *ids, const char *dir,
                        const cli_member_list *ml, const ss_state_member *m, cli_json *json,
                        size_t *problems, result *res, int *worst)
{
	ss_verify_member vm = {NULL, m->did, cli_who(ml, m->did), dir, NULL, 0, NULL, NULL,
	                       ids,  NULL};
	ss_verify_tree tree;
	ss_xrpc *x = NULL;
	ss_error why;
	check c;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(&tree, 0, sizeof(tree));
	ss_error_clear(&why);
	res->m = m;
	if (!m->commit)
		return 0; /* never fetched: nothing to check */
	if ((rc = ss_xrpc_new(&x, http, m->pds ? m->pds : "", &why)) == 0) {
		vm.client = x;
		rc = ss_verify_tree_fetch(&vm, m->commit, &tree, &why);
	}
	if (rc < 0) {
		res->error = ss_xstrdup(why.message);
		if (*worst != SS_EXIT_NETWORK)
			*worst = why.code == SS_ENETWORK ? SS_EXIT_NETWORK : SS_EXIT_ERROR;
		ss_xrpc_free(x);
		return 0;
	}
	c.m = m;
	c.members = ml;
	c.tree = &tree;
	c.json = json;
	c.problems = *problems;
	ss_buf_init(&c.text);
	rc = ss_state_records_each(ctx->state, NULL, on_record, &c, &ctx->err);
	res->versions = c.versions;
	res->problems = c.problems - *problems;
	res->rev = ss_xstrdup(tree.rev);
	*problems = c.problems;
	if (res->problems && !*worst)
		*worst = SS_EXIT_ERROR;
	ss_buf_release(&c.text);
	ss_verify_tree_release(&tree);
	ss_xrpc_free(x);
	return rc;
}

static void print_results(const cli_member_list *ml, const result *res, size_t n, cli_json *json,
                          int worst)
{
	ss_buf a = SS_BUF_INIT, b = SS_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const result *r = &res[i];

		if (json) {
			cli_json_object(json, NULL);
			cli_json_str(json, "did", r->m->did);
			cli_json_str(json, "handle", r->m->handle);
			cli_json_str(json, "commit", r->m->commit);
			cli_json_str(json, "rev", r->rev);
			cli_json_int(json, "versions", r->versions);
			cli_json_str(json, "error", r->error);
			cli_json_end(json);
		} else if (r->error) {
			printf("FAIL '%s': %s\n", cli_safe(&a, cli_who(ml, r->m->did)),
			       cli_safe(&b, r->error));
		} else if (!r->m->commit) {
			printf("--   '%s': never fetched\n", cli_safe(&a, cli_who(ml, r->m->did)));
		} else {
			printf("%s '%s': %zu versions, signed by %s at rev %s\n",
			       r->problems ? "FAIL" : "ok  ", cli_safe(&a, cli_who(ml, r->m->did)),
			       r->versions, cli_safe(&b, r->m->did), r->rev);
		}
	}
	if (json) {
		cli_json_end(json);
		cli_json_bool(json, "ok", !worst);
		cli_json_finish(json);
	}
	ss_buf_release(&a);
	ss_buf_release(&b);
}

static int cmd_verify(ss_ctx *ctx, int argc, char **argv)
{
	cli_member_list members;
	ss_http *http = NULL;
	ss_idcache *ids = NULL;
	ss_buf dir = SS_BUF_INIT;
	result *res = NULL;
	size_t problems = 0;
	bool want_json = false;
	cli_json jw, *json = NULL;
	int worst = 0, ret;

	if ((ret = cli_json_only(ctx, argc, argv, &want_json)) != 0)
		return ret;
	if (cli_open_clone(ctx) < 0 || cli_members_load(ctx, &members) < 0)
		return cli_fail(&ctx->err);
	if (ss_setting_http_new(&http, NULL, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	ss_verify_cache_dir(&dir, ss_state_path(ctx->state));
	ids = ss_idcache_new(http, ctx->state);
	res = ss_xcalloc(members.n ? members.n : 1, sizeof(*res));
	if (want_json) {
		json = &jw;
		cli_json_init(json, stdout);
		cli_json_object(json, NULL);
		cli_json_array(json, "problems");
	}
	for (size_t i = 0; i < members.n; i++)
		if (check_member(ctx, http, ids, dir.ptr, &members, &members.list[i], json,
		                 &problems, &res[i], &worst) < 0) {
			if (json)
				cli_json_finish(json);
			ret = cli_fail(&ctx->err);
			goto out;
		}
	if (json) {
		cli_json_end(json);
		cli_json_array(json, "members");
	}
	print_results(&members, res, members.n, json, worst);
	ret = worst;
out:
	for (size_t i = 0; res && i < members.n; i++) {
		free(res[i].rev);
		free(res[i].error);
	}
	free(res);
	ss_buf_release(&dir);
	ss_idcache_free(ids);
	ss_http_free(http);
	cli_members_release(&members);
	return ret;
}
