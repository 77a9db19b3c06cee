/*
 * repo_batch.c: object batches (see repo.h): objects written during a batch go to packs, not
 * to one loose file each.
 *
 * How: the batch swaps the repository's object database for a second one whose only backend
 * is ours: an in-memory store (libgit2's mempack) that remembers which objects it took, over
 * the repository's own database for the objects already stored. A flush hands the objects in
 * memory to a worker thread, which writes them, each whole and deflated, as a pack and its
 * index into objects/pack (ss_pack_write, core/gitfmt/pack_write.c), both synced, and is done;
 * meanwhile the fetch goes on filling a new in-memory store, and the objects on their way to
 * the pack stay readable. At most two packs are on their way (PACK_JOBS): the next flush
 * waits for the older, the end and an abort for both. No delta search: that is what git's
 * own fetch does with objects it receives, and `git gc` deltifies them later (a packbuilder's
 * delta search was most of a clone's CPU, for packs no smaller on these objects). Ending the
 * batch puts the original database back; aborting it also frees the in-memory objects, which
 * nothing outside the batch could have named.
 *
 * Why a database of our own rather than ours on top of the repository's backends: libgit2's
 * git_odb_write first asks every backend whether the object exists (a loose file's timestamp
 * touched, the packs looked up) and, when none has it, which is the case of every object a
 * fetch writes, rescans the pack directory and asks again: a directory scan per object. Here
 * a new object costs one lookup in memory and one in the repository's database, without a
 * rescan (the database is rescanned once per pack written instead), and the batch's own packs
 * are searched only when its filters say the object may be there (packed_filter below).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/gitfmt/pack_write.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* A pack on its way to the disk, written by the worker thread. */
typedef struct pack_job {
	pthread_t thread;
	bool running;         /* the thread was started and not yet joined */
	git_odb_backend *mem; /* the objects (a mempack), read by both threads, written by none */
	git_oid *oids;        /* in the order they were written */
	size_t count;
	char *dir; /* objects/pack */
	int rc;    /* the outcome, once joined */
	ss_error err;
	char name[GIT_OID_HEXSZ + 1]; /* the pack's name, once written */
} pack_job;

/*
 * The objects the batch has handed to its packs, as Bloom filters: a lookup in libgit2's pack
 * backend searches every pack's index in turn, and every object a fetch writes is looked up
 * (twice: libgit2 asks again after a refresh) before it is found missing, so with the ~70 packs
 * of a 3x30,000 clone those searches were a tenth of its CPU. The filters answer "not in the
 * batch's packs" for nearly all of them; only a "maybe" searches the packs. An object id is a
 * SHA-1, so its bytes are the filter's hashes. One filter per capacity, each twice the last
 * one's, so a lookup tests O(log n) filters and the memory is ~2 bytes per object packed.
 */
#define FILTER_FIRST  16384u /* objects in the first filter */
#define FILTER_BITS   16u    /* bits per object (with FILTER_HASHES, ~0.25% false "maybe") */
#define FILTER_HASHES 4u
#define FILTER_MAX    24u /* then the last one takes the rest (more "maybe", as sound) */

typedef struct packed_filter {
	struct {
		uint64_t *bits;
		size_t mask; /* bit count - 1 (a power of two) */
		size_t count, cap;
	} f[FILTER_MAX];
	size_t n; /* filters in use; f[n - 1] takes the new objects */
} packed_filter;

