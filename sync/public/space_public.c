/* space_public.c: the public-repos transport (see sync/public/space_public.h). */
#include "sync/public/space_public.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/skill/record.h"
#include "core/state/state_floor.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "sync/identity/idcache.h"
#include "sync/net/xrpc_blob.h"
#include "sync/net/xrpc_repo.h"
#include "sync/net/xrpc_sync.h"
#include "sync/public/verify.h"
#include "sync/transport/space_impl.h"

typedef struct pub_member {
	char *did;
	char *handle;
	char *pds;
	ss_xrpc *client; /* unauthenticated, on the member's PDS */
	char *head;      /* the commit heads() saw last; NULL: not asked yet */
	/* its collections (describeRepo), when described: asked with its head when no signed tree
	 * of it is kept (its listing, if any, is then the full one, which needs them: list_whole),
	 * else by that listing, and dropped once it used them */
	ss_xrpc_repo_info info;
	bool described;
} pub_member;

typedef struct pub_space {
	ss_space base;
	ss_http *http;
	ss_xrpc *mine;
	pub_member *members;
	size_t nmembers;
	char *cache_dir; /* the verified trees (sync/public/verify.h); NULL: none */
	ss_idcache *ids; /* the members' keys (sync/identity/idcache.h) */
	ss_state *st; /* the members' verified revisions (core/state/state_floor.h); NULL: none */
} pub_space;

static pub_member *find_member(pub_space *ps, const char *did)
{
	for (size_t i = 0; i < ps->nmembers; i++)
		if (!strcmp(ps->members[i].did, did))
			return &ps->members[i];
	return NULL;
}

static const char *who(const pub_member *m)
{
	return m->handle ? m->handle : m->did;
}

/*
 * A head that failed as if the member's repo had moved (its PDS unreachable, or not holding
 * the repo): its DID document is read again (once per run, sync/identity/idcache.h), and
 * when it names another PDS the member's client goes there and the head is asked once more.
 */
static void moved(pub_space *ps, pub_member *m, ss_xrpc_head_job *job)
{
	char *pds = ss_idcache_moved_pds(ps->ids, m->did, m->pds, job->err.code);
	ss_xrpc *client = NULL;
	ss_error ignored;

	if (pds && ss_xrpc_new(&client, ps->http, pds, &ignored) == 0) {
		ss_xrpc_free(m->client);
		m->client = client;
		free(m->pds);
		m->pds = pds;
		pds = NULL;
		ss_xrpc_commit_release(&job->commit);
		job->rc = ss_xrpc_get_latest_commit(m->client, m->did, &job->commit, &job->err);
	}
	free(pds);
}

/* Whether the member's signed tree is kept (sync/public/verify.h): then a listing of it is
 * incremental. */
static bool tree_kept(const pub_space *ps, const pub_member *m)
{
	ss_buf path = SS_BUF_INIT;
	bool kept;

	ss_verify_cache_path(&path, ps->cache_dir, m->did, "car");
	kept = access(path.ptr, F_OK) == 0;
	ss_buf_release(&path);
	return kept;
}

static void forget_info(pub_member *m)
{
	if (m->described)
		ss_xrpc_repo_info_release(&m->info);
	m->described = false;
}

/* The collections that came back kept on their members; a description that failed is none. */
static void keep_info(pub_space *ps, ss_xrpc_describe_job *dj, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pub_member *m = find_member(ps, dj[i].did);

		if (dj[i].rc < 0)
			continue;
		forget_info(m);
		m->info = dj[i].info;
		m->described = true;
	}
}

/*
 * One getLatestCommit per member, all in flight at once (bounded) over the shared connections,
 * and in the same batch a describeRepo for each member whose signed tree is not kept (a clone:
 * every member), which its full listing asks first: one round trip less before the first
 * getRepo.
 */
