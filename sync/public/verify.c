/* verify.c: a member's repo, checked then handed over (see sync/public/verify.h). */
#include "sync/public/verify.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <jansson.h>

#include "core/atproto/car.h"
#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/atproto/mst.h"
#include "core/skill/record.h"
#include "core/util/base64.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "sync/public/verify_priv.h"

#define PREFIX SS_RECORD_TYPE "/"
/* getBlocks: CIDs per request, and rounds before a tree is called incomplete. */
#define BLOCKS_PER_REQUEST 100
#define MAX_ROUNDS         (SS_MST_MAX_DEPTH + 2)
/* The node cache of one member is at most this big. */
#define MAX_CACHE_FILE (64u * 1024 * 1024)

typedef struct change {
	ss_mst_op op;
	char *rkey;
	ss_cid cid;
} change;

typedef struct run {
	const ss_verify_member *m;
	ss_verify_outcome *out;
	ss_verify__sources src;
	ss_car *cache; /* the node cache among the sources, once loaded (NULL: none) */
	bool cache_tried;
	const ss_cid *expect; /* the commit the repo must be at (ss_verify_member_refresh) */
	change *changes;
	size_t nchanges, achanges;
	/* the commit being checked */
	ss_cid commit_cid;
	const unsigned char *commit_data;
	size_t commit_len;
	ss_cid data_root;
	char *rev;
} run;

static void changes_clear(run *r)
{
	for (size_t i = 0; i < r->nchanges; i++)
		free(r->changes[i].rkey);
	r->nchanges = 0;
}

static int add_change(run *r, ss_mst_op op, const char *key, size_t key_len, const ss_cid *cid)
{
	change *c;

	ss_xgrow((void **)&r->changes, sizeof(*r->changes), r->nchanges + 1, &r->achanges);
	c = &r->changes[r->nchanges++];
	c->op = op;
	c->rkey = ss_xstrndup(key + strlen(PREFIX), key_len - strlen(PREFIX));
	if (cid)
		c->cid = *cid;
	else
		memset(&c->cid, 0, sizeof(c->cid));
	return 0;
}

static int on_leaf(void *ctx, const char *key, size_t key_len, const ss_cid *value, ss_error *err)
{
	(void)err;
	return add_change(ctx, SS_MST_CREATE, key, key_len, value);
}

static int on_diff(void *ctx, ss_mst_op op, const char *key, size_t key_len,
                   const ss_cid *old_value, const ss_cid *new_value, ss_error *err)
{
	(void)old_value;
	(void)err;
	return add_change(ctx, op, key, key_len, new_value);
}

/* Fetches the blocks cids names into the sources (getBlocks, by BLOCKS_PER_REQUEST; lenient as
 * sources_add). */
static int fetch_blocks(run *r, const ss_cid *cids, size_t n, bool lenient, ss_error *err)
{
	for (size_t at = 0; at < n; at += BLOCKS_PER_REQUEST) {
		size_t k = n - at < BLOCKS_PER_REQUEST ? n - at : BLOCKS_PER_REQUEST;
		char(*strs)[SS_CID_STRSZ] = ss_xcalloc(k, sizeof(*strs));
		const char **ptrs = ss_xcalloc(k, sizeof(*ptrs));
		ss_buf car = SS_BUF_INIT;
		int ret;

		for (size_t i = 0; i < k; i++) {
			ss_cid_fmt(strs[i], &cids[at + i]);
			ptrs[i] = strs[i];
		}
		r->out->requests++;
		ret = ss_xrpc_get_blocks(r->m->client, r->m->did, ptrs, k, &car, err);
		r->out->bytes += car.len;
		if (!ret)
			ret = ss_verify__sources_add(&r->src, &car, NULL, lenient, err);
		ss_buf_release(&car);
		free(strs);
		free(ptrs);
		if (ret < 0)
			return ss_error_prefix(err, "com.atproto.sync.getBlocks");
	}
	return 0;
}

/*
 * Walks (old NULL) or diffs the tree over the skill range until no node is missing, fetching
 * the missing ones; 1 when the tree cannot be completed.
 */
