/*
 * support.h: what the unit tests share: a private temporary directory per test (removed
 * afterwards; tests never touch $HOME) and the path of testdata/.
 */
#ifndef SS_TEST_SUPPORT_H
#define SS_TEST_SUPPORT_H

#include <time.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* Creates a fresh empty directory under $TMPDIR and returns its path (free() it). */
char *ss_test_tmpdir(void);
/* Removes a directory made by ss_test_tmpdir() and frees the path. */
void ss_test_tmpdir_free(char *dir);
/* Sets out to testdata/<rel> (from $SS_TESTDATA). */
void ss_test_data(ss_buf *out, const char *rel);
/* Writes a file (creating parent directories), failing the test on error. */
void ss_test_write(const char *dir, const char *rel, const char *content);
/* Sets path's access and modification times seconds back (its ctime moves to now): the time
 * set. */
time_t ss_test_backdate(const char *path, time_t seconds);

/* Decodes hex (lowercase or not) into out, failing the test unless it is exactly n bytes. */
void ss_test_hex(void *out, size_t n, const char *hex);
/* Loads testdata/<rel> as JSON (json_decref() it), failing the test on error. */
struct json_t *ss_test_json(const char *rel);

/*
 * Asserts that call fails with the code want, read where core/util/error.h puts it: err.code (err
 * is cleared first, so a failure that does not fill it shows).
 */
#define SS_ASSERT_FAILS(call, err, want)                                                           \
	do {                                                                                       \
		ss_error_clear(&(err));                                                            \
		assert_true((call) < 0);                                                           \
		assert_int_equal((err).code, (want));                                              \
	} while (0)

#endif
