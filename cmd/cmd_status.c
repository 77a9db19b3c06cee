/*
 * cmd_status.c: `skillsync status [--json]`: changed, new and deleted skills (staged and not),
 * what a push would send and the commits not yet pushed, whether main has not merged the
 * space's view yet, invalid skills, and what deleting a skill will do in the space.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/status_print.h"
#include "core/diff/outgoing.h"
#include "core/diff/provenance.h"
#include "core/git/commit.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/state/state_hold.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "sync/push.h"

/* Whether an interrupted pull was writing some path below the top-level name: its files
 * may be half updated, so the skill is not checked until the pull is finished. */
static bool pull_writes(const cli_status_run *r, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < r->s.napart; i++)
		if (!strncmp(r->s.apart[i], name, len) &&
		    (r->s.apart[i][len] == '/' || r->s.apart[i][len] == '\0'))
			return true;
	return false;
}

/* Problems of the changed skills in the working tree, as `commit` would find them (but
 * those an interrupted pull was writing). */
static void check_invalid(cli_status_run *r)
{
	const char *workdir = ss_repo_workdir(r->ctx->repo);
	ss_buf path = SS_BUF_INIT, line = SS_BUF_INIT;

	for (size_t i = 0; i < r->s.count; i++) {
		const ss_status_entry *e = &r->s.entries[i];
		ss_report *rep;
		ss_skill *skill = NULL;
		ss_error err;

		if (e->outside || pull_writes(r, e->name))
			continue;
		ss_buf_clear(&path);
		ss_fs_join(&path, workdir, e->name);
		if (!ss_fs_is_dir(path.ptr))
			continue;
		rep = ss_report_new();
		if (ss_skilldir_read(path.ptr, &skill, rep, &err) < 0 && !ss_report_errors(rep))
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
static int deletion_notice(cli_status_run *r, const char *name)
{
	const char *me = ss_state_me(r->ctx->state), *next = NULL;
	ss_provenance p;
	bool mine = false;

	if (ss_provenance_load(r->ctx->state, name, &p, &r->ctx->err) < 0)
		return -1;
	for (size_t i = 0; i < p.nvalid; i++) {
		if (me && !strcmp(p.versions[i].did, me))
			mine = true;
		else if (!next)
			next = p.versions[i].did;
	}
	if (next) {
		cli_notice_format(&r->notices, mine ? SS_PLAN_NEXT_APPLIES : SS_PLAN_NOT_MINE, name,
		                  cli_who(&r->members, next));
		ss_buf_putc(&r->notices, '\n');
	}
	ss_provenance_release(&p);
	return 0;
}

/* Leaves out of r->ahead the commits the last push sent (reachable from config "pushed"). */
static int drop_pushed(cli_status_run *r, const ss_oid *tracking)
{
	ss_error ignored;
	ss_commit_list sent = {0};
	char *hex = NULL;
	ss_oid pushed;
	size_t keep = 0;

	if (ss_state_config_get(r->ctx->state, "pushed", &hex, &ignored) < 0)
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

/*
 * r->behind: the tracking commits main has not merged, leaving out those a waiting merge
 * brings in (its MERGE_HEAD is the tracking commit a pull merged: then none; a fetch since
 * then may have added more).
 */
static int count_behind(cli_status_run *r, const ss_oid *head, const ss_oid *tracking)
{
	ss_error ignored;
	ss_commit_list behind = {0}, merged = {0};
	ss_oid merging;
	int ret = -1;

	if (ss_commit_log(r->ctx->repo, head, tracking, NULL, 0, &behind, &r->ctx->err) < 0)
		goto out;
	r->behind = behind.count;
	if (!r->s.merging || !behind.count ||
	    ss_commit_read_ref(r->ctx->repo, "MERGE_HEAD", &merging, &ignored) < 0) {
		ret = 0;
		goto out;
	}
	if (ss_commit_log(r->ctx->repo, head, &merging, NULL, 0, &merged, &r->ctx->err) < 0)
		goto out;
	for (size_t i = 0; i < behind.count; i++)
		for (size_t j = 0; j < merged.count; j++)
			if (ss_oid_equal(&behind.items[i].oid, &merged.items[j].oid)) {
				r->behind--;
				break;
			}
	ret = 0;
out:
	ss_commit_list_release(&behind);
	ss_commit_list_release(&merged);
	return ret;
}

static int collect_pin(const char *name, void *payload)
{
	cli_status_run *r = payload;

	ss_xgrow((void **)&r->pinned, sizeof(*r->pinned), r->npinned + 1, &r->pinned_alloc);
	r->pinned[r->npinned++] = ss_xstrdup(name);
	return 0;
}

static int load(cli_status_run *r)
{
	ss_oid tracking, head;
	bool have_head;
	int rc, ret = -1;

	if (cli_status_refresh(r->ctx, (const char *const *)r->pull, r->npull, &r->s) < 0)
		return -1;
	/* Every read of the state below in one read transaction (per changed skill: its
	 * versions, holds and notices): none of them waits or writes. */
	if (ss_state_read_begin(r->ctx->state, &r->ctx->err) < 0)
		return -1;
	if (cli_members_load(r->ctx, &r->members) < 0)
		goto out;
	ss_state_tracking(r->ctx->state, &tracking);
	rc = ss_commit_read_ref(r->ctx->repo, "HEAD", &head, &r->ctx->err);
	if (rc < 0 && r->ctx->err.code != SS_ENOTFOUND)
		goto out;
	have_head = rc == 0;
	if (have_head && !ss_oid_is_zero(&tracking)) {
		ss_push_plan pv;

		if (count_behind(r, &head, &tracking) < 0 ||
		    ss_commit_log(r->ctx->repo, &tracking, &head, NULL, 0, &r->ahead,
		                  &r->ctx->err) < 0)
			goto out;
		if (drop_pushed(r, &tracking) < 0)
			goto out;
		/* SS_ECONFLICT: main has not merged the view; r->behind says to pull */
		rc = ss_push_preview(r->ctx->repo, r->ctx->state, ss_time_now() / 1000,
		                     SS_OUTGOING_CHECK, &pv, &r->ctx->err);
		r->out = pv.outgoing;
		pv.outgoing = NULL;
		ss_push_plan_release(&pv);
		if (rc < 0 && r->ctx->err.code != SS_ECONFLICT)
			goto out;
	}
	if (r->out) {
		const ss_plan *plan = ss_outgoing_plan(r->out);
		for (size_t i = 0; i < ss_plan_notice_count(plan); i++) {
			const ss_plan_notice *n = ss_plan_notice_get(plan, i);
			cli_notice_format(&r->notices, n->kind, n->name, n->who);
			ss_buf_putc(&r->notices, '\n');
		}
	}
	for (size_t i = 0; i < r->s.count; i++) {
		const ss_status_entry *e = &r->s.entries[i];
		if (!e->outside &&
		    (e->staged == SS_STATUS_DELETED || e->unstaged == SS_STATUS_DELETED) &&
		    deletion_notice(r, e->name) < 0)
			goto out;
	}
	if (ss_state_hold_waiting(r->ctx->state, &r->waiting, &r->ctx->err) < 0 ||
	    ss_state_pin_each(r->ctx->state, collect_pin, r, &r->ctx->err) < 0)
		goto out;
	ret = 0;
out:
	ss_state_read_end(r->ctx->state);
	if (ret == 0) {
		for (size_t i = 0; i < r->s.count; i++)
			r->nconflicts += r->s.entries[i].nconflicts;
		check_invalid(r); /* the files: no state read */
	}
	return ret;
}

/*
 * Whether a pull was killed midway through its merge (the journal is there): the paths that
 * hold its own content (half updated) are set apart from the person's edits, which are listed
 * as usual, as git lists them during an interrupted merge. The journal also exists while a
 * running pull writes the files: then wait for it, as a locked command would, and look again.
 * When the person changed a file the merge writes (or put a symbolic link on its way), say
 * which: that is what the next pull will stop at.
 */
static int check_interrupted(cli_status_run *r)
{
	ss_buf path = SS_BUF_INIT;
	ss_lock *lock = NULL;
	int ret;

	r->interrupted = false;
	if (!ss_merge_interrupted(r->ctx->repo))
		return 0;
	ss_fs_join(&path, ss_repo_statedir(r->ctx->repo), "lock");
	ret = ss_lock_take(&lock, path.ptr, &r->ctx->err);
	ss_buf_release(&path);
	if (ret < 0)
		return ret;
	r->interrupted = ss_merge_interrupted(r->ctx->repo);
	ss_lock_free(lock);
	if (r->interrupted) {
		ss_error why;

		memset(&why, 0, sizeof(why));
		if (ss_merge_recover_check(r->ctx->repo, &why) < 0)
			ss_buf_puts(&r->blocked, why.message);
		return ss_merge_interrupted_paths(r->ctx->repo, &r->pull, &r->npull, &r->ctx->err);
	}
	return 0;
}

static int cmd_status(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_status_def = {
    "status", cmd_status, "show changed skills, conflicts and what push would send",
    "usage: skillsync status [--json] [--color[=<when>]]\n"
    "\n"
    "Where main stands against the space: the commits not yet pushed and what 'push' would\n"
    "send, the space's changes fetched but not merged yet ('skillsync pull'), a merge that\n"
    "waits to be concluded. Then the changed, new and deleted skills, staged and not staged,\n"
    "the conflicted files of a waiting merge and what each side did (fix them, then\n"
    "'skillsync commit'), what deleting a skill does in the space, and the problems of\n"
    "changed skills that 'commit' would refuse, and every problem of the committed skills\n"
    "'push' would refuse (it checks them as push does). Files outside skill directories are\n"
    "marked:\n"
    "they are never pushed. After a pull killed while it updated the files, status says so\n"
    "('skillsync pull' finishes it) and lists the files it was writing apart from your\n"
    "changes: those are the pull's, half written, not your edits.\n"
    "\n"
    "    --color[=<when>]  colour the names: always, never or auto (the default: on a\n"
    "              terminal, unless $NO_COLOR is set; docs/CONFIG.md)\n"
    "    --json    print one JSON object: interrupted, merging, changes, unmerged, toPush,\n"
    "              unpushedCommits, behind, waiting, pinned, notices, invalid, refused;\n"
    "              when interrupted is true,\n"
    "              also blocked (the change of yours the pull will stop at, or null) and\n"
    "              pullPaths (the files the pull was writing, not in changes)\n"};

static int cmd_status(ss_ctx *ctx, int argc, char **argv)
{
	cli_status_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	ss_buf_init(&r.notices);
	ss_buf_init(&r.invalid);
	ss_buf_init(&r.blocked);
	if ((ret = cli_color_json_only(ctx, argc, argv, &r.json)) != SS_EXIT_OK)
		return ret;
	if (cli_open_clone(ctx) < 0 || cli_color_init(ctx) < 0 || check_interrupted(&r) < 0 ||
	    load(&r) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (r.json)
		cli_status_print_json(&r);
	else
		cli_status_print_text(&r);
	if (!r.json)
		cli_link_status(ctx, stdout);
	ret = SS_EXIT_OK;
out:
	ss_worktree_status_release(&r.s);
	ss_merge_paths_free(r.pull, r.npull);
	ss_outgoing_free(r.out);
	ss_commit_list_release(&r.ahead);
	ss_buf_release(&r.notices);
	ss_buf_release(&r.invalid);
	ss_buf_release(&r.blocked);
	cli_members_release(&r.members);
	for (size_t i = 0; i < r.npinned; i++)
		free(r.pinned[i]);
	free(r.pinned);
	return ret;
}