static int read_tree(run *r, const ss_cid *old, ss_error *err)
{
	for (int round = 0; round < MAX_ROUNDS; round++) {
		ss_mst_source src;
		int ret;

		ss_mst_source_init(&src, ss_verify__get_block, &r->src);
		src.collect_missing = true;
		changes_clear(r);
		ret = old ? ss_mst_diff(&src, old, &r->data_root, PREFIX, on_diff, r, err)
		          : ss_mst_walk(&src, &r->data_root, PREFIX, on_leaf, r, err);
		/* the incremental way's CAR is read leniently for its records; a tree node of it
		 * that does not hash refuses the CAR, as a strict read would */
		for (size_t i = 0; ret == 0 && old && i < src.nmissing; i++)
			if (ss_verify__sources_bad(&r->src, &src.missing[i])) {
				char cid[SS_CID_STRSZ];

				ss_cid_fmt(cid, &src.missing[i]);
				ret = ss_error_set(
				    err, SS_EINVALID,
				    "com.atproto.sync.getRepo: invalid CAR: the tree node %s "
				    "does not hash to its CID",
				    cid);
			}
		if (ret == 0 && src.nmissing)
			ret = fetch_blocks(r, src.missing, src.nmissing, false, err);
		if (ret < 0) {
			ss_mst_source_release(&src);
			return ret;
		}
		if (!src.nmissing) {
			ss_mst_source_release(&src);
			return 0;
		}
		ss_mst_source_release(&src);
	}
	return 1;
}

/* A revision is a TID: 13 characters of base32-sortable (they compare as strings). */
static bool is_tid(const char *s)
{
	size_t n = strlen(s);

	return n == 13 && strspn(s, "234567abcdefghijklmnopqrstuvwxyz") == n;
}

/* Reads and checks the commit cid names (in the sources): its DID, revision and signature. */
static int check_commit(run *r, const ss_cid *cid, ss_error *err)
{
	const ss_car_block *b;
	json_t *v = NULL, *did, *data, *rev, *sig, *bytes;
	ss_buf unsigned_bytes = SS_BUF_INIT, raw = SS_BUF_INIT;
	int ret = -1;

	r->commit_cid = *cid;
	if (!(b = ss_verify__sources_get(&r->src, cid)))
		return ss_error_set(err, SS_EINVALID, "the PDS did not send the repo's commit");
	r->commit_data = b->data;
	r->commit_len = b->len;
	if (ss_cbor_decode(b->data, b->len, &v, err) < 0)
		return ss_error_prefix(err, "the commit");
	did = json_object_get(v, "did");
	data = json_object_get(json_object_get(v, "data"), "$link");
	rev = json_object_get(v, "rev");
	sig = json_object_get(v, "sig");
	bytes = json_object_get(sig, "$bytes");
	if (!json_is_string(did) || !json_is_string(data) || !json_is_string(rev) ||
	    !json_is_string(bytes) || json_integer_value(json_object_get(v, "version")) != 3) {
		ret = ss_error_set(err, SS_EINVALID, "the commit is not a version 3 repo commit");
		goto out;
	}
	if (strcmp(json_string_value(did), r->m->did)) {
		ret = ss_error_set(err, SS_EINVALID, "the commit is for another repo");
		goto out;
	}
	if (!is_tid(json_string_value(rev))) {
		ret = ss_error_set(err, SS_EINVALID, "the commit's revision is not a TID");
		goto out;
	}
	if (ss_cid_parse(&r->data_root, json_string_value(data), json_string_length(data), err) < 0)
		goto out;
	r->rev = ss_xstrdup(json_string_value(rev));
	if (ss_base64_decode(&raw, json_string_value(bytes), json_string_length(bytes),
	                     SS_BASE64_STD, err) < 0)
		goto out;
	json_object_del(v, "sig");
	if (ss_cbor_encode(v, &unsigned_bytes, err) < 0)
		goto out;
	ret = ss_verify_signature(r->m->ids, ss_xrpc_http(r->m->client), r->m->did,
	                          unsigned_bytes.ptr, unsigned_bytes.len, (const uint8_t *)raw.ptr,
	                          raw.len, &r->out->requests, err);
	if (ret < 0)
		ss_error_prefix(err, "commit at rev %s", r->rev);
out:
	json_decref(v);
	ss_buf_release(&unsigned_bytes);
	ss_buf_release(&raw);
	return ret;
}

