/* record_cid.c: a record's CID from its JSON text (core/skill/record.h): the scanner that encodes
 * the common shape straight from the text must give the general (jansson) path's bytes, CID and
 * refusal on every input, and must take the shape records have. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>

#include "core/skill/record.h"
#include "core/skill/record_cid_priv.h"
#include "support/support.h"

/* Runs both paths over the text; they must agree. Returns what the scanner did (0: took it). */
static int agree(const char *json, size_t len)
{
	ss_buf fast = SS_BUF_INIT, general = SS_BUF_INIT;
	ss_error gerr, perr;
	char *cid = NULL;
	int scanned, gret, pret;

	scanned = ss_record_cid__scan(json, len, &fast);
	assert_true(scanned == 0 || scanned == 1);
	gret = ss_record__cbor_general(json, len, &general, &gerr);
	if (scanned == 0) {
		assert_int_equal(gret, 0);
		assert_int_equal(fast.len, general.len);
		assert_memory_equal(fast.ptr, general.ptr, fast.len);
	} else {
		assert_int_equal(fast.len, 0);
	}
	pret = ss_record_cid_from_json(json, len, &cid, &perr);
	assert_int_equal(pret, gret);
	if (gret < 0) {
		assert_int_equal(perr.code, gerr.code);
		assert_string_equal(perr.message, gerr.message);
	}
	free(cid);
	ss_buf_release(&fast);
	ss_buf_release(&general);
	return scanned;
}

static int agree_s(const char *json)
{
	return agree(json, strlen(json));
}

#define REC                                                                                        \
	"{\"$type\": \"garden.engram.skill\", \"name\": \"pdf\",\n"                                \
	"  \"description\": \"Fill \\\"forms\\\" \\/ caf\xc3\xa9 \xf0\x9f\x98\x80\",\n"            \
	"  \"instructions\": \"# PDF\\n\\tline\\r\\b\\f\\\\\", \"n\": -42, \"big\": "              \
	"123456789012345678,\n"                                                                    \
	"  \"files\": [{\"path\": \"scripts/run.sh\", \"content\": \"x\", \"executable\": "        \
	"true},\n"                                                                                 \
	"            {\"path\": \"a.md\", \"content\": \"\", \"x\": null, \"y\": false}],\n"       \
	"  \"bb\": {}, \"a\": [], \"\": 0,\n"                                                      \
	"  \"createdAt\": \"2026-01-01T00:00:00.000Z\", \"updatedAt\": "                           \
	"\"2026-01-02T00:00:00.000Z\"}\n"

static void test_record_cid__scanner_takes_records(void **state)
{
	(void)state;
	assert_int_equal(agree_s(REC), 0);
	assert_int_equal(agree_s("{}"), 0);
	assert_int_equal(agree_s(" {\"$type\":\"x\",\"k\":[1,[2,[3]],{\"z\":{}}]} "), 0);
}

static void test_record_cid__scanner_leaves_the_unusual(void **state)
{
	static const char *const cases[] = {
	    "{\"a\":\"\\u00e9\"}",
	    "{\"a\":\"\\u0000\"}",
	    "{\"a\":1.5}",
	    "{\"a\":1.0}",
	    "{\"a\":1e3}",
	    "{\"a\":-0}",
	    "{\"a\":01}",
	    "{\"a\":1234567890123456789}",
	    "{\"a\":99999999999999999999}",
	    "{\"a\":1,\"a\":2}",
	    "{\"a\":1,\"b\":2,\"a\":1}",
	    "{\"$type\":\"blob\"}",
	    "{\"$type\":\"\"}",
	    "{\"$type\":1}",
	    "{\"$link\":\"bafy\"}",
	    "{\"$bytes\":\"AAAA\"}",
	    "{\"x\":{\"$link\":\"bafyreib\"}}",
	    "{\"$foo\":1}",
	    "[]",
	    "\"a\"",
	    "{\"a\":1}x",
	    "{\"a\":1,}",
	    "{\"a\":[1,]}",
	    "{\"a\":\"\x01\"}",
	    "{\"a\":\"\xc3\"}",
	    "{\"a\":\"\xed\xa0\x80\"}",
	    "{\"a\":\"\xc0\x80\"}",
	    "\xef\xbb\xbf{}",
	    "{\"a\":tru}",
	    "{\"a\":nul}",
	    "{\"a\":\"x}",
	    "{\"a\" 1}",
	    "{\"a\":\"\\x\"}",
	    "",
	};
	char deep[256] = "";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(agree_s(cases[i]), 1);
	/* NUL bytes, with the text's length */
	assert_int_equal(agree("{\"a\"\x00:1}", 8), 1);
	assert_int_equal(agree("{\"a\":1}\x00", 8), 1);
	/* nesting: the scanner leaves deep values to the general path, which caps them at 64 */
	for (int d = 1; d < 80; d++) {
		size_t n = (size_t)snprintf(deep, sizeof(deep), "{\"a\":");
		for (int i = 0; i < d; i++)
			deep[n++] = '[';
		for (int i = 0; i < d; i++)
			deep[n++] = ']';
		deep[n++] = '}';
		deep[n] = '\0';
		assert_int_equal(agree(deep, n), d <= 48 ? 0 : 1);
	}
}

