#include "sync/clone.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diff/members.h"
#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/identity/idcache.h"
#include "sync/identity/identity.h"
#include "sync/identity/session.h"
#include "sync/setting.h"
#include "sync/space/space_admin.h"
#include "sync/space/space_proto.h"
#include "sync/transport/space.h"

/* Inside <dir>.skillsync-partial while a clone builds it (see clone.h). */
#define PARTIAL_MARKER ".git/skillsync/partial-clone"

/* The directory name git would pick: the authority's handle, or the DID's last part. */
static char *default_dir(const char *authority)
{
	const char *p = strrchr(authority, ':');

	return ss_xstrdup(p ? p + 1 : authority);
}

/* 1 when path exists and is a non-empty directory or not a directory; 0 when free. */
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

/* Step 2's start: removes the partial clone a killed run left; refuses one no clone made. */
static int clear_partial(const ss_clone_opts *o, const char *partial, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	ss_lock *lock = NULL;
	int ret = 0;

	if (access(partial, F_OK) < 0)
		return 0;
	ss_fs_join(&path, partial, PARTIAL_MARKER);
	if (access(path.ptr, F_OK) < 0) {
		ret = ss_error_set(err, SS_EEXISTS,
		                   "'%s' already exists and was not left by a clone: remove it or "
		                   "clone into another directory",
		                   partial);
		goto out;
	}
	/* another clone into the same directory may be building it now */
	ss_buf_clear(&path);
	ss_fs_join(&path, partial, ".git/skillsync/lock");
	if (access(path.ptr, F_OK) == 0 && (ret = ss_lock_take(&lock, path.ptr, err)) < 0)
		goto out;
	if (o->removing)
		o->removing(o->payload, partial);
	ret = ss_fs_remove_tree(partial, err);
out:
	ss_lock_free(lock);
	ss_buf_release(&path);
	return ret;
}

static void session_copy(ss_session_info *dst, const ss_session_info *src)
{
	dst->did = ss_xstrdup(src->did);
	dst->handle = src->handle ? ss_xstrdup(src->handle) : NULL;
	dst->pds = src->pds ? ss_xstrdup(src->pds) : NULL;
}

/* Step 3: me (zeroed: nobody, a read-only clone). */
static int pick_me(const char *as, ss_session_info *me, ss_error *err)
{
	ss_session_info *list = NULL;
	size_t n = 0;
	int ret = 0;

	memset(me, 0, sizeof(*me));
	if ((ret = ss_session_list(&list, &n, err)) < 0)
		return ret;
	if (as) {
		for (size_t i = 0; i < n && !me->did; i++)
			if (!strcmp(list[i].did, as) ||
			    (list[i].handle && !strcasecmp(list[i].handle, as)))
				session_copy(me, &list[i]);
		if (!me->did)
			ret = ss_error_set(err, SS_EAUTH,
			                   "'%s' is not signed in (run 'skillsync login %s')", as,
			                   as);
	} else if (n == 1) {
		session_copy(me, &list[0]);
	} else if (n > 1) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "%zu accounts are signed in: pick the one that is you with "
		                   "'--as <handle>'",
		                   n);
	}
	ss_session_list_free(list, n);
	return ret;
}

static int resolve(ss_http *http, const char *who, ss_identity *out, ss_error *err)
{
	int rc = ss_identity_resolve(http, who, out, err);

	return rc < 0 ? ss_error_prefix(err, "cannot resolve '%s'", who) : 0;
}

/* A resolved member kept in the state (see ss_clone_member_add). */
static int member_add_resolved(ss_state *st, ss_identity *id, ss_clone_named *out, ss_error *err)
{
	ss_state_member m = {id->did, id->handle, id->pds, NULL, NULL, SS_ROLE_MEMBER};
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ss_members_add(st, &m, &out->added, &out->role, err);
	if (ret == 0) {
		out->did = id->did;
		id->did = NULL;
	}
	return ret;
}

/* Step 4's names: the authority and me, then each name of opts->members. */
typedef struct names {
	size_t n, first; /* first: the index of opts->members[0] */
	const char **names;
	ss_identity *ids;
	int *rcs;
	ss_error *errs;
} names;

