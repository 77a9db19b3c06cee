#include "support.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#include "core/util/fs.h"
#include "core/util/mem.h"

char *ss_test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	ss_buf path = SS_BUF_INIT;

	ss_buf_printf(&path, "%s/skillsync-test-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(path.ptr));
	return ss_buf_detach(&path, NULL);
}

void ss_test_tmpdir_free(char *dir)
{
	ss_error ignored;
	if (!dir)
		return;
	assert_int_equal(ss_fs_remove_tree(dir, &ignored), 0);
	free(dir);
}

void ss_test_data(ss_buf *out, const char *rel)
{
	const char *base = getenv("SS_TESTDATA");

	assert_non_null(base);
	ss_buf_clear(out);
	ss_fs_join(out, base, rel);
}

time_t ss_test_backdate(const char *path, time_t seconds)
{
	struct timespec times[2];

	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec -= seconds;
	times[1] = times[0];
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	return times[0].tv_sec;
}

void ss_test_write(const char *dir, const char *rel, const char *content)
{
	ss_error ignored;
	ss_buf path = SS_BUF_INIT;
	char *slash;

	ss_fs_join(&path, dir, rel);
	slash = strrchr(path.ptr, '/');
	*slash = '\0';
	assert_int_equal(ss_fs_mkdir_p(path.ptr, 0755, &ignored), 0);
	*slash = '/';
	assert_int_equal(ss_fs_write_atomic(path.ptr, content, strlen(content), 0644, &ignored), 0);
	ss_buf_release(&path);
}

void ss_test_hex(void *out, size_t n, const char *hex)
{
	unsigned char *p = out;

	assert_int_equal(strlen(hex), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		p[i] = (unsigned char)v;
	}
}

struct json_t *ss_test_json(const char *rel)
{
	ss_buf path = SS_BUF_INIT;
	json_error_t jerr;
	json_t *v;

	ss_test_data(&path, rel);
	v = json_load_file(path.ptr, 0, &jerr);
	if (!v)
		fail_msg("%s: %s", path.ptr, jerr.text);
	ss_buf_release(&path);
	return v;
}