/* Adds the member's node cache to the sources (when there is one, once); its CAR, or NULL. */
static ss_car *load_cache(run *r)
{
	ss_buf path = SS_BUF_INIT, bytes = SS_BUF_INIT;
	ss_car *car = NULL;
	ss_error ignored;

	if (r->cache_tried)
		return r->cache;
	r->cache_tried = true;
	if (r->m->cache_dir) {
		ss_verify_cache_path(&path, r->m->cache_dir, r->m->did, "car");
		if (ss_fs_read_file(&bytes, path.ptr, MAX_CACHE_FILE, &ignored) < 0 ||
		    ss_verify__sources_add(&r->src, &bytes, &car, false, &ignored) < 0)
			car = NULL;
	}
	ss_buf_release(&path);
	ss_buf_release(&bytes);
	r->cache = car;
	return car;
}

/*
 * The node cache's commit: its CID, revision (*rev, the caller's to free) and tree root; 1
 * when there is no usable cache.
 */
static int cache_head(run *r, ss_cid *commit, char **rev, ss_cid *root)
{
	ss_car *car = load_cache(r);
	const ss_car_block *b;
	json_t *v = NULL, *r_rev, *data;
	ss_error ignored;
	int ret = 1;

	if (!car || ss_car_root_count(car) != 1 || !(b = ss_car_get(car, ss_car_root(car, 0))) ||
	    ss_cbor_decode(b->data, b->len, &v, &ignored) < 0)
		goto out;
	r_rev = json_object_get(v, "rev");
	data = json_object_get(json_object_get(v, "data"), "$link");
	if (json_is_string(r_rev) && json_is_string(data) &&
	    ss_cid_parse(root, json_string_value(data), json_string_length(data), &ignored) == 0) {
		*commit = *ss_car_root(car, 0);
		*rev = ss_xstrdup(json_string_value(r_rev));
		ret = 0;
	}
out:
	json_decref(v);
	return ret;
}

/* The previous tree's root from the node cache, when it holds the commit at since_rev. */
static int cached_tree(run *r, ss_cid *old_root)
{
	ss_cid commit;
	char *rev = NULL;
	int ret = cache_head(r, &commit, &rev, old_root);

	if (ret == 0 && strcmp(rev, r->m->since_rev))
		ret = 1;
	free(rev);
	return ret;
}

static int no_leaf(void *ctx, const char *key, size_t key_len, const ss_cid *value, ss_error *err)
{
	(void)ctx;
	(void)key;
	(void)key_len;
	(void)value;
	(void)err;
	return 0;
}

static void put_varint(ss_buf *b, uint64_t v)
{
	while (v >= 0x80) {
		ss_buf_putc(b, (char)(0x80 | (v & 0x7f)));
		v >>= 7;
	}
	ss_buf_putc(b, (char)v);
}

static void put_block(ss_buf *b, const ss_cid *cid, const unsigned char *data, size_t len)
{
	unsigned char bin[SS_CID_BINSZ];

	ss_cid_to_bytes(bin, cid);
	put_varint(b, SS_CID_BINSZ + len);
	ss_buf_put(b, bin, sizeof(bin));
	ss_buf_put(b, data, len);
}

/*
 * Writes the node cache: the verified commit and every node of its skill range. Best effort:
 * without it the next sync is a full one.
 */
