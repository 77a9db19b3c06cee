#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/note.h"
#include "core/util/buf.h"

static const char skill_old[] = "---\n"
                                "name: pdf\n"
                                "description: Fill PDF forms\n"
                                "---\n"
                                "# PDF\n"
                                "Intro.\n"
                                "## Step 2\n"
                                "Open it.\n"
                                "## Step 3\n"
                                "Fill the fields.\n"
                                "Save.\n"
                                "```\n"
                                "# not a heading\n"
                                "```\n";

static ss_note_file changed(const char *path, const char *old, const char *new_)
{
	ss_note_file f;

	memset(&f, 0, sizeof(f));
	f.kind = SS_NOTE_FILE_CHANGED;
	f.path = path;
	f.old_text = old;
	f.old_len = strlen(old);
	f.new_text = new_;
	f.new_len = strlen(new_);
	return f;
}

static ss_note_file added(const char *path, ss_note_file_kind kind)
{
	ss_note_file f;

	memset(&f, 0, sizeof(f));
	f.kind = kind;
	f.path = path;
	return f;
}

static void test_note__names_the_section_and_counts(void **state)
{
	ss_buf b = SS_BUF_INIT, edited = SS_BUF_INIT;
	ss_note_file files[3];
	const char *subjects[] = {"Fix the order of step 3", "Add a check script"};
	ss_note_input in;

	ss_buf_puts(&edited, skill_old);
	/* replace "Fill the fields.\nSave.\n" (2 lines) by 4 lines */
	{
		char *p = strstr(edited.ptr, "Fill the fields.\nSave.\n");
		size_t at = (size_t)(p - edited.ptr);
		ss_buf tail = SS_BUF_INIT;
		ss_buf_puts(&tail, p + strlen("Fill the fields.\nSave.\n"));
		ss_buf_truncate(&edited, at);
		ss_buf_puts(&edited, "Check.\nFill.\nCheck again.\nSave.\n");
		ss_buf_put(&edited, tail.ptr, tail.len);
		ss_buf_release(&tail);
	}
	files[0] = added("scripts/check.sh", SS_NOTE_FILE_ADDED);
	files[1] = changed("SKILL.md", skill_old, edited.ptr);
	files[2] = added("references/old.md", SS_NOTE_FILE_REMOVED);
	memset(&in, 0, sizeof(in));
	in.subjects = subjects;
	in.nsubjects = 2;
	in.files = files;
	in.nfiles = 3;
	ss_note_build(&b, &in);
	assert_string_equal(b.ptr, "Fix the order of step 3\nAdd a check script\n\n"
	                           "SKILL.md: section 'Step 3' rewritten (+3 -1 lines); "
	                           "added scripts/check.sh; removed references/old.md");
	ss_buf_release(&b);
	ss_buf_release(&edited);
}

static void test_note__frontmatter_key_and_code_fence(void **state)
{
	ss_buf b = SS_BUF_INIT;
	char *edited = strdup(skill_old);
	ss_note_file f;

	/* the description changes; a line inside the code fence changes too */
	memcpy(strstr(edited, "Fill PDF"), "Sign PDF", 8);
	memcpy(strstr(edited, "# not a heading"), "# NOT", 5);
	f = changed("SKILL.md", skill_old, edited);
	ss_note_summary(&b, &f, 1);
	assert_string_equal(b.ptr,
	                    "SKILL.md: description and section 'Step 3' rewritten (+2 -2 lines)");
	free(edited);
	ss_buf_release(&b);
}

static void test_note__plain_file_and_mode(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_note_file f[2];

	f[0] = changed("scripts/run.sh", "echo a\n", "echo a\necho b\n");
	f[1] = changed("scripts/x.sh", "x\n", "x\n");
	f[1].new_exec = true;
	ss_note_summary(&b, f, 2);
	assert_string_equal(b.ptr,
	                    "scripts/run.sh changed (+1 line); scripts/x.sh made executable");
	/* a binary file comes without its texts */
	ss_buf_clear(&b);
	f[0] = added("fonts/a.ttf", SS_NOTE_FILE_CHANGED);
	ss_note_summary(&b, f, 1);
	assert_string_equal(b.ptr, "fonts/a.ttf changed (binary)");
	ss_buf_release(&b);
}