static int pub_heads(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	ss_xrpc_head_job *jobs = ss_xcalloc(ps->nmembers ? ps->nmembers : 1, sizeof(*jobs));
	ss_xrpc_describe_job *dj = ss_xcalloc(ps->nmembers ? ps->nmembers : 1, sizeof(*dj));
	ss_space_head *heads;
	size_t nd = 0;

	for (size_t i = 0; i < ps->nmembers; i++) {
		pub_member *m = &ps->members[i];

		jobs[i].client = m->client;
		jobs[i].did = m->did;
		forget_info(m);
		if (ps->cache_dir && !tree_kept(ps, m))
			dj[nd++] = (ss_xrpc_describe_job){.client = m->client, .did = m->did};
	}
	/* Each job ends with its own rc and err: the members that failed are named below. */
	if (ps->nmembers)
		ss_xrpc_heads_describe_many(jobs, ps->nmembers, dj, nd, 0, err);
	keep_info(ps, dj, nd);
	free(dj);
	heads = ss_xcalloc(ps->nmembers ? ps->nmembers : 1, sizeof(*heads));
	for (size_t i = 0; i < ps->nmembers; i++) {
		pub_member *m = &ps->members[i];

		if (jobs[i].rc < 0) {
			forget_info(m); /* its PDS may have moved: the listing asks again */
			moved(ps, m, &jobs[i]);
		}
		heads[i].pds = ss_xstrdup(m->pds);

		heads[i].did = ss_xstrdup(m->did);
		heads[i].handle = m->handle ? ss_xstrdup(m->handle) : NULL;
		free(m->head);
		m->head = jobs[i].commit.cid ? ss_xstrdup(jobs[i].commit.cid) : NULL;
		heads[i].commit = jobs[i].commit.cid;
		heads[i].rev = jobs[i].commit.rev;
		jobs[i].commit.cid = jobs[i].commit.rev = NULL;
		if (jobs[i].rc < 0) {
			heads[i].rc = jobs[i].rc;
			ss_error_prefix(&jobs[i].err, "cannot read the head of '%s'", who(m));
			heads[i].error = ss_xstrdup(jobs[i].err.message);
		}
	}
	*out = heads;
	*n = ps->nmembers;
	free(jobs);
	return 0;
}

/* One wanted member's listing: where its records go, and the signed tree they must match. */
struct list_job {
	const ss_space_listener *l;
	pub_member *m;
	const char *since;     /* the state's revision: the incremental way is tried */
	ss_xrpc_repo_job repo; /* getRepo?since */
	bool full;             /* takes the full way */
	bool whole;            /* ... and took it from the whole repo (getRepo): done */
	bool failed;           /* reported failed (l->failed) or fails the listing */
	ss_error why;          /* ... why */
	ss_verify_tree tree;   /* the full way: the signed tree */
	bool refused;          /* a record of the listing was refused: no node cache kept */
	bool unverified;       /* no_verify(): listed as the PDS says (test builds only) */
	char *fallback;        /* why the incremental way was not taken (sync/public/verify.h) */
	ss_state_floor floor;  /* the member's highest verified revision */
};

static ss_verify_member verify_member(pub_space *ps, struct list_job *job)
{
	ss_verify_member vm = {job->m->client, job->m->did,  who(job->m),    ps->cache_dir,
	                       job->since,     job->repo.rc, &job->repo.err, &job->repo.car,
	                       ps->ids,        &job->floor};
	return vm;
}

/* A commit of job's member verified: its floor rises to it (core/state/state_floor.h). */
static int raise_floor(pub_space *ps, struct list_job *job, const char *rev, const char *commit,
                       ss_error *err)
{
	if (!ps->st || job->unverified || !rev)
		return 0;
	return ss_state_floor_raise(ps->st, job->m->did, rev, commit, err);
}

static int sink_record(void *payload, const char *rkey, const char *cid, const unsigned char *block,
                       size_t len, const char *problem, ss_error *err)
{
	struct list_job *job = payload;
	ss_space_record r = {job->m->did, rkey, cid, NULL, 0, problem, block, len, problem != NULL};

	return job->l->record(job->l->payload, &r, err);
}

static int sink_deleted(void *payload, const char *rkey, ss_error *err)
{
	struct list_job *job = payload;

	return job->l->deleted(job->l->payload, job->m->did, rkey, err);
}

