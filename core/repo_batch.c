/*
 * repo_batch.c: object batches (see repo.h): objects written during a batch go to packs, not
 * to one loose file each.
 *
 * How: the batch swaps the repository's object database for a second one over the same
 * objects directory (packs, loose objects, alternates) topped by an in-memory store
 * (libgit2's mempack) behind a thin backend that remembers which objects it took. A flush
 * streams those objects, each whole and deflated at zlib's fastest level, as a pack into
 * libgit2's indexer, which checks every object, writes the pack and its index into
 * objects/pack; both are fsynced, then the memory is dropped and later reads find the
 * objects in the pack. No delta search: that is what git's own fetch does with objects it
 * receives, and `git gc` deltifies them later (a packbuilder's delta search was most of a
 * clone's CPU, for packs no smaller on these objects). Ending the batch puts the original
 * database back; aborting it also frees the in-memory objects, which nothing outside the
 * batch could have named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZLIB_CONST
#include <zlib.h>

#include <openssl/evp.h>

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

/* A pack on its way to the indexer: bytes gather in buf and go out in large pieces. */
typedef struct pack_out {
	git_indexer *idx;
	git_indexer_progress progress;
	EVP_MD_CTX *sum;    /* SHA-1 of the pack, for its trailer (the indexer checks it) */
	unsigned char *buf; /* not sent yet */
	size_t len, alloc;
	z_stream z;
} pack_out;

#define PACK_OUT_CHUNK (256u * 1024)

static int pack_send(pack_out *po)
{
	int rc;

	if (EVP_DigestUpdate(po->sum, po->buf, po->len) != 1)
		return -1;
	rc = git_indexer_append(po->idx, po->buf, po->len, &po->progress);
	po->len = 0;
	return rc;
}

/* One whole object: its type and size, then its deflated bytes. */
static int pack_object(pack_out *po, git_object_t type, const void *data, size_t len)
{
	unsigned char head[16];
	size_t n = 0, size = len, room;

	head[n++] = (unsigned char)(((unsigned)type << 4) | (size & 15));
	for (size >>= 4; size; size >>= 7) {
		head[n - 1] |= 0x80;
		head[n++] = size & 0x7f;
	}
	if (deflateReset(&po->z) != Z_OK)
		return -1;
	room = deflateBound(&po->z, (uLong)len);
	ss_xgrow((void **)&po->buf, 1, po->len + n + room, &po->alloc);
	memcpy(po->buf + po->len, head, n);
	po->len += n;
	po->z.next_in = data;
	po->z.avail_in = (uInt)len;
	po->z.next_out = po->buf + po->len;
	po->z.avail_out = (uInt)room;
	if (deflate(&po->z, Z_FINISH) != Z_STREAM_END)
		return -1;
	po->len += room - po->z.avail_out;
	return po->len >= PACK_OUT_CHUNK ? pack_send(po) : 0;
}

/* Streams the objects held in memory into one pack through the indexer. */
static int write_pack(batch_backend *b, const char *dir, git_indexer **out)
{
	git_indexer_options opts;
	pack_out po;
	unsigned char head[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2}, sum[20];
	int rc;

	memset(&po, 0, sizeof(po));
	git_indexer_options_init(&opts, GIT_INDEXER_OPTIONS_VERSION);
	po.sum = EVP_MD_CTX_new();
	if (!po.sum || EVP_DigestInit_ex(po.sum, EVP_sha1(), NULL) != 1) {
		EVP_MD_CTX_free(po.sum);
		return -1;
	}
	if (deflateInit(&po.z, Z_BEST_SPEED) != Z_OK) {
		EVP_MD_CTX_free(po.sum);
		return -1;
	}
	rc = git_indexer_new(&po.idx, dir, 0, NULL, &opts);
	for (int i = 0; i < 4; i++)
		head[8 + i] = (unsigned char)(b->count >> (24 - 8 * i));
	ss_xgrow((void **)&po.buf, 1, PACK_OUT_CHUNK, &po.alloc);
	memcpy(po.buf, head, sizeof(head));
	po.len = sizeof(head);
	for (size_t i = 0; rc == 0 && i < b->count; i++) {
		void *data = NULL;
		size_t len;
		git_object_t type;

		rc = b->mem->read(&data, &len, &type, b->mem, &b->oids[i]);
		if (rc == 0)
			rc = pack_object(&po, type, data, len);
		git_odb_backend_data_free(b->mem, data);
	}
	if (rc == 0)
		rc = pack_send(&po);
	if (rc == 0 && EVP_DigestFinal_ex(po.sum, sum, NULL) != 1)
		rc = -1;
	if (rc == 0)
		rc = git_indexer_append(po.idx, sum, sizeof(sum), &po.progress);
	if (rc == 0)
		rc = git_indexer_commit(po.idx, &po.progress);
	deflateEnd(&po.z);
	EVP_MD_CTX_free(po.sum);
	free(po.buf);
	*out = po.idx;
	return rc;
}

/* Writes the objects held in memory into one pack (durable when this returns), then drops
 * them from memory. */
static int flush(ss_repo *repo, ss_repo_batch *batch, ss_error *err)
{
	batch_backend *b = batch->backend;
	git_indexer *idx = NULL;
	ss_buf dir = SS_BUF_INIT, path = SS_BUF_INIT;
	int rc = 0, ret = -1;

	if (!b->count)
		return 0;
	ss_buf_printf(&dir, "%s/objects/pack", ss_repo_gitdir(repo));
	rc = write_pack(b, dir.ptr, &idx);
	if (rc < 0) {
		ret = ss_git_error(err, rc, "cannot write a pack of %zu objects", b->count);
		goto out;
	}
	ss_buf_printf(&path, "%s/pack-%s.pack", dir.ptr, git_indexer_name(idx));
	if (fsync_path(path.ptr, O_RDONLY, err) < 0)
		goto out;
	ss_buf_clear(&path);
	ss_buf_printf(&path, "%s/pack-%s.idx", dir.ptr, git_indexer_name(idx));
	if (fsync_path(path.ptr, O_RDONLY, err) < 0 ||
	    fsync_path(dir.ptr, O_RDONLY | O_DIRECTORY, err) < 0)
		goto out;
	be_reset(b);
	batch->packs++;
	ret = 0;
out:
	git_indexer_free(idx);
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
