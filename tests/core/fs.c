#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util/fs.h"
#include "support/support.h"

#define EXCHANGE (1 << 1) /* renameat2's RENAME_EXCHANGE */

static void test_fs__remove_tree_never_follows_symlinks(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf root = SS_BUF_INIT, link = SS_BUF_INIT, keep = SS_BUF_INIT, out = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "outside/keep", "x");
	ss_test_write(dir, "root/a/b/file", "y");
	ss_fs_join(&root, dir, "root");
	ss_fs_join(&out, dir, "outside");
	ss_fs_join(&link, dir, "root/a/link");
	assert_int_equal(symlink(out.ptr, link.ptr), 0);
	assert_int_equal(ss_fs_remove_tree(root.ptr, &err), 0);
	ss_fs_join(&keep, dir, "outside/keep");
	assert_int_equal(access(root.ptr, F_OK), -1);
	assert_int_equal(access(keep.ptr, F_OK), 0);
	/* a symlink given as the path itself goes, its target stays */
	assert_int_equal(symlink(out.ptr, root.ptr), 0);
	assert_int_equal(ss_fs_remove_tree(root.ptr, &err), 0);
	assert_int_equal(access(keep.ptr, F_OK), 0);
	ss_buf_release(&root);
	ss_buf_release(&link);
	ss_buf_release(&keep);
	ss_buf_release(&out);
	ss_test_tmpdir_free(dir);
}

/*
 * The race of a directory swapped for a symlink between the look at it and its opening, made
 * certain: lstat and unlinkat (what a remover looks with) are wrapped here, and once armed, the
 * first look at a path ending in "/d" (or at "d") exchanges d with alt (a symlink to outside)
 * right after looking. Unarmed they are the system calls.
 */
static const char *swap_d, *swap_alt;

static void swap_after_look(const char *name)
{
	size_t n = strlen(name);

	if (swap_d && (!strcmp(name, "d") || (n >= 2 && !strcmp(name + n - 2, "/d")))) {
		syscall(SYS_renameat2, AT_FDCWD, swap_d, AT_FDCWD, swap_alt, EXCHANGE);
		swap_d = NULL;
	}
}

int lstat(const char *restrict path, struct stat *restrict st)
{
	int rc = (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);

	swap_after_look(path);
	return rc;
}

int unlinkat(int dfd, const char *name, int flags)
{
	int rc = (int)syscall(SYS_unlinkat, dfd, name, flags);

	swap_after_look(name);
	return rc;
}

static void test_fs__remove_tree_survives_a_swapped_symlink(void **state)
{
	char *dir = ss_test_tmpdir();
	ss_buf root = SS_BUF_INIT, d = SS_BUF_INIT, alt = SS_BUF_INIT, out = SS_BUF_INIT,
	       keep = SS_BUF_INIT;
	ss_error err;

	ss_fs_join(&root, dir, "root");
	ss_fs_join(&d, dir, "root/d");
	ss_fs_join(&alt, dir, "root/alt");
	ss_fs_join(&out, dir, "outside");
	ss_fs_join(&keep, dir, "outside/keep");
	ss_test_write(dir, "outside/keep", "x");
	ss_test_write(dir, "root/d/file", "y");
	assert_int_equal(symlink(out.ptr, alt.ptr), 0);
	swap_d = d.ptr;
	swap_alt = alt.ptr;
	ss_fs_remove_tree(root.ptr, &err); /* may fail: what it must not do is go outside */
	assert_null(swap_d);               /* the swap happened */
	assert_int_equal(access(keep.ptr, F_OK), 0);
	assert_int_equal(ss_fs_remove_tree(root.ptr, &err), 0);
	assert_int_equal(access(keep.ptr, F_OK), 0);
	ss_buf_release(&root);
	ss_buf_release(&d);
	ss_buf_release(&alt);
	ss_buf_release(&out);
	ss_buf_release(&keep);
	ss_test_tmpdir_free(dir);
}

int test_fs_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fs__remove_tree_never_follows_symlinks),
	    cmocka_unit_test(test_fs__remove_tree_survives_a_swapped_symlink),
	};
	return cmocka_run_group_tests_name("fs", tests, NULL, NULL);
}