/* A listed record, checked against the member's signed tree before the listener sees it. */
static int on_record(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	struct list_job *job = payload;
	ss_space_record r = {job->m->did,    rec->rkey,    rec->cid, rec->value_json,
	                     rec->value_len, rec->problem, NULL,     0,
	                     false};
	ss_buf why = SS_BUF_INIT;
	const char *refused;
	int ret;

	if (!rec->rkey || !rec->cid) {
		/* nothing to keep it by: said (rkey NULL), never stored */
		ss_buf_printf(&why, "the listed entry '%s' has no %s", rec->uri ? rec->uri : "",
		              rec->rkey ? "CID" : "record key in its uri");
		r.rkey = NULL;
		r.value_json = NULL;
		r.problem = why.ptr;
		r.refused = !job->unverified;
	} else if (!job->unverified &&
	           (refused = ss_verify_listed(&job->tree, rec->rkey, rec->cid, rec->value_json,
	                                       rec->value_len))) {
		ss_buf_printf(&why, "not the signed version (rev %s): %s", job->tree.rev, refused);
		/* kept by no CID: the signed version is taken whenever it comes */
		r.cid = "";
		r.value_json = NULL;
		r.problem = why.ptr;
		r.refused = true;
		job->refused = true;
	}
	ret = job->l->record(job->l->payload, &r, err);
	ss_buf_release(&why);
	return ret;
}

/* The records of the signed tree the listing left out: refused (the last good stays). */
static int left_out(struct list_job *job, ss_error *err)
{
	for (size_t i = 0; i < job->tree.n; i++) {
		ss_verify_entry *e = &job->tree.entries[i];
		ss_space_record r = {job->m->did,
		                     e->rkey,
		                     "",
		                     NULL,
		                     0,
		                     "the listing left it out, though the member's signed tree "
		                     "holds it",
		                     NULL,
		                     0,
		                     true};

		if (e->seen)
			continue;
		job->refused = true;
		if (job->l->record(job->l->payload, &r, err) < 0)
			return -1;
	}
	return 0;
}

/* The member's head: the one heads() saw, else asked now. */
static int head_commit(pub_member *m, char **out, ss_error *err)
{
	ss_xrpc_commit c = {0};

	if (m->head) {
		*out = ss_xstrdup(m->head);
		return 0;
	}
	if (ss_xrpc_get_latest_commit(m->client, m->did, &c, err) < 0)
		return -1;
	*out = c.cid;
	c.cid = NULL;
	ss_xrpc_commit_release(&c);
	return 0;
}

/* The incremental way for the jobs that can take it; the others are marked full. */
static int list_since(pub_space *ps, struct list_job *jobs, size_t n, ss_error *err)
{
	ss_xrpc_repo_job *rj = ss_xcalloc(n ? n : 1, sizeof(*rj));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (jobs[i].since)
			rj[k++] = (ss_xrpc_repo_job){.client = jobs[i].m->client,
			                             .did = jobs[i].m->did,
			                             .since = jobs[i].since};
		else
			jobs[i].full = true;
	if (k)
		ss_xrpc_get_repo_many(rj, k, 0, err);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		struct list_job *job = &jobs[i];
		ss_verify_sink sink = {sink_record, sink_deleted, job};
		ss_verify_member vm;
		ss_verify_outcome o;
		int rc;

		if (!job->since)
			continue;
		job->repo = rj[k++];
		vm = verify_member(ps, job);
		ss_error_clear(&job->why);
		rc = ss_verify_member_sync(&vm, &sink, &o, &job->why);
		ss_buf_release(&job->repo.car);
		if (rc == 1) {
			job->full = true;
			job->fallback = o.fallback;
			o.fallback = NULL;
		} else if (rc < 0) {
			job->failed = true;
		} else {
			ss_space_read how = {false, "since", true, NULL, o.caught};

			/* A refused record: the next sync is a full one, which asks for it again.
			 */
			if (o.refused)
				ss_verify_forget(ps->cache_dir, job->m->did);
			if (raise_floor(ps, job, o.rev, o.commit, err) < 0 ||
			    (job->l->done &&
			     job->l->done(job->l->payload, job->m->did, &how, err) < 0) ||
			    (o.refused && job->l->incomplete &&
			     job->l->incomplete(job->l->payload, job->m->did, err) < 0))
				rc = -2;
		}
		ss_verify_outcome_release(&o);
		if (rc == -2) {
			free(rj);
			return -1;
		}
	}
	free(rj);
	return 0;
}

/* Whether a repo holds skills and nothing else (its describeRepo answer, kept on m): then the whole
 * repo is no bigger than its skills, and getRepo is the cheap way to read them all. */
static bool skills_only(const pub_member *m)
{
	if (!m->described || !m->info.collections)
		return false;
	for (size_t i = 0; m->info.collections[i]; i++)
		if (strcmp(m->info.collections[i], SS_RECORD_TYPE))
			return false;
	return true;
}

