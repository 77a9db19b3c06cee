#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "support/support.h"

static void test_lock__second_run_waits_then_fails_naming_the_holder(void **state)
{
	ss_error ignored;
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_lock *lock = NULL;
	int ready[2];
	char c;
	pid_t child;
	ss_error err;

	ss_fs_join(&path, dir, "lock");
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		ss_lock *held = NULL;
		if (ss_lock_acquire(&held, path.ptr, 0, &ignored) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);

	SS_ASSERT_FAILS(ss_lock_acquire(&lock, path.ptr, 200, &err), err, SS_ELOCKED);
	assert_null(lock);
	ss_buf_printf(&want, "another skillsync (pid %d on ", (int)child);
	assert_memory_equal(err.message, want.ptr, want.len);
	assert_non_null(strstr(err.message, ") is working in this clone"));

	/* the holder is killed: its lock goes with it, and the next run takes over */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(ss_lock_acquire(&lock, path.ptr, 0, &err), 0);
	ss_lock_free(lock);
	ss_buf_release(&path);
	ss_buf_release(&want);
	ss_test_tmpdir_free(dir);
}

static void test_lock__stale_file_from_a_dead_process_is_taken_over(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_lock *lock = NULL, *second = NULL;
	ss_error err;

	ss_test_write(dir, "lock", "pid 999999 host elsewhere started 1\n");
	ss_fs_join(&path, dir, "lock");
	assert_int_equal(ss_lock_acquire(&lock, path.ptr, 0, &err), 0);
	assert_int_equal(ss_fs_read_file(&text, path.ptr, 0, &err), 0);
	ss_buf_printf(&want, "pid %d host ", (int)getpid());
	assert_memory_equal(text.ptr, want.ptr, want.len);
	ss_lock_free(lock);
	/* released: free for the next one at once */
	assert_int_equal(ss_lock_acquire(&second, path.ptr, 0, &err), 0);
	ss_lock_free(second);
	ss_lock_free(NULL);
	ss_buf_release(&path);
	ss_buf_release(&text);
	ss_buf_release(&want);
	ss_test_tmpdir_free(dir);
}

int test_lock_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lock__second_run_waits_then_fails_naming_the_holder),
	    cmocka_unit_test(test_lock__stale_file_from_a_dead_process_is_taken_over),
	};
	return cmocka_run_group_tests_name("core/lock", tests, NULL, NULL);
}