static void names_init(names *r, const ss_clone_opts *o, const char *me)
{
	r->n = 1 + (me ? 1 : 0) + o->nmembers;
	r->first = me ? 2 : 1;
	r->names = ss_xcalloc(r->n, sizeof(*r->names));
	r->ids = ss_xcalloc(r->n, sizeof(*r->ids));
	r->rcs = ss_xcalloc(r->n, sizeof(*r->rcs));
	r->errs = ss_xcalloc(r->n, sizeof(*r->errs));
	r->names[0] = o->authority;
	if (me)
		r->names[1] = me;
	for (size_t i = 0; i < o->nmembers; i++)
		r->names[r->first + i] = o->members[i];
}

static void names_release(names *r)
{
	for (size_t i = 0; i < r->n; i++)
		ss_identity_release(&r->ids[i]);
	free(r->names);
	free(r->ids);
	free(r->rcs);
	free(r->errs);
}

/* The first name that could not be resolved, in the order given, fails the clone. */
static int names_failed(const names *r, ss_error *err)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rcs[i] < 0) {
			*err = r->errs[i];
			return ss_error_prefix(err, "cannot resolve '%s'", r->names[i]);
		}
	return 0;
}

/* Step 4's members, resolved, into the state. */
static int add_members(const ss_clone_opts *o, ss_http *http, ss_state *st, names *r, ss_error *err)
{
	ss_state_member am, mm;
	ss_clone_named named = {NULL, false, SS_ROLE_MEMBER};
	ss_idcache *cache = NULL;
	bool me = r->first == 2;
	int ret;

	am = (ss_state_member){r->ids[0].did, r->ids[0].handle, r->ids[0].pds, NULL,
	                       NULL,          SS_ROLE_AUTHORITY};
	if (me)
		mm = (ss_state_member){r->ids[1].did, r->ids[1].handle, r->ids[1].pds, NULL,
		                       NULL,          SS_ROLE_ME};
	if ((ret = ss_members_init(st, &am, me ? &mm : NULL, err)) < 0)
		goto out;
	/* the documents just read give the keys: the sync does not read them again */
	cache = ss_idcache_new(http, st);
	for (size_t i = 0; i < r->n; i++)
		if (r->ids[i].doc)
			ss_idcache_keep_doc(cache, r->ids[i].did, r->ids[i].handle, r->ids[i].doc);
	for (size_t i = 0; i < o->nmembers; i++) {
		if ((ret = member_add_resolved(st, &r->ids[r->first + i], &named, err)) < 0)
			goto out;
		if (!named.added && o->kept)
			o->kept(o->payload, o->members[i], named.role);
		ss_clone_named_release(&named);
	}
out:
	ss_idcache_free(cache);
	ss_clone_named_release(&named);
	return ret;
}

/*
 * Step 4's local start, run on a thread of its own while the names resolve (a clone's first
 * ~30 ms went to each in turn): the repository at path, the partial marker, the lock (*lock,
 * also on failure), the state with its transaction begun.
 */
typedef struct local_start {
	const char *path;
	ss_lock **lock;
	ss_repo *repo;
	ss_state *st;
	int rc;
	ss_error err;
} local_start;

static void *local_start_run(void *arg)
{
	local_start *l = arg;
	ss_buf file = SS_BUF_INIT;
	ss_error *err = &l->err;

	ss_fs_join(&file, l->path, PARTIAL_MARKER);
	if ((l->rc = ss_repo_init(&l->repo, l->path, err)) < 0 ||
	    (l->rc = ss_fs_write_atomic(file.ptr, "", 0, 0600, err)) < 0)
		goto out;
	ss_buf_clear(&file);
	ss_fs_join(&file, ss_repo_statedir(l->repo), "lock");
	if ((l->rc = ss_lock_take(l->lock, file.ptr, err)) < 0 ||
	    (l->rc = ss_state_open(&l->st, ss_repo_gitdir(l->repo), err)) < 0)
		goto out;
	l->rc = ss_state_begin(l->st, err);
out:
	ss_buf_release(&file);
	return NULL;
}

