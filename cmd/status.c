/*
 * status.c: `skillsync status [--json]`: changed, new and deleted skills (staged and not),
 * what a push would send and the commits not yet pushed, whether main has not merged the
 * space's view yet, invalid skills, and what deleting a skill will do in the space.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/commit.h"
#include "core/fs.h"
#include "core/mem.h"
#include "core/note.h"
#include "core/outgoing.h"
#include "core/provenance.h"
#include "core/report.h"
#include "core/skill.h"
#include "core/skilldir.h"
#include "core/worktree.h"
#include "sync/push.h"

typedef struct status_run {
	ss_ctx *ctx;
	bool json;
	ss_status s;
	ss_outgoing *out;     /* what push would send; NULL before the first commit */
	ss_commit_list ahead; /* commits not yet pushed (merges left out when printing) */
	size_t behind;        /* tracking commits main has not merged */
	ss_buf notices;       /* one line each */
	ss_buf invalid;       /* one line per problem */
	size_t ninvalid;
	cmd_member_list members;
	char *me, *authority;
} status_run;

static const char *kind_name(ss_status_kind k)
{
	switch (k) {
	case SS_STATUS_NEW:
		return "new";
	case SS_STATUS_MODIFIED:
		return "modified";
	case SS_STATUS_DELETED:
		return "deleted";
	default:
		return "";
	}
}

static bool outside(const ss_status_entry *e)
{
	return e->outside || e->name[0] == '.';
}

static void print_side(const ss_status *s, bool staged)
{
	bool header = false;

	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];
		ss_status_kind k = staged ? e->staged : e->unstaged;

		if (!k)
			continue;
		if (!header) {
			printf("%s\n", staged ? "Changes staged for commit:"
			                      : "Changes not staged for commit:");
			header = true;
		}
		printf("  %-9s %s%s%s%s\n", kind_name(k), e->name, e->outside ? "" : "/",
		       outside(e) ? "  (outside skills: never pushed)" : "",
		       e->conflicted ? "  (conflict)" : "");
	}
	if (header)
		putchar('\n');
}

/* Problems of the changed skills in the working tree, as `commit` would find them. */
static void check_invalid(status_run *r)
{
	const char *workdir = ss_repo_workdir(r->ctx->repo);
	ss_buf path = SS_BUF_INIT, line = SS_BUF_INIT;

	for (size_t i = 0; i < r->s.count; i++) {
		const ss_status_entry *e = &r->s.entries[i];
		ss_report *rep;
		ss_skill *skill = NULL;
		struct stat sb;
		ss_error err;

		if (outside(e))
			continue;
		ss_buf_clear(&path);
		ss_fs_join(&path, workdir, e->name);
		if (lstat(path.ptr, &sb) < 0 || !S_ISDIR(sb.st_mode))
			continue;
		rep = ss_report_new();
		if (ss_skill_read_dir(path.ptr, &skill, rep, &err) < 0 && !ss_report_errors(rep))
			ss_report_error(rep, e->name, NULL, "%s", err.message);
		for (size_t j = 0; j < ss_report_count(rep); j++) {
			const ss_report_item *it = ss_report_at(rep, j);
			if (it->severity != SS_SEV_ERROR)
				continue;
			ss_buf_clear(&line);
			ss_report_format(it, &line);
			ss_buf_printf(&r->invalid, "%s\n", line.ptr);
		}
		r->ninvalid += ss_report_errors(rep) ? 1 : 0;
		ss_skill_free(skill);
		ss_report_free(rep);
	}
	ss_buf_release(&path);
	ss_buf_release(&line);
}

/* A skill deleted in the working tree: what deleting it will do in the space. */
static int deletion_notice(status_run *r, const char *name)
{
	ss_provenance p;
	const char *next = NULL;
	bool mine = false;

	if (ss_provenance_load(r->ctx->state, name, r->me, r->authority, &p, &r->ctx->err) < 0)
		return -1;
	for (size_t i = 0; i < p.nvalid; i++) {
		if (r->me && !strcmp(p.versions[i].did, r->me))
			mine = true;
		else if (!next)
			next = p.versions[i].did;
	}
	if (mine && next)
		ss_buf_printf(&r->notices, "'%s': deleting your version; %s's version will apply\n",
		              name, cmd_who(&r->members, next));
	else if (!mine && next)
		ss_buf_printf(&r->notices,
		              "'%s': deleted here, but it is %s's skill and you have no version of "
		              "it: nothing will be sent, it stays in the space\n",
		              name, cmd_who(&r->members, next));
	ss_provenance_release(&p);
	return 0;
}