static void save_tree(run *r)
{
	ss_buf path = SS_BUF_INIT, car = SS_BUF_INIT, header = SS_BUF_INIT;
	char root[SS_CID_STRSZ];
	ss_mst_source src;
	json_t *h;
	ss_error ignored;
	int ret;

	if (!r->m->cache_dir)
		return;
	ss_verify_cache_path(&path, r->m->cache_dir, r->m->did, "car");
	r->src.recording = true;
	r->src.nseen = 0;
	ss_mst_source_init(&src, ss_verify__get_block, &r->src);
	changes_clear(r);
	ret = ss_mst_walk(&src, &r->data_root, PREFIX, no_leaf, NULL, &ignored);
	ss_mst_source_release(&src);
	r->src.recording = false;
	ss_cid_fmt(root, &r->commit_cid);
	h = json_pack("{s:[{s:s}],s:i}", "roots", "$link", root, "version", 1);
	if (ret == 0 && h && ss_cbor_encode(h, &header, &ignored) == 0) {
		put_varint(&car, header.len);
		ss_buf_put(&car, header.ptr, header.len);
		put_block(&car, &r->commit_cid, r->commit_data, r->commit_len);
		for (size_t i = 0; i < r->src.nseen; i++) {
			put_block(&car, &r->src.seen[i].cid, r->src.seen[i].data,
			          r->src.seen[i].len);
			ss_verify__sources_served(&r->src);
		}
		if (ss_fs_mkdir_p(r->m->cache_dir, 0700, &ignored) == 0)
			ret = ss_fs_write_atomic(path.ptr, car.ptr, car.len, 0600, &ignored);
	} else {
		ret = -1;
	}
	if (ret < 0)
		(void)remove(path.ptr);
	json_decref(h);
	ss_buf_release(&path);
	ss_buf_release(&car);
	ss_buf_release(&header);
}

/* Every record block the changes name, fetched when no CAR holds it. */
static int fetch_records(run *r, ss_error *err)
{
	ss_cid *missing = NULL;
	size_t n = 0, alloc = 0;
	int ret = 0;

	for (size_t i = 0; i < r->nchanges; i++)
		if (r->changes[i].op != SS_MST_DELETE &&
		    !ss_verify__sources_get(&r->src, &r->changes[i].cid)) {
			ss_xgrow((void **)&missing, sizeof(*missing), n + 1, &alloc);
			missing[n++] = r->changes[i].cid;
		}
	if (n)
		ret = fetch_blocks(r, missing, n, true, err);
	free(missing);
	return ret;
}

/* Hands the changes to the sink: records as JSON text from their verified blocks. */
static int emit(run *r, const ss_verify_sink *sink, ss_error *err)
{
	ss_buf why = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < r->nchanges && ret == 0; i++) {
		const change *c = &r->changes[i];
		const ss_car_block *b;
		char cid[SS_CID_STRSZ];

		if (c->op == SS_MST_DELETE) {
			ret = sink->deleted(sink->payload, c->rkey, err);
			continue;
		}
		ss_verify__sources_served(&r->src);
		ss_cid_fmt(cid, &c->cid);
		if ((b = ss_verify__sources_get(&r->src, &c->cid))) {
			/* the block as it is: the record decoder reads DAG-CBOR (ss_record_value);
			 * one the CAR had wrong and getBlocks served right is still told */
			if (!r->out->caught && ss_verify__sources_bad(&r->src, &c->cid)) {
				ss_buf_printf(
				    &why,
				    "the block com.atproto.sync.getRepo sent for the record "
				    "'%s' does not hash to its CID %s",
				    c->rkey, cid);
				r->out->caught = ss_buf_detach(&why, NULL);
			}
			ret = sink->record(sink->payload, c->rkey, cid, b->data, b->len, NULL, err);
			continue;
		}
		/* kept by no CID: the signed version is taken whenever it comes */
		r->out->refused++;
		ss_buf_clear(&why);
		if (ss_verify__sources_bad(&r->src, &c->cid))
			ss_buf_printf(
			    &why,
			    "the block the PDS sent for it does not hash to the record's CID "
			    "%s (changed on the way)",
			    cid);
		else
			ss_buf_puts(&why, "the PDS sent no block that hashes to the record's CID");
		ret = sink->record(sink->payload, c->rkey, "", NULL, 0, why.ptr, err);
	}
	ss_buf_release(&why);
	return ret < 0 ? -1 : 0;
}

static void run_release(run *r)
{
	ss_verify__sources_release(&r->src);
	changes_clear(r);
	free(r->changes);
	free(r->rev);
	memset(r, 0, sizeof(*r));
}

