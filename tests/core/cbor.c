#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/skill/record.h"
#include "support/cborvec.h"
#include "support/support.h"

/* The atproto interop fixtures: CBOR -> JSON, JSON -> the same CBOR bytes, and their CID. */
static void test_cbor__interop_fixtures(void **state)
{
	json_t *cases = ss_test_json("vectors/cbor-data-model-fixtures.json"), *c, *got;
	ss_buf want = SS_BUF_INIT, enc = SS_BUF_INIT;
	char s[SS_CID_STRSZ], *text, *cid;
	ss_error err;
	ss_cid id;
	size_t i;

	assert_true(json_array_size(cases) >= 3);
	json_array_foreach(cases, i, c)
	{
		json_t *value = json_object_get(c, "json");
		const char *want_cid = json_string_value(json_object_get(c, "cid"));

		ss_test_cbor_unbase64(&want, json_string_value(json_object_get(c, "cbor_base64")));
		assert_int_equal(ss_cbor_decode(want.ptr, want.len, &got, &err), 0);
		assert_true(json_equal(got, value));
		json_decref(got);

		ss_buf_clear(&enc);
		assert_int_equal(ss_cbor_encode(value, &enc, &err), 0);
		assert_int_equal(enc.len, want.len);
		assert_memory_equal(enc.ptr, want.ptr, want.len);

		ss_cid_compute(&id, SS_CID_DAG_CBOR, enc.ptr, enc.len);
		ss_cid_fmt(s, &id);
		assert_string_equal(s, want_cid);

		text = json_dumps(value, JSON_COMPACT);
		assert_int_equal(ss_record_cid_from_json(text, strlen(text), &cid, &err), 0);
		assert_string_equal(cid, want_cid);
		free(cid);
		free(text);
	}
	ss_buf_release(&want);
	ss_buf_release(&enc);
	json_decref(cases);
}

/* data-model-valid: each value encodes, and what it encodes to decodes and encodes the same. */
static void test_cbor__interop_valid(void **state)
{
	json_t *cases = ss_test_json("vectors/cbor-data-model-valid.json"), *c, *back;
	ss_buf a = SS_BUF_INIT, b = SS_BUF_INIT;
	ss_error err;
	size_t i;

	assert_true(json_array_size(cases) >= 5);
	json_array_foreach(cases, i, c)
	{
		ss_buf_clear(&a);
		ss_buf_clear(&b);
		if (ss_cbor_encode(json_object_get(c, "json"), &a, &err) < 0)
			fail_msg("%s: %s", json_string_value(json_object_get(c, "note")),
			         err.message);
		assert_int_equal(ss_cbor_decode(a.ptr, a.len, &back, &err), 0);
		assert_int_equal(ss_cbor_encode(back, &b, &err), 0);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.ptr, b.ptr, a.len);
		json_decref(back);
	}
	ss_buf_release(&a);
	ss_buf_release(&b);
	json_decref(cases);
}

/* data-model-invalid: no CID for any of them. */
static void test_cbor__interop_invalid(void **state)
{
	json_t *cases = ss_test_json("vectors/cbor-data-model-invalid.json"), *c;
	ss_error err;
	char *cid = NULL, *text;
	size_t i;

	assert_true(json_array_size(cases) >= 10);
	json_array_foreach(cases, i, c)
	{
		text = json_dumps(json_object_get(c, "json"), JSON_COMPACT | JSON_ENCODE_ANY);
		ss_error_clear(&err);
		if (ss_record_cid_from_json(text, strlen(text), &cid, &err) == 0)
			fail_msg("accepted: %s", json_string_value(json_object_get(c, "note")));
		assert_int_equal(err.code, SS_EINVALID);
		free(text);
	}
	json_decref(cases);
}

/* Our strict cases: each byte string decodes to its JSON (and encodes back to the same bytes),
 * or is refused with a message naming the rule. */
