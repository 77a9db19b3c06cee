/*
 * skillcases.c: the data-driven cases in testdata/skills/: every valid case reads without
 * errors and with exactly its expected warnings, and round-trips both ways; every invalid case
 * gives exactly the lines in its `expected` file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/skill/skillmd.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "support/support.h"

/* The report as the lines `skillsync validate` prints ("error: ..." / "warning: ..."). */
static void report_lines(const ss_report *r, ss_buf *out)
{
	for (size_t i = 0; i < ss_report_count(r); i++) {
		const ss_report_item *it = ss_report_at(r, i);
		ss_buf_puts(out, it->severity == SS_SEV_ERROR ? "error: " : "warning: ");
		ss_report_format(it, out);
		ss_buf_putc(out, '\n');
	}
}

/* The one subdirectory of a case directory: the skill. */
static void case_skill(const char *casedir, ss_buf *skilldir)
{
	DIR *d = opendir(casedir);
	struct dirent *de;

	assert_non_null(d);
	ss_buf_clear(skilldir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "expected"))
			continue;
		assert_int_equal(skilldir->len, 0);
		ss_fs_join(skilldir, casedir, de->d_name);
	}
	closedir(d);
	assert_true(skilldir->len > 0);
}

static void expected_lines(const char *casedir, ss_buf *out)
{
	ss_error ignored;
	ss_buf path = SS_BUF_INIT;

	ss_fs_join(&path, casedir, "expected");
	ss_buf_clear(out);
	ss_fs_read_file(out, path.ptr, 0, &ignored); /* missing: no lines expected */
	ss_buf_release(&path);
}

typedef void (*case_fn)(const char *casedir, const char *name);

static size_t each_case(const char *kind, case_fn fn)
{
	ss_buf base = SS_BUF_INIT, dir = SS_BUF_INIT;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	ss_test_data(&base, kind);
	d = opendir(base.ptr);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ss_buf_clear(&dir);
		ss_fs_join(&dir, base.ptr, de->d_name);
		fn(dir.ptr, de->d_name);
		n++;
	}
	closedir(d);
	ss_buf_release(&base);
	ss_buf_release(&dir);
	return n;
}

static void check_invalid(const char *casedir, const char *name)
{
	ss_buf skilldir = SS_BUF_INIT, got = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_error err;

	case_skill(casedir, &skilldir);
	expected_lines(casedir, &want);
	ss_error_clear(&err);
	/* the code is in err (core/util/error.h), where commit and validate read it */
	assert_true(ss_skilldir_read(skilldir.ptr, &s, r, &err) < 0);
	assert_int_equal(err.code, SS_EINVALID);
	assert_null(s);
	report_lines(r, &got);
	if (strcmp(got.ptr, want.ptr))
		fail_msg("case %s:\n got:\n%s want:\n%s", name, got.ptr, want.ptr);
	ss_report_free(r);
	ss_buf_release(&skilldir);
	ss_buf_release(&got);
	ss_buf_release(&want);
}

static void test_skillcases__invalid_cases_give_expected_messages(void **state)
{
	assert_true(each_case("skills/invalid", check_invalid) >= 25);
}

static int feed(const char *path, const char *bytes, size_t len, bool executable, void *ud)
{
	ss_skill_reader_add(ud, path, bytes, len, executable);
	return 0;
}

/* A decoded skill's blob files given their bytes from s, which must hash to their CIDs. */
static void fill_blobs(ss_skill *decoded, const ss_skill *s)
{
	char cid[SS_CID_STRSZ];

	for (size_t i = 0; i < decoded->nfiles; i++) {
		ss_skill_file *f = &decoded->files[i];
		const ss_skill_file *src = ss_skill_file_get(s, f->path);

		if (f->content)
			continue;
		assert_non_null(src);
		ss_record_blob_cid(src, cid);
		assert_string_equal(cid, f->blob_cid);
		ss_skill_fill_blob(f, src->content, src->len);
	}
}