/* Leaves out of r->ahead the commits the last push sent (reachable from config "pushed"). */
static int drop_pushed(status_run *r, const ss_oid *tracking)
{
	ss_commit_list sent = {0};
	char *hex = NULL;
	ss_oid pushed;
	size_t keep = 0;

	if (ss_state_config_get(r->ctx->state, "pushed", &hex, NULL) < 0)
		return 0;
	if (ss_oid_parse(&pushed, hex, &r->ctx->err) < 0 ||
	    ss_commit_log(r->ctx->repo, tracking, &pushed, NULL, 0, &sent, &r->ctx->err) < 0) {
		free(hex);
		return -1;
	}
	free(hex);
	for (size_t i = 0; i < r->ahead.count; i++) {
		bool was_sent = false;
		for (size_t j = 0; j < sent.count && !was_sent; j++)
			was_sent = ss_oid_equal(&sent.items[j].oid, &r->ahead.items[i].oid);
		if (was_sent) {
			ss_commit_info *c = &r->ahead.items[i];
			free(c->subject);
			free(c->message);
			free(c->author_name);
			free(c->author_email);
			continue;
		}
		r->ahead.items[keep++] = r->ahead.items[i];
	}
	r->ahead.count = keep;
	ss_commit_list_release(&sent);
	return 0;
}

static int load(status_run *r)
{
	char *tracking_hex = NULL;
	ss_oid tracking, head;
	bool have_head;
	int rc, ret = -1;

	if (ss_worktree_status(r->ctx->repo, &r->s, &r->ctx->err) < 0 ||
	    cmd_members_load(r->ctx, &r->members) < 0)
		return -1;
	ss_state_config_get(r->ctx->state, "me", &r->me, NULL);
	ss_state_config_get(r->ctx->state, "authority", &r->authority, NULL);
	ss_oid_clear(&tracking);
	if (ss_state_config_get(r->ctx->state, "tracking", &tracking_hex, NULL) == 0 &&
	    ss_oid_parse(&tracking, tracking_hex, &r->ctx->err) < 0)
		goto out;
	rc = ss_commit_read_ref(r->ctx->repo, "HEAD", &head, &r->ctx->err);
	if (rc < 0 && rc != SS_ENOTFOUND)
		goto out;
	have_head = rc == 0;
	if (have_head && !ss_oid_is_zero(&tracking)) {
		ss_commit_list behind = {0};
		bool in;

		if (ss_commit_log(r->ctx->repo, &head, &tracking, NULL, 0, &behind, &r->ctx->err) <
		    0)
			goto out;
		r->behind = behind.count;
		ss_commit_list_release(&behind);
		if (ss_push_contains(r->ctx->repo, &head, &tracking, &in, &r->ctx->err) < 0 ||
		    ss_commit_log(r->ctx->repo, &tracking, &head, NULL, 0, &r->ahead,
		                  &r->ctx->err) < 0)
			goto out;
		if (drop_pushed(r, &tracking) < 0)
			goto out;
		/* against a view main has not merged, a plan would undo the others' changes */
		if (in && ss_outgoing_new(&r->out, r->ctx->repo, r->ctx->state, r->me, &tracking,
		                          &head, ss_note_time_now_ms(), 0, &r->ctx->err) < 0)
			goto out;
	}
	if (r->out) {
		const ss_plan *plan = ss_outgoing_plan(r->out);
		for (size_t i = 0; i < ss_plan_notice_count(plan); i++) {
			const ss_plan_notice *n = ss_plan_notice_get(plan, i);
			if (n->kind == SS_PLAN_NEXT_APPLIES)
				ss_buf_printf(
				    &r->notices,
				    "'%s': deleting your version; %s's version will apply\n",
				    n->name, n->who);
			else
				ss_buf_printf(
				    &r->notices,
				    "'%s': deleted here, but it is %s's skill and you have "
				    "no version of it: nothing will be sent, it stays in the "
				    "space\n",
				    n->name, n->who ? n->who : "someone else");
		}
	}
	for (size_t i = 0; i < r->s.count; i++) {
		const ss_status_entry *e = &r->s.entries[i];
		if (!outside(e) &&
		    (e->staged == SS_STATUS_DELETED || e->unstaged == SS_STATUS_DELETED) &&
		    deletion_notice(r, e->name) < 0)
			goto out;
	}
	check_invalid(r);
	ret = 0;
out:
	free(tracking_hex);
	return ret;
}

static size_t count_ahead(const status_run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ahead.count; i++)
		n += r->ahead.items[i].nparents <= 1;
	return n;
}

