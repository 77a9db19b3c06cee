#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/linediff.h"

static void diff(ss_linediff *d, const char *a, const char *b)
{
	ss_linediff_compute(d, a, strlen(a), b, strlen(b));
}

static void test_linediff__same_text_has_no_hunk(void **state)
{
	ss_linediff d;

	diff(&d, "a\nb\nc\n", "a\nb\nc\n");
	assert_int_equal(d.nhunks, 0);
	assert_int_equal(d.added + d.removed, 0);
	ss_linediff_release(&d);
	diff(&d, "", "");
	assert_int_equal(d.nhunks, 0);
	ss_linediff_release(&d);
}

static void test_linediff__counts_like_git(void **state)
{
	ss_linediff d;

	/* one line replaced by two in the middle: git diff --numstat says 2 1 */
	diff(&d, "a\nb\nc\nd\n", "a\nB1\nB2\nc\nd\n");
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.added, 2);
	assert_int_equal(d.removed, 1);
	assert_int_equal(d.hunks[0].old_start, 1);
	assert_int_equal(d.hunks[0].old_count, 1);
	assert_int_equal(d.hunks[0].new_start, 1);
	assert_int_equal(d.hunks[0].new_count, 2);
	ss_linediff_release(&d);
}

static void test_linediff__separate_hunks_in_order(void **state)
{
	ss_linediff d;

	diff(&d, "1\n2\n3\n4\n5\n6\n", "0\n1\n2\n4\n5\n6\n7\n");
	assert_int_equal(d.nhunks, 3);
	assert_int_equal(d.hunks[0].old_count, 0); /* insert 0 */
	assert_int_equal(d.hunks[0].new_start, 0);
	assert_int_equal(d.hunks[1].old_start, 2); /* delete 3 */
	assert_int_equal(d.hunks[1].old_count, 1);
	assert_int_equal(d.hunks[1].new_count, 0);
	assert_int_equal(d.hunks[2].new_start, 6); /* append 7 */
	assert_int_equal(d.added, 2);
	assert_int_equal(d.removed, 1);
	ss_linediff_release(&d);
}

static void test_linediff__last_line_without_newline(void **state)
{
	ss_linediff d;

	assert_int_equal(ss_linediff_count_lines("a\nb", 3), 2);
	assert_int_equal(ss_linediff_count_lines("a\nb\n", 4), 2);
	assert_int_equal(ss_linediff_count_lines("", 0), 0);
	/* "b" and "b\n" differ, as in git */
	diff(&d, "a\nb", "a\nb\n");
	assert_int_equal(d.added, 1);
	assert_int_equal(d.removed, 1);
	ss_linediff_release(&d);
}

static void test_linediff__huge_rewrite_stays_bounded(void **state)
{
	ss_buf a = SS_BUF_INIT, b = SS_BUF_INIT;
	ss_linediff d;

	for (int i = 0; i < 5000; i++) {
		ss_buf_printf(&a, "old %d\n", i);
		ss_buf_printf(&b, "new %d\n", i);
	}
	ss_linediff_compute(&d, a.ptr, a.len, b.ptr, b.len);
	assert_int_equal(d.added, 5000);
	assert_int_equal(d.removed, 5000);
	ss_linediff_release(&d);
	ss_buf_release(&a);
	ss_buf_release(&b);
}

int test_linediff_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_linediff__same_text_has_no_hunk),
	    cmocka_unit_test(test_linediff__counts_like_git),
	    cmocka_unit_test(test_linediff__separate_hunks_in_order),
	    cmocka_unit_test(test_linediff__last_line_without_newline),
	    cmocka_unit_test(test_linediff__huge_rewrite_stays_bounded),
	};
	return cmocka_run_group_tests_name("linediff", tests, NULL, NULL);
}
