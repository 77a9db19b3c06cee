/* time.c: datetimes (core/util/time.h) at the edges of what can be written back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util/time.h"

/* Every datetime that parses writes back as one that parses to the same instant (to the
 * millisecond); an offset that carries the instant outside years 0000-9999 is refused (found by
 * the fuzz target tests/fuzz/datetime.c: "0000-01-01T00:00:00+00:01" wrote "-001-...").*/
static void test_time__parsed_instants_write_back(void **state)
{
	static const char *const edges[] = {
	    "0000-01-01T00:00:00Z",
	    "0000-01-01T00:01:00-00:01",
	    "9999-12-31T23:59:59.999Z",
	    "9999-12-31T23:00:00+14:00",
	};
	static const char *const beyond[] = {
	    "0000-01-01T00:00:00+00:01",
	    "0000-01-01T00:00:59.999+00:01",
	    "9999-12-31T23:59:59-00:01",
	    "9999-12-31T23:59:60Z",
	};
	ss_buf out = SS_BUF_INIT;
	int64_t a, b;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		if (ss_time_parse(edges[i], &a))
			fail_msg("'%s' refused", edges[i]);
		ss_buf_clear(&out);
		ss_time_format(a, &out);
		if (ss_time_parse(out.ptr, &b) || b != a - a % 1000)
			fail_msg("'%s' wrote '%s'", edges[i], out.ptr);
	}
	for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++)
		if (ss_time_parse(beyond[i], &a) != SS_EINVALID)
			fail_msg("'%s' parsed", beyond[i]);
	ss_buf_release(&out);
}

int test_time_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time__parsed_instants_write_back),
	};
	return cmocka_run_group_tests_name("core/time", tests, NULL, NULL);
}
