/* Which files of a skill are programs (core/skill/program.c): one classification for the
 * review gate and the audit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/skill/program.h"

static bool is(const char *path, const char *text, bool executable)
{
	return ss_program_is(path, text, strlen(text), executable);
}

static void test_program__a_shebang_line_makes_a_program(void **state)
{
	(void)state;
	assert_true(is("run", "#!/bin/sh\necho hi\n", false));
	assert_true(is("references/x.txt", "#!/usr/bin/env python3\n", false));
	assert_true(is("run", "\xef\xbb\xbf#!/bin/sh\n", false)); /* after a byte order mark */
	assert_false(is("notes.md", "# #!/bin/sh\n", false));
	assert_false(is("notes.md", " #!/bin/sh\n", false));
	assert_false(is("empty", "", false));
	assert_false(is("one", "#", false));
}

static void test_program__script_suffixes_in_any_case(void **state)
{
	static const char *const yes[] = {"a.sh", "x/b.py", "c.JS",  "d.Ps1", "e.bat", "f.mjs",
	                                  "g.rb", "h.pl",   "i.php", "j.lua", "k.ts",  "l.R"};
	static const char *const no[] = {"a.md", "b.txt",       "c.shx",     "d.json",
	                                 "sh",   "x.sh/readme", ".py/notes", "e.pdf"};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		if (!is(yes[i], "text\n", false))
			fail_msg("%s is not a program", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (is(no[i], "text\n", false))
			fail_msg("%s is a program", no[i]);
}

static void test_program__top_level_program_directories_in_any_case(void **state)
{
	(void)state;
	assert_true(is("scripts/run", "text\n", false));
	assert_true(is("Scripts/run.txt", "text\n", false));
	assert_true(is("SCRIPTS/a/b", "text\n", false));
	assert_true(is("tools/tool.txt", "text\n", false));
	assert_true(is("Bin/x", "text\n", false));
	/* only at the top, and only as a directory */
	assert_false(is("references/scripts/notes.md", "text\n", false));
	assert_false(is("scripts", "text\n", false));
	assert_false(is("scriptsx/a", "text\n", false));
	assert_false(is("toolsets/a.md", "text\n", false));
}

static void test_program__the_executable_bit(void **state)
{
	(void)state;
	assert_true(is("README.md", "text\n", true));
	assert_false(is("README.md", "text\n", false));
	assert_true(ss_program_is("blob", NULL, 0, true));
	assert_false(ss_program_is("blob", NULL, 0, false));
}

int test_program_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_program__a_shebang_line_makes_a_program),
	    cmocka_unit_test(test_program__script_suffixes_in_any_case),
	    cmocka_unit_test(test_program__top_level_program_directories_in_any_case),
	    cmocka_unit_test(test_program__the_executable_bit),
	};
	return cmocka_run_group_tests_name("core/program", tests, NULL, NULL);
}
