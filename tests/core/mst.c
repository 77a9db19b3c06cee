#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/atproto/car.h"
#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/atproto/mst.h"
#include "core/atproto/mst_priv.h"
#include "core/util/mem.h"
#include "support/cborvec.h"
#include "support/support.h"

/* What a walk or a diff reported, one line each: "<key> <cid>" or "<op> <key>". */
static int on_leaf(void *ctx, const char *key, size_t key_len, const ss_cid *value, ss_error *err)
{
	char s[SS_CID_STRSZ];

	ss_cid_fmt(s, value);
	assert_int_equal(strlen(key), key_len);
	ss_buf_printf(ctx, "%s %s\n", key, s);
	return 0;
}

static int on_change(void *ctx, ss_mst_op op, const char *key, size_t key_len,
                     const ss_cid *old_value, const ss_cid *new_value, ss_error *err)
{
	static const char *const names[] = {"create", "update", "delete"};

	assert_true((old_value == NULL) == (op == SS_MST_CREATE));
	assert_true((new_value == NULL) == (op == SS_MST_DELETE));
	ss_buf_printf(ctx, "%s %.*s\n", names[op], (int)key_len, key);
	return 0;
}

static void test_mst__key_heights(void **state)
{
	json_t *cases = ss_test_json("vectors/mst-key-heights.json"), *c;
	size_t i;

	assert_true(json_array_size(cases) >= 9);
	json_array_foreach(cases, i, c)
	{
		const char *key = json_string_value(json_object_get(c, "key"));
		assert_int_equal(ss_mst_key_height(key, strlen(key)),
		                 json_integer_value(json_object_get(c, "height")));
	}
	json_decref(cases);
}

/* Builds the tree of keys (a JSON list) all valued cid into car; returns its root. */
static ss_cid build_keys(ss_buf *car, const json_t *keys, const ss_cid *cid)
{
	size_t n = json_array_size(keys);
	ss_mst_leaf *leaves = ss_xcalloc(n, sizeof(*leaves));
	ss_error err;
	ss_cid root;

	for (size_t i = 0; i < n; i++) {
		leaves[i].key = json_string_value(json_array_get(keys, i));
		leaves[i].key_len = strlen(leaves[i].key);
		leaves[i].value = *cid;
	}
	if (ss_mst_build(leaves, n, ss_test_car_put, car, &root, &err) < 0)
		fail_msg("%s", err.message);
	free(leaves);
	return root;
}

static void assert_cid(const ss_cid *cid, const char *want)
{
	char s[SS_CID_STRSZ];

	ss_cid_fmt(s, cid);
	assert_string_equal(s, want);
}

/* The interop commit-proof fixtures: the reference's root CIDs for key sets before and after
 * adds and deletes (so our reading of nodes is held to the reference's writing), and the diff
 * between the two trees is exactly those adds and deletes. */
