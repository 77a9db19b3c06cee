/* Walks and diffs of MSTs over a key range (core/atproto/mst.h): a cursor over one tree's items in
 * key order, its stack on the heap. */
#include "core/atproto/mst.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/mst_priv.h"
#include "core/util/mem.h"

/* A bound of a key range: keys strictly beyond it (lo) or before it (hi); none when !set. */
typedef struct bound {
	const char *key;
	size_t len;
	bool set;
} bound;

typedef struct frame {
	ss_mst_node nd;
	size_t pos;    /* 0: the left subtree; 2i+1: entry i; 2i+2: entry i's subtree */
	bound lo, hi;  /* the keys of this node lie strictly between them */
	int max_layer; /* the keys of this node lie below this layer */
	ss_cid cid;    /* for messages */
} frame;

typedef enum { ITEM_END, ITEM_LEAF, ITEM_TREE } item_kind;

typedef struct item {
	item_kind kind;
	const char *key; /* ITEM_LEAF */
	size_t key_len;
	ss_cid cid; /* the leaf's value, or the subtree */
	bound lo, hi;
	int max_layer;
} item;

typedef struct cursor {
	ss_mst_source *src;
	frame *stack;
	int depth;
	bool root_pending, done;
	ss_cid root;
	/* The range: keys k with lo <= k < hi (no hi: unbounded). */
	const char *lo;
	size_t lo_len;
	char *hi;
	size_t hi_len;
	bool has_hi;
} cursor;

static void cursor_init(cursor *c, ss_mst_source *src, const ss_cid *root, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	memset(c, 0, sizeof(*c));
	c->src = src;
	c->stack = ss_xcalloc(SS_MST_MAX_DEPTH, sizeof(*c->stack));
	c->root_pending = root != NULL;
	if (root)
		c->root = *root;
	c->lo = prefix ? prefix : "";
	c->lo_len = n;
	/* The first key after every key with the prefix: the prefix with its last byte that is
	 * not 0xff incremented and what follows dropped. */
	c->hi = ss_xmemdup(c->lo, n);
	while (n > 0 && (unsigned char)c->hi[n - 1] == 0xff)
		n--;
	if (n > 0) {
		c->hi[n - 1] = (char)((unsigned char)c->hi[n - 1] + 1);
		c->hi_len = n;
		c->has_hi = true;
	}
}

static void cursor_release(cursor *c)
{
	for (int i = 0; i < c->depth; i++)
		ss_mst__node_release(&c->stack[i].nd);
	free(c->stack);
	free(c->hi);
}

/* Whether a subtree whose keys lie strictly between lo and hi can hold a key of the range. */
static bool tree_in_range(const cursor *c, const bound *lo, const bound *hi)
{
	if (hi->set && ss_mst__keycmp(hi->key, hi->len, c->lo, c->lo_len) <= 0)
		return false;
	if (lo->set && c->has_hi && ss_mst__keycmp(lo->key, lo->len, c->hi, c->hi_len) >= 0)
		return false;
	return true;
}

/* The next item of the range (the cursor does not move). */
static void cursor_peek(cursor *c, item *it)
{
	memset(it, 0, sizeof(*it));
	if (c->root_pending) {
		it->kind = ITEM_TREE;
		it->cid = c->root;
		it->max_layer = INT_MAX;
		return;
	}
	while (!c->done && c->depth > 0) {
		frame *f = &c->stack[c->depth - 1];
		size_t i = f->pos / 2;

		if (f->pos > 2 * f->nd.n) {
			ss_mst__node_release(&f->nd);
			c->depth--;
			continue;
		}
		if (f->pos % 2 == 1) {
			const ss_mst_entry *e = &f->nd.e[i];
			if (ss_mst__keycmp(e->key, e->key_len, c->lo, c->lo_len) < 0) {
				f->pos++;
				continue;
			}
			if (c->has_hi &&
			    ss_mst__keycmp(e->key, e->key_len, c->hi, c->hi_len) >= 0) {
				c->done = true; /* every key from here on is beyond the range */
				break;
			}
			it->kind = ITEM_LEAF;
			it->key = e->key;
			it->key_len = e->key_len;
			it->cid = e->value;
			return;
		}
		/* A subtree: the left one, or entry i-1's. */
		if (i == 0 ? !f->nd.has_left : !f->nd.e[i - 1].has_tree) {
			f->pos++;
			continue;
		}
		it->cid = i == 0 ? f->nd.left : f->nd.e[i - 1].tree;
		it->lo = i == 0 ? f->lo : (bound){f->nd.e[i - 1].key, f->nd.e[i - 1].key_len, true};
		it->hi = i < f->nd.n ? (bound){f->nd.e[i].key, f->nd.e[i].key_len, true} : f->hi;
		it->max_layer = f->nd.n ? f->nd.layer : f->max_layer - 1;
		if (!tree_in_range(c, &it->lo, &it->hi)) {
			f->pos++;
			continue;
		}
		it->kind = ITEM_TREE;
		return;
	}
	it->kind = ITEM_END;
}

/* Moves past the item cursor_peek returned. */
static void cursor_next(cursor *c)
{
	if (c->root_pending)
		c->root_pending = false;
	else if (c->depth > 0)
		c->stack[c->depth - 1].pos++;
}

static int node_error(ss_error *err, const ss_cid *cid)
{
	char s[SS_CID_STRSZ];

	ss_cid_fmt(s, cid);
	return ss_error_prefix(err, "MST node %s", s);
}

