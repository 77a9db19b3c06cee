#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/atproto/pds.h"

static void test_pds__batch_stops_at_the_write_limit(void **state)
{
	static size_t sizes[SS_PDS_MAX_WRITES + 50];

	for (size_t i = 0; i < SS_PDS_MAX_WRITES + 50; i++)
		sizes[i] = 10;
	assert_int_equal(ss_pds_batch_fit(sizes, SS_PDS_MAX_WRITES + 50, SS_PDS_MAX_REQUEST),
	                 SS_PDS_MAX_WRITES);
	assert_int_equal(ss_pds_batch_fit(sizes, 50, SS_PDS_MAX_REQUEST), 50);
	assert_int_equal(ss_pds_batch_fit(sizes, 0, SS_PDS_MAX_REQUEST), 0);
}

static void test_pds__batch_stops_at_the_byte_limit(void **state)
{
	size_t sizes[] = {400, 400, 200, 1, 5};

	/* exactly full: 400 + 400 + 200 */
	assert_int_equal(ss_pds_batch_fit(sizes, 5, 1000), 3);
	assert_int_equal(ss_pds_batch_fit(sizes, 5, 999), 2);
	/* a write larger than the room goes alone */
	assert_int_equal(ss_pds_batch_fit(sizes, 5, 100), 1);
}

int test_pds_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pds__batch_stops_at_the_write_limit),
	    cmocka_unit_test(test_pds__batch_stops_at_the_byte_limit),
	};
	return cmocka_run_group_tests_name("core/pds", tests, NULL, NULL);
}