/* The checked commit against the member's highest verified revision (core/state/state_floor.h). */
static int check_floor(run *r, ss_error *err)
{
	char cid[SS_CID_STRSZ];

	ss_cid_fmt(cid, &r->commit_cid);
	return ss_state_floor_check(r->m->floor, r->rev, cid, err) < 0 ? -1 : 0;
}

static void set_outcome(run *r)
{
	r->out->commit = ss_xmalloc(SS_CID_STRSZ);
	ss_cid_fmt(r->out->commit, &r->commit_cid);
	r->out->rev = ss_xstrdup(r->rev);
}

/*
 * The incremental way on the getRepo?since answer: 0 done, 1 it could not finish. Without a
 * sink, only the node cache is brought up to date (ss_verify_member_refresh).
 */
static int since(run *r, ss_buf *bytes, const ss_verify_sink *sink, ss_error *err)
{
	ss_cid old_root;
	ss_car *car;
	int ret;

	if (ss_verify__sources_add(&r->src, bytes, &car, true, err) < 0)
		return ss_error_prefix(err, "com.atproto.sync.getRepo");
	if (ss_car_root_count(car) != 1)
		return ss_error_set(err, SS_EINVALID, "the repo's CAR names %zu roots, not 1",
		                    ss_car_root_count(car));
	if (check_commit(r, ss_car_root(car, 0), err) < 0)
		return -1;
	if (r->expect && !ss_cid_equal(&r->commit_cid, r->expect)) {
		r->out->fallback = ss_xstrdup("the repo moved on since");
		return 1;
	}
	if (check_floor(r, err) < 0)
		return -1;
	if (cached_tree(r, &old_root) != 0) {
		r->out->fallback = ss_xstrdup("no local copy of the tree at the last revision");
		return 1;
	}
	ret = read_tree(r, &old_root, err);
	if (ret == 1) {
		r->out->fallback = ss_xstrdup("the tree could not be completed");
		return 1;
	}
	if (ret < 0 || (sink && (fetch_records(r, err) < 0 || emit(r, sink, err) < 0)))
		return -1;
	/* a refused record leaves the cache at the previous tree: the next sync asks again */
	if (!r->out->refused)
		save_tree(r);
	set_outcome(r);
	return 0;
}

int ss_verify_member_sync(const ss_verify_member *m, const ss_verify_sink *sink,
                          ss_verify_outcome *out, ss_error *err)
{
	run r;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	r.m = m;
	r.out = out;
	if (m->car_rc < 0) {
		out->fallback = ss_xstrdup(m->car_err->message);
		ret = 1;
	} else {
		ret = since(&r, m->car, sink, err);
	}
	if (ret < 0)
		ss_error_prefix(err, "'%s' not synced", m->who);
	run_release(&r);
	return ret;
}

int ss_verify_member_refresh(const ss_verify_member *m, const char *commit, ss_verify_outcome *out,
                             ss_error *err)
{
	ss_verify_member vm = *m;
	ss_xrpc_repo_job job;
	ss_cid want, cached, root;
	char *cached_rev = NULL;
	run r;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	memset(&job, 0, sizeof(job));
	r.m = &vm;
	r.out = out;
	r.expect = &want;
	if (ss_cid_parse(&want, commit, strlen(commit), err) < 0) {
		ret = -1;
		goto out;
	}
	if (cache_head(&r, &cached, &cached_rev, &root) != 0) {
		out->fallback = ss_xstrdup("no local copy of the tree to start from");
		ret = 1;
		goto out;
	}
	if (ss_cid_equal(&cached, &want)) {
		ret = 0;
		goto out;
	}
	job.client = m->client;
	job.did = m->did;
	job.since = cached_rev;
	ss_xrpc_get_repo_many(&job, 1, 1, err);
	out->requests++;
	out->bytes += job.car.len;
	vm.since_rev = cached_rev;
	vm.car_rc = job.rc;
	vm.car_err = &job.err;
	vm.car = &job.car;
	if (job.rc < 0) {
		*err = job.err;
		ret = -1;
	} else {
		ret = since(&r, &job.car, NULL, err);
	}
	if (ret < 0)
		ss_error_prefix(err, "the tree of '%s' kept for the next sync", m->who);
out:
	ss_buf_release(&job.car);
	free(cached_rev);
	run_release(&r);
	return ret;
}