/* Every byte of a record replaced by each of a set of bytes that matter, and every cut. */
static void test_record_cid__mutations_agree(void **state)
{
	static const char subs[] = {'"', '\\', '$', '0',        '9',        '-',       '.',
	                            'e', '{',  '}', '[',        ']',        ',',       ':',
	                            ' ', 'u',  'n', (char)0x00, (char)0x80, (char)0xff};
	const char *rec = REC;
	size_t len = strlen(rec), took = 0;
	char *t = malloc(len + 1);

	(void)state;
	for (size_t cut = 0; cut < len; cut++)
		agree(rec, cut);
	for (size_t i = 0; i < len; i++)
		for (size_t k = 0; k < sizeof(subs); k++) {
			memcpy(t, rec, len);
			t[i] = subs[k];
			took += agree(t, len) == 0;
		}
	assert_true(took > 0); /* some mutations are still records the scanner takes */
	free(t);
}

static void test_record_cid__corpus_agrees(void **state)
{
	ss_buf dir = SS_BUF_INIT;
	json_t *fx;
	struct dirent *de;
	DIR *d;
	size_t i, files = 0;
	json_t *item;

	(void)state;
	ss_test_data(&dir, "hostile/records");
	d = opendir(dir.ptr);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		ss_buf text = SS_BUF_INIT;
		char rel[512];

		if (!strstr(de->d_name, ".json"))
			continue;
		snprintf(rel, sizeof(rel), "hostile/records/%s", de->d_name);
		ss_test_data(&text, rel);
		{
			FILE *f = fopen(text.ptr, "rb");
			char chunk[4096];
			size_t n;
			ss_buf body = SS_BUF_INIT;

			assert_non_null(f);
			while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
				ss_buf_put(&body, chunk, n);
			fclose(f);
			agree(body.ptr, body.len);
			ss_buf_release(&body);
		}
		ss_buf_release(&text);
		files++;
	}
	closedir(d);
	assert_true(files > 10);
	ss_buf_release(&dir);

	/* the DAG-CBOR fixtures: the CID of each object is the fixture's */
	fx = ss_test_json("vectors/cbor-data-model-fixtures.json");
	json_array_foreach(fx, i, item)
	{
		char *text = json_dumps(json_object_get(item, "json"), JSON_COMPACT);
		const char *want = json_string_value(json_object_get(item, "cid"));
		char *cid = NULL;
		ss_error err;

		agree_s(text);
		if (want && json_is_object(json_object_get(item, "json"))) {
			assert_int_equal(ss_record_cid_from_json(text, strlen(text), &cid, &err),
			                 0);
			assert_string_equal(cid, want);
		}
		free(cid);
		free(text);
	}
	json_decref(fx);
}

int test_record_cid_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_cid__scanner_takes_records),
	    cmocka_unit_test(test_record_cid__scanner_leaves_the_unusual),
	    cmocka_unit_test(test_record_cid__mutations_agree),
	    cmocka_unit_test(test_record_cid__corpus_agrees),
	};
	return cmocka_run_group_tests_name("core/record_cid", tests, NULL, NULL);
}