/* Step 4 in the partial clone at path, holding its lock (*lock, also on failure: released
 * once the clone has its final name). */
static int build(const ss_clone_opts *o, const ss_space_admin_ref *su, const char *path,
                 ss_lock **lock, ss_clone_result *out, ss_error *err)
{
	char *space = NULL;
	ss_repo *repo = NULL;
	ss_state *st = NULL;
	ss_http *http = NULL;
	ss_space *sp = NULL;
	ss_session_info me = {0};
	ss_buf file = SS_BUF_INIT;
	ss_fetch_opts fo;
	ss_http_stats stats;
	ss_oid zero;
	local_start ls;
	names r;
	pthread_t thread;
	bool threaded;
	int ret;

	memset(&fo, 0, sizeof(fo));
	memset(&ls, 0, sizeof(ls));
	memset(&r, 0, sizeof(r));
	if (o->fetch)
		fo = *o->fetch;
	fo.subject = "clone";
	if ((ret = ss_setting_http_new(&http, NULL, err)) < 0 ||
	    (ret = pick_me(o->as, &me, err)) < 0)
		goto out;
	ls.path = path;
	ls.lock = lock;
	threaded = pthread_create(&thread, NULL, local_start_run, &ls) == 0;
	names_init(&r, o, me.did);
	/* every name at once: over a network, one round trip or two for all instead of each */
	ss_identity_resolve_many(http, r.names, r.n, r.ids, r.rcs, r.errs);
	if (threaded)
		pthread_join(thread, NULL);
	else
		local_start_run(&ls);
	repo = ls.repo;
	st = ls.st;
	if ((ret = ls.rc) < 0) {
		*err = ls.err;
		goto out;
	}
	if ((ret = names_failed(&r, err)) < 0 || (ret = add_members(o, http, st, &r, err)) < 0)
		goto out;
	if (su)
		space = ss_space_uri_format(ss_state_authority(st), su->type, su->skey);
	if ((ret = ss_state_config_set(st, "transport", su ? "space" : "public", err)) < 0 ||
	    (su && (ret = ss_state_config_set(st, "space", space, err)) < 0) ||
	    (ret = ss_state_commit(st, err)) < 0 ||
	    (ret = ss_space_open(&sp, http, st, false, err)) < 0 ||
	    (ret = ss_fetch_run(repo, st, sp, &fo, &out->fetch, err)) < 0)
		goto out;
	if (o->fetched) {
		ss_http_get_stats(http, &stats);
		o->fetched(o->payload, &stats);
	}
	ss_oid_clear(&zero);
	if ((ret = ss_commit_update_ref(repo, SS_REPO_MAIN_REF, &out->fetch.commit, &zero, "clone",
	                                err)) < 0 ||
	    (ret = ss_worktree_checkout_progress(repo, &out->fetch.commit, o->checkout, o->payload,
	                                         err)) < 0)
		goto out;
	ss_buf_clear(&file);
	ss_fs_join(&file, path, PARTIAL_MARKER);
	if (unlink(file.ptr) < 0)
		ret = ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", file.ptr,
		                   strerror(errno));
out:
	names_release(&r);
	free(space);
	ss_buf_release(&file);
	ss_space_free(sp);
	ss_state_free(st);
	ss_repo_free(repo);
	ss_http_free(http);
	ss_session_info_release(&me);
	return ret;
}

/* A space URI's parts, checked: engram's space type, no --member (the host names writers). */
static int space_of(const ss_clone_opts *o, ss_space_admin_ref *su, ss_error *err)
{
	int ret = ss_space_admin_ref_parse(o->authority, NULL, su, err);

	if (ret == 0 && strcmp(su->type, SS_SPACE_ADMIN_TYPE))
		ret = ss_error_set(
		    err, SS_EINVALID,
		    "'%s' is a space of type '%s': skillsync clones " SS_SPACE_ADMIN_TYPE
		    " spaces only",
		    o->authority, su->type);
	else if (ret == 0 && o->nmembers)
		ret = ss_error_set(err, SS_EINVALID,
		                   "a permissioned space names its writers itself: '--member' "
		                   "cannot be used with an at:// space URI");
	return ret;
}

