/*
 * The MST: the input read as a node must decode or be refused; read as lines "<flag><key>", it
 * gives two trees (flag a: key only in the old tree, b: only in the new, c: in both, same value,
 * d: in both, values differ), built, then walked and diffed: the walk must give the old tree's
 * keys in order, a prefix walk those with the prefix, and the diff exactly the a, b and d keys.
 */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/car.h"
#include "core/atproto/mst.h"
#include "core/atproto/mst_priv.h"
#include "core/util/mem.h"

typedef struct line {
	char flag;
	const char *key;
	size_t len;
	size_t index;
} line;

typedef struct expect {
	line *lines;
	size_t n, at;
	char want; /* walk: only lines whose flag is in "acd"; diff: "abd" */
	const char *prefix;
	size_t prefix_len;
} expect;

static int line_cmp(const void *a, const void *b)
{
	const line *x = a, *y = b;
	int c = ss_mst__keycmp(x->key, x->len, y->key, y->len);

	return c ? c : (x->index < y->index ? -1 : 1);
}

/* The next line the walk or diff must report, given the rule in e->want. */
static line *next_expected(expect *e)
{
	while (e->at < e->n) {
		line *l = &e->lines[e->at];
		int in_old = l->flag != 'b';
		if (e->prefix_len &&
		    (l->len < e->prefix_len || memcmp(l->key, e->prefix, e->prefix_len))) {
			e->at++;
			continue;
		}
		if (e->want == 'w' ? in_old : l->flag != 'c')
			return l;
		e->at++;
	}
	return NULL;
}

static int on_leaf(void *ctx, const char *key, size_t len, const ss_cid *v, ss_error *err)
{
	expect *e = ctx;
	line *l = next_expected(e);

	fuzz_check(l && l->len == len && !memcmp(l->key, key, len), "walk gives another key");
	e->at++;
	return 0;
}

static int on_change(void *ctx, ss_mst_op op, const char *key, size_t len, const ss_cid *a,
                     const ss_cid *b, ss_error *err)
{
	expect *e = ctx;
	line *l = next_expected(e);

	fuzz_check(l && l->len == len && !memcmp(l->key, key, len), "diff gives another key");
	fuzz_check(op == (l->flag == 'a'   ? SS_MST_DELETE
	                  : l->flag == 'b' ? SS_MST_CREATE
	                                   : SS_MST_UPDATE),
	           "diff gives another change");
	e->at++;
	return 0;
}

static void put_varint(ss_buf *b, size_t v)
{
	while (v >= 0x80) {
		ss_buf_putc(b, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	ss_buf_putc(b, (char)v);
}

static int put(void *ctx, const ss_cid *cid, const unsigned char *data, size_t len, ss_error *err)
{
	unsigned char bin[SS_CID_BINSZ];

	ss_cid_to_bytes(bin, cid);
	put_varint(ctx, sizeof(bin) + len);
	ss_buf_put(ctx, bin, sizeof(bin));
	ss_buf_put(ctx, data, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char header[] = "\x11\xa2\x65roots\x80\x67version\x01";
	ss_buf car = SS_BUF_INIT;
	ss_mst_leaf *old_leaves, *new_leaves;
	size_t n = 0, nold = 0, nnew = 0, kept = 0;
	line *lines = ss_xcalloc(size / 2 + 1, sizeof(*lines));
	ss_cid old_root, new_root;
	ss_mst_node node;
	ss_mst_source src;
	ss_car *parsed;
	ss_error err;
	expect e;

	if (ss_mst__node_decode(&node, data, size, &err) == 0)
		ss_mst__node_release(&node);

	/* At most 512 keys: trees of a few layers, and a fast target. */
	for (size_t i = 0; i < size && n < 512;) {
		const uint8_t *end = memchr(data + i, '\n', size - i);
		size_t len = end ? (size_t)(end - (data + i)) : size - i;
		if (len >= 2 && len - 1 <= SS_MST_MAX_KEY && data[i] >= 'a' && data[i] <= 'd' &&
		    !memchr(data + i + 1, 0, len - 1)) {
			lines[n] = (line){(char)data[i], (const char *)data + i + 1, len - 1, n};
			n++;
		}
		i += len + 1;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++) /* a key given twice: the first line counts */
		if (kept == 0 || ss_mst__keycmp(lines[kept - 1].key, lines[kept - 1].len,
		                                lines[i].key, lines[i].len) != 0)
			lines[kept++] = lines[i];
	n = kept;

	old_leaves = ss_xcalloc(n + 1, sizeof(*old_leaves));
	new_leaves = ss_xcalloc(n + 1, sizeof(*new_leaves));
	for (size_t i = 0; i < n; i++) {
		ss_mst_leaf l = {lines[i].key, lines[i].len, {0}};
		ss_cid_compute(&l.value, SS_CID_DAG_CBOR, l.key, l.key_len);
		if (lines[i].flag != 'b')
			old_leaves[nold++] = l;
		if (lines[i].flag == 'd')
			ss_cid_compute(&l.value, SS_CID_RAW, l.key, l.key_len);
		if (lines[i].flag != 'a')
			new_leaves[nnew++] = l;
	}
	ss_buf_put(&car, header, sizeof(header) - 1);
	fuzz_check(ss_mst_build(old_leaves, nold, put, &car, &old_root, &err) == 0, "build");
	fuzz_check(ss_mst_build(new_leaves, nnew, put, &car, &new_root, &err) == 0, "build");
	fuzz_check(ss_car_open(&parsed, car.ptr, car.len, &err) == 0, "built blocks do not read");
	ss_mst_source_init(&src, ss_car_get_block, parsed);

	e = (expect){lines, n, 0, 'w', NULL, 0};
	fuzz_check(ss_mst_walk(&src, &old_root, "", on_leaf, &e, &err) == 0, "walk fails");
	fuzz_check(next_expected(&e) == NULL, "walk misses keys");
	if (n > 0) {
		char prefix[3] = {lines[n / 2].key[0],
		                  lines[n / 2].len > 1 ? lines[n / 2].key[1] : 0};
		e = (expect){lines, n, 0, 'w', prefix, strlen(prefix)};
		fuzz_check(ss_mst_walk(&src, &old_root, prefix, on_leaf, &e, &err) == 0, "walk");
		fuzz_check(next_expected(&e) == NULL, "prefix walk misses keys");
	}
	e = (expect){lines, n, 0, 'd', NULL, 0};
	fuzz_check(ss_mst_diff(&src, &old_root, &new_root, "", on_change, &e, &err) == 0, "diff");
	fuzz_check(next_expected(&e) == NULL, "diff misses changes");

	ss_mst_source_release(&src);
	ss_car_free(parsed);
	ss_buf_release(&car);
	free(old_leaves);
	free(new_leaves);
	free(lines);
	return 0;
}