static void test_cbor__strict_cases(void **state)
{
	json_t *cases = ss_test_json("vectors/cbor-strict.json"), *c, *got;
	ss_buf in = SS_BUF_INIT, enc = SS_BUF_INIT;
	ss_error err;
	size_t i;

	assert_true(json_array_size(cases) >= 40);
	json_array_foreach(cases, i, c)
	{
		const char *note = json_string_value(json_object_get(c, "note"));
		const json_t *want_err = json_object_get(c, "error");

		ss_test_cbor_unhex(&in, json_string_value(json_object_get(c, "hex")));
		ss_error_clear(&err);
		if (want_err) {
			if (ss_cbor_decode(in.ptr, in.len, &got, &err) == 0)
				fail_msg("accepted: %s", note);
			assert_int_equal(err.code, SS_EINVALID);
			if (!strstr(err.message, json_string_value(want_err)))
				fail_msg("%s: message '%s'", note, err.message);
			continue;
		}
		if (ss_cbor_decode(in.ptr, in.len, &got, &err) < 0)
			fail_msg("%s: %s", note, err.message);
		if (!json_equal(got, json_object_get(c, "json")))
			fail_msg("%s: decoded to %s", note, json_dumps(got, JSON_ENCODE_ANY));
		ss_buf_clear(&enc);
		assert_int_equal(ss_cbor_encode(got, &enc, &err), 0);
		assert_int_equal(enc.len, in.len);
		assert_memory_equal(enc.ptr, in.ptr, in.len);
		json_decref(got);
	}
	ss_buf_release(&in);
	ss_buf_release(&enc);
	json_decref(cases);
}

/* Text may hold NUL bytes: they reach the JSON string (its length says so) and encode back. */
static void test_cbor__text_with_nul(void **state)
{
	ss_buf enc = SS_BUF_INIT;
	json_t *v;
	ss_error err;

	assert_int_equal(ss_cbor_decode("\x63\x61\x00\x62", 4, &v, &err), 0);
	assert_int_equal(json_string_length(v), 3);
	assert_memory_equal(json_string_value(v), "a\0b", 3);
	assert_int_equal(ss_cbor_encode(v, &enc, &err), 0);
	assert_int_equal(enc.len, 4);
	assert_memory_equal(enc.ptr, "\x63\x61\x00\x62", 4);
	json_decref(v);
	ss_buf_release(&enc);
}

static void nested(ss_buf *b, int depth)
{
	ss_buf_clear(b);
	for (int i = 0; i < depth; i++)
		ss_buf_putc(b, (char)0x81);
	ss_buf_putc(b, 0x01);
}

static void test_cbor__depth_cap(void **state)
{
	ss_buf b = SS_BUF_INIT, enc = SS_BUF_INIT;
	json_t *v;
	ss_error err;

	nested(&b, SS_CBOR_MAX_DEPTH);
	assert_int_equal(ss_cbor_decode(b.ptr, b.len, &v, &err), 0);
	assert_int_equal(ss_cbor_encode(v, &enc, &err), 0);
	json_array_append_new(v, json_array()); /* one level deeper inside */
	json_decref(v);
	nested(&b, SS_CBOR_MAX_DEPTH + 1);
	SS_ASSERT_FAILS(ss_cbor_decode(b.ptr, b.len, &v, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "nested too deep"));
	/* A hostile depth is refused without using the stack for it. */
	nested(&b, 1000000);
	SS_ASSERT_FAILS(ss_cbor_decode(b.ptr, b.len, &v, &err), err, SS_EINVALID);
	ss_buf_release(&b);
	ss_buf_release(&enc);
}

