#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/hex.h"
#include "support/support.h"

static void test_hex__encodes_every_byte_lowercase(void **state)
{
	const unsigned char in[] = {0x00, 0x0f, 0x10, 0x7f, 0xab, 0xff};
	char out[2 * sizeof(in) + 1];

	(void)state;
	memset(out, 'x', sizeof(out));
	ss_hex_encode(out, in, sizeof(in));
	assert_string_equal(out, "000f107fabff");
	ss_hex_encode(out, in, 0);
	assert_string_equal(out, "");
}

static void test_hex__digits_either_case_and_nothing_else(void **state)
{
	(void)state;
	assert_int_equal(ss_hex_digit('0'), 0);
	assert_int_equal(ss_hex_digit('9'), 9);
	assert_int_equal(ss_hex_digit('a'), 10);
	assert_int_equal(ss_hex_digit('F'), 15);
	assert_int_equal(ss_hex_digit('g'), -1);
	assert_int_equal(ss_hex_digit('/'), -1);
	assert_int_equal(ss_hex_digit('\0'), -1);
}

int test_hex_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hex__encodes_every_byte_lowercase),
	    cmocka_unit_test(test_hex__digits_either_case_and_nothing_else),
	};
	return cmocka_run_group_tests_name("hex", tests, NULL, NULL);
}
