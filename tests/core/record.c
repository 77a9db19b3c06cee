/* record.c: the garden.engram.skill codec (core/skill/record.h) and datetimes (core/util/time.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/atproto/cbor.h"
#include "core/skill/record.h"
#include "core/skill/record_priv.h"
#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/time.h"

#define TIMES "\"createdAt\":\"2026-01-01T00:00:00Z\",\"updatedAt\":\"2026-01-02T00:00:00Z\""

static ss_skill *sample(void)
{
	ss_skill *s = ss_skill_new();
	ss_value *meta = ss_value_new_map();

	ss_skill_set_name(s, "pdf");
	ss_skill_set_description(s, "Fill forms");
	ss_skill_set_instructions(s, "# PDF\n", 6);
	s->disable_model_invocation = SS_DMI_TRUE;
	ss_value_map_append(meta, "author", ss_value_new_string("me", 2));
	ss_value_map_append(s->frontmatter, "metadata", meta);
	ss_skill_add_file(s, "scripts/fill.py", "print(1)\n", 9, true);
	ss_skill_add_file(s, "a.md", "A\n", 2, false);
	ss_skill_sort_files(s);
	return s;
}

static void test_record__encode_exact_json(void **state)
{
	ss_error ignored;
	ss_skill *s = sample();
	ss_buf out = SS_BUF_INIT;

	assert_int_equal(ss_record_encode(s, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "why",
	                                  &out, &ignored),
	                 0);
	assert_string_equal(
	    out.ptr,
	    "{\"$type\":\"garden.engram.skill\",\"name\":\"pdf\",\"description\":\"Fill forms\","
	    "\"disableModelInvocation\":true,\"instructions\":\"# PDF\\n\",\"files\":[{\"path\":"
	    "\"a.md\",\"content\":\"A\\n\"},{\"path\":\"scripts/"
	    "fill.py\",\"content\":\"print(1)\\n\","
	    "\"executable\":true}],\"frontmatter\":{\"metadata\":{\"author\":\"me\"}},\"note\":"
	    "\"why\"," TIMES "}");
	ss_skill_free(s);
	ss_buf_release(&out);
}

static void test_record__note_is_cut_on_a_character_boundary(void **state)
{
	ss_error ignored;
	ss_skill *s = sample();
	ss_buf out = SS_BUF_INIT, note = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *back = NULL;
	ss_record_meta meta;

	ss_buf_putc(&note, 'x');
	for (int i = 0; i < 1000; i++)
		ss_buf_puts(&note, "\xC3\xA9"); /* 2001 bytes */
	assert_int_equal(ss_record_encode(s, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z",
	                                  note.ptr, &out, &ignored),
	                 0);
	assert_int_equal(ss_record_decode(out.ptr, out.len, "pdf", &back, &meta, r), 0);
	assert_int_equal(strlen(meta.note), 1999);
	ss_record_meta_release(&meta);
	ss_skill_free(back);
	ss_skill_free(s);
	ss_report_free(r);
	ss_buf_release(&out);
	ss_buf_release(&note);
}

/* Decoding text must fail with exactly this first message. */
static void decode_fails(const char *json, const char *rkey, const char *message)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_buf line = SS_BUF_INIT;

	assert_int_equal(ss_record_decode(json, strlen(json), rkey, &s, NULL, r), SS_EINVALID);
	assert_null(s);
	assert_true(ss_report_errors(r) >= 1);
	ss_report_format(ss_report_at(r, 0), &line);
	if (strcmp(line.ptr, message))
		fail_msg("for %s\n got: %s\nwant: %s", json, line.ptr, message);
	ss_buf_release(&line);
	ss_report_free(r);
}

#define REC(extra)                                                                                 \
	"{\"$type\":\"garden.engram.skill\",\"name\":\"pdf\",\"description\":\"d\","               \
	"\"instructions\":\"b\"," extra TIMES "}"