/* A file for a whole repo's CAR, in the clone's cache directory, unlinked at once; -1: none. */
static int spool_file(const char *dir)
{
	ss_buf path = SS_BUF_INIT;
	ss_error ignored;
	int fd = -1;

	if (ss_fs_mkdir_p(dir, 0700, &ignored) == 0) {
		ss_buf_printf(&path, "%s/getrepo-XXXXXX", dir);
		fd = mkstemp(path.ptr);
		if (fd >= 0)
			(void)unlink(path.ptr);
	}
	ss_buf_release(&path);
	return fd;
}

/*
 * The full way from the whole repo (getRepo, each CAR to a file, each read as it arrives) for the
 * members whose repo holds only skills (docs/CLONE.md): one request each instead of the pages and
 * the tree. A member it cannot serve (its repo holds more, the request failed) goes the pages way.
 */
static int list_whole(pub_space *ps, struct list_job *jobs, size_t n, ss_error *err)
{
	ss_xrpc_describe_job *dj = ss_xcalloc(n ? n : 1, sizeof(*dj));
	ss_xrpc_repo_job *rj = ss_xcalloc(n ? n : 1, sizeof(*rj));
	struct list_job **of = ss_xcalloc(n ? n : 1, sizeof(*of));
	ss_xrpc_repo_stream *stream = NULL;
	size_t k = 0, nd = 0, na = 0;
	ss_error ignored;
	int ret = 0;

	/* the collections heads() read are taken; the others are asked now, all at once */
	for (size_t i = 0; i < n; i++) {
		struct list_job *job = &jobs[i];

		if (!job->full || job->failed || job->unverified || !ps->cache_dir)
			continue;
		if (!job->m->described)
			dj[na++] =
			    (ss_xrpc_describe_job){.client = job->m->client, .did = job->m->did};
		of[nd++] = job;
	}
	/* a repo whose collections cannot be read is listed */
	if (na)
		(void)ss_xrpc_describe_repo_many(dj, na, 0, &ignored);
	keep_info(ps, dj, na);
	free(dj);
	for (size_t i = 0; i < nd; i++) {
		pub_member *m = of[i]->m;
		int fd;

		if (skills_only(m) && (fd = spool_file(ps->cache_dir)) >= 0) {
			rj[k] = (ss_xrpc_repo_job){.client = m->client, .did = m->did, .fd = fd};
			of[k++] = of[i];
		}
		forget_info(m);
	}
	/* each repo read as soon as it has arrived, while the others are on their way */
	if (k && ss_xrpc_get_repo_stream(rj, k, &stream, err) < 0)
		ret = -1;
	for (long i; ret == 0 && stream && (i = ss_xrpc_repo_stream_next(stream)) >= 0;) {
		struct list_job *job = of[i];
		ss_verify_sink sink = {sink_record, sink_deleted, job};
		ss_verify_member vm = verify_member(ps, job);
		ss_space_read how = {true, "repo", true, job->fallback, NULL};
		ss_verify_outcome o;

		if (rj[i].rc < 0) {
			if (!job->fallback)
				job->fallback = ss_xstrdup(rj[i].err.message);
			continue;
		}
		ss_error_clear(&job->why);
		if (ss_verify_member_full(&vm, rj[i].fd, rj[i].car_len, &sink, &o, &job->why) < 0) {
			job->failed = true;
		} else {
			job->whole = true;
			how.caught = o.caught;
			/* A refused record is kept at its last good version; the next sync is a
			 * full one, so that it converges once the PDS serves the signed version. */
			if (o.refused)
				ss_verify_forget(ps->cache_dir, job->m->did);
			if (raise_floor(ps, job, o.rev, o.commit, err) < 0 ||
			    (job->l->done &&
			     job->l->done(job->l->payload, job->m->did, &how, err) < 0))
				ret = -1;
			else if (o.refused && job->l->incomplete &&
			         job->l->incomplete(job->l->payload, job->m->did, err) < 0)
				ret = -1;
		}
		ss_verify_outcome_release(&o);
	}
	ss_xrpc_repo_stream_free(stream);
	for (size_t i = 0; i < k; i++) {
		close(rj[i].fd);
		ss_buf_release(&rj[i].car);
	}
	free(rj);
	free(of);
	return ret;
}

/* The full way: the members' signed trees (all at once), then every listing at once, each
 * record checked. */
