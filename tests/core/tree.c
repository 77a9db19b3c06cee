#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/gitfmt/oid.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/util/fs.h"
#include "support/gitrepo.h"
#include "support/support.h"

#define CHECK(call)                                                                                \
	do {                                                                                       \
		ss_error e_;                                                                       \
		if ((call) < 0)                                                                    \
			fail_msg("%s: %s", #call, e_.message);                                     \
	} while (0)

/* Builds a skill subtree from (path, content, executable) triples. */
static ss_oid skill(ss_repo *repo, const char *const *files, size_t n)
{
	ss_tree_builder *b;
	ss_oid oid;
	ss_error err;

	ss_tree_builder_new(&b, repo);
	for (size_t i = 0; i < n; i += 3)
		if (ss_tree_builder_add(b, files[i], files[i + 1], strlen(files[i + 1]),
		                        files[i + 2] != NULL, &err) < 0)
			fail_msg("%s", err.message);
	if (ss_tree_builder_write(b, &oid, &err) < 0)
		fail_msg("%s", err.message);
	ss_tree_builder_free(b);
	return oid;
}

typedef struct collected {
	ss_buf text;
} collected;

static int collect(const ss_tree_file *f, void *payload)
{
	collected *c = payload;

	ss_buf_printf(&c->text, "%s %o %zu:", f->path, f->mode, f->len);
	ss_buf_put(&c->text, f->data, f->len);
	ss_buf_puts(&c->text, "\n");
	return 0;
}

static void test_tree__nested_subtree_reads_back_exactly(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *files[] = {
	    "scripts/run.sh",
	    "#!/bin/sh\necho hi\n",
	    "x",
	    "SKILL.md",
	    "---\nname: pdf\n---\nbody\n",
	    NULL,
	    "references/deep/a.md",
	    "A",
	    NULL,
	    "references/b.md",
	    "",
	    NULL,
	};
	collected c = {SS_BUF_INIT};
	ss_oid oid;
	ss_error err;
	ss_buf out = SS_BUF_INIT;
	unsigned mode;

	oid = skill(repo, files, 12);
	assert_int_equal(ss_tree_each_file(repo, &oid, collect, &c, &err), 0);
	assert_string_equal(c.text.ptr, "SKILL.md 100644 23:---\nname: pdf\n---\nbody\n\n"
	                                "references/b.md 100644 0:\n"
	                                "references/deep/a.md 100644 1:A\n"
	                                "scripts/run.sh 100755 18:#!/bin/sh\necho hi\n\n");
	assert_int_equal(ss_tree_read_file(repo, &oid, "references/deep/a.md", &out, &err), 0);
	assert_string_equal(out.ptr, "A");
	assert_int_equal(ss_tree_lookup(repo, &oid, "scripts", &oid, &mode, &err), 0);
	assert_int_equal(mode, SS_MODE_TREE);
	SS_ASSERT_FAILS(ss_tree_lookup(repo, &oid, "nope", &oid, NULL, &err), err, SS_ENOTFOUND);
	ss_buf_release(&c.text);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_tree__same_content_same_oid(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *one[] = {"SKILL.md", "x", NULL, "a/b.txt", "b", NULL};
	const char *two[] = {"a/b.txt", "b", NULL, "SKILL.md", "x", NULL};
	const char *exec[] = {"a/b.txt", "b", "x", "SKILL.md", "x", NULL};
	ss_oid a = skill(repo, one, 6), b = skill(repo, two, 6), c = skill(repo, exec, 6);
	ss_buf out = SS_BUF_INIT;
	char hex[SS_OID_HEXSZ + 1];

	assert_true(ss_oid_equal(&a, &b));
	assert_false(ss_oid_equal(&a, &c));
	assert_true(ss_tree_exists(repo, &a));
	a.id[0] ^= 1;
	assert_false(ss_tree_exists(repo, &a));
	a.id[0] ^= 1;
	/* git agrees on the id: the tree really holds what we asked for. */
	ss_oid_fmt(hex, &a);
	ss_buf_printf(&out, "ls-tree -r %s", hex);
	{
		ss_buf ls = SS_BUF_INIT;
		assert_int_equal(ss_test_git(dir, &ls, out.ptr), 0);
		assert_non_null(strstr(ls.ptr, "100644 blob"));
		assert_non_null(strstr(ls.ptr, "\ta/b.txt\n"));
		ss_buf_release(&ls);
	}
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_tree__bad_paths_refused(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *bad[] = {"../x",         "/abs",        "a//b",         "a/./b",
	                     ".git/config",  "x/.GIT/y",    "a/",           "",
	                     "git~1/config", "GIT~1/x",     ".git./config", ".git /config",
	                     ".g\u200cit/x", "\u200d.git/x"};
	ss_tree_builder *b;
	ss_error err;
	ss_oid oid;

	ss_tree_builder_new(&b, repo);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		SS_ASSERT_FAILS(ss_tree_builder_add(b, bad[i], "x", 1, false, &err), err,
		                SS_EINVALID);
		assert_non_null(strstr(err.message, bad[i]));
	}
	/* a file and a directory of the same name */
	assert_int_equal(ss_tree_builder_add(b, "a", "x", 1, false, &err), 0);
	assert_int_equal(ss_tree_builder_add(b, "a-b", "x", 1, false, &err), 0);
	assert_int_equal(ss_tree_builder_add(b, "a/c", "x", 1, false, &err), 0);
	SS_ASSERT_FAILS(ss_tree_builder_write(b, &oid, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "'a"));
	ss_tree_builder_free(b);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static ss_oid top(ss_repo *repo, const ss_oid *base, bool files_only, const char *const *names,
                  const ss_oid *oids, size_t n)
{
	ss_tree_top *t;
	ss_error err;
	ss_oid oid;

	if (ss_tree_top_new(&t, repo, base, files_only, &err) < 0)
		fail_msg("%s", err.message);
	for (size_t i = 0; i < n; i++)
		if (oids)
			CHECK(ss_tree_top_set(t, names[i], &oids[i], SS_MODE_TREE, &e_));
		else
			CHECK(ss_tree_top_remove(t, names[i], &e_));
	CHECK(ss_tree_top_write(t, &oid, &e_));
	ss_tree_top_free(t);
	return oid;
}

static void test_tree__top_level_diff(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *f1[] = {"SKILL.md", "one", NULL};
	const char *f2[] = {"SKILL.md", "two", NULL};
	ss_oid s1 = skill(repo, f1, 3), s2 = skill(repo, f2, 3), readme, base, t1, t2, keep;
	const char *names[] = {"alpha", "beta", "gamma"};
	ss_oid v1[] = {s1, s1, s1};
	ss_oid v2[] = {s2, s1};
	const char *names2[] = {"alpha", "delta"};
	ss_changes ch = {0};
	ss_tree_list list = {0};
	ss_tree_top *t;
	ss_error err;

	t1 = top(repo, NULL, false, names, v1, 3);
	/* alpha modified, beta unchanged, gamma removed, delta added */
	base = top(repo, &t1, false, names + 2, NULL, 1);
	t2 = top(repo, &base, false, names2, v2, 2);
	assert_int_equal(ss_tree_diff_top(repo, &t1, &t2, &ch, &err), 0);
	assert_int_equal(ch.count, 3);
	assert_string_equal(ch.items[0].path, "alpha");
	assert_int_equal(ch.items[0].kind, SS_CHANGE_MODIFIED);
	assert_true(ss_oid_equal(&ch.items[0].old_oid, &s1));
	assert_true(ss_oid_equal(&ch.items[0].new_oid, &s2));
	assert_string_equal(ch.items[1].path, "delta");
	assert_int_equal(ch.items[1].kind, SS_CHANGE_ADDED);
	assert_true(ss_oid_is_zero(&ch.items[1].old_oid));
	assert_string_equal(ch.items[2].path, "gamma");
	assert_int_equal(ch.items[2].kind, SS_CHANGE_REMOVED);
	ss_tree_changes_release(&ch);
	/* from nothing: everything added */
	assert_int_equal(ss_tree_diff_top(repo, NULL, &t1, &ch, &err), 0);
	assert_int_equal(ch.count, 3);
	assert_int_equal(ch.items[2].kind, SS_CHANGE_ADDED);
	ss_tree_changes_release(&ch);

	/* keep_files_only keeps a README, drops the skills */
	CHECK(ss_tree_blob_write(repo, "hello\n", 6, &readme, &e_));
	CHECK(ss_tree_top_new(&t, repo, &t1, false, &e_));
	CHECK(ss_tree_top_set(t, "README.md", &readme, SS_MODE_FILE, &e_));
	CHECK(ss_tree_top_write(t, &base, &e_));
	ss_tree_top_free(t);
	keep = top(repo, &base, true, names2 + 1, v2 + 1, 1);
	assert_int_equal(ss_tree_list_top(repo, &keep, &list, &err), 0);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.entries[0].name, "README.md");
	assert_int_equal(list.entries[0].mode, SS_MODE_FILE);
	assert_string_equal(list.entries[1].name, "delta");
	ss_tree_list_release(&list);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_tree__file_level_changes_count_lines(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	const char *before[] = {"SKILL.md", "a\nb\nc\nd\n", NULL,  "old.md", "gone\n",
	                        NULL,       "run.sh",       "x\n", NULL};
	const char *after[] = {
	    "SKILL.md", "a\nB\nc\nd\ne\nf\n", NULL, "new/n.md", "1\n2\n", NULL, "run.sh", "x\n",
	    "x"};
	ss_oid a = skill(repo, before, 9), b = skill(repo, after, 9);
	ss_changes ch = {0};
	ss_error err;

	assert_int_equal(ss_tree_diff_files(repo, &a, &b, &ch, &err), 0);
	assert_int_equal(ch.count, 4);
	assert_string_equal(ch.items[0].path, "SKILL.md");
	assert_int_equal(ch.items[0].kind, SS_CHANGE_MODIFIED);
	assert_int_equal(ch.items[0].added_lines, 3);
	assert_int_equal(ch.items[0].removed_lines, 1);
	assert_string_equal(ch.items[1].path, "new/n.md");
	assert_int_equal(ch.items[1].kind, SS_CHANGE_ADDED);
	assert_int_equal(ch.items[1].added_lines, 2);
	assert_string_equal(ch.items[2].path, "old.md");
	assert_int_equal(ch.items[2].kind, SS_CHANGE_REMOVED);
	assert_int_equal(ch.items[2].removed_lines, 1);
	assert_string_equal(ch.items[3].path, "run.sh");
	assert_int_equal(ch.items[3].kind, SS_CHANGE_MODIFIED);
	assert_int_equal(ch.items[3].new_mode, SS_MODE_EXEC);
	assert_int_equal(ch.items[3].added_lines + ch.items[3].removed_lines, 0);
	ss_tree_changes_release(&ch);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* ss_oid_hash gives git's ids: the empty blob's and tree's, and a file's as git hash-object. */
static void test_tree__oid_hash_is_gits(void **state)
{
	char hex[SS_OID_HEXSZ + 1];
	ss_oid id;

	(void)state;
	assert_int_equal(ss_oid_hash(&id, "blob", "", 0), 0);
	ss_oid_fmt(hex, &id);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	assert_int_equal(ss_oid_hash(&id, "tree", "", 0), 0);
	ss_oid_fmt(hex, &id);
	assert_string_equal(hex, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	/* printf 'hello\n' | git hash-object --stdin */
	assert_int_equal(ss_oid_hash(&id, "blob", "hello\n", 6), 0);
	ss_oid_fmt(hex, &id);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");

	/* read from a file: the same id; a size that is not the file's is a changed file */
	char *dir = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT;
	int fd;
	ss_test_write(dir, "f", "hello\n");
	ss_fs_join(&path, dir, "f");
	assert_true((fd = open(path.ptr, O_RDONLY)) >= 0);
	assert_int_equal(ss_oid_hash_fd(&id, fd, 6), 0);
	ss_oid_fmt(hex, &id);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(ss_oid_hash_fd(&id, fd, 5), -EAGAIN);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(ss_oid_hash_fd(&id, fd, 7), -EAGAIN);
	close(fd);
	ss_buf_release(&path);
	ss_test_tmpdir_free(dir);
}

int test_tree_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree__nested_subtree_reads_back_exactly),
	    cmocka_unit_test(test_tree__same_content_same_oid),
	    cmocka_unit_test(test_tree__oid_hash_is_gits),
	    cmocka_unit_test(test_tree__bad_paths_refused),
	    cmocka_unit_test(test_tree__top_level_diff),
	    cmocka_unit_test(test_tree__file_level_changes_count_lines),
	};
	return cmocka_run_group_tests_name("core/tree", tests, NULL, NULL);
}
