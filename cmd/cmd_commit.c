/*
 * cmd_commit.c: `skillsync commit [-m <msg>]... [-F <file>] [<skill>...]`: validate the changed
 * skills with the rules of `validate`, stage them, commit on main (concluding a waiting merge).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/git/commit.h"
#include "core/git/worktree.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "core/util/mem.h"

/* A conflicted file is read this far when looking for markers. */
#define MARKER_SCAN_MAX (4 * 1024 * 1024)

typedef struct commit_args {
	const char **messages;
	size_t nmessages;
	const char *file;
	char **names;
	size_t nnames;
	size_t amessages, anames; /* allocated */
} commit_args;

static bool wanted(const commit_args *a, const char *name)
{
	if (!a->nnames)
		return true;
	for (size_t i = 0; i < a->nnames; i++)
		if (!strcmp(a->names[i], name))
			return true;
	return false;
}

static bool is_dir(const char *workdir, const char *name)
{
	ss_buf path = SS_BUF_INIT;
	bool dir;

	ss_fs_join(&path, workdir, name);
	dir = ss_fs_is_dir(path.ptr);
	ss_buf_release(&path);
	return dir;
}

/* One line per problem of the skill in <workdir>/<name>; returns the number of errors. */
static size_t check_skill(const char *workdir, const char *name)
{
	ss_report *r = ss_report_new();
	ss_skill *skill = NULL;
	ss_buf path = SS_BUF_INIT, line = SS_BUF_INIT;
	ss_error err;
	size_t errors;
	int rc;

	ss_error_clear(&err);
	ss_fs_join(&path, workdir, name);
	rc = ss_skilldir_read(path.ptr, &skill, r, &err);
	if (rc < 0 && err.code != SS_EINVALID)
		ss_report_error(r, name, NULL, "%s", err.message);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		const ss_report_item *it = ss_report_at(r, i);
		ss_buf_clear(&line);
		ss_report_format(it, &line);
		fprintf(stderr, "%s: %s\n", it->severity == SS_SEV_ERROR ? "error" : "warning",
		        line.ptr);
	}
	errors = ss_report_errors(r);
	ss_skill_free(skill);
	ss_report_free(r);
	ss_buf_release(&path);
	ss_buf_release(&line);
	return errors;
}

/* Conflict markers left in the changed files of a conflicted entry. */
static size_t check_markers(const char *workdir, const ss_status_entry *e)
{
	ss_buf path = SS_BUF_INIT, data = SS_BUF_INIT;
	size_t found = 0;

	for (size_t i = 0; i < e->npaths; i++) {
		const char *p, *end;
		ss_error err;

		ss_buf_clear(&path);
		ss_buf_clear(&data);
		ss_fs_join(&path, workdir, e->paths[i]);
		if (ss_fs_read_file(&data, path.ptr, MARKER_SCAN_MAX, &err) < 0)
			continue;
		for (p = data.ptr, end = data.ptr + data.len; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (n >= 8 && (!memcmp(p, "<<<<<<< ", 8) || !memcmp(p, ">>>>>>> ", 8))) {
				fprintf(stderr, "error: %s: still has conflict markers\n",
				        e->paths[i]);
				found++;
				break;
			}
			p = nl ? nl + 1 : end;
		}
	}
	ss_buf_release(&path);
	ss_buf_release(&data);
	return found;
}

static int parse(ss_ctx *ctx, int argc, char **argv, commit_args *a)
{
	bool dashdash = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!dashdash && (!strcmp(arg, "-m") || !strcmp(arg, "--message"))) {
			if (++i >= argc)
				return cli_usage_error(ctx, "'%s' needs a message", arg);
			ss_xgrow((void **)&a->messages, sizeof(*a->messages), a->nmessages + 1,
			         &a->amessages);
			a->messages[a->nmessages++] = argv[i];
		} else if (!dashdash && (!strcmp(arg, "-F") || !strcmp(arg, "--file"))) {
			if (++i >= argc)
				return cli_usage_error(ctx, "'%s' needs a file", arg);
			a->file = argv[i];
		} else if (!dashdash && !strcmp(arg, "--")) {
			dashdash = true;
		} else if (!dashdash && arg[0] == '-') {
			return cli_usage_error(ctx, "unknown option '%s'", arg);
		} else {
			ss_xgrow((void **)&a->names, sizeof(*a->names), a->nnames + 1, &a->anames);
			a->names[a->nnames++] = ss_xstrndup(arg, cli_path_len(arg));
		}
	}
	if (a->nmessages && a->file)
		return cli_usage_error(ctx, "-m and -F cannot be used together");
	return SS_EXIT_OK;
}

