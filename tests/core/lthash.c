#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/lthash.h"
#include "support/support.h"

/* cocoon's reference-generated vectors: each list of adds and removes gives its digest. */
static void test_lthash__reference_vectors(void **state)
{
	json_t *v = ss_test_json("vectors/cocoon-space.json");
	json_t *cases = json_object_get(v, "lthash");
	size_t i, j;
	json_t *c, *op;

	assert_int_equal(json_array_size(cases), 9);
	json_array_foreach(cases, i, c)
	{
		uint8_t want[SS_SHA256_LEN], got[SS_SHA256_LEN];
		ss_lthash h;

		ss_lthash_init(&h);
		json_array_foreach(json_object_get(c, "ops"), j, op)
		{
			const char *kind = json_string_value(json_array_get(op, 0));
			json_t *e = json_array_get(op, 1);

			if (!strcmp(kind, "+"))
				ss_lthash_add(&h, json_string_value(e), json_string_length(e));
			else
				ss_lthash_remove(&h, json_string_value(e), json_string_length(e));
		}
		ss_lthash_digest(&h, got);
		ss_test_hex(want, sizeof(want), json_string_value(json_object_get(c, "digest")));
		assert_memory_equal(got, want, sizeof(want));
	}
	json_decref(v);
}

/* A record's element is "<collection>/<rkey>/<cid>"; a change is a remove and an add, and
 * removing everything gives the empty digest back. */
static void test_lthash__records(void **state)
{
	static const char cid1[] = "bafyreidefdycgbfy3oglcb6ism3eqhyp5llsrpzxjsuac2gsy4mtrtx244";
	static const char cid2[] = "bafyreidpw4cbv6gr4ukh33z23pvvrpr3wi4gnpmi4doamlsl3sa4rgri2a";
	uint8_t empty[SS_SHA256_LEN], a[SS_SHA256_LEN], b[SS_SHA256_LEN];
	ss_lthash h, direct;

	ss_lthash_init(&h);
	ss_lthash_digest(&h, empty);
	ss_test_hex(a, sizeof(a),
	            "e5a00aa9991ac8a5ee3109844d84a55583bd20572ad3ffcd42792f3c36b183ad");
	assert_memory_equal(empty, a, sizeof(a));

	ss_lthash_add_record(&h, "app.bsky.feed.post", "3kbcq3p7ad400", cid1);
	ss_lthash_digest(&h, a);
	ss_test_hex(b, sizeof(b),
	            "fcfe79679a2cd848efbb602cc8ec767a6f7ce963ee23fa4db89e2deffce0aa2c");
	assert_memory_equal(a, b, sizeof(b));

	ss_lthash_remove_record(&h, "app.bsky.feed.post", "3kbcq3p7ad400", cid1);
	ss_lthash_add_record(&h, "app.bsky.feed.post", "3kbcq3p7ad400", cid2);
	ss_lthash_init(&direct);
	ss_lthash_add_record(&direct, "app.bsky.feed.post", "3kbcq3p7ad400", cid2);
	assert_memory_equal(h.state, direct.state, SS_LTHASH_LEN);
	ss_lthash_remove_record(&h, "app.bsky.feed.post", "3kbcq3p7ad400", cid2);
	ss_lthash_digest(&h, a);
	assert_memory_equal(a, empty, sizeof(a));
}

int test_lthash_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lthash__reference_vectors),
	    cmocka_unit_test(test_lthash__records),
	};
	return cmocka_run_group_tests_name("lthash", tests, NULL, NULL);
}