static void test_record__hostile_records_are_reported(void **state)
{
	decode_fails("[1]", "pdf", "pdf: record is not a JSON object");
	decode_fails("{", "pdf",
	             "pdf: record is not valid JSON (string or '}' expected near end of file)");
	decode_fails(REC(""), "other",
	             "other/SKILL.md: name: 'pdf' differs from the record key "
	             "'other'");
	decode_fails("{\"name\":1,\"description\":\"d\",\"instructions\":\"b\"," TIMES "}", "pdf",
	             "pdf/SKILL.md: name: must be a string");
	decode_fails("{\"name\":\"PDF\",\"description\":\"d\",\"instructions\":\"b\"," TIMES "}",
	             "PDF",
	             "PDF/SKILL.md: name: 'PDF' must be lowercase letters, digits and "
	             "single hyphens");
	decode_fails("{\"name\":\"pdf\",\"instructions\":\"b\"," TIMES "}", "pdf",
	             "pdf/SKILL.md: description: missing");
	decode_fails(REC("\"disableModelInvocation\":\"yes\","), "pdf",
	             "pdf/SKILL.md: disableModelInvocation: must be true or false");
	decode_fails(REC("\"files\":{},"), "pdf", "pdf/SKILL.md: files: must be an array");
	decode_fails(REC("\"files\":[{\"path\":\"../x\",\"content\":\"\"}],"), "pdf",
	             "pdf/../x: path has a '.' or '..' component");
	decode_fails(REC("\"files\":[{\"path\":\"/etc/passwd\",\"content\":\"\"}],"), "pdf",
	             "pdf//etc/passwd: absolute path (paths are relative to the skill directory)");
	decode_fails(REC("\"files\":[{\"path\":\"a/.GiT/config\",\"content\":\"\"}],"), "pdf",
	             "pdf/a/.GiT/config: path has a '.git' component");
	decode_fails(REC("\"files\":[{\"path\":\"SKILL.md\",\"content\":\"\"}],"), "pdf",
	             "pdf/SKILL.md: SKILL.md cannot be one of the other files");
	decode_fails(REC("\"files\":[{\"path\":\"a\\\\b\",\"content\":\"\"}],"), "pdf",
	             "pdf/a\\b: path has a backslash (use forward slashes)");
	decode_fails(REC("\"files\":[{\"path\":\"a\",\"content\":\"\"},{\"path\":\"a\","
	                 "\"content\":\"\"}],"),
	             "pdf", "pdf/a: given twice");
	decode_fails(REC("\"files\":[{\"path\":\"a\",\"content\":\"\"},{\"path\":\"a/b\","
	                 "\"content\":\"\"}],"),
	             "pdf", "pdf/a: is a file and a directory at once");
	decode_fails(REC("\"files\":[{\"path\":\"a\",\"content\":5}],"), "pdf",
	             "pdf/SKILL.md: files[0]: must have a string path, a string content and an "
	             "optional boolean executable");
	decode_fails(REC("\"frontmatter\":{\"x\":1.5},"), "pdf",
	             "pdf/SKILL.md: x: holds a number with a fraction (not allowed in records)");
	decode_fails(REC("\"frontmatter\":{\"x\":9007199254740992},"), "pdf",
	             "pdf/SKILL.md: x: holds an integer beyond 2^53 - 1 (not storable in records)");
	decode_fails(REC("\"frontmatter\":{\"name\":\"pdf\"},"), "pdf",
	             "pdf/SKILL.md: name: given twice");
	decode_fails(REC("\"frontmatter\":[],"), "pdf",
	             "pdf/SKILL.md: frontmatter: must be an "
	             "object");
	decode_fails(REC("\"note\":5,"), "pdf", "pdf/SKILL.md: note: must be a string");
	decode_fails("{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"\\u0000\"," TIMES
	             "}",
	             "pdf",
	             "pdf: record is not valid JSON (\\u0000 is not allowed without "
	             "JSON_ALLOW_NUL near '\"\\u0000\"')");
	decode_fails("{\"name\":\"pdf\",\"name\":\"pdf\",\"description\":\"d\","
	             "\"instructions\":\"b\"," TIMES "}",
	             "pdf", "pdf: record gives the key \"name\" twice");
	decode_fails(REC("\"files\":[{\"path\":\"a\",\"path\":\"../x\",\"content\":\"\"}],"), "pdf",
	             "pdf: record gives the key \"path\" twice");
	decode_fails(REC("\"frontmatter\":{\"license\":\"MIT\",\"license\":\"GPL\"},"), "pdf",
	             "pdf: record gives the key \"license\" twice");
	decode_fails(
	    REC("\"files\":[{\"path\":\"git~1/config\",\"content\":\"\"}],"), "pdf",
	    "pdf/git~1/config: path has a component that Windows or macOS reads as '.git'");
	decode_fails(REC("\"files\":[{\"path\":\".g\\u200cit/config\",\"content\":\"\"}],"), "pdf",
	             "pdf/.g\u200cit/config: path has a component that Windows or macOS reads as "
	             "'.git'");
	decode_fails(REC("\"files\":[{\"path\":\"A.md\",\"content\":\"\"},{\"path\":\"a.md\","
	                 "\"content\":\"\"}],"),
	             "pdf",
	             "pdf/a.md: differs from 'A.md' only in case (one file on macOS and Windows)");
	decode_fails("{\"name\":\"pdf\",\"description\":\" \\t\\n\",\"instructions\":\"b\"," TIMES
	             "}",
	             "pdf", "pdf/SKILL.md: description: must not be only white space");
	decode_fails("{\"$type\":\"x.y\",\"name\":\"pdf\",\"description\":\"d\","
	             "\"instructions\":\"b\"," TIMES "}",
	             "pdf", "pdf/SKILL.md: $type: is not 'garden.engram.skill'");
	decode_fails("{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	             "\"createdAt\":\"2026-01-01\",\"updatedAt\":\"2026-01-02T00:00:00Z\"}",
	             "pdf", "pdf/SKILL.md: createdAt: not a datetime (RFC 3339 with a time zone)");
}

/* Builds a record with n files, or one string field of n bytes. */
static void big_record(ss_buf *out, const char *field, size_t n)
{
	ss_buf_clear(out);
	ss_buf_puts(out, "{\"name\":\"pdf\",\"description\":\"d\",");
	if (strcmp(field, "instructions"))
		ss_buf_puts(out, "\"instructions\":\"b\",");
	if (!strcmp(field, "files")) {
		ss_buf_puts(out, "\"files\":[");
		for (size_t i = 0; i < n; i++)
			ss_buf_printf(out, "%s{\"path\":\"f%zu\",\"content\":\"\"}", i ? "," : "",
			              i);
		ss_buf_puts(out, "],");
	} else {
		ss_buf_printf(out, "\"%s\":\"", field);
		for (size_t i = 0; i < n; i++)
			ss_buf_putc(out, 'a');
		ss_buf_puts(out, "\",");
	}
	ss_buf_puts(out, TIMES "}");
}

static void limit_fails(const char *field, size_t n, const char *message)
{
	ss_buf json = SS_BUF_INIT, line = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;

	big_record(&json, field, n);
	assert_int_equal(ss_record_decode(json.ptr, json.len, "pdf", &s, NULL, r), SS_EINVALID);
	ss_report_format(ss_report_at(r, 0), &line);
	assert_string_equal(line.ptr, message);
	ss_buf_release(&json);
	ss_buf_release(&line);
	ss_report_free(r);
}

static void test_record__limits_and_oversize(void **state)
{
	ss_buf json = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;

	limit_fails("files", 33, "pdf: files: 33 files, more than the 32 allowed");
	limit_fails("files", 10000, "pdf: files: 10000 files, more than the 32 allowed");
	limit_fails("note", 2001, "pdf/SKILL.md: note: longer than 2000 bytes (2001)");
	limit_fails("instructions", 200001,
	            "pdf/SKILL.md: body: longer than 200000 bytes (200001)");
	limit_fails("instructions", SS_RECORD_MAX_INPUT,
	            "pdf: record larger than 2000000 bytes (2000120)");
	big_record(&json, "files", 32);
	assert_int_equal(ss_record_decode(json.ptr, json.len, "pdf", &s, NULL, r), 0);
	assert_int_equal(s->nfiles, 32);
	ss_skill_free(s);
	ss_buf_release(&json);
	ss_report_free(r);
}