/* The filter's i-th hash of id: 32 bits of the id, then masked. */
static size_t filter_hash(const git_oid *id, unsigned i, size_t mask)
{
	const unsigned char *p = id->id + 4 * i;

	return (((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3]) & mask;
}

static void filter_add(packed_filter *pf, const git_oid *id)
{
	size_t m;

	if (!pf->n || (pf->f[pf->n - 1].count == pf->f[pf->n - 1].cap && pf->n < FILTER_MAX)) {
		size_t cap = pf->n ? 2 * pf->f[pf->n - 1].cap : FILTER_FIRST;

		pf->f[pf->n].cap = cap;
		pf->f[pf->n].mask = cap * FILTER_BITS - 1;
		pf->f[pf->n].bits = ss_xcalloc(cap * FILTER_BITS / 64, sizeof(uint64_t));
		pf->n++;
	}
	m = pf->f[pf->n - 1].mask;
	for (unsigned i = 0; i < FILTER_HASHES; i++) {
		size_t h = filter_hash(id, i, m);

		pf->f[pf->n - 1].bits[h / 64] |= (uint64_t)1 << (h % 64);
	}
	pf->f[pf->n - 1].count++;
}

/* false: id is in none of the batch's packs; true: it may be. */
static bool filter_maybe(const packed_filter *pf, const git_oid *id)
{
	for (size_t k = 0; k < pf->n; k++) {
		unsigned i = 0;

		for (; i < FILTER_HASHES; i++) {
			size_t h = filter_hash(id, i, pf->f[k].mask);

			if (!(pf->f[k].bits[h / 64] & ((uint64_t)1 << (h % 64))))
				break;
		}
		if (i == FILTER_HASHES)
			return true;
	}
	return false;
}

static void filter_free(packed_filter *pf)
{
	for (size_t k = 0; k < pf->n; k++)
		free(pf->f[k].bits);
	pf->n = 0;
}

/* Packs on their way at once: the fetch fills the next store while two threads deflate and
 * write the last two (one thread was the longer side of a clone's fetch: a 3x3000 clone's
 * main thread waited on it half of the time). */
#define PACK_JOBS 2

/* The backend of the batch's database: the mempack, plus the list of objects it holds. */
typedef struct batch_backend {
	git_odb_backend parent;
	git_odb_backend *mem;
	git_oid *oids; /* in the order they were written */
	size_t count, alloc;
	size_t bytes;             /* their total size */
	pack_job jobs[PACK_JOBS]; /* the packs being written (mem NULL: none), used in turn */
	size_t next;              /* the slot of the next one: the older of the two */
	git_odb *orig;            /* the repository's own database (a reference of its own) */
	git_odb *have; /* where to look for objects already stored: orig, or, when have_packs, the
	                  packs it held when the batch began (never refreshed) */
	bool have_packs;
	packed_filter packed; /* the objects handed to the batch's packs, when have_packs */
} batch_backend;

struct ss_repo_batch {
	git_odb *orig;          /* the repository's own database, put back at the end */
	git_odb *odb;           /* the batch's database (owns backend) */
	batch_backend *backend; /* borrowed from odb */
	size_t flush_bytes;
	size_t packs; /* packs started so far */
};

/* A copy of data in memory the odb layer frees (it calls the backend's data free). */
static int copy_out(void **out, git_odb_backend *backend, const void *data, size_t len)
{
	*out = git_odb_backend_data_alloc(backend, len);
	if (!*out)
		return -1;
	memcpy(*out, data, len);
	return 0;
}

static int be_read(void **data, size_t *len, git_object_t *type, git_odb_backend *backend,
                   const git_oid *oid)
{
	batch_backend *b = (batch_backend *)backend;
	git_odb_object *obj;
	int rc = b->mem->read(data, len, type, b->mem, oid);

	for (size_t i = 0; rc == GIT_ENOTFOUND && i < PACK_JOBS; i++)
		if (b->jobs[i].mem)
			rc = b->jobs[i].mem->read(data, len, type, b->jobs[i].mem, oid);
	if (rc != GIT_ENOTFOUND)
		return rc;
	if ((rc = git_odb_read(&obj, b->orig, oid)) < 0)
		return rc;
	*len = git_odb_object_size(obj);
	*type = git_odb_object_type(obj);
	rc = copy_out(data, backend, git_odb_object_data(obj), *len);
	git_odb_object_free(obj);
	return rc;
}

static int be_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
                          const git_oid *oid)
{
	batch_backend *b = (batch_backend *)backend;
	int rc = b->mem->read_header(len, type, b->mem, oid);

	for (size_t i = 0; rc == GIT_ENOTFOUND && i < PACK_JOBS; i++)
		if (b->jobs[i].mem)
			rc = b->jobs[i].mem->read_header(len, type, b->jobs[i].mem, oid);
	if (rc != GIT_ENOTFOUND)
		return rc;
	return git_odb_read_header(len, type, b->orig, oid);
}