static void test_mst__reference_roots_and_diff(void **state)
{
	json_t *cases = ss_test_json("vectors/mst-commit-proof-fixtures.json"), *c, *k;
	ss_buf car = SS_BUF_INIT, got = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_mst_source src;
	ss_car *parsed;
	ss_error err;
	size_t i, j;

	assert_true(json_array_size(cases) >= 6);
	json_array_foreach(cases, i, c)
	{
		json_t *after = json_deep_copy(json_object_get(c, "keys"));
		const char *leaf = json_string_value(json_object_get(c, "leafValue"));
		ss_cid value, before_root, after_root;

		assert_int_equal(ss_cid_parse(&value, leaf, strlen(leaf), &err), 0);
		ss_test_car_start(&car);
		before_root = build_keys(&car, json_object_get(c, "keys"), &value);
		assert_cid(&before_root, json_string_value(json_object_get(c, "rootBeforeCommit")));

		ss_buf_clear(&want);
		json_array_foreach(json_object_get(c, "dels"), j, k)
		{
			for (size_t m = 0; m < json_array_size(after); m++)
				if (json_equal(json_array_get(after, m), k))
					json_array_remove(after, m);
		}
		json_array_extend(after, json_object_get(c, "adds"));
		after_root = build_keys(&car, after, &value);
		assert_cid(&after_root, json_string_value(json_object_get(c, "rootAfterCommit")));

		assert_int_equal(ss_car_open(&parsed, car.ptr, car.len, &err), 0);
		ss_mst_source_init(&src, ss_car_get_block, parsed);
		ss_buf_clear(&got);
		if (ss_mst_diff(&src, &before_root, &after_root, "", on_change, &got, &err) < 0)
			fail_msg("%s", err.message);
		/* The fixtures' adds and dels are disjoint and sort as listed, adds after dels
		 * only where the keys say so: compare as sorted lines. */
		json_array_foreach(json_object_get(c, "dels"), j, k)
		{
			if (!strstr(got.ptr, json_string_value(k)))
				fail_msg("%s: no delete of %s in\n%s",
				         json_string_value(json_object_get(c, "comment")),
				         json_string_value(k), got.ptr);
		}
		json_array_foreach(json_object_get(c, "adds"), j, k)
		{
			ss_buf_clear(&want);
			ss_buf_printf(&want, "create %s\n", json_string_value(k));
			assert_non_null(strstr(got.ptr, want.ptr));
		}
		{
			size_t lines = 0;
			for (const char *p = got.ptr; *p; p++)
				lines += *p == '\n';
			assert_int_equal(lines, json_array_size(json_object_get(c, "dels")) +
			                            json_array_size(json_object_get(c, "adds")));
		}
		ss_mst_source_release(&src);
		ss_car_free(parsed);
		json_decref(after);
	}
	ss_buf_release(&car);
	ss_buf_release(&got);
	ss_buf_release(&want);
	json_decref(cases);
}

/* The MST root a repo's commit (the CAR's first root) names. */
static ss_cid commit_data(const ss_car *car)
{
	const ss_car_block *b = ss_car_get(car, ss_car_root(car, 0));
	json_t *commit;
	const char *link;
	ss_error err;
	ss_cid cid;

	assert_non_null(b);
	assert_int_equal(ss_cbor_decode(b->data, b->len, &commit, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(commit, "version")), 3);
	link = json_string_value(json_object_get(json_object_get(commit, "data"), "$link"));
	assert_non_null(link);
	assert_int_equal(ss_cid_parse(&cid, link, strlen(link), &err), 0);
	json_decref(commit);
	return cid;
}

static ss_car *open_vector(ss_buf *bytes, const char *name)
{
	ss_car *car;
	ss_error err;

	ss_test_cbor_file(bytes, name);
	if (ss_car_open(&car, bytes->ptr, bytes->len, &err) < 0)
		fail_msg("%s: %s", name, err.message);
	return car;
}

/* A repo of the reference PDS: the walk of the skill range gives every skill record with the
 * CID listRecords gave it, and nothing else. */
static void test_mst__walk_a_pds_repo(void **state)
{
	json_t *vec = ss_test_json("vectors/car-pds-records.json"), *r;
	ss_buf bytes = SS_BUF_INIT, got = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_car *car = open_vector(&bytes, "car-pds-after.car");
	ss_cid root = commit_data(car);
	ss_mst_source src;
	ss_error err;
	size_t i, all_nodes;

	ss_mst_source_init(&src, ss_car_get_block, car);
	assert_int_equal(ss_mst_walk(&src, &root, "", on_leaf, &got, &err), 0);
	all_nodes = src.opened;
	json_array_foreach(json_object_get(vec, "records"), i, r)
	{
		const char *uri = json_string_value(json_object_get(r, "uri"));
		ss_buf_clear(&want);
		ss_buf_printf(&want, "%s %s\n", uri + strlen("at://did/"),
		              json_string_value(json_object_get(r, "cid")));
		assert_non_null(strstr(got.ptr, want.ptr));
	}
	assert_int_equal(strlen(got.ptr) > 0, 1);

	ss_buf_clear(&got);
	src.opened = 0;
	assert_int_equal(ss_mst_walk(&src, &root, "garden.engram.skill/", on_leaf, &got, &err), 0);
	assert_true(src.opened <= all_nodes);
	{
		size_t lines = 0;
		for (const char *p = got.ptr; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 24);
	}
	assert_null(strstr(got.ptr, "app.bsky"));
	assert_non_null(strstr(got.ptr, "garden.engram.skill/skill-24 "));
	assert_null(strstr(got.ptr, "garden.engram.skill/skill-07 "));
	ss_mst_source_release(&src);
	ss_car_free(car);
	ss_buf_release(&bytes);
	ss_buf_release(&got);
	ss_buf_release(&want);
	json_decref(vec);
}

