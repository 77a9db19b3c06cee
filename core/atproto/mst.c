#include "core/atproto/mst.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/atproto/crypto.h"
#include "core/atproto/mst_priv.h"
#include "core/util/mem.h"

void ss_mst_source_init(ss_mst_source *src, ss_mst_get_fn get, void *ctx)
{
	memset(src, 0, sizeof(*src));
	src->get = get;
	src->ctx = ctx;
}

void ss_mst_source_release(ss_mst_source *src)
{
	if (!src)
		return;
	free(src->missing);
	src->missing = NULL;
	src->nmissing = src->missing_alloc = 0;
}

int ss_mst_key_height(const char *key, size_t len)
{
	uint8_t md[SS_SHA256_LEN];
	int zeros = 0;

	ss_crypto_sha256(key, len, md);
	for (size_t i = 0; i < SS_SHA256_LEN; i++) {
		if (md[i] == 0) {
			zeros += 8;
			continue;
		}
		for (int b = 7; b >= 0 && !(md[i] >> b & 1); b--)
			zeros++;
		break;
	}
	return zeros / 2;
}

int ss_mst__keycmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int bad_node(ss_error *err, const char *what)
{
	return ss_error_set(err, SS_EINVALID, "invalid MST node: %s", what);
}

/* Reads the next map key, which must be name. */
static int expect_key(ss_cbor_reader *r, ss_cbor_item *key, const ss_cbor_item *prev,
                      const char *name, ss_error *err)
{
	if (ss_cbor_read_key(r, key, prev, err) < 0)
		return ss_error_prefix(err, "invalid MST node");
	if (key->len != strlen(name) || memcmp(key->ptr, name, key->len) != 0)
		return bad_node(err, "unexpected field");
	return 0;
}

static int read_item(ss_cbor_reader *r, ss_cbor_item *it, ss_error *err)
{
	if (ss_cbor_read(r, it, err) < 0)
		return ss_error_prefix(err, "invalid MST node");
	return 0;
}

static int read_entry(ss_cbor_reader *r, ss_mst_node *nd, size_t i, char *cur, size_t *cur_len,
                      ss_buf *keys, size_t *offs, ss_error *err)
{
	/* The map's keys (exactly k, p, t, v: their canonical order) and their values. */
	ss_cbor_item it, k, p, t, v, kv, pv, tv, vv;
	ss_mst_entry *e = &nd->e[i];
	size_t plen, common;
	int c;

	if (read_item(r, &it, err) < 0)
		return -1;
	if (it.type != SS_CBOR_MAP || it.len != 4)
		return bad_node(err, "entry is not a map of k, p, t, v");
	if (expect_key(r, &k, NULL, "k", err) < 0 || read_item(r, &kv, err) < 0 ||
	    expect_key(r, &p, &k, "p", err) < 0 || read_item(r, &pv, err) < 0 ||
	    expect_key(r, &t, &p, "t", err) < 0 || read_item(r, &tv, err) < 0 ||
	    expect_key(r, &v, &t, "v", err) < 0 || read_item(r, &vv, err) < 0)
		return -1;
	if (kv.type != SS_CBOR_BYTES)
		return bad_node(err, "entry key is not bytes");
	if (pv.type != SS_CBOR_INT || pv.i < 0 || (uint64_t)pv.i > *cur_len ||
	    (i == 0 && pv.i != 0))
		return bad_node(err, "entry prefix length out of range");
	if (tv.type != SS_CBOR_LINK && tv.type != SS_CBOR_NULL)
		return bad_node(err, "entry subtree is not a link or null");
	if (vv.type != SS_CBOR_LINK)
		return bad_node(err, "entry value is not a link");
	plen = (size_t)pv.i;
	if (plen + kv.len > SS_MST_MAX_KEY || plen + kv.len == 0)
		return bad_node(err, "key empty or too long");
	if (memchr(kv.ptr, 0, kv.len))
		return bad_node(err, "key holds a NUL byte");
	/* The key is cur[:plen] + the suffix; it must sort after cur, the key before it. */
	common = kv.len < *cur_len - plen ? kv.len : *cur_len - plen;
	c = memcmp(kv.ptr, cur + plen, common);
	if (i > 0 && (c < 0 || (c == 0 && kv.len <= *cur_len - plen)))
		return bad_node(err, "keys out of order");
	memcpy(cur + plen, kv.ptr, kv.len);
	*cur_len = plen + kv.len;
	offs[i] = keys->len;
	ss_buf_put(keys, cur, *cur_len);
	ss_buf_putc(keys, '\0');
	e->key_len = *cur_len;
	e->has_tree = tv.type == SS_CBOR_LINK;
	e->tree = tv.cid;
	e->value = vv.cid;
	return 0;
}

int ss_mst__node_decode(ss_mst_node *nd, const unsigned char *data, size_t len, ss_error *err)
{
	ss_cbor_reader r;
	ss_cbor_item it, ke, kl;
	ss_buf keys = SS_BUF_INIT;
	char cur[SS_MST_MAX_KEY];
	size_t cur_len = 0, *offs = NULL;
	int ret = -1;

	memset(nd, 0, sizeof(*nd));
	nd->layer = -1;
	ss_cbor_reader_init(&r, data, len);
	if (read_item(&r, &it, err) < 0)
		goto out;
	if (it.type != SS_CBOR_MAP || it.len != 2) {
		bad_node(err, "not a map of e and l");
		goto out;
	}
	if (expect_key(&r, &ke, NULL, "e", err) < 0 || read_item(&r, &it, err) < 0)
		goto out;
	if (it.type != SS_CBOR_ARRAY) {
		bad_node(err, "entries are not a list");
		goto out;
	}
	nd->n = it.len;
	nd->e = ss_xcalloc(it.len, sizeof(*nd->e));
	offs = ss_xcalloc(it.len, sizeof(*offs));
	for (size_t i = 0; i < nd->n; i++)
		if (read_entry(&r, nd, i, cur, &cur_len, &keys, offs, err) < 0)
			goto out;
	if (expect_key(&r, &kl, &ke, "l", err) < 0 || read_item(&r, &it, err) < 0)
		goto out;
	if (it.type != SS_CBOR_LINK && it.type != SS_CBOR_NULL) {
		bad_node(err, "left subtree is not a link or null");
		goto out;
	}
	nd->has_left = it.type == SS_CBOR_LINK;
	nd->left = it.cid;
	if (r.p != r.end) {
		bad_node(err, "trailing bytes");
		goto out;
	}
	nd->keys = ss_buf_detach(&keys, NULL);
	for (size_t i = 0; i < nd->n; i++) {
		int h;
		nd->e[i].key = nd->keys + offs[i];
		h = ss_mst_key_height(nd->e[i].key, nd->e[i].key_len);
		if (i > 0 && h != nd->layer) {
			bad_node(err, "keys of different layers");
			goto out;
		}
		nd->layer = h;
	}
	ret = 0;
out:
	free(offs);
	ss_buf_release(&keys);
	if (ret < 0)
		ss_mst__node_release(nd);
	return ret;
}

void ss_mst__node_release(ss_mst_node *nd)
{
	free(nd->e);
	free(nd->keys);
	memset(nd, 0, sizeof(*nd));
	nd->layer = -1;
}
