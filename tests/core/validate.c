/* validate.c: the rules (core/skill/validate.h) at their limits, and skill directories on disk. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/skill/validate.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "support/support.h"

static ss_skill *skill_named(const char *name)
{
	ss_skill *s = ss_skill_new();

	ss_skill_set_name(s, name);
	ss_skill_set_description(s, "d");
	return s;
}

/* The report's lines for s in directory dirname, joined with '\n' ("" when clean). */
static void lines_for(const ss_skill *s, const char *dirname, ss_buf *out)
{
	ss_report *r = ss_report_new();

	ss_buf_clear(out);
	ss_validate_skill(s, dirname, 0, 0, r);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		if (i)
			ss_buf_putc(out, '\n');
		ss_report_format(ss_report_at(r, i), out);
	}
	ss_report_free(r);
}

static void test_validate__names(void **state)
{
	static const char *const good[] = {"a", "pdf", "pdf-forms", "a1-b2-c3", "0"};
	static const char *const bad[] = {"", "-a", "a-", "a--b", "A", "a_b", "a.b", "a b", "é"};
	char longest[66];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_null(ss_validate_name(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ss_validate_name(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
	memset(longest, 'a', 64);
	longest[64] = '\0';
	assert_null(ss_validate_name(longest));
	longest[64] = 'a';
	longest[65] = '\0';
	assert_string_equal(ss_validate_name(longest), "longer than 64 bytes");
}

static void test_validate__paths(void **state)
{
	static const char *const good[] = {
	    "a",   "scripts/run.sh", "a/b/c.txt",    ".hidden",       "..x",     "x..",
	    "git", ".gitignore",     "skill.md.bak", "refs/SKILL.md", "ünï/✓.md"};
	static const char *const bad[] = {
	    "",       "/a",     "a/",       "a//b",     "./a",  "a/./b", "..",    "a/../b", ".git",
	    ".GIT/x", "a/.Git", "SKILL.md", "skill.md", "a\\b", "a\tb",  "a\x7f", "\xff"};
	/* names libgit2 refuses, or that Windows (NTFS) or macOS (HFS+) read as ".git" */
	static const char *const aliases[] = {"git~1/config",      "GIT~1/x",      ".git./config",
	                                      ".git /config",      "a/.git. . .",  ".git:x/y",
	                                      ".g\u200cit/config", "\u200d.git/x", ".GI\ufeffT",
	                                      ".git\u206a/x",      "Git~1"};
	static const char *const near[] = {"git~2",  ".git.x",     ".gitx",
	                                   "git~1x", ".g\u200bit", "git"};
	char path[514];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (ss_validate_path(good[i], strlen(good[i])))
			fail_msg("'%s' refused: %s", good[i],
			         ss_validate_path(good[i], strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ss_validate_path(bad[i], strlen(bad[i])))
			fail_msg("'%s' accepted", bad[i]);
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!ss_validate_path(aliases[i], strlen(aliases[i])) ||
		    strcmp(ss_validate_path(aliases[i], strlen(aliases[i])),
		           "path has a component that Windows or macOS reads as '.git'"))
			fail_msg("'%s' not refused as '.git'", aliases[i]);
	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++)
		if (ss_validate_path(near[i], strlen(near[i])))
			fail_msg("'%s' refused", near[i]);
	/* 512 bytes in components of 255 bytes at most */
	memset(path, 'p', 513);
	path[255] = path[400] = path[511] = '/';
	assert_string_equal(ss_validate_path(path, 512), "path has an empty component");
	path[511] = 'p';
	assert_null(ss_validate_path(path, 512));
	assert_string_equal(ss_validate_path(path, 513), "path longer than 512 bytes");
	path[255] = path[400] = 'p';
	assert_string_equal(ss_validate_path(path, 256),
	                    "path has a component longer than 255 bytes");
	assert_null(ss_validate_path(path, 255));
	/* 32 components, not 33 */
	for (int i = 0; i < 33; i++) {
		path[2 * i] = 'd';
		path[2 * i + 1] = '/';
	}
	assert_null(ss_validate_path(path, 63));
	assert_string_equal(ss_validate_path(path, 65), "path has more than 32 components");
	assert_non_null(ss_validate_path("a\0b", 3));
}

static void test_validate__byte_limits(void **state)
{
	ss_skill *s = skill_named("pdf");
	ss_buf text = SS_BUF_INIT, got = SS_BUF_INIT;

	for (int i = 0; i < 512; i++)
		ss_buf_puts(&text, "\xC3\xA9"); /* 1024 bytes, 512 characters */
	ss_skill_set_description(s, text.ptr);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "");
	ss_buf_putc(&text, 'x');
	ss_skill_set_description(s, text.ptr);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "pdf/SKILL.md: description: longer than 1024 bytes (1025)");
	ss_skill_set_description(s, "d");

	ss_buf_clear(&text);
	for (int i = 0; i < SS_MAX_INSTRUCTIONS; i++)
		ss_buf_putc(&text, 'b');
	ss_skill_set_instructions(s, text.ptr, text.len);
	ss_skill_add_file(s, "big.txt", text.ptr, text.len, false);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "");
	ss_buf_putc(&text, 'b');
	ss_skill_set_instructions(s, text.ptr, text.len);
	s->files[0].content = ss_xrealloc(s->files[0].content, text.len + 1);
	memcpy(s->files[0].content, text.ptr, text.len + 1);
	s->files[0].len = text.len;
	lines_for(s, "pdf", &got);
	/* a file over 200,000 bytes travels as a blob: only the body is refused */
	assert_string_equal(got.ptr, "pdf/SKILL.md: body: longer than 200000 bytes (200001)");
	ss_skill_free(s);
	ss_buf_release(&text);
	ss_buf_release(&got);
}