/* Opens the subtree item it (what cursor_peek returned) and moves into it. */
static int cursor_descend(cursor *c, const item *it, ss_error *err)
{
	const unsigned char *data;
	size_t len;
	frame *f;
	bool is_root = c->root_pending;

	cursor_next(c);
	if (c->depth >= SS_MST_MAX_DEPTH) {
		ss_error_set(err, SS_EINVALID, "tree deeper than %d levels", SS_MST_MAX_DEPTH);
		return node_error(err, &it->cid);
	}
	if (c->src->get(c->src->ctx, &it->cid, &data, &len, err) < 0) {
		if (err->code == SS_ENOTFOUND && c->src->collect_missing) {
			ss_xgrow((void **)&c->src->missing, sizeof(ss_cid), c->src->nmissing + 1,
			         &c->src->missing_alloc);
			c->src->missing[c->src->nmissing++] = it->cid;
			return 0;
		}
		return -1;
	}
	if (it->cid.codec != SS_CID_DAG_CBOR || !ss_cid_matches(&it->cid, data, len)) {
		ss_error_set(err, SS_EINVALID, "block does not hash to its CID");
		return node_error(err, &it->cid);
	}
	f = &c->stack[c->depth];
	memset(f, 0, sizeof(*f));
	if (ss_mst__node_decode(&f->nd, data, len, err) < 0)
		return node_error(err, &it->cid);
	c->depth++;
	c->src->opened++;
	f->lo = it->lo;
	f->hi = it->hi;
	f->max_layer = it->max_layer;
	f->cid = it->cid;
	if (f->nd.n == 0 && !is_root && !f->nd.has_left) {
		ss_error_set(err, SS_EINVALID, "empty node inside the tree");
		return node_error(err, &it->cid);
	}
	if (f->nd.n > 0 &&
	    (f->nd.layer >= f->max_layer ||
	     (f->lo.set &&
	      ss_mst__keycmp(f->nd.e[0].key, f->nd.e[0].key_len, f->lo.key, f->lo.len) <= 0) ||
	     (f->hi.set && ss_mst__keycmp(f->nd.e[f->nd.n - 1].key, f->nd.e[f->nd.n - 1].key_len,
	                                  f->hi.key, f->hi.len) >= 0))) {
		ss_error_set(err, SS_EINVALID, "keys outside their place in the tree");
		return node_error(err, &it->cid);
	}
	return 0;
}

int ss_mst_walk(ss_mst_source *src, const ss_cid *root, const char *prefix, ss_mst_leaf_fn fn,
                void *fctx, ss_error *err)
{
	cursor c;
	item it;
	int ret = -1;

	cursor_init(&c, src, root, prefix);
	for (;;) {
		cursor_peek(&c, &it);
		if (it.kind == ITEM_END)
			break;
		if (it.kind == ITEM_TREE) {
			if (cursor_descend(&c, &it, err) < 0)
				goto out;
			continue;
		}
		if (fn(fctx, it.key, it.key_len, &it.cid, err) < 0)
			goto out;
		cursor_next(&c);
	}
	ret = 0;
out:
	cursor_release(&c);
	return ret;
}

int ss_mst_diff(ss_mst_source *src, const ss_cid *old_root, const ss_cid *new_root,
                const char *prefix, ss_mst_diff_fn fn, void *fctx, ss_error *err)
{
	cursor a, b;
	item x, y;
	int ret = -1, cmp;

	cursor_init(&a, src, old_root, prefix);
	cursor_init(&b, src, new_root, prefix);
	for (;;) {
		cursor_peek(&a, &x);
		cursor_peek(&b, &y);
		if (x.kind == ITEM_END && y.kind == ITEM_END)
			break;
		if (x.kind == ITEM_TREE && y.kind == ITEM_TREE && ss_cid_equal(&x.cid, &y.cid)) {
			/* The same subtree next on both sides: the same keys, nothing to open. */
			cursor_next(&a);
			cursor_next(&b);
			continue;
		}
		if (x.kind == ITEM_TREE || y.kind == ITEM_TREE) {
			if (x.kind == ITEM_TREE && cursor_descend(&a, &x, err) < 0)
				goto out;
			if (y.kind == ITEM_TREE && cursor_descend(&b, &y, err) < 0)
				goto out;
			continue;
		}
		/* Two leaves, or a leaf and the end. */
		if (x.kind == ITEM_END)
			cmp = 1;
		else if (y.kind == ITEM_END)
			cmp = -1;
		else
			cmp = ss_mst__keycmp(x.key, x.key_len, y.key, y.key_len);
		if (cmp < 0) {
			if (fn(fctx, SS_MST_DELETE, x.key, x.key_len, &x.cid, NULL, err) < 0)
				goto out;
			cursor_next(&a);
		} else if (cmp > 0) {
			if (fn(fctx, SS_MST_CREATE, y.key, y.key_len, NULL, &y.cid, err) < 0)
				goto out;
			cursor_next(&b);
		} else {
			if (!ss_cid_equal(&x.cid, &y.cid) &&
			    fn(fctx, SS_MST_UPDATE, x.key, x.key_len, &x.cid, &y.cid, err) < 0)
				goto out;
			cursor_next(&a);
			cursor_next(&b);
		}
	}
	ret = 0;
out:
	cursor_release(&a);
	cursor_release(&b);
	return ret;
}