int ss_verify_member_full(const ss_verify_member *m, int fd, uint64_t len,
                          const ss_verify_sink *sink, ss_verify_outcome *out, ss_error *err)
{
	void *map = MAP_FAILED;
	ss_car *car = NULL;
	size_t dropped = 0;
	run r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	r.m = m;
	r.out = out;
	if (len == 0 || len > SIZE_MAX) {
		ss_error_set(err, SS_EINVALID, "com.atproto.sync.getRepo: an empty answer");
		goto out;
	}
	map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ss_error_set(err, SS_ERROR, "cannot read the repo's CAR: %s", strerror(errno));
		goto out;
	}
	if (len > SS_CAR_RESIDENT_MAX) {
		r.src.map = map;
		r.src.map_len = (size_t)len;
	}
	if (ss_car_open_mapped(&car, map, (size_t)len, &dropped, err) < 0) {
		ss_error_prefix(err, "com.atproto.sync.getRepo");
		goto out;
	}
	ss_verify__sources_put(&r.src, car);
	if (ss_car_root_count(car) != 1) {
		ss_error_set(err, SS_EINVALID, "the repo's CAR names %zu roots, not 1",
		             ss_car_root_count(car));
		goto out;
	}
	if (check_commit(&r, ss_car_root(car, 0), err) < 0)
		goto out;
	if (check_floor(&r, err) < 0)
		goto out;
	ret = read_tree(&r, NULL, err);
	if (ret == 1)
		ret = ss_error_set(err, SS_EINVALID, "the repo's tree could not be completed");
	if (ret < 0 || emit(&r, sink, err) < 0) {
		ret = -1;
		goto out;
	}
	if (!r.out->refused)
		save_tree(&r);
	set_outcome(&r);
	ret = 0;
out:
	if (ret < 0)
		ss_error_prefix(err, "'%s' not synced", m->who);
	run_release(&r);
	if (map != MAP_FAILED)
		munmap(map, (size_t)len);
	return ret;
}

/* A member's tree read in full: its entries, the node cache, the outcome. */
static void finish_tree(run *r, ss_verify_tree *out)
{
	out->entries = ss_xcalloc(r->nchanges ? r->nchanges : 1, sizeof(*out->entries));
	for (size_t i = 0; i < r->nchanges; i++) {
		out->entries[i].rkey = r->changes[i].rkey;
		r->changes[i].rkey = NULL;
		ss_cid_fmt(out->entries[i].cid, &r->changes[i].cid);
	}
	out->n = r->nchanges;
	save_tree(r);
	set_outcome(r);
	out->commit = r->out->commit;
	out->rev = r->out->rev;
	r->out->commit = r->out->rev = NULL;
}

enum { PHASE_COMMIT, PHASE_TREE, PHASE_DONE };

/* One member's step of a round: the blocks it still needs into *need (0: none, it ended). */
static int tree_step(run *r, int *phase, const ss_cid *commit, ss_verify_tree *out, ss_cid **need,
                     size_t *nneed, ss_error *err)
{
	ss_mst_source src;
	int ret;

	*nneed = 0;
	if (*phase == PHASE_COMMIT) {
		if (!ss_verify__sources_get(&r->src, commit)) {
			*need = (ss_cid *)(void *)ss_xmemdup(commit, sizeof(*commit));
			*nneed = 1;
			return 0;
		}
		if (check_commit(r, commit, err) < 0 || check_floor(r, err) < 0)
			return -1;
		*phase = PHASE_TREE;
	}
	ss_mst_source_init(&src, ss_verify__get_block, &r->src);
	src.collect_missing = true;
	changes_clear(r);
	ret = ss_mst_walk(&src, &r->data_root, PREFIX, on_leaf, r, err);
	if (ret == 0 && src.nmissing) {
		*need =
		    (ss_cid *)(void *)ss_xmemdup(src.missing, src.nmissing * sizeof(*src.missing));
		*nneed = src.nmissing;
	} else if (ret == 0) {
		finish_tree(r, out);
		*phase = PHASE_DONE;
	}
	ss_mst_source_release(&src);
	return ret;
}