/* Blocks from the CAR of getRepo?since, else from the blocks of the last sync, as an
 * incremental pull reads them. */
typedef struct chain {
	ss_car *first, *second;
} chain;

static int chain_get(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                     ss_error *err)
{
	chain *c = ctx;

	if (ss_car_get_block(c->first, cid, data, len, err) == 0)
		return 0;
	if (!c->second)
		return -1;
	return ss_car_get_block(c->second, cid, data, len, err);
}

static void test_mst__incremental_diff_of_a_pds_repo(void **state)
{
	ss_buf b1 = SS_BUF_INIT, b2 = SS_BUF_INIT, b3 = SS_BUF_INIT, got = SS_BUF_INIT;
	ss_car *before = open_vector(&b1, "car-pds-before.car");
	ss_car *after = open_vector(&b2, "car-pds-after.car");
	ss_car *since = open_vector(&b3, "car-pds-since.car");
	ss_cid old_root = commit_data(before), new_root = commit_data(after);
	chain ch = {since, NULL};
	ss_mst_source src;
	ss_error err;

	/* The full CARs: exactly the skill change, and the post outside the range. */
	ch.first = after;
	ch.second = before;
	ss_mst_source_init(&src, chain_get, &ch);
	assert_int_equal(
	    ss_mst_diff(&src, &old_root, &new_root, "garden.engram.skill/", on_change, &got, &err),
	    0);
	assert_string_equal(got.ptr, "update garden.engram.skill/skill-03\n"
	                             "delete garden.engram.skill/skill-07\n"
	                             "create garden.engram.skill/skill-24\n");
	ss_buf_clear(&got);
	assert_int_equal(ss_mst_diff(&src, &old_root, &new_root, "", on_change, &got, &err), 0);
	assert_non_null(strstr(got.ptr, "create app.bsky.feed.post/3lpost9999999\n"));
	ss_mst_source_release(&src);

	/* The since-CAR names the same head and, with the old blocks, gives the same diff. */
	assert_true(ss_cid_equal(ss_car_root(since, 0), ss_car_root(after, 0)));
	ch.first = since;
	ch.second = NULL;
	ss_mst_source_init(&src, chain_get, &ch);
	SS_ASSERT_FAILS(
	    ss_mst_diff(&src, &old_root, &new_root, "garden.engram.skill/", on_change, &got, &err),
	    err, SS_ENOTFOUND);
	/* Collecting instead: the nodes the since-CAR lacks, which the old tree has. */
	src.collect_missing = true;
	ss_buf_clear(&got);
	assert_int_equal(
	    ss_mst_diff(&src, &old_root, &new_root, "garden.engram.skill/", on_change, &got, &err),
	    0);
	assert_true(src.nmissing > 0);
	for (size_t i = 0; i < src.nmissing; i++)
		assert_non_null(ss_car_get(before, &src.missing[i]));
	ss_mst_source_release(&src);
	ch.second = before;
	ss_mst_source_init(&src, chain_get, &ch);
	src.collect_missing = true;
	ss_buf_clear(&got);
	assert_int_equal(
	    ss_mst_diff(&src, &old_root, &new_root, "garden.engram.skill/", on_change, &got, &err),
	    0);
	assert_int_equal(src.nmissing, 0);
	assert_string_equal(got.ptr, "update garden.engram.skill/skill-03\n"
	                             "delete garden.engram.skill/skill-07\n"
	                             "create garden.engram.skill/skill-24\n");
	ss_mst_source_release(&src);
	ss_car_free(before);
	ss_car_free(after);
	ss_car_free(since);
	ss_buf_release(&b1);
	ss_buf_release(&b2);
	ss_buf_release(&b3);
	ss_buf_release(&got);
}

/* A large tree: one record changed among 3,000 opens only the nodes on its path; a range walk
 * opens only the nodes that can hold the range. */
