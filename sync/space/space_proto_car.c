/*
 * space_proto_car.c: the shape of com.atproto.space.getRepo's answer (see
 * sync/space/space_proto.h): a CAR v1 whose roots are the signed commit and the index of the repo's
 * records.
 */
#include "sync/space/space_proto.h"

#include <stdlib.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/util/mem.h"

#define CAR_ROOTS 2 /* [commit, index] */

void ss_space_repo_car_release(ss_space_repo_car *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->entries[i].collection);
		free(c->entries[i].rkey);
	}
	free(c->entries);
	ss_car_free(c->car);
	memset(c, 0, sizeof(*c));
}

static int commit_of(const ss_car_block *b, ss_space_commit *out, ss_error *err)
{
	json_t *v = NULL;
	int ret = ss_cbor_decode(b->data, b->len, &v, err);

	if (ret == 0 && !json_is_object(v))
		ret = ss_error_set(err, SS_EINVALID, "the commit is not a map");
	if (ret == 0)
		ret = ss_space_commit_from_json(out, v, err);
	json_decref(v);
	return ret < 0 ? ss_error_prefix(err, "the signed commit") : 0;
}

/* The index block: a map "<collection>/<rkey>" -> link, in DAG-CBOR key order. */
static int index_of(const ss_car_block *b, ss_space_repo_car *out, ss_error *err)
{
	ss_cbor_reader r;
	ss_cbor_item it;
	const unsigned char *prev = NULL;
	size_t prev_len = 0, alloc = 0;

	ss_cbor_reader_init(&r, b->data, b->len);
	if (ss_cbor_read(&r, &it, err) < 0)
		return -1;
	if (it.type != SS_CBOR_MAP)
		return ss_error_set(err, SS_EINVALID, "the index is not a map");
	for (size_t i = 0, pairs = it.len; i < pairs; i++) {
		ss_cbor_item key, val;
		ss_space_repo_entry *e;
		const char *slash;

		if (ss_cbor_read(&r, &key, err) < 0)
			return -1;
		if (key.type != SS_CBOR_TEXT)
			return ss_error_set(err, SS_EINVALID, "an index key is not text");
		if (prev && !ss_cbor_key_less(prev, prev_len, key.ptr, key.len))
			return ss_error_set(err, SS_EINVALID, "the index keys are not in order");
		prev = key.ptr;
		prev_len = key.len;
		if (ss_cbor_read(&r, &val, err) < 0)
			return -1;
		if (val.type != SS_CBOR_LINK)
			return ss_error_set(err, SS_EINVALID, "an index value is not a CID link");
		slash = memchr(key.ptr, '/', key.len);
		if (!slash || slash == (const char *)key.ptr ||
		    slash == (const char *)key.ptr + key.len - 1 || memchr(key.ptr, 0, key.len))
			return ss_error_set(err, SS_EINVALID,
			                    "an index key is not \"<collection>/<rkey>\"");
		ss_xgrow((void **)&out->entries, sizeof(*out->entries), out->n + 1, &alloc);
		e = &out->entries[out->n++];
		memset(e, 0, sizeof(*e));
		e->collection =
		    ss_xstrndup((const char *)key.ptr, (size_t)(slash - (const char *)key.ptr));
		e->rkey =
		    ss_xstrndup(slash + 1, key.len - (size_t)(slash + 1 - (const char *)key.ptr));
		e->cid = val.cid;
	}
	if (r.p != r.end)
		return ss_error_set(err, SS_EINVALID, "bytes after the index");
	return 0;
}

static int cid_cmp(const void *a, const void *b)
{
	const ss_cid *x = a, *y = b;

	return x->codec != y->codec ? (x->codec < y->codec ? -1 : 1)
	                            : memcmp(x->digest, y->digest, sizeof(x->digest));
}

/*
 * Every block but the roots is a record the index names; each entry gets its block. A block
 * that does not hash to its CID (left out by the reader) is named by the record the index says
 * it is.
 */
static int records_of(ss_space_repo_car *out, const ss_cid *commit, const ss_cid *index,
                      ss_error *err)
{
	ss_cid *named = ss_xcalloc(out->n ? out->n : 1, sizeof(*named));
	int ret = 0;

	for (size_t i = 0; i < out->n; i++) {
		const ss_car_block *b = ss_car_get(out->car, &out->entries[i].cid);

		named[i] = out->entries[i].cid;
		if (b) {
			out->entries[i].data = b->data;
			out->entries[i].len = b->len;
		} else if (ret == 0 && ss_car_is_bad(out->car, &out->entries[i].cid)) {
			char s[SS_CID_STRSZ];

			ss_cid_fmt(s, &out->entries[i].cid);
			ret = ss_error_set(
			    err, SS_EINVALID,
			    "the block of the record '%s' (%s) does not hash to its CID "
			    "%s (changed by the host or on the way)",
			    out->entries[i].rkey, out->entries[i].collection, s);
		}
	}
	/* a bad block the index does not name */
	if (ret == 0 && ss_car_bad_count(out->car)) {
		char s[SS_CID_STRSZ];

		ss_cid_fmt(s, ss_car_bad(out->car, 0));
		ret = ss_error_set(err, SS_EINVALID,
		                   "invalid CAR: a block does not hash to its CID %s", s);
	}
	qsort(named, out->n, sizeof(*named), cid_cmp);
	for (size_t i = 0; i < ss_car_block_count(out->car) && ret == 0; i++) {
		const ss_car_block *b = ss_car_block_at(out->car, i);

		if (ss_cid_equal(&b->cid, commit) || ss_cid_equal(&b->cid, index))
			continue;
		if (!bsearch(&b->cid, named, out->n, sizeof(*named), cid_cmp)) {
			char s[SS_CID_STRSZ];

			ss_cid_fmt(s, &b->cid);
			ret = ss_error_set(err, SS_EINVALID, "the block %s is not in the index", s);
		}
	}
	free(named);
	return ret;
}

int ss_space_proto_repo_car(const void *data, size_t len, ss_space_repo_car *out, ss_error *err)
{
	const ss_car_block *commit, *index;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = ss_car_open_keep_bad(&out->car, data, len, err)) < 0)
		goto out;
	if (ss_car_root_count(out->car) != CAR_ROOTS) {
		ret = ss_error_set(err, SS_EINVALID, "the CAR has %zu roots, not [commit, index]",
		                   ss_car_root_count(out->car));
		goto out;
	}
	commit = ss_car_get(out->car, ss_car_root(out->car, 0));
	index = ss_car_get(out->car, ss_car_root(out->car, 1));
	if (!commit || !index) {
		const ss_cid *cid = ss_car_root(out->car, commit ? 1 : 0);

		ret = ss_error_set(
		    err, SS_EINVALID, "the CAR lacks its %s block%s", commit ? "index" : "commit",
		    ss_car_is_bad(out->car, cid) ? ": it does not hash to its CID" : "");
		goto out;
	}
	if ((ret = commit_of(commit, &out->commit, err)) < 0 ||
	    (ret = index_of(index, out, err)) < 0 ||
	    (ret = records_of(out, &commit->cid, &index->cid, err)) < 0)
		goto out;
out:
	if (ret < 0)
		ss_space_repo_car_release(out);
	return ret;
}