/* One member of ss_verify_trees_fetch: its run, where it is, and where it ends (the caller's). */
typedef struct tree_member {
	run r;
	ss_verify_outcome o; /* r.out: the requests and bytes its tree cost */
	ss_cid commit;       /* the head whose tree is read */
	int phase;
	int *rc;                    /* the caller's rcs[i] */
	ss_error *err;              /* the caller's errs[i] */
	ss_verify_tree *out;        /* the caller's out[i] */
	char (*strs)[SS_CID_STRSZ]; /* this round: the blocks it needs, as text, and pointers */
	const char **ptrs;          /* to them for the batch's jobs */
} tree_member;

int ss_verify_trees_fetch(const ss_verify_member *ms, const char *const *commits, size_t n,
                          ss_verify_tree *out, int *rcs, ss_error *errs)
{
	tree_member *tm = ss_xcalloc(n ? n : 1, sizeof(*tm));
	ss_error ignored;

	for (size_t i = 0; i < n; i++) {
		tree_member *t = &tm[i];

		t->rc = &rcs[i];
		t->err = &errs[i];
		t->out = &out[i];
		memset(t->out, 0, sizeof(*t->out));
		ss_error_clear(t->err);
		t->r.m = &ms[i];
		t->r.out = &t->o;
		*t->rc = ss_cid_parse(&t->commit, commits[i], strlen(commits[i]), t->err);
		t->phase = *t->rc < 0 ? PHASE_DONE : PHASE_COMMIT;
		/* What the node cache holds is not asked again: every block is hashed all the same
		 */
		if (!*t->rc)
			load_cache(&t->r);
	}
	/* Rounds in step: each member's missing blocks of a level, all members in one batch. */
	for (int round = 0; round < MAX_ROUNDS + 1; round++) {
		ss_xrpc_blocks_job *jobs = NULL;
		size_t *owner = NULL, njobs = 0, ajobs = 0, aowner = 0;

		for (size_t i = 0; i < n; i++) {
			tree_member *t = &tm[i];
			ss_cid *need = NULL;
			size_t nneed = 0;

			if (t->phase == PHASE_DONE)
				continue;
			if ((*t->rc = tree_step(&t->r, &t->phase, &t->commit, t->out, &need, &nneed,
			                        t->err)) < 0) {
				t->phase = PHASE_DONE;
				continue;
			}
			t->strs = ss_xcalloc(nneed ? nneed : 1, sizeof(*t->strs));
			t->ptrs = ss_xcalloc(nneed ? nneed : 1, sizeof(*t->ptrs));
			for (size_t k = 0; k < nneed; k++) {
				ss_cid_fmt(t->strs[k], &need[k]);
				t->ptrs[k] = t->strs[k];
			}
			for (size_t at = 0; at < nneed; at += BLOCKS_PER_REQUEST) {
				ss_xgrow((void **)&jobs, sizeof(*jobs), njobs + 1, &ajobs);
				ss_xgrow((void **)&owner, sizeof(*owner), njobs + 1, &aowner);
				memset(&jobs[njobs], 0, sizeof(jobs[njobs]));
				jobs[njobs].client = ms[i].client;
				jobs[njobs].did = ms[i].did;
				jobs[njobs].cids = t->ptrs + at;
				jobs[njobs].ncids = nneed - at < BLOCKS_PER_REQUEST
				                        ? nneed - at
				                        : BLOCKS_PER_REQUEST;
				owner[njobs++] = i;
			}
			free(need);
		}
		if (njobs)
			ss_xrpc_get_blocks_many(jobs, njobs, 0, &ignored);
		for (size_t j = 0; j < njobs; j++) {
			tree_member *t = &tm[owner[j]];

			t->o.requests++;
			t->o.bytes += jobs[j].car.len;
			if (t->phase != PHASE_DONE && jobs[j].rc < 0) {
				*t->err = jobs[j].err;
				*t->rc = jobs[j].rc;
				t->phase = PHASE_DONE;
			} else if (t->phase != PHASE_DONE &&
			           (*t->rc = ss_verify__sources_add(&t->r.src, &jobs[j].car, NULL,
			                                            false, t->err)) < 0) {
				ss_error_prefix(t->err, "com.atproto.sync.getBlocks");
				t->phase = PHASE_DONE;
			}
			ss_buf_release(&jobs[j].car);
		}
		for (size_t i = 0; i < n; i++) {
			free(tm[i].strs);
			free(tm[i].ptrs);
			tm[i].strs = NULL;
			tm[i].ptrs = NULL;
		}
		free(jobs);
		free(owner);
		if (!njobs)
			break;
	}
	for (size_t i = 0; i < n; i++) {
		tree_member *t = &tm[i];

		if (t->phase != PHASE_DONE)
			*t->rc = ss_error_set(t->err, SS_EINVALID,
			                      "the repo's tree could not be completed");
		if (*t->rc < 0) {
			ss_verify_tree_release(t->out);
			ss_error_prefix(t->err, "'%s' not synced: the signed tree", ms[i].who);
		}
		t->out->requests = t->o.requests;
		t->out->bytes = t->o.bytes;
		ss_verify_outcome_release(&t->o);
		run_release(&t->r);
	}
	free(tm);
	return 0;
}