/* A record of text bytes (no $type, short datetimes) whose encoding is 38 bytes longer. */
static void sized_record(ss_buf *out, size_t text)
{
	const char *head = "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	                   "\"files\":[";
	const char *tail = "]," TIMES "}";
	size_t room = text - strlen(head) - strlen(tail), each = room / 5;

	ss_buf_clear(out);
	ss_buf_puts(out, head);
	for (size_t i = 0; i < 5; i++) {
		size_t fixed = strlen("{\"path\":\"fN\",\"content\":\"\"}") + (i ? 1 : 0);
		size_t n = (i < 4 ? each : room - 4 * each) - fixed;

		ss_buf_printf(out, "%s{\"path\":\"f%zu\",\"content\":\"", i ? "," : "", i);
		for (size_t k = 0; k < n; k++)
			ss_buf_putc(out, 'a');
		ss_buf_puts(out, "\"}");
	}
	ss_buf_puts(out, tail);
	assert_int_equal(out->len, text);
}

/* A record whose text is under the limit but whose encoding would not be (the decoder skips
 * the encoding only when the text is well under it) is valid: encoded again, its largest file
 * moves to blobFiles (ss_record_split) and the record fits. */
static void test_record__encoded_size_limit(void **state)
{
	ss_error ignored;
	ss_buf json = SS_BUF_INIT, again = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	bool blob[5];

	sized_record(&json, SS_MAX_RECORD - 20);
	assert_int_equal(ss_record_decode(json.ptr, json.len, "pdf", &s, NULL, r), 0);
	ss_record_split(s, blob);
	assert_false(blob[0] || blob[1] || blob[2] || blob[3]);
	assert_true(blob[4]); /* the largest, f4 */
	assert_int_equal(ss_record_encode(s, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", NULL,
	                                  &again, &ignored),
	                 0);
	assert_true(again.len <= SS_MAX_RECORD);
	assert_non_null(strstr(again.ptr, "\"blobFiles\":[{\"path\":\"f4\",\"blob\":{"));
	ss_skill_free(s);
	ss_buf_release(&json);
	ss_buf_release(&again);
	ss_report_free(r);
}

static int count_file(const char *path, const char *bytes, size_t len, bool executable, void *ud)
{
	(void)path, (void)bytes, (void)len, (void)executable;
	++*(size_t *)ud;
	return 0;
}

/* The split rule: binary files, files over 200,000 bytes and text files past the 32nd in path
 * order are blobs; files[] keeps the rest. The record names each blob by the CID of its bytes,
 * decodes back to files awaiting them, and the lexicon's files[] keeps at most 32. */
static void test_record__blob_split_rule(void **state)
{
	ss_error ignored;
	ss_skill *s = ss_skill_new(), *back = NULL;
	ss_buf json = SS_BUF_INIT, path = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	char *big = malloc(SS_MAX_CONTENT + 1), cid[SS_CID_STRSZ];
	size_t nwritten = 0;
	bool blob[40];

	ss_skill_set_name(s, "pdf");
	ss_skill_set_description(s, "d");
	for (int i = 0; i < 36; i++) {
		ss_buf_clear(&path);
		ss_buf_printf(&path, "ref/f%02d.md", i);
		ss_skill_add_file(s, path.ptr, "text\n", 5, false);
	}
	memset(big, 'x', SS_MAX_CONTENT + 1);
	ss_skill_add_file(s, "a-big.xsd", big, SS_MAX_CONTENT + 1, false);
	ss_skill_add_file(s, "font.ttf", "\0\1\2", 3, true);
	ss_skill_add_file(s, "latin1.txt", "caf\xe9", 4, false);
	ss_skill_sort_files(s);
	ss_record_split(s, blob);
	/* a-big.xsd, font.ttf, latin1.txt sort before ref/: blobs by themselves */
	assert_true(blob[0] && blob[1] && blob[2]);
	for (int i = 3; i < 35; i++)
		assert_false(blob[i]);
	for (int i = 35; i < 39; i++) /* ref/f32.md and on: past the 32nd */
		assert_true(blob[i]);
	assert_int_equal(ss_record_encode(s, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", NULL,
	                                  &json, &ignored),
	                 0);
	ss_record_blob_cid(&s->files[1], cid);
	assert_string_equal(
	    cid,
	    "bafkreifojmzibzlof6xyh5auu3r5vpu5l67brf3fitaf73isdlglqw2t7q"); /* python: sha256 */
	assert_int_equal(ss_record_decode(json.ptr, json.len, "pdf", &back, NULL, r), 0);
	assert_int_equal(back->nfiles, 39);
	assert_null(back->files[1].content);
	assert_string_equal(back->files[1].blob_cid, cid);
	assert_true(back->files[1].executable);
	assert_int_equal(back->files[1].len, 3);
	assert_true(ss_skill_awaits_blobs(back));
	/* a skill whose bytes are awaited cannot be written */
	assert_int_equal(ss_skill_to_files(back, count_file, &nwritten), SS_EINVALID);
	assert_int_equal(nwritten, 1); /* SKILL.md */
	assert_non_null(strstr(json.ptr, "{\"path\":\"font.ttf\",\"blob\":{\"$type\":\"blob\","
	                                 "\"ref\":{\"$link\":\"bafkrei"));
	ss_skill_free(back);
	ss_skill_free(s);
	ss_report_free(r);
	ss_buf_release(&json);
	ss_buf_release(&path);
	free(big);
}