/* Whether the object is stored (the repository's database is not rescanned: see above). The
 * batch's own packs are searched only when the filter says the object may be in one. */
static int be_exists(git_odb_backend *backend, const git_oid *oid)
{
	batch_backend *b = (batch_backend *)backend;

	if (b->mem->exists(b->mem, oid))
		return 1;
	for (size_t i = 0; i < PACK_JOBS; i++)
		if (b->jobs[i].mem && b->jobs[i].mem->exists(b->jobs[i].mem, oid))
			return 1;
	if (git_odb_exists_ext(b->have, oid, GIT_ODB_LOOKUP_NO_REFRESH))
		return 1;
	return b->have_packs && filter_maybe(&b->packed, oid) &&
	       git_odb_exists_ext(b->orig, oid, GIT_ODB_LOOKUP_NO_REFRESH);
}

/* Before a write: 0 when the object is already stored (nothing to write). */
static int be_freshen(git_odb_backend *backend, const git_oid *oid)
{
	return be_exists(backend, oid) ? 0 : GIT_ENOTFOUND;
}

static int be_write(git_odb_backend *backend, const git_oid *oid, const void *data, size_t len,
                    git_object_t type)
{
	batch_backend *b = (batch_backend *)backend;
	int rc;

	if (b->mem->exists(b->mem, oid))
		return 0;
	rc = b->mem->write(b->mem, oid, data, len, type);
	if (rc < 0)
		return rc;
	ss_xgrow((void **)&b->oids, sizeof(*b->oids), b->count + 1, &b->alloc);
	git_oid_cpy(&b->oids[b->count++], oid);
	b->bytes += len;
	return 0;
}

static int pack_wait_all(batch_backend *b, ss_error *err);

static void be_free(git_odb_backend *backend)
{
	batch_backend *b = (batch_backend *)backend;
	ss_error ignored;

	pack_wait_all(b, &ignored);
	if (b->mem)
		b->mem->free(b->mem);
	if (b->have != b->orig)
		git_odb_free(b->have);
	git_odb_free(b->orig);
	filter_free(&b->packed);
	free(b->oids);
	free(b);
}

/* Drops the objects held in memory (to abort, or after writing them loose). */
static void be_reset(batch_backend *b)
{
	git_mempack_reset(b->mem);
	b->count = 0;
	b->bytes = 0;
}

/* The i-th object of the job's in-memory store, by its id (libgit2 hashed it when the object
 * was written). */
static int read_job_object(void *payload, size_t i, ss_pack_write_obj *o, ss_error *err)
{
	const pack_job *job = payload;
	git_object_t type;
	int rc;

	ss_git__oid_out(&o->id, &job->oids[i]);
	rc = job->mem->read(&o->data, &o->len, &type, job->mem, &job->oids[i]);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read an object to pack");
	ss_git__backend_data(o, job->mem, type);
	return 0;
}

/* Writes the job's objects into one pack, durable when this returns (job->rc, job->err;
 * job->name: the pack's name). */
static void pack_run(pack_job *job)
{
	job->rc = ss_pack_write(job->dir, job->count, read_job_object, job, job->name, &job->err);
}

static void *pack_thread(void *arg)
{
	pack_run(arg);
	return NULL;
}

/*
 * Waits for the pack on its way in the slot, if any, and frees what it held: its objects are
 * in the repository's database from now on (rescanned for them; b->have is not: the filter
 * stands for the batch's packs there). Fails with the pack's error.
 */
static int pack_wait(batch_backend *b, pack_job *job, ss_error *err)
{
	int rc;

	if (!job->mem)
		return 0;
	if (job->running)
		pthread_join(job->thread, NULL);
	rc = job->rc;
	if (rc < 0)
		*err = job->err;
	job->mem->free(job->mem);
	free(job->oids);
	free(job->dir);
	memset(job, 0, sizeof(*job));
	if (rc == 0)
		git_odb_refresh(b->orig);
	return rc;
}