int ss_verify_tree_fetch(const ss_verify_member *m, const char *commit, ss_verify_tree *out,
                         ss_error *err)
{
	int rc;

	ss_verify_trees_fetch(m, &commit, 1, out, &rc, err);
	return rc;
}

static int entry_cmp(const void *key, const void *e)
{
	return strcmp(key, ((const ss_verify_entry *)e)->rkey);
}

ss_verify_entry *ss_verify_tree_find(const ss_verify_tree *t, const char *rkey)
{
	return t->n ? bsearch(rkey, t->entries, t->n, sizeof(*t->entries), entry_cmp) : NULL;
}

const char *ss_verify_listed(const ss_verify_tree *t, const char *rkey, const char *cid,
                             const char *json, size_t len)
{
	ss_verify_entry *e = ss_verify_tree_find(t, rkey);
	char *computed = NULL;
	ss_error ignored;
	bool same;

	if (!e)
		return "the member's signed tree holds no such record";
	e->seen = true;
	if (!cid || strcmp(cid, e->cid))
		return "its CID is not the one the member's signed tree names";
	if (!json)
		return NULL; /* the listing's own problem says why */
	if (ss_record_cid_from_json(json, len, &computed, &ignored) < 0)
		return "its value is not a record whose CID can be computed";
	same = !strcmp(computed, e->cid);
	free(computed);
	return same ? NULL : "its value does not hash to its CID (changed on the way)";
}

void ss_verify_tree_release(ss_verify_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].rkey);
	free(t->entries);
	free(t->commit);
	free(t->rev);
	memset(t, 0, sizeof(*t));
}

void ss_verify_forget(const char *cache_dir, const char *did)
{
	ss_buf path = SS_BUF_INIT;

	if (!cache_dir)
		return;
	ss_verify_cache_path(&path, cache_dir, did, "car");
	(void)remove(path.ptr);
	ss_buf_release(&path);
}

void ss_verify_outcome_release(ss_verify_outcome *o)
{
	free(o->commit);
	free(o->rev);
	free(o->fallback);
	free(o->caught);
	memset(o, 0, sizeof(*o));
}

int ss_verify_cache_commit(const char *cache_dir, const char *did, char **rev, char **commit)
{
	ss_verify_member m = {0};
	ss_cid cid, root;
	run r;
	int ret;

	memset(&r, 0, sizeof(r));
	m.did = did;
	m.cache_dir = cache_dir;
	r.m = &m;
	*rev = *commit = NULL;
	ret = cache_head(&r, &cid, rev, &root);
	if (ret == 0) {
		*commit = ss_xmalloc(SS_CID_STRSZ);
		ss_cid_fmt(*commit, &cid);
	}
	run_release(&r);
	return ret;
}