/* A file the record holds as text keeps the lexicon's limit (a larger one must be a blob). */
static void test_record__text_file_over_the_limit(void **state)
{
	ss_buf json = SS_BUF_INIT, line = SS_BUF_INIT;
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;

	ss_buf_puts(&json, "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	                   "\"files\":[{\"path\":\"big.txt\",\"content\":\"");
	for (size_t i = 0; i <= SS_MAX_CONTENT; i++)
		ss_buf_putc(&json, 'b');
	ss_buf_puts(&json, "\"}]," TIMES "}");
	for (int path = SS_RECORD_PATH_AUTO; path <= SS_RECORD_PATH_GENERAL; path++) {
		ss_report_free(r);
		r = ss_report_new();
		assert_int_equal(ss_record_decode__path(json.ptr, json.len, "pdf", &s, NULL, r,
		                                        (ss_record_path)path),
		                 SS_EINVALID);
		ss_buf_clear(&line);
		ss_report_format(ss_report_at(r, 0), &line);
		assert_string_equal(line.ptr, "pdf/big.txt: larger than 200000 bytes (200001)");
	}
	ss_buf_release(&json);
	ss_buf_release(&line);
	ss_report_free(r);
}

/* A blobFiles entry that is not one is refused, naming it. */
static void test_record__bad_blob_files_are_reported(void **state)
{
	static const char *const bad[] = {
	    "[{\"path\":\"a\",\"blob\":{\"$type\":\"blob\",\"ref\":{\"$link\":\"bafyreib\"},"
	    "\"mimeType\":\"x\",\"size\":1}}]",
	    "[{\"path\":\"a\",\"blob\":{\"ref\":{\"$link\":\"x\"},\"size\":1}}]",
	    "[{\"path\":\"../a\",\"blob\":{\"$type\":\"blob\",\"ref\":{\"$link\":"
	    "\"bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku\"},\"mimeType\":\"x\","
	    "\"size\":3}}]",
	    "[{\"path\":\"a\",\"blob\":{\"$type\":\"blob\",\"ref\":{\"$link\":"
	    "\"bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku\"},\"mimeType\":\"x\","
	    "\"size\":99999999}}]",
	    "{}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ss_buf json = SS_BUF_INIT;
		ss_report *r = ss_report_new();
		ss_skill *s = NULL;

		ss_buf_printf(&json,
		              "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
		              "\"blobFiles\":%s," TIMES "}",
		              bad[i]);
		assert_int_equal(ss_record_decode(json.ptr, json.len, "pdf", &s, NULL, r),
		                 SS_EINVALID);
		assert_null(s);
		ss_report_free(r);
		ss_buf_release(&json);
	}
}

static void test_record__decoded_meta(void **state)
{
	const char *json = REC("\"note\":\"n\",");
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_record_meta meta;

	assert_int_equal(ss_record_decode(json, strlen(json), "pdf", &s, &meta, r), 0);
	assert_string_equal(meta.created_at, "2026-01-01T00:00:00Z");
	assert_int_equal(meta.updated_us, INT64_C(1767312000000000));
	assert_string_equal(meta.note, "n");
	assert_int_equal(s->disable_model_invocation, SS_DMI_ABSENT);
	assert_int_equal(s->nfiles, 0);
	ss_record_meta_release(&meta);
	ss_skill_free(s);
	ss_report_free(r);
}

static void test_record__datetimes_compare_as_instants(void **state)
{
	int64_t a, b;
	ss_buf out = SS_BUF_INIT;

	assert_int_equal(ss_time_parse("2026-01-01T01:00:00+01:00", &a), 0);
	assert_int_equal(ss_time_parse("2026-01-01T00:00:00Z", &b), 0);
	assert_true(a == b);
	assert_int_equal(ss_time_parse("2026-01-01T00:00:00.5Z", &a), 0);
	assert_int_equal(a - b, 500000);
	assert_int_equal(ss_time_parse("1970-01-01T00:00:00.000001Z", &a), 0);
	assert_int_equal(a, 1);
	assert_int_equal(ss_time_parse("2024-02-29T23:59:59.999999999-05:30", &a), 0);
	ss_time_format(a, &out);
	assert_string_equal(out.ptr, "2024-03-01T05:29:59.999Z");
	ss_buf_clear(&out);
	ss_time_format(0, &out);
	assert_string_equal(out.ptr, "1970-01-01T00:00:00.000Z");
	ss_buf_clear(&out); /* a push time: milliseconds, always three digits */
	ss_time_format(INT64_C(1796078220007000), &out);
	assert_string_equal(out.ptr, "2026-11-30T22:37:00.007Z");
	static const char *const bad[] = {
	    "2026-01-01",
	    "2026-01-01T00:00:00",
	    "2026-01-01 00:00:00Z",
	    "2026-13-01T00:00:00Z",
	    "2025-02-29T00:00:00Z",
	    "2026-01-01T24:00:00Z",
	    "2026-01-01T00:00:00z",
	    "2026-01-01T00:00:00-00:00",
	    "2026-01-01T00:00:00.Z",
	    "2026-01-01T00:00:00Zx",
	    "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ss_time_parse(bad[i], &a) != SS_EINVALID)
			fail_msg("'%s' parsed", bad[i]);
	ss_buf_release(&out);
}

/* A decoding's whole result as text: the return, the report's lines, the record encoded again. */
static void summarize(int ret, ss_report *r, ss_skill *s, ss_record_meta *meta, ss_buf *out)
{
	ss_error ignored;

	ss_buf_printf(out, "%d\n", ret);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		ss_report_format(ss_report_at(r, i), out);
		ss_buf_putc(out, '\n');
	}
	if (ret == 0) {
		assert_int_equal(ss_record_encode(s, meta->created_at, meta->updated_at, meta->note,
		                                  out, &ignored),
		                 0);
		ss_buf_printf(out, "\n%lld %lld", (long long)meta->created_us,
		              (long long)meta->updated_us);
	}
	ss_record_meta_release(meta);
	ss_skill_free(s);
	ss_report_free(r);
}

/* One path's whole result for a record's text. */
static void decode_summary(const char *json, size_t len, const char *rkey, ss_record_path path,
                           ss_buf *out)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_record_meta meta;
	int ret;

	ss_record_meta_init(&meta);
	ret = ss_record_decode__path(json, len, rkey, &s, &meta, r, path);
	summarize(ret, r, s, &meta, out);
}

