#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "support/support.h"

static void test_buf__append_and_detach(void **state)
{
	ss_buf b = SS_BUF_INIT;
	char *s;
	size_t len;

	assert_string_equal(b.ptr, "");
	assert_int_equal(ss_buf_puts(&b, "skill"), 0);
	assert_int_equal(ss_buf_printf(&b, "-%d", 42), 0);
	assert_int_equal(ss_buf_put(&b, "\0x", 2), 0);
	assert_int_equal(b.len, 10);
	assert_memory_equal(b.ptr, "skill-42\0x", 10);
	s = ss_buf_detach(&b, &len);
	assert_int_equal(len, 10);
	assert_string_equal(b.ptr, "");
	free(s);
}

static void test_buf__cap_refuses_and_keeps_content(void **state)
{
	ss_buf b = SS_BUF_INIT;

	b.max = 4;
	assert_int_equal(ss_buf_puts(&b, "abc"), 0);
	assert_int_equal(ss_buf_puts(&b, "de"), SS_ETOOBIG);
	assert_string_equal(b.ptr, "abc");
	assert_int_equal(ss_buf_printf(&b, "%s", "xy"), SS_ETOOBIG);
	assert_int_equal(b.len, 3);
	ss_buf_release(&b);
}

static void test_fs__atomic_write_and_capped_read(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT, data = SS_BUF_INIT;
	ss_error err;

	ss_fs_join(&path, dir, "a/b/file");
	ss_test_write(dir, "a/b/file", "hello");
	assert_int_equal(ss_fs_read_file(&data, path.ptr, 0, &err), 0);
	assert_string_equal(data.ptr, "hello");
	ss_buf_clear(&data);
	SS_ASSERT_FAILS(ss_fs_read_file(&data, path.ptr, 3, &err), err, SS_ETOOBIG);
	assert_int_equal(data.len, 0);
	assert_non_null(strstr(err.message, "a/b/file"));
	ss_buf_release(&path);
	ss_buf_release(&data);
	ss_test_tmpdir_free(dir);
}

int test_buf_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buf__append_and_detach),
	    cmocka_unit_test(test_buf__cap_refuses_and_keeps_content),
	    cmocka_unit_test(test_fs__atomic_write_and_capped_read),
	};
	return cmocka_run_group_tests_name("core/buf", tests, NULL, NULL);
}