/* Waits for every pack on its way, the older first; fails with the first error. */
static int pack_wait_all(batch_backend *b, ss_error *err)
{
	int ret = 0;

	for (size_t i = 0; i < PACK_JOBS; i++) {
		ss_error e;

		if (pack_wait(b, &b->jobs[(b->next + i) % PACK_JOBS], &e) < 0 && ret == 0) {
			*err = e;
			ret = -1;
		}
	}
	return ret;
}

/*
 * Hands the objects held in memory to a worker, which writes them into one pack (durable once
 * pack_wait returns 0), and starts a new in-memory store for the next ones. With PACK_JOBS
 * packs already on their way, waits for the older first.
 */
static int flush(ss_repo *repo, ss_repo_batch *batch, ss_error *err)
{
	batch_backend *b = batch->backend;
	pack_job *job = &b->jobs[b->next];
	git_odb_backend *fresh = NULL;
	ss_buf dir = SS_BUF_INIT;
	int rc;

	if (!b->count)
		return 0;
	if (pack_wait(b, job, err) < 0)
		return -1;
	if ((rc = git_mempack_new(&fresh)) < 0)
		return ss_git__error(err, rc, "cannot write a pack of %zu objects", b->count);
	job->mem = b->mem;
	job->oids = b->oids;
	job->count = b->count;
	for (size_t i = 0; b->have_packs && i < job->count; i++)
		filter_add(&b->packed, &job->oids[i]);
	ss_buf_printf(&dir, "%s/objects/pack", repo->gitdir);
	job->dir = ss_buf_detach(&dir, NULL);
	b->mem = fresh;
	b->oids = NULL;
	b->count = b->alloc = b->bytes = 0;
	b->next = (b->next + 1) % PACK_JOBS;
	batch->packs++;
	/* Without a thread (or a libgit2 built without thread support), the pack is written
	 * here. */
	job->running = (git_libgit2_features() & GIT_FEATURE_THREADS) &&
	               pthread_create(&job->thread, NULL, pack_thread, job) == 0;
	if (!job->running)
		pack_run(job);
	return 0;
}

/* A batch too small for a pack of its own: its objects are written loose, through the
 * repository's own database, as git does for small fetches (transfer.unpackLimit). */
static int write_loose(ss_repo_batch *batch, ss_error *err)
{
	batch_backend *b = batch->backend;

	for (size_t i = 0; i < b->count; i++) {
		git_odb_object *obj = NULL;
		git_oid id;
		int rc = git_odb_read(&obj, batch->odb, &b->oids[i]);

		if (rc == 0)
			rc = git_odb_write(&id, batch->orig, git_odb_object_data(obj),
			                   git_odb_object_size(obj), git_odb_object_type(obj));
		git_odb_object_free(obj);
		if (rc < 0)
			return ss_git__error(err, rc, "cannot write an object");
	}
	be_reset(b);
	return 0;
}

/*
 * Where the batch looks for objects already stored: the repository's database, or, when its
 * objects directory holds no loose object and no alternates (a clone, a repository whose
 * fetches all went to packs), its packs alone, which spares a stat() of a loose path for
 * every object written. The batch itself writes nothing loose until it ends, and the lock
 * keeps other runs out.
 */
