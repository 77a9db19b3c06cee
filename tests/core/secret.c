#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/secret.h"

static void test_secret__child_env_drops_the_password(void **state)
{
	char **env;
	int kept = 0;

	setenv(SS_SECRET_ENV_PASSWORD, "hunter2", 1);
	setenv("SKILLSYNC_PASSWORDLESS", "kept", 1);
	env = ss_secret_child_env();
	for (size_t i = 0; env[i]; i++) {
		assert_null(strstr(env[i], "hunter2"));
		kept += !strcmp(env[i], "SKILLSYNC_PASSWORDLESS=kept");
	}
	assert_int_equal(kept, 1);
	/* ours stays: only children lose it */
	assert_string_equal(getenv(SS_SECRET_ENV_PASSWORD), "hunter2");
	free(env);
	unsetenv(SS_SECRET_ENV_PASSWORD);
	unsetenv("SKILLSYNC_PASSWORDLESS");
}

static void test_secret__no_dumps(void **state)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl;

		ss_secret_no_dumps();
		_exit(prctl(PR_GET_DUMPABLE) == 0 && getrlimit(RLIMIT_CORE, &rl) == 0 &&
		              rl.rlim_cur == 0
		          ? 0
		          : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_secret__buffer_keeps_its_bytes_across_growth(void **state)
{
	ss_buf b = SS_BUF_INIT;
	char want[5000];

	ss_buf_secret(&b);
	for (size_t i = 0; i < sizeof(want); i++) {
		want[i] = (char)('a' + i % 26);
		assert_int_equal(ss_buf_putc(&b, want[i]), 0);
	}
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.ptr, want, sizeof(want));
	ss_buf_clear(&b);
	assert_int_equal(b.len, 0);
	ss_buf_release(&b);
	assert_false(b.secret);
}

static void test_secret__wipe(void **state)
{
	char s[] = "token";
	char *heap = strdup("refresh");

	ss_secret_wipe(s, strlen(s));
	assert_memory_equal(s, "\0\0\0\0\0", 5);
	ss_secret_free(heap);
	ss_secret_free(NULL);
}

int test_secret_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_secret__child_env_drops_the_password),
	    cmocka_unit_test(test_secret__no_dumps),
	    cmocka_unit_test(test_secret__buffer_keeps_its_bytes_across_growth),
	    cmocka_unit_test(test_secret__wipe),
	};
	return cmocka_run_group_tests_name("secret", tests, NULL, NULL);
}
