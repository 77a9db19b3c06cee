#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/atproto/base58.h"
#include "support/support.h"

/* Bitcoin Core's base58_encode_decode.json cases, both ways. */
static void test_base58__bitcoin_vectors(void **state)
{
	static const char *const v[][2] = {
	    {"", ""},
	    {"61", "2g"},
	    {"626262", "a3gV"},
	    {"00000000000000000000", "1111111111"},
	    {"516b6fcd0f", "ABnLTmg"},
	    {"73696d706c792061206c6f6e6720737472696e67", "2cFupjhnEsSn59qHXstmK2ffpLv2"},
	    {"00eb15231dfceb60925886b67d065299925915aeb172c06647",
	     "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L"},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = strlen(v[i][0]) / 2;
		uint8_t bytes[32];
		ss_buf b = SS_BUF_INIT;
		ss_error err;

		ss_test_hex(bytes, n, v[i][0]);
		assert_int_equal(ss_base58_encode(&b, bytes, n), 0);
		assert_string_equal(b.ptr, v[i][1]);
		if (n == 0) {
			ss_buf_release(&b);
			continue;
		}
		ss_buf_clear(&b);
		assert_int_equal(ss_base58_decode(&b, v[i][1], strlen(v[i][1]), &err), 0);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.ptr, bytes, n);
		ss_buf_release(&b);
	}
}

/* 0, O, I and l are not in the alphabet; nothing empty or unbounded is decoded. */
static void test_base58__refuses(void **state)
{
	static const char *const bad[] = {"0", "O", "I", "l", "2g ", "+"};
	char long_input[SS_BASE58_MAX + 2];
	ss_buf b = SS_BUF_INIT;
	ss_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		SS_ASSERT_FAILS(ss_base58_decode(&b, bad[i], strlen(bad[i]), &err), err,
		                SS_EINVALID);
	SS_ASSERT_FAILS(ss_base58_decode(&b, "", 0, &err), err, SS_EINVALID);
	memset(long_input, '2', sizeof(long_input) - 1);
	long_input[sizeof(long_input) - 1] = '\0';
	SS_ASSERT_FAILS(ss_base58_decode(&b, long_input, strlen(long_input), &err), err,
	                SS_ETOOBIG);
	assert_int_equal(b.len, 0);
	ss_buf_release(&b);
}

int test_base58_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_base58__bitcoin_vectors),
	    cmocka_unit_test(test_base58__refuses),
	};
	return cmocka_run_group_tests_name("base58", tests, NULL, NULL);
}