static void test_note__created_renamed_based_on(void **state)
{
	ss_buf b = SS_BUF_INIT;
	ss_note_file f[2];
	ss_note_input in;

	f[0] = added("SKILL.md", SS_NOTE_FILE_ADDED);
	f[1] = added("scripts/a.sh", SS_NOTE_FILE_ADDED);
	memset(&in, 0, sizeof(in));
	in.files = f;
	in.nfiles = 2;
	in.created = true;
	ss_note_build(&b, &in);
	assert_string_equal(b.ptr, "new skill: SKILL.md, scripts/a.sh");

	memset(&in, 0, sizeof(in));
	in.renamed_from = "old-name";
	ss_note_build(&b, &in);
	assert_string_equal(b.ptr, "renamed from 'old-name'");

	f[0] = changed("notes.txt", "a\n", "b\n");
	in.renamed_from = NULL;
	in.based_on = "bob.test";
	in.files = f;
	in.nfiles = 1;
	ss_note_build(&b, &in);
	assert_string_equal(b.ptr, "my own version of bob.test's; notes.txt changed (+1 -1 lines)");
	ss_buf_release(&b);
}

static int valid_utf8(const char *s, size_t len)
{
	ss_buf clean = SS_BUF_INIT;
	int same;

	ss_note_put_utf8(&clean, s, len);
	same = clean.len == len && !memcmp(clean.ptr, s, len);
	ss_buf_release(&clean);
	return same;
}

static void test_note__cut_on_utf8_boundary_with_ellipsis(void **state)
{
	ss_buf b = SS_BUF_INIT;
	const char *subjects[1];
	ss_buf subject = SS_BUF_INIT;
	ss_note_file f = added("SKILL.md", SS_NOTE_FILE_ADDED);
	ss_note_input in;

	for (int i = 0; i < 1000; i++)
		ss_buf_puts(&subject, "\xc3\xa9"); /* é: 2,000 bytes */
	ss_buf_puts(&subject, "x");
	subjects[0] = subject.ptr;
	memset(&in, 0, sizeof(in));
	in.subjects = subjects;
	in.nsubjects = 1;
	in.files = &f;
	in.nfiles = 1;
	in.created = true;
	ss_note_build(&b, &in);
	assert_true(b.len <= SS_NOTE_MAX);
	assert_true(b.len > SS_NOTE_MAX - 8);
	assert_true(valid_utf8(b.ptr, b.len));
	/* the summary survives whole at the end, the subject ends with the ellipsis */
	assert_non_null(strstr(b.ptr, "\xe2\x80\xa6\n\nnew skill: SKILL.md"));

	ss_buf_clear(&b);
	ss_buf_puts(&b, "ab\xe2\x82\xac"); /* "ab€" (5 bytes) cut to 5 stays */
	ss_note_cut(&b, 5);
	assert_string_equal(b.ptr, "ab\xe2\x82\xac");
	ss_note_cut(&b, 4); /* no room for € and …: "a…" */
	assert_string_equal(b.ptr, "a\xe2\x80\xa6");
	ss_buf_release(&b);
	ss_buf_release(&subject);
}

static void test_note__invalid_utf8_in_subject_is_replaced(void **state)
{
	ss_buf b = SS_BUF_INIT;
	const char *subjects[] = {"bad \xff byte", "bad \xff byte", "", "surrogate \xed\xa0\x80"};
	ss_note_input in;

	memset(&in, 0, sizeof(in));
	in.subjects = subjects;
	in.nsubjects = 4;
	ss_note_build(&b, &in);
	assert_string_equal(b.ptr, "bad \xef\xbf\xbd byte\nsurrogate \xef\xbf\xbd\xef\xbf\xbd"
	                           "\xef\xbf\xbd\n\nno file changed");
	ss_buf_release(&b);
}

int test_note_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_note__names_the_section_and_counts),
	    cmocka_unit_test(test_note__frontmatter_key_and_code_fence),
	    cmocka_unit_test(test_note__plain_file_and_mode),
	    cmocka_unit_test(test_note__created_renamed_based_on),
	    cmocka_unit_test(test_note__cut_on_utf8_boundary_with_ellipsis),
	    cmocka_unit_test(test_note__invalid_utf8_in_subject_is_replaced),
	};
	return cmocka_run_group_tests_name("note", tests, NULL, NULL);
}