static int list_full(pub_space *ps, struct list_job *jobs, size_t n, ss_error *err)
{
	ss_xrpc_list_job *lj = ss_xcalloc(n ? n : 1, sizeof(*lj));
	struct list_job **of = ss_xcalloc(n ? n : 1, sizeof(*of));
	struct list_job **tj = ss_xcalloc(n ? n : 1, sizeof(*tj));
	ss_verify_member *vms = ss_xcalloc(n ? n : 1, sizeof(*vms));
	char **commits = ss_xcalloc(n ? n : 1, sizeof(*commits));
	ss_verify_tree *trees = ss_xcalloc(n ? n : 1, sizeof(*trees));
	int *rcs = ss_xcalloc(n ? n : 1, sizeof(*rcs));
	ss_error *errs = ss_xcalloc(n ? n : 1, sizeof(*errs));
	size_t k = 0, nt = 0;
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		struct list_job *job = &jobs[i];

		if (!job->full || job->whole || job->failed || job->unverified)
			continue;
		ss_error_clear(&job->why);
		if (head_commit(job->m, &commits[nt], &job->why) < 0) {
			job->failed = true;
			continue;
		}
		vms[nt] = verify_member(ps, job);
		tj[nt++] = job;
	}
	if (nt)
		ss_verify_trees_fetch(vms, (const char *const *)commits, nt, trees, rcs, errs);
	for (size_t t = 0; t < nt; t++) {
		if (rcs[t] < 0) {
			tj[t]->failed = true;
			tj[t]->why = errs[t];
		} else {
			tj[t]->tree = trees[t];
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct list_job *job = &jobs[i];

		if (!job->full || job->whole || job->failed)
			continue;
		lj[k].client = job->m->client;
		lj[k].repo = job->m->did;
		lj[k].collection = SS_RECORD_TYPE;
		lj[k].fn = on_record;
		lj[k].payload = job;
		of[k++] = job;
	}
	if (k)
		ss_xrpc_list_records_many(lj, k, 0, err);
	for (size_t i = 0; i < k; i++) {
		struct list_job *job = of[i];
		ss_space_read how = {true, "full", !job->unverified, job->fallback, NULL};

		if (lj[i].rc < 0) {
			job->failed = true;
			job->why = lj[i].err;
			ss_error_prefix(&job->why, "cannot list the skills of '%s'", who(job->m));
			continue;
		}
		if (left_out(job, err) < 0 ||
		    raise_floor(ps, job, job->tree.rev, job->tree.commit, err) < 0)
			goto out;
		/* A refused record is kept at its last good version: the next sync is a full
		 * one, so that it converges once the member's PDS serves the signed version. */
		if (job->refused)
			ss_verify_forget(ps->cache_dir, job->m->did);
		if (job->l->done && job->l->done(job->l->payload, job->m->did, &how, err) < 0)
			goto out;
		if (job->refused && job->l->incomplete &&
		    job->l->incomplete(job->l->payload, job->m->did, err) < 0)
			goto out;
	}
	ret = 0;
out:
	for (size_t t = 0; t < nt; t++)
		free(commits[t]);
	free(commits);
	free(vms);
	free(tj);
	free(trees);
	free(rcs);
	free(errs);
	free(lj);
	free(of);
	return ret;
}

/*
 * Once, in a clone made by an earlier build (config "floor_seed", core/state/state_floor.c): each
 * member's floor from its node cache, the commit verified last; never from members.rev, which
 * the servers' answers set.
 */
static int seed_floors(pub_space *ps, ss_error *err)
{
	char *seed = NULL;
	int rc;

	if (!ps->st)
		return 0;
	rc = ss_state_config_get(ps->st, "floor_seed", &seed, err);
	free(seed);
	if (rc < 0)
		return err->code == SS_ENOTFOUND ? 0 : rc;
	for (size_t i = 0; ps->cache_dir && i < ps->nmembers; i++) {
		char *rev = NULL, *commit = NULL;

		if (ss_verify_cache_commit(ps->cache_dir, ps->members[i].did, &rev, &commit) == 0)
			rc = ss_state_floor_raise(ps->st, ps->members[i].did, rev, commit, err);
		free(rev);
		free(commit);
		if (rc < 0)
			return rc;
	}
	return ss_state_config_set(ps->st, "floor_seed", NULL, err);
}

/*
 * SKILLSYNC_TEST_NO_VERIFY=1: listings taken as the PDS gives them, for the tests of the
 * listing reader against fake servers. A test hook that turns checks off: it exists only in
 * a build with SS_TEST_HOOKS (docs/RELIABILITY.md); any other build has no such variable.
 */