/* Checks the names given; the entries to commit go into *pick. Returns 0 or -1 (ctx->err). */
static int select_entries(ss_ctx *ctx, const commit_args *a, const ss_status *s, bool *pick,
                          size_t *npicked)
{
	*npicked = 0;
	for (size_t i = 0; i < a->nnames; i++) {
		bool known = false;
		for (size_t j = 0; j < s->count; j++)
			known = known || !strcmp(s->entries[j].name, a->names[i]);
		if (!known && !is_dir(ss_repo_workdir(ctx->repo), a->names[i]))
			return ss_error_set(&ctx->err, SS_ENOTFOUND, "'%s' did not match any skill",
			                    a->names[i]);
	}
	for (size_t j = 0; j < s->count; j++) {
		pick[j] = wanted(a, s->entries[j].name);
		if (pick[j]) {
			(*npicked)++;
		} else if (s->entries[j].staged) {
			return ss_error_set(
			    &ctx->err, SS_EINVALID,
			    "'%s' has staged changes that are not among the skills "
			    "named: commit them too (name no skill) or unstage them "
			    "first",
			    s->entries[j].name);
		}
	}
	return 0;
}

static int cmd_commit(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_commit_def = {
    "commit", cmd_commit, "record the changed skills on main",
    "usage: skillsync commit [-m <message>... | -F <file>] [--] [<skill>...]\n"
    "\n"
    "Checks every changed skill (or only the skills named) with the rules of 'validate',\n"
    "stages it and commits it on main. Any problem refuses the whole commit with one line\n"
    "per problem. Files outside skill directories (a README, .gitignore) may be committed\n"
    "but are never pushed. Without -m or -F, an editor opens ($GIT_EDITOR, $VISUAL,\n"
    "$EDITOR, else vi) when a terminal is attached; a waiting merge is concluded with its\n"
    "own message when none is given and there is no terminal.\n"
    "\n"
    "    -m, --message <msg>   the message (several -m make paragraphs)\n"
    "    -F, --file <file>     read the message from <file> (- for stdin); not with -m\n"};

static int cmd_commit(ss_ctx *ctx, int argc, char **argv)
{
	commit_args a;
	ss_status s;
	ss_lock *lock = NULL;
	ss_buf msg = SS_BUF_INIT, summary = SS_BUF_INIT;
	const char *workdir;
	const char **paths = NULL;
	bool *pick = NULL, merging;
	size_t npicked = 0, npaths = 0, apaths = 0, errors = 0, skills = 0;
	char hex[SS_OID_HEXSZ + 1];
	ss_oid oid;
	int ret;

	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	if ((ret = parse(ctx, argc, argv, &a)) != SS_EXIT_OK)
		goto out;
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    ss_worktree_status_flags(ctx->repo, NULL, 0, SS_STATUS_REFRESH, &s, &ctx->err) < 0)
		goto fail;
	workdir = ss_repo_workdir(ctx->repo);
	merging = s.merging;
	pick = ss_xcalloc(s.count + 1, sizeof(*pick));
	if (select_entries(ctx, &a, &s, pick, &npicked) < 0)
		goto fail;
	if (!npicked && !merging) {
		printf("nothing to commit, working tree clean\n");
		ret = SS_EXIT_ERROR;
		goto out;
	}
	for (size_t j = 0; j < s.count; j++) {
		const ss_status_entry *e = &s.entries[j];

		if (!pick[j])
			continue;
		/* staged as the status found them: no second walk of the working tree */
		ss_xgrow((void **)&paths, sizeof(*paths), npaths + e->npaths, &apaths);
		for (size_t i = 0; i < e->npaths; i++)
			paths[npaths++] = e->paths[i];
		if (e->conflicted)
			errors += check_markers(workdir, e);
		if (e->outside) {
			ss_buf_printf(&summary, "#   %s  (outside skills: never pushed)\n",
			              e->name);
			continue;
		}
		skills++;
		if (!is_dir(workdir, e->name)) {
			ss_buf_printf(&summary, "#   %s/  (deleted)\n", e->name);
			continue;
		}
		errors += check_skill(workdir, e->name);
		ss_buf_printf(&summary, "#   %s/\n", e->name);
	}
	if (errors) {
		fprintf(stderr, "skillsync: nothing committed: %zu problem%s to fix first\n",
		        errors, errors == 1 ? "" : "s");
		ret = SS_EXIT_ERROR;
		goto out;
	}
	{
		cli_commit_msg_opts mo = {a.messages, a.nmessages, a.file, summary.ptr};
		if (cli_commit_message(ctx, &mo, &msg) < 0)
			goto fail;
	}
	if (ss_commit_paths(ctx->repo, paths, npaths, msg.ptr, &oid, &ctx->err) < 0)
		goto fail;
	ss_oid_fmt(hex, &oid);
	printf("[main %.7s] %.*s\n", hex, (int)strcspn(msg.ptr, "\n"), msg.ptr);
	if (merging)
		printf(" concluded the merge\n");
	for (size_t j = 0; j < s.count; j++)
		if (pick[j] && s.entries[j].outside)
			printf(
			    " note: '%s' is outside skill directories: committed, never pushed\n",
			    s.entries[j].name);
	printf(" %zu skill%s changed\n", skills, skills == 1 ? "" : "s");
	ret = SS_EXIT_OK;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	for (size_t i = 0; i < a.nnames; i++)
		free(a.names[i]);
	free(a.names);
	free(a.messages);
	free(paths);
	free(pick);
	ss_worktree_status_release(&s);
	ss_lock_free(lock);
	ss_buf_release(&msg);
	ss_buf_release(&summary);
	return ret;
}