static void test_validate__file_count_and_compatibility(void **state)
{
	ss_skill *s = skill_named("pdf");
	ss_buf got = SS_BUF_INIT, path = SS_BUF_INIT, compat = SS_BUF_INIT;

	for (int i = 0; i < 32; i++) {
		ss_buf_clear(&path);
		ss_buf_printf(&path, "f%02d", i);
		ss_skill_add_file(s, path.ptr, "x", 1, false);
	}
	for (int i = 0; i < 500; i++)
		ss_buf_puts(&compat, "\xE2\x9C\x93");
	ss_value_map_append(s->frontmatter, "compatibility",
	                    ss_value_new_string(compat.ptr, compat.len));
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "");
	/* the 33rd file travels as a blob; the limit is SS_MAX_SKILL_FILES */
	for (int i = 32; i < SS_MAX_SKILL_FILES; i++) {
		ss_buf_clear(&path);
		ss_buf_printf(&path, "f%04d", i);
		ss_skill_add_file(s, path.ptr, "x", 1, false);
	}
	ss_skill_sort_files(s);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "");
	ss_skill_add_file(s, "g", "x", 1, false);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "pdf: 1001 files, more than the 1000 a skill can hold: move "
	                             "some out of the skill");
	ss_skill_free(s);
	ss_buf_release(&got);
	ss_buf_release(&path);
	ss_buf_release(&compat);
}

static void test_validate__record_must_fit_the_pds_limit(void **state)
{
	ss_skill *s = skill_named("pdf");
	ss_buf got = SS_BUF_INIT;
	char *ctl = ss_xmalloc(170000);

	/* valid text, but every byte takes six in JSON (\u0001): as a file it becomes a blob,
	 * as the body it cannot */
	memset(ctl, 1, 170000);
	ss_skill_add_file(s, "ctl.txt", ctl, 170000, false);
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "");
	ss_skill_set_instructions(s, ctl, 170000);
	lines_for(s, "pdf", &got);
	if (!strstr(got.ptr, "pdf: the record would be 102") ||
	    !strstr(got.ptr, "bytes, more than 983616"))
		fail_msg("%s", got.ptr);
	free(ctl);
	ss_skill_free(s);
	ss_buf_release(&got);
}

static void read_dir_lines(const char *dir, ss_buf *out)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_error err;

	ss_buf_clear(out);
	ss_error_clear(&err);
	assert_true(ss_skilldir_read(dir, &s, r, &err) < 0);
	assert_int_equal(err.code, SS_EINVALID);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		ss_report_format(ss_report_at(r, i), out);
		ss_buf_putc(out, '\n');
	}
	ss_report_free(r);
}