/* One path's whole result for a record's DAG-CBOR block. */
static void block_summary(const unsigned char *block, size_t len, const char *rkey,
                          ss_record_path path, ss_buf *out)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_record_meta meta;
	int ret;

	ss_record_meta_init(&meta);
	ret = ss_record_decode__block_path(block, len, rkey, &s, &meta, r, path);
	summarize(ret, r, s, &meta, out);
}

/* What the block scanner must do with a block. */
typedef enum { TAKES, LEAVES, EITHER } block_want;

/* The block scanner takes the block or leaves it to its JSON form (as want says), and either
 * way the result is its JSON form's. */
static void block_paths(const unsigned char *block, size_t len, const char *rkey, block_want want)
{
	ss_buf general = SS_BUF_INIT, fast = SS_BUF_INIT, only = SS_BUF_INIT;
	bool took;

	block_summary(block, len, rkey, SS_RECORD_PATH_GENERAL, &general);
	block_summary(block, len, rkey, SS_RECORD_PATH_AUTO, &fast);
	block_summary(block, len, rkey, SS_RECORD_PATH_FAST, &only);
	if (strcmp(general.ptr, fast.ptr))
		fail_msg("for a block of %zu bytes\ngeneral: %s\n   auto: %s", len, general.ptr,
		         fast.ptr);
	took = strcmp(only.ptr, "-2\n") != 0;
	if (took && strcmp(only.ptr, general.ptr))
		fail_msg("the block scanner differs: %s (its JSON form: %s)", only.ptr,
		         general.ptr);
	if ((want == TAKES && !took) || (want == LEAVES && took))
		fail_msg("the block scanner %s the block (its JSON form: %s)",
		         took ? "took" : "did not take", general.ptr);
	ss_buf_release(&general);
	ss_buf_release(&fast);
	ss_buf_release(&only);
}

/* The canonical DAG-CBOR of json (false: jansson or the encoder refuses it). */
static bool block_of(const char *json, ss_buf *out)
{
	json_t *v = json_loads(json, JSON_REJECT_DUPLICATES, NULL);
	ss_error ignored;
	bool ok = v && ss_cbor_encode(v, out, &ignored) == 0;

	json_decref(v);
	return ok;
}

/* The block scanner on json's block (when it has one), expecting it to take it or not. */
static void json_block_paths(const char *json, const char *rkey, block_want want)
{
	ss_buf block = SS_BUF_INIT;

	if (block_of(json, &block))
		block_paths((const unsigned char *)block.ptr, block.len, rkey, want);
	ss_buf_release(&block);
}

/* The scanner takes json (or leaves it to jansson: !takes), and either way the result is the
 * general path's. */
static void both_paths(const char *json, const char *rkey, bool takes)
{
	ss_buf general = SS_BUF_INIT, fast = SS_BUF_INIT, only = SS_BUF_INIT;

	decode_summary(json, strlen(json), rkey, SS_RECORD_PATH_GENERAL, &general);
	decode_summary(json, strlen(json), rkey, SS_RECORD_PATH_AUTO, &fast);
	decode_summary(json, strlen(json), rkey, SS_RECORD_PATH_FAST, &only);
	if (strcmp(general.ptr, fast.ptr))
		fail_msg("for %s\ngeneral: %s\n   auto: %s", json, general.ptr, fast.ptr);
	if (takes ? strcmp(only.ptr, general.ptr) : strcmp(only.ptr, "-2\n"))
		fail_msg("for %s the scanner %s: %s", json, takes ? "did not take it" : "took it",
		         only.ptr);
	/* The same record as a repository's block: what the text scanner takes, the block
	 * scanner takes too (it may take more: control characters need no escape there). */
	json_block_paths(json, rkey, takes ? TAKES : EITHER);
	ss_buf_release(&general);
	ss_buf_release(&fast);
	ss_buf_release(&only);
}