static bool no_verify(void)
{
#ifdef SS_TEST_HOOKS
	const char *off = getenv("SKILLSYNC_TEST_NO_VERIFY");

	return off && !strcmp(off, "1");
#else
	return false;
#endif
}

/*
 * The wanted members' records, verified (sync/public/verify.h): the incremental way for those with
 * a revision to start from, the full way for the others and for those it could not serve.
 */
static int pub_list(ss_space *sp, const ss_space_want *wants, size_t n, const ss_space_listener *l,
                    ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	struct list_job *jobs = ss_xcalloc(n ? n : 1, sizeof(*jobs));
	bool unverified = no_verify();
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		if (!(jobs[i].m = find_member(ps, wants[i].did))) {
			ss_error_set(err, SS_ENOTFOUND, "'%s' is not a member of this space",
			             wants[i].did);
			goto out;
		}
		jobs[i].l = l;
		jobs[i].unverified = unverified;
		jobs[i].since = ps->cache_dir && !unverified ? wants[i].since_rev : NULL;
	}
	if (!unverified && seed_floors(ps, err) < 0)
		goto out;
	for (size_t i = 0; ps->st && !unverified && i < n; i++)
		if (ss_state_floor_get(ps->st, jobs[i].m->did, &jobs[i].floor, err) < 0)
			goto out;
	/* every member's commit is checked with its key: the documents to read, all at once */
	if (!unverified) {
		const char **dids = ss_xcalloc(n ? n : 1, sizeof(*dids));

		for (size_t i = 0; i < n; i++)
			dids[i] = jobs[i].m->did;
		ss_idcache_prefetch(ps->ids, dids, n);
		free(dids);
	}
	if (list_since(ps, jobs, n, err) < 0 || list_whole(ps, jobs, n, err) < 0 ||
	    list_full(ps, jobs, n, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].failed)
			continue;
		if (!l->failed) {
			*err = jobs[i].why;
			goto out;
		}
		if (l->failed(l->payload, jobs[i].m->did, NULL, &jobs[i].why, err) < 0)
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++) {
		ss_verify_tree_release(&jobs[i].tree);
		free(jobs[i].fallback);
		ss_state_floor_release(&jobs[i].floor);
	}
	free(jobs);
	return ret;
}

static int pub_apply(ss_space *sp, const ss_space_write *writes, size_t n, const char *swap_commit,
                     ss_space_applied *out, ss_error *err)
{
	pub_space *ps = (pub_space *)sp;
	ss_xrpc_write *xw = ss_xcalloc(n ? n : 1, sizeof(*xw));
	ss_xrpc_apply_result res;
	int ret;

	memset(&res, 0, sizeof(res));
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		xw[i].op = writes[i].op == SS_WRITE_CREATE   ? SS_XRPC_CREATE
		           : writes[i].op == SS_WRITE_UPDATE ? SS_XRPC_UPDATE
		                                             : SS_XRPC_DELETE;
		xw[i].collection = SS_RECORD_TYPE;
		xw[i].rkey = writes[i].rkey;
		xw[i].value_json = writes[i].value_json;
	}
	if (!ps->mine) {
		free(xw);
		return ss_error_set(err, SS_EAUTH, "not signed in as '%s' (run 'skillsync login')",
		                    sp->me);
	}
	ret = ss_xrpc_apply_writes(ps->mine, sp->me, xw, n, swap_commit, &res, err);
	out->napplied = res.nresults;
	out->cids = ss_xcalloc(res.nresults ? res.nresults : 1, sizeof(char *));
	for (size_t i = 0; i < res.nresults; i++) {
		out->cids[i] = res.results[i].cid;
		res.results[i].cid = NULL;
	}
	out->commit = res.commit.cid;
	out->rev = res.commit.rev;
	res.commit.cid = NULL;
	res.commit.rev = NULL;
	out->nrequests = res.nrequests;
	ss_xrpc_apply_result_release(&res);
	free(xw);
	return ret;
}

