/*
 * clone.c: `skillsync clone <authority> [<dir>] --member <h>... [--as <h>]`.
 *
 * The clone is built in <dir>.skillsync-partial and renamed to <dir> only when
 * complete, so an interrupted clone never leaves a directory that looks
 * finished; the next run removes the partial one (saying so) and starts again.
 * It removes only a directory it can prove a clone made: one holding PARTIAL_MARKER
 * (written first thing, removed before the rename); anything else there is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/buf.h"
#include "core/commit.h"
#include "core/fs.h"
#include "core/lock.h"
#include "core/mem.h"
#include "core/repo.h"
#include "core/state.h"
#include "core/worktree.h"
#include "sync/fetch.h"
#include "sync/http.h"
#include "sync/identity.h"
#include "sync/session.h"

/* Inside <dir>.skillsync-partial while a clone builds it. */
#define PARTIAL_MARKER ".git/skillsync/partial-clone"

typedef struct clone_opts {
	const char *authority;
	const char *dir;
	const char **members;
	size_t nmembers;
	const char *as;
} clone_opts;

static int parse(ss_ctx *ctx, int argc, char **argv, clone_opts *o)
{
	size_t alloc = 0;
	int positional = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--member") || !strcmp(a, "-m") || !strcmp(a, "--as")) {
			if (i + 1 >= argc)
				return cli_usage_error(ctx, "'%s' needs a handle or DID", a);
			if (!strcmp(a, "--as")) {
				o->as = argv[++i];
			} else {
				ss_xgrow((void **)&o->members, sizeof(*o->members), o->nmembers + 1,
				         &alloc);
				o->members[o->nmembers++] = argv[++i];
			}
		} else if (!strncmp(a, "--member=", 9)) {
			ss_xgrow((void **)&o->members, sizeof(*o->members), o->nmembers + 1,
			         &alloc);
			o->members[o->nmembers++] = a + 9;
		} else if (!strncmp(a, "--as=", 5)) {
			o->as = a + 5;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error(ctx, "unknown option '%s'", a);
		} else if (positional == 0) {
			o->authority = a;
			positional++;
		} else if (positional == 1) {
			o->dir = a;
			positional++;
		} else {
			return cli_usage_error(ctx, "too many arguments");
		}
	}
	if (!o->authority)
		return cli_usage_error(ctx, "missing the space's authority (a handle or DID)");
	return 0;
}

/* The directory name git would pick: the authority's handle, or the DID's last
 * part. */
static char *default_dir(const char *authority)
{
	const char *p = strrchr(authority, ':');

	return ss_xstrdup(p ? p + 1 : authority);
}

/* 1 when path exists and is a non-empty directory or not a directory; 0 when
 * free. */
static int occupied(const char *path)
{
	struct stat sb;
	DIR *d;
	struct dirent *e;
	int busy = 0;

	if (lstat(path, &sb) < 0)
		return 0;
	if (!S_ISDIR(sb.st_mode))
		return 1;
	d = opendir(path);
	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			busy = 1;
			break;
		}
	closedir(d);
	return busy;
}

/* The fetch callbacks' payload. */
typedef struct clone_out {
	bool progress; /* stderr is a terminal */
} clone_out;

static void report(void *payload, const char *did, const char *handle, const char *rkey,
                   const char *reason)
{
	clone_out *co = payload;

	if (co->progress)
		fputs("\r\033[K", stderr);
	cli_print_skip(did, handle, rkey, reason);
}

static void progress(void *payload, size_t records, size_t done, size_t members)
{
	clone_out *co = payload;

	if (!co->progress)
		return;
	fprintf(stderr, "\rReceiving skills: %zu records, %zu/%zu members", records, done, members);
}

/* Resolves who (handle or DID) to a member of role, remembered in the state. */
static int add_member(ss_http *http, ss_state *st, const char *who, ss_state_role role,
                      char **did_out, ss_error *err)
{
	ss_error ignored;
	ss_identity id = {NULL, NULL, NULL};
	ss_state_member m, old;
	int rc;

	if (ss_identity_resolve(http, who, &id, err) < 0)
		return ss_error_prefix(err, "cannot resolve '%s'", who);
	memset(&old, 0, sizeof(old));
	rc = ss_state_member_get(st, id.did, &old, &ignored); /* absent: a new member */
	/* The authority keeps its role; a member named twice stays a member. */
	if (rc == 0 && (old.role == SS_ROLE_AUTHORITY || role == SS_ROLE_ME))
		role = old.role;
	ss_state_member_release(&old);
	memset(&m, 0, sizeof(m));
	m.did = id.did;
	m.handle = id.handle;
	m.pds = id.pds;
	m.role = role;
	rc = ss_state_member_put(st, &m, err);
	if (rc == 0 && did_out)
		*did_out = ss_xstrdup(id.did);
	ss_identity_release(&id);
	return rc;
}