static void test_record__scanner_gives_the_general_result(void **state)
{
	ss_buf many = SS_BUF_INIT;

	/* The common shape, valid or not by the validation's rules. */
	both_paths(REC(""), "pdf", true);
	both_paths(
	    " {\"name\" : \"pdf\",\n\t\"description\":\"d\\\"\\\\\\/\\b\\f\\n\\r\\t\", "
	    "\"instructions\":\"caf\xC3\xA9 \xF0\x9F\x99\x82\\n\",\"files\":[ {\"content\":"
	    "\"#!/bin/sh\\n\",\"executable\":true,\"path\":\"scripts/run.sh\"},{\"path\":"
	    "\"a.md\",\"content\":\"\",\"executable\":false}],\"disableModelInvocation\":false,"
	    "\"note\":\"why\"," TIMES "}\r\n",
	    "pdf", true);
	both_paths(REC("\"files\":[],\"disableModelInvocation\":true,"), "pdf", true);
	both_paths("{\"name\":\"PDF\",\"description\":\"d\",\"instructions\":\"b\"," TIMES "}",
	           "PDF", true);
	both_paths(REC("\"files\":[{\"path\":\"../x\",\"content\":\"a\"}],"), "pdf", true);
	both_paths(REC("\"files\":[{\"path\":\"SKILL.md\",\"content\":\"a\"}],"), "pdf", true);
	both_paths("{\"name\":\"pdf\",\"description\":\"\",\"instructions\":\"b\"," TIMES "}",
	           "pdf", true);
	/* SKILL.md's frontmatter as written, whether or not it says the record's values. */
	both_paths(REC("\"frontmatterText\":\"\\uFEFF---\\r\\nname: pdf\\r\\ndescription: d\\r\\n"
	               "---\\r\\n\","),
	           "pdf", true);
	both_paths(REC("\"frontmatterText\":\"---\\nname: other\\n---\\n\","), "pdf", true);
	both_paths(REC("\"frontmatterText\":\"\","), "pdf", true);
	/* Left to jansson: anything else, and every problem of the decoder's own. */
	both_paths(REC("\"note\":\"a\",\"note\":\"b\","), "pdf", false);
	both_paths(REC("\"createdAt\":\"2026-01-01T00:00:00Z\","), "pdf", false);
	both_paths(REC("\"name\":\"pdf\","), "pdf", false);
	both_paths(REC("\"files\":[{\"path\":\"a\",\"path\":\"b\",\"content\":\"\"}],"), "pdf",
	           false);
	both_paths(REC("\"files\":[{\"path\":\"a\",\"content\":\"\",\"mode\":1}],"), "pdf", false);
	both_paths(REC("\"files\":[{\"path\":\"a\"}],"), "pdf", false);
	both_paths(REC("\"files\":[{\"path\":\"a\",\"content\":\"\"},],"), "pdf", false);
	both_paths(REC("\"files\":{},"), "pdf", false);
	both_paths(REC("\"files\":null,"), "pdf", false);
	both_paths(REC("\"note\":\"\\u0000\","), "pdf", false);
	both_paths(REC("\"note\":\"\\x\","), "pdf", false);
	both_paths(REC("\"note\":\"\xC3\","), "pdf", false);
	both_paths(REC("\"note\":\"\xED\xA0\x80\","), "pdf", false);
	both_paths(REC("\"note\":\"\x01\","), "pdf", false);
	both_paths(REC("\"note\":1,"), "pdf", false);
	both_paths(REC("\"frontmatterText\":[],"), "pdf", false);
	both_paths(REC("\"frontmatterText\":\"a\",\"frontmatterText\":\"a\","), "pdf", false);
	both_paths(REC("\"disableModelInvocation\":\"yes\","), "pdf", false);
	both_paths(REC("\"disableModelInvocation\":truex,"), "pdf", false);
	both_paths(REC("\"$type\":\"garden.engram.skil\","), "pdf", false);
	both_paths(REC(""), "other", false);
	both_paths("{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	           "\"createdAt\":\"2026-01-01\",\"updatedAt\":\"2026-01-02T00:00:00Z\"}",
	           "pdf", false);
	both_paths("{\"name\":\"pdf\",\"description\":\"d\"," TIMES "}", "pdf", false);
	both_paths(REC("") "x", "pdf", false);
	both_paths(REC("") "{}", "pdf", false);
	both_paths("{", "pdf", false);
	both_paths("[1]", "pdf", false);
	both_paths("", "pdf", false);
	ss_buf_puts(&many,
	            "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\",\"files\":[");
	for (int i = 0; i <= SS_MAX_FILES; i++)
		ss_buf_printf(&many, "%s{\"path\":\"f%d\",\"content\":\"\"}", i ? "," : "", i);
	ss_buf_puts(&many, "]," TIMES "}");
	both_paths(many.ptr, "pdf", false);
	ss_buf_clear(&many);
	ss_buf_puts(&many, REC("\"note\":\""));
	ss_buf_truncate(&many, strlen("{\"$type\":\"garden.engram.skill\",\"name\":\"pdf\","
	                              "\"description\":\"d\",\"instructions\":\"b\",\"note\":\""));
	for (int i = 0; i <= SS_MAX_NOTE; i++)
		ss_buf_putc(&many, 'n');
	ss_buf_puts(&many, "\"," TIMES "}");
	both_paths(many.ptr, "pdf", false);
	for (int extra = 0; extra < 2; extra++) {
		ss_buf_clear(&many);
		ss_buf_puts(&many, "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
		                   "\"frontmatterText\":\"");
		for (int i = 0; i < SS_MAX_FRONTMATTER_TEXT + extra; i++)
			ss_buf_putc(&many, '#');
		ss_buf_puts(&many, "\"," TIMES "}");
		both_paths(many.ptr, "pdf", !extra);
	}
	ss_buf_release(&many);
}

/* nested arrays around a string, the innermost at depth levels + 1 of the frontmatter. */
static void nested(ss_buf *out, int levels, const char *open, const char *close)
{
	ss_buf_clear(out);
	ss_buf_puts(out, "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	                 "\"frontmatter\":{\"x\":");
	for (int i = 0; i < levels; i++)
		ss_buf_puts(out, open);
	ss_buf_puts(out, "\"s\"");
	for (int i = 0; i < levels; i++)
		ss_buf_puts(out, close);
	ss_buf_puts(out, "}," TIMES "}");
}