/* My node cache brought to the commit my writes made, so that my next listing is incremental. */
static void pub_landed(ss_space *sp, const char *commit)
{
	pub_space *ps = (pub_space *)sp;
	pub_member *m = sp->me ? find_member(ps, sp->me) : NULL;
	ss_verify_member vm = {0};
	ss_verify_outcome o;
	ss_error ignored; /* the writes landed: a cache left stale costs a full listing, no more */

	if (!m || !ps->cache_dir || no_verify())
		return;
	vm.client = m->client;
	vm.did = m->did;
	vm.who = who(m);
	vm.cache_dir = ps->cache_dir;
	vm.ids = ps->ids;
	ss_error_clear(&ignored);
	(void)ss_verify_member_refresh(&vm, commit, &o, &ignored);
	ss_verify_outcome_release(&o);
}

static void pub_free(ss_space *sp)
{
	pub_space *ps = (pub_space *)sp;

	for (size_t i = 0; i < ps->nmembers; i++) {
		free(ps->members[i].did);
		free(ps->members[i].handle);
		free(ps->members[i].pds);
		free(ps->members[i].head);
		forget_info(&ps->members[i]);
		ss_xrpc_free(ps->members[i].client);
	}
	free(ps->members);
	free(ps->cache_dir);
	ss_idcache_free(ps->ids);
	ss_xrpc_free(ps->mine);
	free(ps);
}

/* A member's blobs from its PDS: com.atproto.sync.getBlob, no credential needed. */
static void pub_get_blobs(ss_space *sp, const char *did, ss_cid_read *reads, size_t n)
{
	pub_member *m = find_member((pub_space *)sp, did);

	for (size_t i = 0; !m && i < n; i++)
		reads[i].rc = ss_error_set(&reads[i].err, SS_ENOTFOUND,
		                           "'%s' is not a member of this space", did);
	if (m)
		ss_xrpc_get_blobs(m->client, did, reads, n, 0);
}

static int pub_upload_blob(ss_space *sp, const void *bytes, size_t len, char **cid, char **mime,
                           ss_error *err)
{
	pub_space *ps = (pub_space *)sp;

	if (!ps->mine)
		return ss_error_set(err, SS_EAUTH, "not signed in as '%s' (run 'skillsync login')",
		                    sp->me);
	return ss_xrpc_upload_blob(ps->mine, bytes, len, cid, mime, err);
}

static const ss_space_vtable pub_vtable = {
    "public",        SS_SPACE_CAN_GUARD | SS_SPACE_CAN_LIST_SINCE,
    pub_heads,       pub_list,
    pub_apply,       pub_free,
    pub_landed,      pub_get_blobs,
    pub_upload_blob,
};

int ss_space_public_new(ss_space **out, ss_http *http, ss_xrpc *mine, const char *me_did,
                        const ss_space_public_member *members, size_t n, ss_error *err)
{
	pub_space *ps = ss_xcalloc(1, sizeof(*ps));

	ps->base.vt = &pub_vtable;
	ps->base.me = me_did && *me_did ? ss_xstrdup(me_did) : NULL;
	ps->base.signed_in = mine != NULL;
	ps->http = http;
	ps->mine = mine;
	ps->members = ss_xcalloc(n ? n : 1, sizeof(*ps->members));
	for (size_t i = 0; i < n; i++) {
		pub_member *m;

		if (find_member(ps, members[i].did))
			continue;
		m = &ps->members[ps->nmembers];
		if (ss_xrpc_new(&m->client, http, members[i].pds, err) < 0) {
			ss_error_prefix(err, "member '%s'",
			                members[i].handle ? members[i].handle : members[i].did);
			ss_space_free(&ps->base);
			return -1;
		}
		m->did = ss_xstrdup(members[i].did);
		m->handle = members[i].handle ? ss_xstrdup(members[i].handle) : NULL;
		m->pds = ss_xstrdup(members[i].pds);
		ps->nmembers++;
	}
	*out = &ps->base;
	return 0;
}

void ss_space_public_set_cache(ss_space *sp, const char *dir, ss_state *st)
{
	pub_space *ps = (pub_space *)sp;

	free(ps->cache_dir);
	ps->cache_dir = dir ? ss_xstrdup(dir) : NULL;
	ss_idcache_free(ps->ids);
	ps->ids = ss_idcache_new(ps->http, st);
	ps->st = st;
	/* Before the identity cache (schema 5), keys were files beside the nodes: gone now. */
	for (size_t i = 0; dir && i < ps->nmembers; i++) {
		ss_buf path = SS_BUF_INIT;

		ss_verify_cache_path(&path, dir, ps->members[i].did, "key");
		(void)unlink(path.ptr);
		ss_buf_release(&path);
	}
}