/* Picks me: --as, else the only signed-in account, else nobody (read-only). */
static int pick_me(const char *as, ss_session_info *me, ss_error *err)
{
	ss_session_info *list = NULL;
	size_t n = 0;
	int ret = 0;

	memset(me, 0, sizeof(*me));
	if (ss_session_list(&list, &n, err) < 0)
		return -1;
	if (as) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(list[i].did, as) ||
			    (list[i].handle && !strcasecmp(list[i].handle, as))) {
				me->did = ss_xstrdup(list[i].did);
				me->handle = list[i].handle ? ss_xstrdup(list[i].handle) : NULL;
				me->pds = list[i].pds ? ss_xstrdup(list[i].pds) : NULL;
			}
		if (!me->did)
			ret = ss_error_set(err, SS_EAUTH,
			                   "'%s' is not signed in (run 'skillsync login %s')", as,
			                   as);
	} else if (n == 1) {
		me->did = ss_xstrdup(list[0].did);
		me->handle = list[0].handle ? ss_xstrdup(list[0].handle) : NULL;
		me->pds = list[0].pds ? ss_xstrdup(list[0].pds) : NULL;
	} else if (n > 1) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "%zu accounts are signed in: pick the one that is you with "
		                   "'--as <handle>'",
		                   n);
	}
	ss_session_list_free(list, n);
	return ret;
}

/* Marks the new directory path as a clone's: only such a directory is removed by a later run. */
static int mark_partial(const char *path, ss_error *err)
{
	ss_buf p = SS_BUF_INIT;
	int ret;

	ss_buf_printf(&p, "%s/.git/skillsync", path);
	ret = ss_fs_mkdir_p(p.ptr, 0700, err);
	ss_buf_printf(&p, "/partial-clone");
	if (!ret)
		ret = ss_fs_write_atomic(p.ptr, "", 0, 0600, err);
	ss_buf_release(&p);
	return ret;
}

/* Builds the clone at path, holding its lock (*lock, also on failure: the caller releases it
 * once the clone has its final name). */