static void print_lines_json(const char *lines)
{
	const char *p = lines;
	bool first = true;

	putchar('[');
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *one = ss_xmalloc(n + 1);
		memcpy(one, p, n);
		one[n] = '\0';
		printf("%s", first ? "" : ",");
		cmd_print_json_string(one);
		free(one);
		first = false;
		p += n + (nl ? 1 : 0);
	}
	putchar(']');
}

static void print_json(const status_run *r)
{
	char hex[SS_OID_HEXSZ + 1];
	bool first = true;

	printf("{\"branch\":\"main\",\"merging\":%s,\"changes\":[",
	       r->s.merging ? "true" : "false");
	for (size_t i = 0; i < r->s.count; i++) {
		const ss_status_entry *e = &r->s.entries[i];
		printf("%s{\"name\":", i ? "," : "");
		cmd_print_json_string(e->name);
		printf(",\"outside\":%s,\"staged\":\"%s\",\"unstaged\":\"%s\",\"conflicted\":%s}",
		       outside(e) ? "true" : "false", kind_name(e->staged), kind_name(e->unstaged),
		       e->conflicted ? "true" : "false");
	}
	printf("],\"toPush\":[");
	for (size_t i = 0; r->out && i < ss_outgoing_count(r->out); i++) {
		const ss_plan_write *w = ss_outgoing_get(r->out, i)->write;
		printf("%s{\"op\":\"%s\",\"name\":", i ? "," : "", ss_plan_op_name(w->op));
		cmd_print_json_string(w->name);
		putchar('}');
	}
	printf("],\"unpushedCommits\":[");
	for (size_t i = 0; i < r->ahead.count; i++) {
		const ss_commit_info *c = &r->ahead.items[i];
		if (c->nparents > 1)
			continue;
		ss_oid_fmt(hex, &c->oid);
		printf("%s{\"id\":\"%s\",\"subject\":", first ? "" : ",", hex);
		cmd_print_json_string(c->subject);
		putchar('}');
		first = false;
	}
	printf("],\"behind\":%zu,\"notices\":", r->behind);
	print_lines_json(r->notices.ptr);
	printf(",\"invalid\":");
	print_lines_json(r->invalid.ptr);
	printf("}\n");
}

static void print_text(const status_run *r)
{
	size_t npush = r->out ? ss_outgoing_count(r->out) : 0, nahead = count_ahead(r);
	char hex[SS_OID_HEXSZ + 1];

	printf("On branch main\n");
	if (npush) {
		printf("Your branch has %zu commit%s not yet pushed; push would send:", nahead,
		       nahead == 1 ? "" : "s");
		for (size_t i = 0; i < npush; i++) {
			const ss_plan_write *w = ss_outgoing_get(r->out, i)->write;
			printf("%s %s %s", i ? "," : "", ss_plan_op_name(w->op), w->name);
		}
		printf("\n");
		for (size_t i = 0; i < r->ahead.count; i++) {
			const ss_commit_info *c = &r->ahead.items[i];
			if (c->nparents > 1)
				continue;
			ss_oid_fmt(hex, &c->oid);
			printf("  %.7s %s\n", hex, c->subject);
		}
	}
	if (r->behind)
		printf("The space's view has %zu change%s not merged into main: run 'skillsync "
		       "pull'\n",
		       r->behind, r->behind == 1 ? "" : "s");
	if (!npush && !r->behind)
		printf("Your branch is up to date with the space.\n");
	if (r->s.merging)
		printf("A merge waits to be concluded with 'skillsync commit'.\n");
	if (r->notices.len)
		printf("%s", r->notices.ptr);
	if (!r->s.count) {
		printf("nothing to commit, working tree clean\n");
	} else {
		putchar('\n');
		print_side(&r->s, true);
		print_side(&r->s, false);
	}
	if (r->ninvalid)
		printf("Invalid skill%s ('skillsync commit' refuses %s):\n%s",
		       r->ninvalid == 1 ? "" : "s", r->ninvalid == 1 ? "it" : "them",
		       r->invalid.ptr);
}

int cmd_status(ss_ctx *ctx, int argc, char **argv)
{
	status_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	ss_buf_init(&r.notices);
	ss_buf_init(&r.invalid);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			r.json = true;
		else
			return cmd_usage_error(ctx, "unknown argument '%s'", argv[i]);
	}
	if (load(&r) < 0) {
		ret = cmd_fail(&ctx->err);
		goto out;
	}
	if (r.json)
		print_json(&r);
	else
		print_text(&r);
	ret = SS_EXIT_OK;
out:
	ss_status_release(&r.s);
	ss_outgoing_free(r.out);
	ss_commit_list_release(&r.ahead);
	ss_buf_release(&r.notices);
	ss_buf_release(&r.invalid);
	cmd_members_release(&r.members);
	free(r.me);
	free(r.authority);
	return ret;
}
