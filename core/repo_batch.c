/*
 * repo_batch.c: object batches (see repo.h): objects written during a batch go to packs, not
 * to one loose file each.
 *
 * How: the batch swaps the repository's object database for a second one over the same
 * objects directory (packs, loose objects, alternates) topped by an in-memory store
 * (libgit2's mempack) behind a thin backend that remembers which objects it took. A flush
 * hands those objects to a packbuilder, which writes a pack and its index into
 * objects/pack; both are fsynced, then the memory is dropped and later reads find the
 * objects in the pack. Ending the batch puts the original database back; aborting it also
 * frees the in-memory objects, which nothing outside the batch could have named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/git_priv.h"
#include "core/mem.h"

/* Above the mempack in the batch's database: reads and writes go there first. */
#define BATCH_PRIORITY 999

/* The backend the batch adds: the mempack, plus the list of objects it holds. */
typedef struct batch_backend {
	git_odb_backend parent;
	git_odb_backend *mem;
	git_oid *oids; /* in the order they were written */
	size_t count, alloc;
	size_t bytes; /* their total size */
} batch_backend;

struct ss_repo_batch {
	git_odb *orig;          /* the repository's own database, put back at the end */
	git_odb *odb;           /* the batch's database (owns backend) */
	batch_backend *backend; /* borrowed from odb */
	size_t flush_bytes;
	size_t packs; /* packs written so far */
};

static int be_read(void **data, size_t *len, git_object_t *type, git_odb_backend *backend,
                   const git_oid *oid)
{
	git_odb_backend *mem = ((batch_backend *)backend)->mem;

	return mem->read(data, len, type, mem, oid);
}

static int be_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
                          const git_oid *oid)
{
	git_odb_backend *mem = ((batch_backend *)backend)->mem;

	return mem->read_header(len, type, mem, oid);
}

static int be_exists(git_odb_backend *backend, const git_oid *oid)
{
	git_odb_backend *mem = ((batch_backend *)backend)->mem;

	return mem->exists(mem, oid);
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

static void be_free(git_odb_backend *backend)
{
	batch_backend *b = (batch_backend *)backend;

	if (b->mem)
		b->mem->free(b->mem);
	free(b->oids);
	free(b);
}

/* Drops the objects held in memory (after a flush, or to abort). */
static void be_reset(batch_backend *b)
{
	git_mempack_reset(b->mem);
	b->count = 0;
	b->bytes = 0;
}

static int fsync_path(const char *path, int flags, ss_error *err)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0) {
		ss_error_set(err, SS_ERROR, "cannot sync '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Writes the objects held in memory into one pack (durable when this returns), then drops
 * them from memory. */
static int flush(ss_repo *repo, ss_repo_batch *batch, ss_error *err)
{
	batch_backend *b = batch->backend;
	git_packbuilder *pb = NULL;
	ss_buf dir = SS_BUF_INIT, path = SS_BUF_INIT;
	int rc = 0, ret = -1;

	if (!b->count)
		return 0;
	ss_buf_printf(&dir, "%s/objects/pack", ss_repo_gitdir(repo));
	rc = git_packbuilder_new(&pb, ss_repo_git(repo));
	for (size_t i = 0; rc == 0 && i < b->count; i++)
		rc = git_packbuilder_insert(pb, &b->oids[i], NULL);
	if (rc == 0)
		rc = git_packbuilder_write(pb, dir.ptr, 0, NULL, NULL);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot write a pack of %zu objects", b->count);
		goto out;
	}
	ss_buf_printf(&path, "%s/pack-%s.pack", dir.ptr, git_packbuilder_name(pb));
	if (fsync_path(path.ptr, O_RDONLY, err) < 0)
		goto out;
	ss_buf_clear(&path);
	ss_buf_printf(&path, "%s/pack-%s.idx", dir.ptr, git_packbuilder_name(pb));
	if (fsync_path(path.ptr, O_RDONLY, err) < 0 ||
	    fsync_path(dir.ptr, O_RDONLY | O_DIRECTORY, err) < 0)
		goto out;
	be_reset(b);
	batch->packs++;
	ret = 0;
out:
	git_packbuilder_free(pb);
	ss_buf_release(&dir);
	ss_buf_release(&path);
	return ret;
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
			return ss_git_error(err, rc, "cannot write an object");
	}
	be_reset(b);
	return 0;
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
	ss_repo_batch **slot = ss_repo_batch_slot(repo);
	ss_repo_batch *batch = NULL;
	batch_backend *b = NULL;
	ss_buf objects = SS_BUF_INIT;
	int rc, ret = -1;

	if (*slot)
		return ss_error_set(err, SS_EINVALID, "an object batch is already open");
	batch = ss_xcalloc(1, sizeof(*batch));
	batch->flush_bytes = flush_bytes ? flush_bytes : SS_REPO_BATCH_FLUSH;
	b = ss_xcalloc(1, sizeof(*b));
	ss_buf_printf(&objects, "%s/objects", ss_repo_gitdir(repo));
	rc = git_repository_odb(&batch->orig, ss_repo_git(repo));
	if (rc == 0)
		rc = git_odb_open(&batch->odb, objects.ptr);
	if (rc == 0)
		rc = git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	if (rc == 0)
		rc = git_mempack_new(&b->mem);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot start an object batch");
		goto out;
	}
	b->parent.read = be_read;
	b->parent.read_header = be_read_header;
	b->parent.exists = be_exists;
	b->parent.write = be_write;
	b->parent.free = be_free;
	rc = git_odb_add_backend(batch->odb, &b->parent, BATCH_PRIORITY);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot start an object batch");
		goto out;
	}
	batch->backend = b;
	b = NULL; /* the batch's database owns it now */
	rc = git_repository_set_odb(ss_repo_git(repo), batch->odb);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot start an object batch");
		goto out;
	}
	*slot = batch;
	batch = NULL;
	ret = 0;
out:
	if (b)
		be_free(&b->parent);
	batch_free(batch);
	ss_buf_release(&objects);
	return ret;
}

int ss_repo_batch_maybe_flush(ss_repo *repo, ss_error *err)
{
	ss_repo_batch *batch = *ss_repo_batch_slot(repo);

	if (!batch || batch->backend->bytes < batch->flush_bytes)
		return 0;
	return flush(repo, batch, err);
}

/* Puts the repository's own database back and frees the batch. */
static void batch_close(ss_repo *repo)
{
	ss_repo_batch **slot = ss_repo_batch_slot(repo);

	git_repository_set_odb(ss_repo_git(repo), (*slot)->orig);
	batch_free(*slot);
	*slot = NULL;
}

int ss_repo_batch_end(ss_repo *repo, ss_error *err)
{
	ss_repo_batch *batch = *ss_repo_batch_slot(repo);
	int ret;

	if (!batch)
		return ss_error_set(err, SS_EINVALID, "no object batch is open");
	if (!batch->packs && batch->backend->count < SS_REPO_BATCH_LOOSE_MAX)
		ret = write_loose(batch, err);
	else
		ret = flush(repo, batch, err);
	if (ret < 0)
		return ret;
	batch_close(repo);
	return 0;
}

void ss_repo_batch_abort(ss_repo *repo)
{
	if (*ss_repo_batch_slot(repo))
		batch_close(repo);
}