/* The encoder's own refusals, and what it writes for JSON's one number type. */
static void test_cbor__encode_rules(void **state)
{
	static const struct {
		const char *json;
		const char *hex; /* NULL: refused */
	} cases[] = {
	    {"{\"a\":123.0}", "a16161187b"},
	    {"{\"a\":-0.0}", "a1616100"},
	    {"{\"a\":1.5}", NULL},
	    {"{\"a\":1e300}", NULL},
	    {"{\"b\":1,\"a\":2,\"aa\":3}", "a361610261620162616103"},
	    {"{\"$bytes\":\"AQI=\"}", "420102"},
	    {"{\"$bytes\":\"AQI\"}", "420102"},
	    {"{\"$bytes\":\"AQJ\"}", NULL}, /* stray bits */
	    {"{\"$bytes\":\"A QI\"}", NULL},
	    {"{\"$link\":\"bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2a\","
	     "\"x\":1}",
	     NULL},
	    {"{\"$type\":\"\"}", NULL},
	    {"{\"$type\":\"blob\",\"mimeType\":\"a/b\",\"size\":1}", NULL},
	};
	ss_buf out = SS_BUF_INIT, want = SS_BUF_INIT;
	json_error_t jerr;
	ss_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = json_loads(cases[i].json, 0, &jerr);
		assert_non_null(v);
		ss_buf_clear(&out);
		if (!cases[i].hex) {
			SS_ASSERT_FAILS(ss_cbor_encode(v, &out, &err), err, SS_EINVALID);
			assert_int_equal(out.len, 0);
		} else {
			if (ss_cbor_encode(v, &out, &err) < 0)
				fail_msg("%s: %s", cases[i].json, err.message);
			ss_test_cbor_unhex(&want, cases[i].hex);
			assert_int_equal(out.len, want.len);
			assert_memory_equal(out.ptr, want.ptr, want.len);
		}
		json_decref(v);
	}
	ss_buf_release(&out);
	ss_buf_release(&want);
}

/* Records as the reference PDS stored them: the JSON getRecord gave hashes to the CID it
 * named; a changed value does not. */
static void test_cbor__record_cids_from_the_pds(void **state)
{
	json_t *vec = ss_test_json("vectors/car-pds-records.json"), *r;
	char *text, *cid;
	ss_error err;
	size_t i;

	assert_true(json_array_size(json_object_get(vec, "records")) >= 30);
	json_array_foreach(json_object_get(vec, "records"), i, r)
	{
		json_t *value = json_object_get(r, "value");
		text = json_dumps(value, JSON_COMPACT);
		assert_int_equal(ss_record_cid_from_json(text, strlen(text), &cid, &err), 0);
		assert_string_equal(cid, json_string_value(json_object_get(r, "cid")));
		free(cid);
		free(text);
		json_object_set_new(value, "$type", json_string("garden.engram.skill.x"));
		text = json_dumps(value, JSON_COMPACT);
		assert_int_equal(ss_record_cid_from_json(text, strlen(text), &cid, &err), 0);
		assert_string_not_equal(cid, json_string_value(json_object_get(r, "cid")));
		free(cid);
		free(text);
	}
	SS_ASSERT_FAILS(ss_record_cid_from_json("{\"a\":1,\"a\":2}", 13, &cid, &err), err,
	                SS_EINVALID);
	json_decref(vec);
}

/*
 * ss_cbor_to_json on in: when it writes text, ss_cbor_decode takes in too, the text is byte
 * for byte what jansson writes for the value it gives, and reads back as that value (where
 * jansson can read it: not a key holding NUL); when it does not, nothing is appended. Returns
 * whether it wrote.
 */
static bool to_json_agrees(const void *in, size_t len)
{
	ss_buf out = SS_BUF_INIT;
	json_t *v = NULL, *back;
	json_error_t jerr;
	ss_error err;
	char *dumped;
	bool wrote = ss_cbor_to_json(in, len, &out) == 0;

	if (!wrote) {
		assert_int_equal(out.len, 0);
		ss_buf_release(&out);
		return false;
	}
	if (ss_cbor_decode(in, len, &v, &err) < 0)
		fail_msg("written as %s, refused by decode: %s", out.ptr, err.message);
	/* the very text jansson writes for the decoded value */
	dumped = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!dumped || strlen(dumped) != out.len || memcmp(dumped, out.ptr, out.len))
		fail_msg("written as %s, jansson writes %s", out.ptr, dumped ? dumped : "nothing");
	back = json_loadb(out.ptr, out.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (back && !json_equal(back, v))
		fail_msg("written as %s, not the decoded value", out.ptr);
	free(dumped);
	json_decref(back);
	json_decref(v);
	ss_buf_release(&out);
	return true;
}