/* Packs merged as after a pull (ss_repo_pack_auto: a 3x30,000 clone writes 74), once the clone
 * has its name and its lock is released; a failure leaves them as they were, and the clone
 * is no less done. */
static void pack_clone(const char *dir)
{
	ss_repo *repo = NULL;
	ss_error ignored;

	if (ss_repo_open(&repo, dir, &ignored) == 0)
		(void)ss_repo_pack_auto(repo, NULL, &ignored);
	ss_repo_free(repo);
}

int ss_clone_run(const ss_clone_opts *opts, ss_clone_result *out, ss_error *err)
{
	ss_buf partial = SS_BUF_INIT;
	ss_lock *lock = NULL;
	ss_space_admin_ref su = {NULL, NULL, NULL, NULL};
	ss_clone_opts so = *opts;
	const ss_clone_opts *o = &so;
	bool space = !strncmp(opts->authority, "at://", 5);
	int ret;

	memset(out, 0, sizeof(*out));
	if (ss_space_proto_uri_form(opts->authority) == SS_SPACE_URI_NEWER)
		return ss_space_proto_newer_uri(opts->authority, err);
	if (space) {
		if ((ret = space_of(opts, &su, err)) < 0)
			goto out;
		so.authority = su.authority;
	}
	out->dir = o->dir ? ss_xstrdup(o->dir) : default_dir(space ? su.skey : o->authority);
	ss_buf_printf(&partial, "%s.skillsync-partial", out->dir);
	if (occupied(out->dir)) {
		ret = ss_error_set(err, SS_EEXISTS,
		                   "destination path '%s' already exists and is not an empty "
		                   "directory",
		                   out->dir);
		goto out;
	}
	if ((ret = clear_partial(o, partial.ptr, err)) < 0)
		goto out;
	if (o->cloning)
		o->cloning(o->payload, out->dir);
	ret = build(o, space ? &su : NULL, partial.ptr, &lock, out, err);
	if (ret == 0 && access(out->dir, F_OK) == 0 && rmdir(out->dir) < 0)
		ret = ss_error_set(err, SS_ERROR, "cannot replace empty directory '%s': %s",
		                   out->dir, strerror(errno));
	if (ret == 0 && rename(partial.ptr, out->dir) < 0)
		ret = ss_error_set(err, SS_ERROR, "cannot rename '%s' to '%s': %s", partial.ptr,
		                   out->dir, strerror(errno));
	if (ret < 0 && access(partial.ptr, F_OK) == 0) /* not when it failed before making one */
		out->partial = ss_buf_detach(&partial, NULL);
out:
	ss_lock_free(lock);
	if (ret == 0)
		pack_clone(out->dir);
	ss_buf_release(&partial);
	ss_space_admin_ref_release(&su);
	return ret;
}

void ss_clone_result_release(ss_clone_result *r)
{
	if (!r)
		return;
	free(r->dir);
	free(r->partial);
	ss_fetch_result_release(&r->fetch);
	memset(r, 0, sizeof(*r));
}

int ss_clone_member_add(ss_state *st, ss_http *http, const char *who, ss_clone_named *out,
                        ss_error *err)
{
	ss_identity id = {0};
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = resolve(http, who, &id, err)) == 0)
		ret = member_add_resolved(st, &id, out, err);
	ss_identity_release(&id);
	return ret;
}

void ss_clone_named_release(ss_clone_named *n)
{
	if (!n)
		return;
	free(n->did);
	n->did = NULL;
}

int ss_clone_member_remove(ss_state *st, ss_http *http, const char *who, ss_error *err)
{
	ss_identity id = {0};
	char *did = NULL;
	int ret = ss_members_find(st, who, &did, err);

	if (ret < 0 && err->code != SS_ENOTFOUND)
		goto out;
	if (ret < 0 && strncmp(who, "did:", 4)) {
		if ((ret = resolve(http, who, &id, err)) < 0)
			goto out;
		did = ss_xstrdup(id.did);
	}
	ret = ss_members_remove(st, did ? did : who, who, err);
out:
	free(did);
	ss_identity_release(&id);
	return ret;
}