/* record -> skill -> files -> skill -> record gives the same JSON value. */
static void round_trip_record(const ss_skill *s)
{
	ss_error ignored;
	ss_buf json = SS_BUF_INIT, again = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *decoded = NULL, *rebuilt = NULL;
	ss_skill_reader *reader;
	ss_record_meta meta;

	assert_int_equal(ss_record_encode(s, "2026-01-02T03:04:05.678Z",
	                                  "2026-02-03T04:05:06.789+01:00", "first", &json,
	                                  &ignored),
	                 0);
	assert_int_equal(ss_record_decode(json.ptr, json.len, s->name, &decoded, &meta, r), 0);
	fill_blobs(decoded, s);
	assert_true(ss_skill_equal(s, decoded));
	assert_string_equal(meta.note, "first");
	reader = ss_skill_reader_new(s->name, r);
	/* the file set as the git layer would store it, fed back one entry at a time */
	assert_int_equal(ss_skill_to_files(decoded, feed, reader), 0);
	assert_int_equal(ss_skill_reader_finish(reader, &rebuilt), 0);
	assert_int_equal(ss_record_encode(rebuilt, meta.created_at, meta.updated_at, meta.note,
	                                  &again, &ignored),
	                 0);
	assert_true(ss_record_same(json.ptr, json.len, again.ptr, again.len));
	ss_record_meta_release(&meta);
	ss_skill_free(decoded);
	ss_skill_free(rebuilt);
	ss_report_free(r);
	ss_buf_release(&json);
	ss_buf_release(&again);
}

/* s written into a new directory and read back (no error allowed); its SKILL.md in *md. */
static ss_skill *write_and_read(const ss_skill *s, ss_report *r, ss_buf *md)
{
	char *tmp = ss_test_tmpdir();
	ss_buf dir = SS_BUF_INIT, file = SS_BUF_INIT;
	ss_skill *back = NULL;
	ss_error err;

	ss_fs_join(&dir, tmp, s->name);
	ss_fs_join(&file, dir.ptr, SS_SKILL_MD);
	assert_int_equal(ss_skilldir_write(s, dir.ptr, &err), 0);
	assert_int_equal(ss_skilldir_read(dir.ptr, &back, r, &err), 0);
	assert_int_equal(ss_report_count(r) - ss_report_warnings(r), 0);
	assert_int_equal(ss_fs_read_file(md, file.ptr, 0, &err), 0);
	ss_buf_release(&dir);
	ss_buf_release(&file);
	ss_test_tmpdir_free(tmp);
	return back;
}

/*
 * directory -> written directory -> skill: the same skill, and SKILL.md byte for byte the one
 * read (its frontmatter as written). Without that text (a record of another client), the
 * canonical form: strict YAML (no lenient warning when read back) giving the same values, and
 * stable.
 */
static void round_trip_dir(ss_skill *s, const char *skilldir)
{
	ss_buf path = SS_BUF_INIT, orig = SS_BUF_INIT, md = SS_BUF_INIT, md2 = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *back;
	ss_error err;

	ss_fs_join(&path, skilldir, SS_SKILL_MD);
	assert_int_equal(ss_fs_read_file(&orig, path.ptr, 0, &err), 0);
	back = write_and_read(s, r, &md);
	assert_true(ss_skill_equal(s, back));
	assert_int_equal(md.len, orig.len);
	assert_memory_equal(md.ptr, orig.ptr, orig.len);
	ss_skill_free(back);

	ss_skill_set_frontmatter_text(s, NULL, 0);
	ss_buf_clear(&md);
	ss_report_free(r);
	r = ss_report_new();
	back = write_and_read(s, r, &md);
	for (size_t i = 0; i < ss_report_count(r); i++)
		assert_null(strstr(ss_report_at(r, i)->message, "not strict YAML"));
	ss_skill_set_frontmatter_text(back, NULL, 0);
	assert_true(ss_skill_equal(s, back));
	assert_int_equal(back->instructions_len, s->instructions_len);
	assert_memory_equal(back->instructions, s->instructions, s->instructions_len);
	ss_skill_md(back, &md2);
	assert_string_equal(md.ptr, md2.ptr);
	ss_skill_free(back);
	ss_report_free(r);
	ss_buf_release(&path);
	ss_buf_release(&orig);
	ss_buf_release(&md);
	ss_buf_release(&md2);
}

static void check_valid(const char *casedir, const char *name)
{
	ss_buf skilldir = SS_BUF_INIT, got = SS_BUF_INIT, want = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_error err;

	case_skill(casedir, &skilldir);
	expected_lines(casedir, &want);
	if (ss_skilldir_read(skilldir.ptr, &s, r, &err) != 0 || !s) {
		report_lines(r, &got);
		fail_msg("case %s is not valid:\n%s", name, got.ptr);
	}
	report_lines(r, &got);
	if (strcmp(got.ptr, want.ptr))
		fail_msg("case %s:\n got:\n%s want:\n%s", name, got.ptr, want.ptr);
	round_trip_record(s);
	round_trip_dir(s, skilldir.ptr);
	ss_skill_free(s);
	ss_report_free(r);
	ss_buf_release(&skilldir);
	ss_buf_release(&got);
	ss_buf_release(&want);
}