static void test_record__scanner_frontmatter_gives_the_general_result(void **state)
{
	ss_buf rec = SS_BUF_INIT;

	/* What real skills carry (anthropics/skills, openai/skills, vercel-labs/agent-skills). */
	both_paths(REC("\"frontmatter\":{\"license\":\"Complete terms in LICENSE.txt\"},"), "pdf",
	           true);
	both_paths(
	    REC("\"files\":[{\"path\":\"LICENSE.txt\",\"content\":\"MIT\\n\"}],"
	        "\"frontmatter\":{\"license\":\"MIT\",\"allowed-tools\":\"Bash(git:*) Read\","
	        "\"compatibility\":\"needs git\",\"metadata\":{\"author\":\"vercel\","
	        "\"version\":\"1.0.0\",\"short-description\":\"Fill forms\"}},"),
	    "pdf", true);
	/* Any values, at any depth the frontmatter allows; key order kept; empty containers. */
	both_paths(
	    REC("\"frontmatter\":{\"z\":1,\"a\":[0,-0,-7,9007199254740991,"
	        "-9007199254740991,true,false,null,\"s\",[],{}],\"m\":{\"c\":{\"d\":[[[\"e\"]]],"
	        "\"b\":{}}},\"e\":{}},"),
	    "pdf", true);
	both_paths(REC("\"frontmatter\":{},"), "pdf", true);
	both_paths(REC(" \"frontmatter\" :\n{ \"a\" : [ 1 ,\t2 ] , \"b\" : { } , \"c\" : null } ,"),
	           "pdf", true);
	/* Escapes: \u of every UTF-8 length, surrogate pairs, control characters, in keys too. */
	both_paths(REC("\"frontmatter\":{\"\\u00e9t\\u00E9\":\"caf\\u00e9 \\u20AC \\ud83d\\ude42 "
	               "\\u0041\\u001b\\u007f\\u0080\\u07ff\\u0800\\uffff\\udbff\\udfff\","
	               "\"x\":[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]},"),
	           "pdf", true);
	both_paths(REC("\"note\":\"\\u0041\","), "pdf", true);
	both_paths("{\"n\\u0061me\":\"pdf\",\"description\":\"d\\u00e9\",\"instructions\":"
	           "\"\\ud83d\\ude42\",\"fr\\u006fntmatter\":{\"k\":\"v\"}," TIMES "}",
	           "pdf", true);
	/* Keys nobody reads: checked as JSON, then dropped, as jansson's path does. */
	both_paths(REC("\"other\":{\"a\":[1,{\"b\":null}]},\"more\":\"x\","), "pdf", true);
	/* The validation's problems come after either path, the same. */
	both_paths(REC("\"frontmatter\":{\"name\":\"pdf\"},"), "pdf", true);
	both_paths(REC("\"frontmatter\":{\"metadata\":{\"v\":1}},"), "pdf", true);
	both_paths(REC("\"frontmatter\":{\"license\":\"a\\u0000b\"},"), "pdf", false);
	/* Depth: a value at depth 16 of the frontmatter is kept, deeper is refused. */
	for (int levels = 13; levels <= 17; levels++) {
		nested(&rec, levels, "[", "]");
		both_paths(rec.ptr, "pdf", levels + 1 <= 16);
		nested(&rec, levels, "{\"k\":", "}");
		both_paths(rec.ptr, "pdf", levels + 1 <= 16);
	}
	nested(&rec, 3000, "[", "]");
	both_paths(rec.ptr, "pdf", false);
	/* Left to jansson: keys given twice (at any depth), numbers the records cannot hold or
	 * JSON does not have, escapes jansson refuses, a frontmatter that is not an object. */
	both_paths(REC("\"frontmatter\":{\"license\":\"MIT\",\"license\":\"GPL\"},"), "pdf", false);
	both_paths(REC("\"frontmatter\":{\"x\":[{\"a\":1,\"b\":2,\"a\":1}]},"), "pdf", false);
	both_paths(REC("\"frontmatter\":{\"a\":1},\"frontmatter\":{\"b\":1},"), "pdf", false);
	both_paths(REC("\"other\":1,\"other\":1,"), "pdf", false);
	both_paths(REC("\"other\":{\"a\":1,\"a\":2},"), "pdf", false);
	both_paths(REC("\"other\":1.5,"), "pdf", false);
	const char *numbers[] = {"9007199254740992",
	                         "-9007199254740992",
	                         "12345678901234567890",
	                         "-99999999999999999999",
	                         "00",
	                         "01",
	                         "-01",
	                         "-",
	                         "1.0",
	                         "1e3",
	                         "1E3",
	                         "-0.0",
	                         "1.",
	                         ".5",
	                         "+1",
	                         "0x1F",
	                         "1x",
	                         "Infinity",
	                         "NaN"};
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		ss_buf_clear(&rec);
		ss_buf_printf(&rec, REC("\"frontmatter\":{\"n\":%s},"), numbers[i]);
		both_paths(rec.ptr, "pdf", false);
	}
	const char *strings[] = {"\\u0000",        "\\ud83d",       "\\ude42", "\\ude42\\ud83d",
	                         "\\ud83d\\u0041", "\\ud83dx",      "\\u00g1", "\\u00e",
	                         "\\U00e9",        "\\ud83d\\ud83d"};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		ss_buf_clear(&rec);
		ss_buf_printf(&rec, REC("\"frontmatter\":{\"s\":\"%s\"},"), strings[i]);
		both_paths(rec.ptr, "pdf", false);
		ss_buf_clear(&rec);
		ss_buf_printf(&rec, REC("\"frontmatter\":{\"%s\":1},"), strings[i]);
		both_paths(rec.ptr, "pdf", false);
	}
	const char *others[] = {"[]",           "\"x\"",         "null",       "1",
	                        "{\"a\":nul}",  "{\"a\":truee}", "{\"a\":1,}", "{\"a\" 1}",
	                        "{\"a\":[1,]}", "{\"a\":[1 2]}", "{a:1}",      "{\"a\":1"};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		ss_buf_clear(&rec);
		ss_buf_printf(&rec, REC("\"frontmatter\":%s,"), others[i]);
		both_paths(rec.ptr, "pdf", false);
	}
	/* Many keys in one object: over the scanner's own duplicate check, left to jansson. */
	ss_buf_clear(&rec);
	ss_buf_puts(&rec, "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
	                  "\"frontmatter\":{\"metadata\":{");
	for (int i = 0; i < 100; i++)
		ss_buf_printf(&rec, "%s\"k%d\":\"v\"", i ? "," : "", i);
	ss_buf_puts(&rec, "}}," TIMES "}");
	both_paths(rec.ptr, "pdf", false);
	ss_buf_release(&rec);
}

/* json's block with hex (pairs of digits) in place of the first bytes equal to marker. */
static void block_with(ss_buf *out, const char *json, const char *marker, const char *hex)
{
	ss_buf b = SS_BUF_INIT;
	const char *at;
	size_t n = strlen(hex) / 2;

	assert_true(block_of(json, &b));
	for (at = b.ptr; at + strlen(marker) <= b.ptr + b.len; at++)
		if (!memcmp(at, marker, strlen(marker)))
			break;
	assert_true(at + strlen(marker) <= b.ptr + b.len);
	ss_buf_clear(out);
	ss_buf_put(out, b.ptr, (size_t)(at - b.ptr));
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		ss_buf_putc(out, (char)v);
	}
	ss_buf_put(out, at + strlen(marker), b.len - (size_t)(at - b.ptr) - strlen(marker));
	ss_buf_release(&b);
}