#define BIG 3000
static void test_mst__diff_opens_only_changed_paths(void **state)
{
	ss_mst_leaf *leaves = ss_xcalloc(BIG + 1000, sizeof(*leaves));
	char(*keys)[64] = ss_xcalloc(BIG + 1000, sizeof(*keys));
	ss_buf car = SS_BUF_INIT, got = SS_BUF_INIT;
	ss_cid r1, r2, r3;
	ss_car *parsed;
	ss_mst_source src;
	ss_error err;
	size_t all, skills;
	int top = 0;

	for (size_t i = 0; i < BIG + 1000; i++) {
		if (i < BIG)
			snprintf(keys[i], sizeof(keys[i]), "garden.engram.skill/s%05zu", i);
		else
			snprintf(keys[i], sizeof(keys[i]), "app.bsky.feed.post/p%05zu", i);
		leaves[i].key = keys[i];
		leaves[i].key_len = strlen(keys[i]);
		ss_cid_compute(&leaves[i].value, SS_CID_DAG_CBOR, keys[i], leaves[i].key_len);
		if (ss_mst_key_height(keys[i], leaves[i].key_len) > top)
			top = ss_mst_key_height(keys[i], leaves[i].key_len);
	}
	ss_test_car_start(&car);
	assert_int_equal(ss_mst_build(leaves, BIG + 1000, ss_test_car_put, &car, &r1, &err), 0);
	ss_cid_compute(&leaves[1234].value, SS_CID_DAG_CBOR, "changed", 7);
	assert_int_equal(ss_mst_build(leaves, BIG + 1000, ss_test_car_put, &car, &r2, &err), 0);
	/* 20 deletes and 20 creates. */
	for (size_t i = 0; i < 20; i++)
		snprintf(keys[100 + i * 7], sizeof(keys[0]), "garden.engram.skill/t%05zu", i);
	for (size_t i = 0; i < 20; i++)
		leaves[100 + i * 7].key_len = strlen(keys[100 + i * 7]);
	assert_int_equal(ss_mst_build(leaves, BIG + 1000, ss_test_car_put, &car, &r3, &err), 0);
	assert_int_equal(ss_car_open(&parsed, car.ptr, car.len, &err), 0);
	ss_mst_source_init(&src, ss_car_get_block, parsed);

	assert_int_equal(ss_mst_walk(&src, &r1, "", on_leaf, &got, &err), 0);
	all = src.opened;
	src.opened = 0;
	ss_buf_clear(&got);
	assert_int_equal(ss_mst_walk(&src, &r1, "app.bsky.feed.post/", on_leaf, &got, &err), 0);
	skills = src.opened;
	assert_true(skills < all / 2);

	src.opened = 0;
	ss_buf_clear(&got);
	assert_int_equal(ss_mst_diff(&src, &r1, &r2, "garden.engram.skill/", on_change, &got, &err),
	                 0);
	assert_string_equal(got.ptr, "update garden.engram.skill/s01234\n");
	/* Each side's path from the root down to the leaf's node: one node per layer. */
	assert_true(src.opened <= 2 * (size_t)(top + 1));
	assert_true(all > 300);

	src.opened = 0;
	ss_buf_clear(&got);
	assert_int_equal(ss_mst_diff(&src, &r2, &r3, "garden.engram.skill/", on_change, &got, &err),
	                 0);
	{
		size_t creates = 0, deletes = 0;
		for (const char *p = got.ptr; (p = strchr(p, '\n')) != NULL; p++) {
			const char *line = p;
			while (line > got.ptr && line[-1] != '\n')
				line--;
			creates += !strncmp(line, "create garden.engram.skill/t", 28);
			deletes += !strncmp(line, "delete garden.engram.skill/s", 28);
		}
		assert_int_equal(creates, 20);
		assert_int_equal(deletes, 20);
	}
	assert_true(src.opened < all);
	ss_mst_source_release(&src);
	ss_car_free(parsed);
	ss_buf_release(&car);
	ss_buf_release(&got);
	free(leaves);
	free(keys);
}

/* One block as its own store, whatever CID is asked for (to hand out a tampered node). */
typedef struct one {
	const unsigned char *data;
	size_t len;
} one;