static void test_skillcases__valid_cases_read_and_round_trip(void **state)
{
	assert_true(each_case("skills/valid", check_valid) >= 12);
}

/* Facts about specific valid cases a person would check by eye. */
static ss_skill *read_case(const char *kind_case, const char *skill)
{
	ss_buf base = SS_BUF_INIT, dir = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_error err;

	ss_test_data(&base, kind_case);
	ss_fs_join(&dir, base.ptr, skill);
	ss_buf_release(&base);
	assert_int_equal(ss_skilldir_read(dir.ptr, &s, r, &err), 0);
	ss_report_free(r);
	ss_buf_release(&dir);
	return s;
}

static void test_skillcases__bodies_are_byte_exact(void **state)
{
	ss_skill *s = read_case("skills/valid/crlf", "crlf-notes");
	const ss_skill_file *f;

	assert_string_equal(s->instructions, "# Notes\r\n\r\nLine two.\r\n");
	assert_string_equal(s->description, "Notes written on Windows.");
	f = ss_skill_file_get(s, "references/guide.md");
	assert_non_null(f);
	assert_string_equal(f->content, "CRLF file\r\nsecond line\r\n");
	ss_skill_free(s);

	s = read_case("skills/valid/no-final-newline", "no-newline");
	assert_string_equal(s->instructions, "Last line without newline");
	ss_skill_free(s);

	s = read_case("skills/valid/empty-body", "empty-body");
	assert_int_equal(s->instructions_len, 0);
	ss_skill_free(s);

	s = read_case("skills/valid/bom", "bom-skill");
	assert_string_equal(s->name, "bom-skill");
	ss_skill_free(s);

	s = read_case("skills/valid/dashes-in-value", "dash-rules");
	assert_string_equal(s->description, "Splits documents on --- markers");
	assert_string_equal(
	    ss_value_string(ss_value_map_get(s->frontmatter, "compatibility"), NULL),
	    "Needs a shell.\n---\nStill part of the value.\n");
	assert_non_null(strstr(s->instructions, "\n---\n\nA horizontal rule"));
	ss_skill_free(s);
}

static void test_skillcases__values_keep_their_types(void **state)
{
	ss_skill *s = read_case("skills/valid/all-optional-keys", "every-key");
	const ss_value *fm = s->frontmatter;

	assert_int_equal(s->disable_model_invocation, SS_DMI_TRUE);
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "x-ratio")), SS_VALUE_STRING);
	assert_string_equal(ss_value_string(ss_value_map_get(fm, "x-ratio"), NULL), "1.5");
	assert_int_equal(ss_value_int(ss_value_map_get(fm, "x-number")), 42);
	assert_int_equal(ss_value_int(ss_value_map_get(fm, "x-negative")), -7);
	assert_string_equal(ss_value_string(ss_value_map_get(fm, "x-zero-padded"), NULL), "007");
	assert_int_equal(ss_value_type_of(ss_value_map_get(fm, "x-quoted-true")), SS_VALUE_STRING);
	assert_int_equal(ss_value_count(ss_value_map_get(fm, "x-tags")), 5);
	assert_int_equal(ss_value_type_of(ss_value_at(ss_value_map_get(fm, "x-tags"), 3, NULL)),
	                 SS_VALUE_NULL);
	/* the order of keys is the file's order */
	{
		const char *key;
		ss_value_at(fm, 0, &key);
		assert_string_equal(key, "license");
	}
	ss_skill_free(s);

	s = read_case("skills/valid/executable-script", "run-checks");
	assert_true(ss_skill_file_get(s, "scripts/check.sh")->executable);
	assert_false(ss_skill_file_get(s, "scripts/README.md")->executable);
	assert_string_equal(s->files[0].path, "scripts/README.md"); /* sorted by path */
	ss_skill_free(s);
}

int test_skillcases_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skillcases__invalid_cases_give_expected_messages),
	    cmocka_unit_test(test_skillcases__valid_cases_read_and_round_trip),
	    cmocka_unit_test(test_skillcases__bodies_are_byte_exact),
	    cmocka_unit_test(test_skillcases__values_keep_their_types),
	};
	return cmocka_run_group_tests_name("core/skillcases", tests, NULL, NULL);
}
