#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/base64.h"
#include "support/support.h"

static void check_encode(const char *in, ss_base64_alphabet a, bool pad, const char *want)
{
	ss_buf b = SS_BUF_INIT;

	assert_int_equal(ss_base64_encode(&b, in, strlen(in), a, pad), 0);
	assert_string_equal(b.ptr, want);
	ss_buf_release(&b);
}

static void check_decode(const char *in, ss_base64_alphabet a, const char *want)
{
	ss_buf b = SS_BUF_INIT;
	ss_error err;

	assert_int_equal(ss_base64_decode(&b, in, strlen(in), a, &err), 0);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.ptr, want, b.len);
	ss_buf_release(&b);
}

static void check_refused(const char *in, ss_base64_alphabet a)
{
	ss_buf b = SS_BUF_INIT;
	ss_error err;

	ss_buf_puts(&b, "kept");
	SS_ASSERT_FAILS(ss_base64_decode(&b, in, strlen(in), a, &err), err, SS_EINVALID);
	assert_string_equal(b.ptr, "kept");
	ss_buf_release(&b);
}

/* RFC 4648 section 10, both ways, padded and not. */
static void test_base64__rfc4648_vectors(void **state)
{
	static const char *const v[][3] = {{"", "", ""},
	                                   {"f", "Zg==", "Zg"},
	                                   {"fo", "Zm8=", "Zm8"},
	                                   {"foo", "Zm9v", "Zm9v"},
	                                   {"foob", "Zm9vYg==", "Zm9vYg"},
	                                   {"fooba", "Zm9vYmE=", "Zm9vYmE"},
	                                   {"foobar", "Zm9vYmFy", "Zm9vYmFy"}};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		check_encode(v[i][0], SS_BASE64_STD, true, v[i][1]);
		check_encode(v[i][0], SS_BASE64_STD, false, v[i][2]);
		check_encode(v[i][0], SS_BASE64_URL, false, v[i][2]);
		check_decode(v[i][1], SS_BASE64_STD, v[i][0]);
		check_decode(v[i][2], SS_BASE64_STD, v[i][0]);
		check_decode(v[i][2], SS_BASE64_URL, v[i][0]);
	}
}

static void test_base64__alphabets_differ(void **state)
{
	check_encode("\xfb\xff\xbf", SS_BASE64_STD, true, "+/+/");
	check_encode("\xfb\xff\xbf", SS_BASE64_URL, false, "-_-_");
	check_decode("+/+/", SS_BASE64_STD, "\xfb\xff\xbf");
	check_decode("-_-_", SS_BASE64_URL, "\xfb\xff\xbf");
	check_refused("-_-_", SS_BASE64_STD);
	check_refused("+/+/", SS_BASE64_URL);
}

/* One encoding per value: wrong padding, leftover bits, stray characters are refused. */
static void test_base64__strict(void **state)
{
	check_refused("Zg=", SS_BASE64_STD);       /* padding that does not complete a quad */
	check_refused("Zg===", SS_BASE64_STD);     /* too much */
	check_refused("Z", SS_BASE64_STD);         /* 6 bits are no byte */
	check_refused("Zh==", SS_BASE64_STD);      /* leftover bits not zero */
	check_refused("Zm9=", SS_BASE64_STD);      /* likewise */
	check_refused("Zg==Zg==", SS_BASE64_STD);  /* padding inside */
	check_refused("Zm9v\n", SS_BASE64_STD);    /* whitespace */
	check_refused("Zm9v YmFy", SS_BASE64_STD); /* likewise */
	check_refused("Zg==", SS_BASE64_URL);      /* JWTs are unpadded */
	check_refused("Zm9v!", SS_BASE64_URL);
}

static void test_base64__cap_refuses_and_keeps(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_error err;

	b.max = 4;
	SS_ASSERT_FAILS(ss_base64_decode(&b, "Zm9vYmFy", 8, SS_BASE64_STD, &err), err, SS_ETOOBIG);
	assert_int_equal(b.len, 0);
	assert_int_equal(ss_base64_encode(&b, "foobar", 6, SS_BASE64_STD, true), SS_ETOOBIG);
	assert_int_equal(b.len, 0);
	ss_buf_release(&b);
}

int test_base64_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_base64__rfc4648_vectors),
	    cmocka_unit_test(test_base64__alphabets_differ),
	    cmocka_unit_test(test_base64__strict),
	    cmocka_unit_test(test_base64__cap_refuses_and_keeps),
	};
	return cmocka_run_group_tests_name("base64", tests, NULL, NULL);
}