static int build(ss_ctx *ctx, const clone_opts *o, const char *path, ss_lock **lock,
                 ss_fetch_result *res, size_t *nskills, ss_error *err)
{
	ss_repo *repo = NULL;
	ss_state *st = NULL;
	ss_http *http = NULL;
	ss_space *sp = NULL;
	ss_session_info me;
	char *authority = NULL;
	ss_fetch_opts fo;
	clone_out co;
	ss_oid zero;
	ss_buf marker = SS_BUF_INIT;
	int ret = -1;

	memset(&me, 0, sizeof(me));
	if (ss_http_new(&http, NULL, err) < 0 || pick_me(o->as, &me, err) < 0)
		goto out;
	if (ss_repo_init(&repo, path, err) < 0 || mark_partial(path, err) < 0)
		goto out;
	{
		/* a new clone: nothing for ss_clone_recover to find */
		ss_buf lockpath = SS_BUF_INIT;

		ss_fs_join(&lockpath, ss_repo_statedir(repo), "lock");
		ret = cli_lock_path(ctx, lockpath.ptr, lock);
		ss_buf_release(&lockpath);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (ss_state_open(&st, ss_repo_gitdir(repo), err) < 0)
		goto out;
	if (ss_state_begin(st, err) < 0 ||
	    add_member(http, st, o->authority, SS_ROLE_AUTHORITY, &authority, err) < 0)
		goto out;
	for (size_t i = 0; i < o->nmembers; i++)
		if (add_member(http, st, o->members[i], SS_ROLE_MEMBER, NULL, err) < 0)
			goto out;
	if (me.did && add_member(http, st, me.did, SS_ROLE_ME, NULL, err) < 0)
		goto out;
	if (ss_state_set_authority(st, authority, err) < 0 ||
	    ss_state_set_me(st, me.did, err) < 0 ||
	    ss_state_config_set(st, "transport", "public", err) < 0 || ss_state_commit(st, err) < 0)
		goto out;
	if (ss_space_open(&sp, http, st, false, err) < 0)
		goto out;
	memset(&fo, 0, sizeof(fo));
	fo.report = report;
	fo.progress = progress;
	fo.subject = "clone";
	fo.payload = &co;
	co.progress = isatty(STDERR_FILENO);
	ret = ss_fetch_run(repo, st, sp, &fo, res, err);
	if (co.progress)
		fputs("\r\033[K", stderr);
	if (ret < 0)
		goto out;
	ret = -1;
	if (getenv("SKILLSYNC_STATS")) {
		/* For bench/: what the clone cost on the wire. */
		ss_http_stats hs;

		struct rusage ru;
		struct timespec now;

		ss_http_get_stats(http, &hs);
		getrusage(RUSAGE_SELF, &ru);
		clock_gettime(CLOCK_REALTIME, &now);
		fprintf(
		    stderr,
		    "stats: requests=%llu sent=%llu received=%llu peak_rss_before_checkout=%ldkB "
		    "epoch_before_checkout=%lld.%09ld\n",
		    (unsigned long long)hs.requests, (unsigned long long)hs.bytes_sent,
		    (unsigned long long)hs.bytes_received, ru.ru_maxrss, (long long)now.tv_sec,
		    now.tv_nsec);
	}
	ss_oid_clear(&zero);
	if (ss_commit_update_ref(repo, SS_REPO_MAIN_REF, &res->commit, &zero, "clone", err) < 0 ||
	    ss_worktree_checkout(repo, &res->commit, err) < 0)
		goto out;
	*nskills = res->added;
	ss_buf_printf(&marker, "%s/%s", path, PARTIAL_MARKER);
	if (unlink(marker.ptr) < 0) {
		ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", marker.ptr, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&marker);
	ss_space_free(sp);
	ss_state_free(st);
	ss_repo_free(repo);
	ss_http_free(http);
	ss_session_info_release(&me);
	free(authority);
	return ret;
}

static int cmd_clone(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_clone_def = {
    "clone", cmd_clone, "copy a memory space into a new git working tree",
    "usage: skillsync clone <authority> [<dir>] [--member <handle-or-did>]... [--as "
    "<handle-or-did>]\n"
    "\n"
    "Creates <dir> (default: the authority's handle) holding one directory per skill in the\n"
    "view: for each name, your own version, else the authority's, else the most recently\n"
    "updated one. The space is the authority's repo and the members' repos; records that fail\n"
    "validation are skipped with one warning each. The clone is an ordinary git repository;\n"
    "refs/remotes/space/main holds the view as fetched, and the local state lives in .git/.\n"
    "\n"
    "    -m, --member <h>   a member of the space (repeat for each; change later with\n"
    "                       'skillsync members add|remove')\n"
    "    --as <h>           the signed-in account that is you (default: the only one signed\n"
    "                       in; with none, a read-only clone with no \"mine\")\n"};

static int cmd_clone(ss_ctx *ctx, int argc, char **argv)
{
	clone_opts o;
	char *dir = NULL;
	ss_buf partial = SS_BUF_INIT, lockpath = SS_BUF_INIT;
	ss_lock *lock = NULL;
	ss_fetch_result res;
	size_t nskills = 0;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse(ctx, argc, argv, &o);
	if (ret)
		goto out;
	dir = o.dir ? ss_xstrdup(o.dir) : default_dir(o.authority);
	dir[cli_path_len(dir)] = '\0';
	ss_buf_printf(&partial, "%s.skillsync-partial", dir);
	if (occupied(dir)) {
		ss_error_set(&ctx->err, SS_EEXISTS,
		             "destination path '%s' already exists and is not an empty directory",
		             dir);
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (access(partial.ptr, F_OK) == 0) {
		/* left by a killed clone, or another clone into dir is building it now */
		ss_buf_printf(&lockpath, "%s/%s", partial.ptr, PARTIAL_MARKER);
		if (access(lockpath.ptr, F_OK) < 0) {
			ss_error_set(
			    &ctx->err, SS_EEXISTS,
			    "'%s' already exists and was not left by a clone: remove it or "
			    "clone into another directory",
			    partial.ptr);
			ret = cli_fail(&ctx->err);
			goto out;
		}
		ss_buf_clear(&lockpath);
		ss_buf_printf(&lockpath, "%s/.git/skillsync/lock", partial.ptr);
		if (access(lockpath.ptr, F_OK) == 0 &&
		    cli_lock_path(ctx, lockpath.ptr, &lock) < 0) {
			ret = cli_fail(&ctx->err);
			goto out;
		}
		fprintf(stderr, "Removing '%s' left by an interrupted clone\n", partial.ptr);
		if (ss_fs_remove_tree(partial.ptr, &ctx->err) < 0) {
			ret = cli_fail(&ctx->err);
			goto out;
		}
		ss_lock_free(lock);
		lock = NULL;
	}
	fprintf(stderr, "Cloning into '%s'...\n", dir);
	if (build(ctx, &o, partial.ptr, &lock, &res, &nskills, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		if (access(partial.ptr, F_OK) == 0) /* not when it failed before making one */
			fprintf(stderr,
			        "skillsync: the partial clone stays in '%s'; run the same clone "
			        "again to start over\n",
			        partial.ptr);
		goto out;
	}
	if (access(dir, F_OK) == 0 && rmdir(dir) < 0) {
		ss_error_set(&ctx->err, SS_ERROR, "cannot replace empty directory '%s': %s", dir,
		             strerror(errno));
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (rename(partial.ptr, dir) < 0) {
		ss_error_set(&ctx->err, SS_ERROR, "cannot rename '%s' to '%s': %s", partial.ptr,
		             dir, strerror(errno));
		ret = cli_fail(&ctx->err);
		goto out;
	}
	printf("Cloned %zu skill%s from %zu member%s", nskills, nskills == 1 ? "" : "s", res.listed,
	       res.listed == 1 ? "" : "s");
	if (res.skipped)
		printf(" (%zu invalid record%s skipped)", res.skipped, res.skipped == 1 ? "" : "s");
	printf(".\n");
	ret = SS_EXIT_OK;
out:
	free(o.members);
	free(dir);
	ss_lock_free(lock);
	ss_buf_release(&partial);
	ss_buf_release(&lockpath);
	return ret;
}