/* The JSON text straight from DAG-CBOR is the value ss_cbor_decode gives, for every vector;
 * what decode refuses or checks further (a "$type" below the top, a blob) is left to it. */
static void test_cbor__to_json(void **state)
{
	json_t *fixtures = ss_test_json("vectors/cbor-data-model-fixtures.json");
	json_t *strict = ss_test_json("vectors/cbor-strict.json");
	json_t *pds = ss_test_json("vectors/car-pds-records.json"), *c;
	ss_buf in = SS_BUF_INIT;
	ss_error err;
	size_t i, wrote = 0, n = 0;

	json_array_foreach(fixtures, i, c)
	{
		ss_test_cbor_unbase64(&in, json_string_value(json_object_get(c, "cbor_base64")));
		wrote += to_json_agrees(in.ptr, in.len);
		n++;
	}
	json_array_foreach(strict, i, c)
	{
		ss_test_cbor_unhex(&in, json_string_value(json_object_get(c, "hex")));
		if (to_json_agrees(in.ptr, in.len) && json_object_get(c, "error"))
			fail_msg("written, though refused: %s",
			         json_string_value(json_object_get(c, "note")));
	}
	/* every record the reference PDS stored: written, each one */
	json_array_foreach(json_object_get(pds, "records"), i, c)
	{
		ss_buf_clear(&in);
		assert_int_equal(ss_cbor_encode(json_object_get(c, "value"), &in, &err), 0);
		assert_true(to_json_agrees(in.ptr, in.len));
	}
	assert_true(wrote > 0 && n > 0);
	/* every byte JSON must escape, quotes, backslashes, NUL, UTF-8 */
	assert_true(to_json_agrees("\x78\x28\x00\x01\x08\x09\x0a\x0c\x0d\x1f \"\\/\x7f"
	                           "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\xe2\x82\xac"
	                           "abcdefghijklmno",
	                           42));
	/* {"\x01": -16, "\0\0": 0}: a key holding NUL, escaped as jansson escapes it */
	assert_true(to_json_agrees("\xa2\x61\x01\x2f\x62\x00\x00\x00", 8));
	/* {"a": {"$type": "x"}}: a "$type" below the top is decode's to check */
	assert_false(to_json_agrees("\xa1\x61\x61\xa1\x65$type\x61x", 12));
	/* {"$type": "blob"}: decode says what a blob lacks */
	assert_false(to_json_agrees("\xa1\x65$type\x64\x62lob", 12));
	/* {"$type": ""} and trailing bytes: refused by decode */
	assert_false(to_json_agrees("\xa1\x65$type\x60", 8));
	assert_false(to_json_agrees("\xf6\xf6", 2));
	ss_buf_release(&in);
	json_decref(fixtures);
	json_decref(strict);
	json_decref(pds);
}

int test_cbor_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cbor__interop_fixtures),
	    cmocka_unit_test(test_cbor__interop_valid),
	    cmocka_unit_test(test_cbor__interop_invalid),
	    cmocka_unit_test(test_cbor__strict_cases),
	    cmocka_unit_test(test_cbor__text_with_nul),
	    cmocka_unit_test(test_cbor__depth_cap),
	    cmocka_unit_test(test_cbor__encode_rules),
	    cmocka_unit_test(test_cbor__record_cids_from_the_pds),
	    cmocka_unit_test(test_cbor__to_json),
	};
	return cmocka_run_group_tests_name("core/cbor", tests, NULL, NULL);
}