static void test_validate__directories_hold_only_regular_files(void **state)
{
	ss_error ignored;
	char *tmp = ss_test_tmpdir();
	ss_buf dir = SS_BUF_INIT, p = SS_BUF_INIT, got = SS_BUF_INIT;
	char big[SS_MAX_CONTENT + 1], *huge;

	ss_fs_join(&dir, tmp, "pdf");
	ss_test_write(dir.ptr, "SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
	ss_test_write(dir.ptr, ".GIT/config", "x\n");
	ss_fs_join(&p, dir.ptr, "link");
	assert_int_equal(symlink("/etc/passwd", p.ptr), 0);
	ss_buf_clear(&p);
	ss_fs_join(&p, dir.ptr, "pipe");
	assert_int_equal(mkfifo(p.ptr, 0644), 0);
	memset(big, 'x', sizeof(big));
	ss_buf_clear(&p);
	ss_fs_join(&p, dir.ptr, "big.txt");
	assert_int_equal(ss_fs_write_atomic(p.ptr, big, sizeof(big), 0644, &ignored), 0);
	huge = ss_xcalloc(1, SS_MAX_BLOB + 1);
	ss_buf_clear(&p);
	ss_fs_join(&p, dir.ptr, "huge.bin");
	assert_int_equal(ss_fs_write_atomic(p.ptr, huge, SS_MAX_BLOB + 1, 0644, &ignored), 0);
	free(huge);
	read_dir_lines(dir.ptr, &got);
	assert_string_equal(got.ptr,
	                    "pdf/huge.bin: larger than 5242880 bytes (5242881), the most a "
	                    "PDS takes for one file: move it out of the skill (host it "
	                    "elsewhere and link to it from SKILL.md)\n"
	                    "pdf/link: symbolic link (a skill holds only regular files: "
	                    "put a copy of the file it points to in its place)\n"
	                    "pdf/pipe: not a regular file\n"
	                    "pdf/.GIT/config: path has a '.git' component\n");
	ss_buf_release(&dir);
	ss_buf_release(&p);
	ss_buf_release(&got);
	ss_test_tmpdir_free(tmp);
}

/* The same path rules for a local directory as for records: aliases of .git, names that differ
 * only in case, nesting past 32 components. */
static void test_validate__local_paths_follow_the_record_rules(void **state)
{
	char *tmp = ss_test_tmpdir();
	ss_buf dir = SS_BUF_INIT, deep = SS_BUF_INIT, got = SS_BUF_INIT;

	ss_fs_join(&dir, tmp, "pdf");
	ss_test_write(dir.ptr, "SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
	ss_test_write(dir.ptr, "git~1/config", "x\n");
	ss_test_write(dir.ptr, "Notes.md", "x\n");
	ss_test_write(dir.ptr, "notes.md", "y\n");
	ss_test_write(dir.ptr, "Docs/a.md", "x\n");
	ss_test_write(dir.ptr, "docs/b.md", "y\n");
	/* 31 directories and a file: 32 components, the most a path may have */
	for (int i = 0; i < 31; i++)
		ss_buf_puts(&deep, "d/");
	ss_buf_puts(&deep, "f.md");
	ss_test_write(dir.ptr, deep.ptr, "x\n");
	read_dir_lines(dir.ptr, &got);
	assert_string_equal(got.ptr, "pdf/docs/b.md: differs from 'Docs/a.md' only in case (one "
	                             "file on macOS and Windows)\n"
	                             "pdf/git~1/config: path has a component that Windows or macOS "
	                             "reads as '.git'\n"
	                             "pdf/notes.md: differs from 'Notes.md' only in case (one file "
	                             "on macOS and Windows)\n");
	/* one level more is refused while reading */
	ss_buf_clear(&deep);
	for (int i = 0; i < 32; i++)
		ss_buf_puts(&deep, "e/");
	ss_buf_puts(&deep, "f.md");
	ss_test_write(dir.ptr, deep.ptr, "x\n");
	read_dir_lines(dir.ptr, &got);
	assert_non_null(strstr(got.ptr, "/e/e: directories nested too deeply\n"));
	ss_buf_release(&dir);
	ss_buf_release(&deep);
	ss_buf_release(&got);
	ss_test_tmpdir_free(tmp);
}

/* One SKILL.md limit both ways: a record whose SKILL.md would be too big for the reader is
 * invalid, and a too big SKILL.md on disk says so (not "missing"). */
static void test_validate__skillmd_limit_is_the_same_both_ways(void **state)
{
	char *tmp = ss_test_tmpdir();
	ss_skill *s = skill_named("pdf");
	ss_buf license = SS_BUF_INIT, got = SS_BUF_INIT, dir = SS_BUF_INIT, md = SS_BUF_INIT;

	for (int i = 0; i < 600000; i++)
		ss_buf_putc(&license, 'l');
	ss_value_map_append(s->frontmatter, "license",
	                    ss_value_new_string(license.ptr, license.len));
	lines_for(s, "pdf", &got);
	assert_string_equal(got.ptr, "pdf/SKILL.md: larger than 265536 bytes (600043)");
	ss_skill_md(s, &md);
	ss_fs_join(&dir, tmp, "pdf");
	ss_test_write(dir.ptr, "SKILL.md", md.ptr);
	read_dir_lines(dir.ptr, &got);
	assert_string_equal(got.ptr, "pdf/SKILL.md: larger than 265536 bytes (600043)\n");
	ss_skill_free(s);
	ss_buf_release(&license);
	ss_buf_release(&got);
	ss_buf_release(&dir);
	ss_buf_release(&md);
	ss_test_tmpdir_free(tmp);
}

static void test_validate__write_dir_is_safe(void **state)
{
	ss_error ignored;
	char *tmp = ss_test_tmpdir();
	ss_skill *s = skill_named("pdf");
	ss_buf dir = SS_BUF_INIT, p = SS_BUF_INIT;
	struct stat st;
	ss_error err;

	ss_skill_add_file(s, "scripts/run.sh", "#!/bin/sh\n", 10, true);
	ss_skill_add_file(s, "notes.md", "n\n", 2, false);
	ss_skill_sort_files(s);
	ss_fs_join(&dir, tmp, "pdf");
	assert_int_equal(ss_skilldir_write(s, dir.ptr, &err), 0);
	ss_fs_join(&p, dir.ptr, "scripts/run.sh");
	assert_int_equal(stat(p.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	ss_buf_clear(&p);
	ss_fs_join(&p, dir.ptr, "notes.md");
	assert_int_equal(stat(p.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* never overwrites */
	SS_ASSERT_FAILS(ss_skilldir_write(s, dir.ptr, &err), err, SS_EEXISTS);

	/* an unsafe path is refused before anything is written */
	ss_skill_add_file(s, "../escape", "x", 1, false);
	ss_buf_clear(&dir);
	ss_fs_join(&dir, tmp, "other");
	SS_ASSERT_FAILS(ss_skilldir_write(s, dir.ptr, &err), err, SS_EINVALID);
	assert_string_equal(err.message,
	                    "cannot write skill 'pdf': path has a '.' or '..' component");
	assert_int_equal(lstat(dir.ptr, &st), -1);
	ss_buf_clear(&p);
	ss_fs_join(&p, tmp, "escape");
	assert_int_equal(lstat(p.ptr, &st), -1);
	ss_skill_free(s);

	/* a symlinked directory inside the target is not followed */
	s = skill_named("pdf");
	ss_skill_add_file(s, "sub/f.txt", "x", 1, false);
	ss_buf_clear(&dir);
	ss_fs_join(&dir, tmp, "linked");
	assert_int_equal(ss_fs_mkdir_p(dir.ptr, 0755, &ignored), 0);
	ss_buf_clear(&p);
	ss_fs_join(&p, dir.ptr, "sub");
	assert_int_equal(symlink(tmp, p.ptr), 0);
	assert_true(ss_skilldir_write(s, dir.ptr, &err) < 0);
	ss_buf_clear(&p);
	ss_fs_join(&p, tmp, "f.txt");
	assert_int_equal(lstat(p.ptr, &st), -1);
	ss_skill_free(s);
	ss_buf_release(&dir);
	ss_buf_release(&p);
	ss_test_tmpdir_free(tmp);
}

int test_validate_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validate__names),
	    cmocka_unit_test(test_validate__paths),
	    cmocka_unit_test(test_validate__byte_limits),
	    cmocka_unit_test(test_validate__file_count_and_compatibility),
	    cmocka_unit_test(test_validate__record_must_fit_the_pds_limit),
	    cmocka_unit_test(test_validate__directories_hold_only_regular_files),
	    cmocka_unit_test(test_validate__local_paths_follow_the_record_rules),
	    cmocka_unit_test(test_validate__skillmd_limit_is_the_same_both_ways),
	    cmocka_unit_test(test_validate__write_dir_is_safe),
	};
	return cmocka_run_group_tests_name("core/validate", tests, NULL, NULL);
}
