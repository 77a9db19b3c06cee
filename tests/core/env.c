#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/util/env.h"
#include "support/support.h"

#define VAR "SKILLSYNC_TEST_ENV_SECONDS"

static void test_env__unset_or_empty_keeps_the_default(void **state)
{
	long v = 7;
	ss_error err;

	unsetenv(VAR);
	assert_int_equal(ss_env_seconds(VAR, 0, 10, &v, &err), 0);
	setenv(VAR, "", 1);
	assert_int_equal(ss_env_seconds(VAR, 0, 10, &v, &err), 0);
	assert_int_equal(v, 7);
	unsetenv(VAR);
}

static void test_env__whole_seconds_in_range(void **state)
{
	long v = -1;
	ss_error err;

	setenv(VAR, "0", 1);
	assert_int_equal(ss_env_seconds(VAR, 0, 3600, &v, &err), 1);
	assert_int_equal(v, 0);
	setenv(VAR, "3600", 1);
	assert_int_equal(ss_env_seconds(VAR, 0, 3600, &v, &err), 1);
	assert_int_equal(v, 3600);
	unsetenv(VAR);
}

static void test_env__refuses_with_the_name_and_value(void **state)
{
	static const char *bad[] = {"3601", "-1", "5s", " 5", "+5", "1.5", "99999999999999999999"};
	long v = 7;
	ss_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(VAR, bad[i], 1);
		SS_ASSERT_FAILS(ss_env_seconds(VAR, 0, 3600, &v, &err), err, SS_EINVALID);
		assert_int_equal(v, 7);
	}
	setenv(VAR, "5s", 1);
	ss_env_seconds(VAR, 1, 3600, &v, &err);
	assert_string_equal(err.message, VAR " is '5s': want whole seconds from 1 to 3600");
	unsetenv(VAR);
}

int test_env_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_env__unset_or_empty_keeps_the_default),
	    cmocka_unit_test(test_env__whole_seconds_in_range),
	    cmocka_unit_test(test_env__refuses_with_the_name_and_value),
	};
	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