static int have_odb(batch_backend *b, const char *gitdir)
{
	ss_buf objects = SS_BUF_INIT, alternates = SS_BUF_INIT;
	git_odb_backend *packs = NULL;
	git_odb *odb = NULL;
	struct dirent *e;
	DIR *d;
	bool loose = false;
	int rc = 0;

	b->have = b->orig;
	ss_buf_printf(&objects, "%s/objects", gitdir);
	ss_buf_printf(&alternates, "%s/info/alternates", objects.ptr);
	if (access(alternates.ptr, F_OK) == 0 || !(d = opendir(objects.ptr)))
		goto out;
	while (!loose && (e = readdir(d)))
		loose = strlen(e->d_name) == 2 && isxdigit((unsigned char)e->d_name[0]) &&
		        isxdigit((unsigned char)e->d_name[1]);
	closedir(d);
	if (loose)
		goto out;
	rc = git_odb_new(&odb);
	if (rc == 0)
		rc = git_odb_backend_pack(&packs, objects.ptr);
	if (rc == 0 && (rc = git_odb_add_backend(odb, packs, 1)) < 0)
		packs->free(packs);
	if (rc == 0) {
		b->have = odb;
		b->have_packs = true;
		odb = NULL;
	}
out:
	git_odb_free(odb);
	ss_buf_release(&objects);
	ss_buf_release(&alternates);
	return rc;
}

static void batch_free(ss_repo_batch *batch)
{
	if (!batch)
		return;
	git_odb_free(batch->odb); /* frees the backend and what it still holds */
	git_odb_free(batch->orig);
	free(batch);
}

int ss_repo_batch_begin(ss_repo *repo, size_t flush_bytes, ss_error *err)
{
	ss_repo_batch **slot = &repo->batch;
	ss_repo_batch *batch = NULL;
	batch_backend *b = NULL;
	int rc, ret = -1;

	if (*slot)
		return ss_error_set(err, SS_EINVALID, "an object batch is already open");
	batch = ss_xcalloc(1, sizeof(*batch));
	batch->flush_bytes = flush_bytes ? flush_bytes : SS_REPO_BATCH_FLUSH;
	b = ss_xcalloc(1, sizeof(*b));
	rc = git_repository_odb(&batch->orig, repo->git);
	if (rc == 0)
		rc = git_repository_odb(&b->orig, repo->git);
	if (rc == 0)
		rc = git_odb_new(&batch->odb);
	if (rc == 0)
		rc = git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	if (rc == 0)
		rc = git_mempack_new(&b->mem);
	if (rc == 0)
		rc = have_odb(b, repo->gitdir);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot start an object batch");
		goto out;
	}
	b->parent.read = be_read;
	b->parent.read_header = be_read_header;
	b->parent.exists = be_exists;
	b->parent.write = be_write;
	b->parent.freshen = be_freshen;
	b->parent.free = be_free;
	rc = git_odb_add_backend(batch->odb, &b->parent, 1);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot start an object batch");
		goto out;
	}
	batch->backend = b;
	b = NULL; /* the batch's database owns it now */
	rc = git_repository_set_odb(repo->git, batch->odb);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot start an object batch");
		goto out;
	}
	*slot = batch;
	batch = NULL;
	ret = 0;
out:
	if (b)
		be_free(&b->parent);
	batch_free(batch);
	return ret;
}

int ss_repo_batch__maybe_flush(ss_repo *repo, ss_error *err)
{
	ss_repo_batch *batch = repo->batch;

	if (!batch || batch->backend->bytes < batch->flush_bytes)
		return 0;
	return flush(repo, batch, err);
}

/* Puts the repository's own database back and frees the batch. */
static void batch_close(ss_repo *repo)
{
	ss_repo_batch **slot = &repo->batch;

	git_repository_set_odb(repo->git, (*slot)->orig);
	batch_free(*slot);
	*slot = NULL;
}

int ss_repo_batch_end(ss_repo *repo, ss_error *err)
{
	ss_repo_batch *batch = repo->batch;
	int ret;

	if (!batch)
		return ss_error_set(err, SS_EINVALID, "no object batch is open");
	if (!batch->packs && batch->backend->count < SS_REPO_BATCH_LOOSE_MAX)
		ret = write_loose(batch, err);
	else
		ret = flush(repo, batch, err);
	if (ret == 0)
		ret = pack_wait_all(batch->backend, err);
	if (ret < 0)
		return ret;
	batch_close(repo);
	return 0;
}

void ss_repo_batch_abort(ss_repo *repo)
{
	if (repo->batch)
		batch_close(repo);
}
