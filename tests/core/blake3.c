#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "core/atproto/blake3.h"
#include "core/util/mem.h"
#include "support/support.h"

#define XOF_LEN 131 /* the length of the official vectors' extended outputs */

/*
 * The official vectors (BLAKE3-team/BLAKE3 test_vectors.json, hash mode): the extended output
 * in one piece, the default 32-byte hash as its prefix, and the same input fed in uneven
 * pieces across block and chunk boundaries.
 */
static void test_blake3__official_vectors(void **state)
{
	json_t *v = ss_test_json("vectors/blake3-test_vectors.json");
	json_t *cases = json_object_get(v, "cases");
	uint8_t *input = ss_xmalloc(102400);
	size_t i;
	json_t *c;

	for (size_t k = 0; k < 102400; k++)
		input[k] = (uint8_t)(k % 251);
	assert_int_equal(json_array_size(cases), 35);
	json_array_foreach(cases, i, c)
	{
		size_t len = (size_t)json_integer_value(json_object_get(c, "input_len"));
		uint8_t want[XOF_LEN], got[XOF_LEN];
		ss_blake3 h;

		assert_true(len <= 102400);
		ss_test_hex(want, XOF_LEN, json_string_value(json_object_get(c, "hash")));
		ss_blake3_xof(input, len, got, XOF_LEN);
		assert_memory_equal(got, want, XOF_LEN);

		ss_blake3_init(&h);
		for (size_t off = 0, step = 1; off < len; off += step, step = step * 3 + 1)
			ss_blake3_update(&h, input + off, step < len - off ? step : len - off);
		memset(got, 0, sizeof(got));
		ss_blake3_finalize(&h, got, SS_BLAKE3_LEN);
		assert_memory_equal(got, want, SS_BLAKE3_LEN);
		assert_int_equal(got[SS_BLAKE3_LEN], 0); /* nothing past what was asked */
		ss_blake3_finalize(&h, got, XOF_LEN);    /* finalize leaves the state as it was */
		assert_memory_equal(got, want, XOF_LEN);
	}
	free(input);
	json_decref(v);
}

int test_blake3_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blake3__official_vectors),
	};
	return cmocka_run_group_tests_name("blake3", tests, NULL, NULL);
}
