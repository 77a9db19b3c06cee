/* Building an MST from its leaves (core/atproto/mst.h), node by node as the reference lays them
 * out. */
#include "core/atproto/mst.h"

#include <stdlib.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/atproto/mst_priv.h"
#include "core/util/mem.h"

typedef struct builder {
	const ss_mst_leaf **leaves; /* sorted */
	int *height;
	ss_mst_put_fn put;
	void *pctx;
	ss_buf node;
} builder;

static int leaf_cmp(const void *a, const void *b)
{
	const ss_mst_leaf *x = *(const ss_mst_leaf *const *)a, *y = *(const ss_mst_leaf *const *)b;

	return ss_mst__keycmp(x->key, x->key_len, y->key, y->key_len);
}

static void put_text(ss_buf *out, const char *s)
{
	ss_cbor_put_head(out, 3, strlen(s));
	ss_buf_puts(out, s);
}

static void put_link_or_null(ss_buf *out, const ss_cid *cid)
{
	if (cid)
		ss_cbor_put_link(out, cid);
	else
		ss_buf_putc(out, (char)0xf6);
}

/* Builds the node of layer for leaves [lo, hi) (all of height <= layer); *out its CID. */
static int build(builder *b, size_t lo, size_t hi, int layer, ss_cid *out, ss_error *err)
{
	ss_cid *subs = NULL;
	size_t *at = NULL, n = 0, prev = lo;
	bool *has = NULL;
	ss_buf *o = &b->node;
	int ret = -1;

	at = ss_xcalloc(hi - lo + 1, sizeof(*at));
	for (size_t i = lo; i < hi; i++)
		if (b->height[i] == layer)
			at[n++] = i;
	/* Subtree k holds the leaves before entry k (k = n: after the last entry); subtree 0 is
	 * the node's left link, subtree k + 1 entry k's. */
	subs = ss_xcalloc(n + 1, sizeof(*subs));
	has = ss_xcalloc(n + 1, sizeof(*has));
	for (size_t k = 0; k <= n; k++) {
		size_t end = k < n ? at[k] : hi;
		if (end > prev) {
			if (build(b, prev, end, layer - 1, &subs[k], err) < 0)
				goto out;
			has[k] = true;
		}
		prev = end + 1;
	}
	ss_buf_clear(o);
	ss_cbor_put_head(o, 5, 2);
	put_text(o, "e");
	ss_cbor_put_head(o, 4, n);
	for (size_t k = 0; k < n; k++) {
		const ss_mst_leaf *e = b->leaves[at[k]], *p = k ? b->leaves[at[k - 1]] : NULL;
		size_t common = 0;

		while (p && common < p->key_len && common < e->key_len &&
		       p->key[common] == e->key[common])
			common++;
		ss_cbor_put_head(o, 5, 4);
		put_text(o, "k");
		ss_cbor_put_head(o, 2, e->key_len - common);
		ss_buf_put(o, e->key + common, e->key_len - common);
		put_text(o, "p");
		ss_cbor_put_head(o, 0, common);
		put_text(o, "t");
		put_link_or_null(o, has[k + 1] ? &subs[k + 1] : NULL);
		put_text(o, "v");
		ss_cbor_put_link(o, &e->value);
	}
	put_text(o, "l");
	put_link_or_null(o, has[0] ? &subs[0] : NULL);
	ss_cid_compute(out, SS_CID_DAG_CBOR, o->ptr, o->len);
	ret = b->put(b->pctx, out, (const unsigned char *)o->ptr, o->len, err);
out:
	free(at);
	free(subs);
	free(has);
	return ret;
}

int ss_mst_build(const ss_mst_leaf *leaves, size_t n, ss_mst_put_fn put, void *pctx, ss_cid *root,
                 ss_error *err)
{
	builder b = {NULL, NULL, put, pctx, SS_BUF_INIT};
	int top = 0, ret = -1;

	b.leaves = ss_xcalloc(n, sizeof(*b.leaves));
	b.height = ss_xcalloc(n, sizeof(*b.height));
	for (size_t i = 0; i < n; i++)
		b.leaves[i] = &leaves[i];
	qsort(b.leaves, n, sizeof(*b.leaves), leaf_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && leaf_cmp(&b.leaves[i - 1], &b.leaves[i]) == 0) {
			ss_error_set(err, SS_EINVALID, "MST key '%.*s' given twice",
			             (int)b.leaves[i]->key_len, b.leaves[i]->key);
			goto out;
		}
		b.height[i] = ss_mst_key_height(b.leaves[i]->key, b.leaves[i]->key_len);
		if (b.height[i] > top)
			top = b.height[i];
	}
	ret = build(&b, 0, n, top, root, err);
out:
	free(b.leaves);
	free(b.height);
	ss_buf_release(&b.node);
	return ret;
}