static int one_get(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                   ss_error *err)
{
	one *o = ctx;

	*data = o->data;
	*len = o->len;
	return 0;
}

static void check_refused(const char *hex, const char *what)
{
	ss_buf node = SS_BUF_INIT, got = SS_BUF_INIT;
	one o;
	ss_mst_source src;
	ss_error err;
	ss_cid root;

	ss_test_cbor_unhex(&node, hex);
	o.data = (const unsigned char *)node.ptr;
	o.len = node.len;
	ss_cid_compute(&root, SS_CID_DAG_CBOR, node.ptr, node.len);
	ss_mst_source_init(&src, one_get, &o);
	SS_ASSERT_FAILS(ss_mst_walk(&src, &root, "", on_leaf, &got, &err), err, SS_EINVALID);
	if (!strstr(err.message, what))
		fail_msg("%s: '%s'", hex, err.message);
	ss_mst_source_release(&src);
	ss_buf_release(&node);
	ss_buf_release(&got);
}

/* Nodes a hostile server could hand out: a block that is not what its CID names, keys out of
 * order, a node of mixed layers, a wrong shape, a link to itself. */
static void test_mst__refuses_bad_nodes(void **state)
{
	static const char v[] = "d82a58250001711220"
	                        "65062a5a5a00fc16d73c6944237ccbc15b1c4a7234489336891d091741a239d0";
	ss_buf hex = SS_BUF_INIT, got = SS_BUF_INIT;
	ss_mst_source src;
	one o = {(const unsigned char *)"\xa0", 1};
	ss_error err;
	ss_cid root;

	/* The getter's bytes do not hash to the CID asked for. */
	ss_cid_compute(&root, SS_CID_DAG_CBOR, "x", 1);
	ss_mst_source_init(&src, one_get, &o);
	SS_ASSERT_FAILS(ss_mst_walk(&src, &root, "", on_leaf, &got, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "does not hash"));
	ss_mst_source_release(&src);

	/* {"e": [{"k": "b", "p": 0, "t": null, "v": v}, {"k": "a", "p": 0, ...}], "l": null} */
	ss_buf_printf(&hex,
	              "a2616582a4616b416261700061"
	              "74f66176%sa4616b41616170006174f66176%s616cf6",
	              v, v);
	check_refused(hex.ptr, "out of order");
	/* "asdf" (layer 0) and "blue" (layer 1) in one node. */
	ss_buf_clear(&hex);
	ss_buf_printf(&hex,
	              "a2616582a4616b446173646661700061"
	              "74f66176%sa4616b44626c75656170006174f66176%s616cf6",
	              v, v);
	check_refused(hex.ptr, "different layers");
	/* Prefix longer than the key before. */
	ss_buf_clear(&hex);
	ss_buf_printf(&hex,
	              "a2616582a4616b41616170006174f66176%sa4616b416261700561"
	              "74f66176%s616cf6",
	              v, v);
	check_refused(hex.ptr, "prefix");
	/* An extra field, keys in the wrong order, a float. */
	check_refused("a3616580616cf66178f6", "not a map of e and l");
	check_refused("a2616cf6616580", "unexpected field");
	check_refused("a2616581a4616b41616170fb000000000000000061"
	              "74f66176f6616cf6",
	              "float");
	/* A getter answering every CID with the root node (a loop, were it believed): the child
	 * does not hash to its link, and the walk ends. */
	ss_buf_clear(&hex);
	ss_buf_printf(&hex, "a2616580616c%s", v);
	check_refused(hex.ptr, "does not hash");
	ss_buf_release(&hex);
	ss_buf_release(&got);
}

int test_mst_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mst__key_heights),
	    cmocka_unit_test(test_mst__reference_roots_and_diff),
	    cmocka_unit_test(test_mst__walk_a_pds_repo),
	    cmocka_unit_test(test_mst__incremental_diff_of_a_pds_repo),
	    cmocka_unit_test(test_mst__diff_opens_only_changed_paths),
	    cmocka_unit_test(test_mst__refuses_bad_nodes),
	};
	return cmocka_run_group_tests_name("core/mst", tests, NULL, NULL);
}