static void test_record__block_scanner_gives_its_json_form_result(void **state)
{
	ss_buf rec = SS_BUF_INIT, block = SS_BUF_INIT;

	/* A real record's shape, and text a JSON record would have to escape. */
	json_block_paths(
	    REC("\"files\":[{\"path\":\"scripts/run.sh\",\"content\":\"#!/bin/sh\\n\","
	        "\"executable\":true},{\"path\":\"references/notes.md\",\"content\":\"# N\\n\"}],"
	        "\"frontmatter\":{\"license\":\"MIT\",\"metadata\":{\"v\":[1,-2,true,null]}},"
	        "\"note\":\"why\",\"disableModelInvocation\":false,"),
	    "pdf", TAKES);
	json_block_paths(REC("\"note\":\"a\\u0001\\u001f\\t\\\"\\\\b\","), "pdf", TAKES);
	json_block_paths(REC("\"other\":{\"x\":[\"\\u0007\"]},"), "pdf", TAKES);
	json_block_paths(REC("\"frontmatter\":{\"n\":9007199254740991,\"m\":-9007199254740991},"),
	                 "pdf", TAKES);
	/* Left to the JSON form: what it writes as an object or leaves to jansson's decoder. */
	json_block_paths(REC("\"frontmatter\":{\"b\":{\"$bytes\":\"AAEC\"}},"), "pdf", LEAVES);
	json_block_paths(REC("\"other\":{\"$link\":\"bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5x"
	                     "ytvske7mr3hpm\"},"),
	                 "pdf", LEAVES);
	json_block_paths(REC("\"frontmatter\":{\"x\":{\"$type\":\"a.b\"}},"), "pdf", LEAVES);
	json_block_paths(REC("\"frontmatter\":{\"n\":9007199254740992},"), "pdf", LEAVES);
	json_block_paths(REC("\"note\":\"a\\u0000b\","), "pdf", LEAVES);
	json_block_paths(REC("\"frontmatter\":{\"k\\u0000\":1},"), "pdf", LEAVES);
	json_block_paths(
	    REC("\"$type\":\"blob\",\"ref\":{\"$link\":\"bafyreie5737gdxlw5i64vzich"
	        "calba3z2v5n6icifvx5xytvske7mr3hpm\"},\"mimeType\":\"a/b\",\"size\":1,"),
	    "pdf", LEAVES);
	json_block_paths("[1]", "pdf", LEAVES);
	json_block_paths("\"pdf\"", "pdf", LEAVES);
	/* The validation's problems and the decoder's own come the same either way. */
	json_block_paths(REC("\"files\":[{\"path\":\"../x\",\"content\":\"a\"}],"), "pdf", TAKES);
	json_block_paths(REC(""), "other", LEAVES);
	json_block_paths(REC("\"note\":1,"), "pdf", LEAVES);
	json_block_paths(REC("\"files\":[{\"path\":\"a\"}],"), "pdf", LEAVES);
	json_block_paths("{\"name\":\"pdf\",\"description\":\"d\"," TIMES "}", "pdf", LEAVES);
	/* In place of the note's one-byte text: text holding a NUL (jansson refuses \\u0000), a
	 * NUL in a key; then bytes DAG-CBOR refuses: a key twice, keys out of order, an integer
	 * not in its shortest form, floats, an indefinite length, undefined. */
	const char *note = REC("\"note\":\"\\u0001\",");
	const char *bad[] = {"6100", "a1610001", "a2616101616101",     "a2616201616101",
	                     "1801", "f93c00",   "fb3ff0000000000000", "7f6100ff",
	                     "f7"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		block_with(&block, note, "\x61\x01", bad[i]);
		block_paths((const unsigned char *)block.ptr, block.len, "pdf", LEAVES);
	}
	assert_true(block_of(REC(""), &block));
	ss_buf_putc(&block, 0);
	block_paths((const unsigned char *)block.ptr, block.len, "pdf", LEAVES);
	block.len -= 2;
	block_paths((const unsigned char *)block.ptr, block.len, "pdf", LEAVES);
	block_paths((const unsigned char *)"", 0, "pdf", LEAVES);
	/* Limits: files, keys of an object, the frontmatter's depth. */
	ss_buf_puts(&rec,
	            "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\",\"files\":[");
	for (int i = 0; i <= SS_MAX_FILES; i++)
		ss_buf_printf(&rec, "%s{\"path\":\"f%d\",\"content\":\"\"}", i ? "," : "", i);
	ss_buf_puts(&rec, "]," TIMES "}");
	json_block_paths(rec.ptr, "pdf", LEAVES);
	for (int keys = 63; keys <= 65; keys++) {
		ss_buf_clear(&rec);
		ss_buf_puts(&rec, "{\"name\":\"pdf\",\"description\":\"d\",\"instructions\":\"b\","
		                  "\"frontmatter\":{\"metadata\":{");
		for (int i = 0; i < keys; i++)
			ss_buf_printf(&rec, "%s\"k%d\":\"v\"", i ? "," : "", i);
		ss_buf_puts(&rec, "}}," TIMES "}");
		json_block_paths(rec.ptr, "pdf", keys <= SS_SCAN_MAX_KEYS ? TAKES : LEAVES);
	}
	for (int levels = 14; levels <= 16; levels++) {
		nested(&rec, levels, "{\"k\":", "}");
		json_block_paths(rec.ptr, "pdf", levels + 1 <= 16 ? TAKES : LEAVES);
	}
	ss_buf_release(&rec);
	ss_buf_release(&block);
}

int test_record_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record__encode_exact_json),
	    cmocka_unit_test(test_record__note_is_cut_on_a_character_boundary),
	    cmocka_unit_test(test_record__hostile_records_are_reported),
	    cmocka_unit_test(test_record__limits_and_oversize),
	    cmocka_unit_test(test_record__encoded_size_limit),
	    cmocka_unit_test(test_record__blob_split_rule),
	    cmocka_unit_test(test_record__bad_blob_files_are_reported),
	    cmocka_unit_test(test_record__text_file_over_the_limit),
	    cmocka_unit_test(test_record__decoded_meta),
	    cmocka_unit_test(test_record__datetimes_compare_as_instants),
	    cmocka_unit_test(test_record__scanner_gives_the_general_result),
	    cmocka_unit_test(test_record__scanner_frontmatter_gives_the_general_result),
	    cmocka_unit_test(test_record__block_scanner_gives_its_json_form_result),
	};
	return cmocka_run_group_tests_name("core/record", tests, NULL, NULL);
}
