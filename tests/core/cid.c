#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/atproto/cid.h"
#include "support/support.h"

static void test_cid__parse_format_round_trip(void **state)
{
	static const char *const ok[] = {
	    "bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2a",
	    "bafkreiccldh766hwcnuxnf2wh6jgzepf2nlu2lvcllt63eww5p6chi4ity",
	    "bafyreie5cvv4h45feadgeuwhbcutmh6t2ceseocckahdoe6uat64zmz454",
	};
	unsigned char bin[SS_CID_BINSZ];
	char s[SS_CID_STRSZ];
	ss_cid cid, again;
	ss_error err;
	size_t used;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(ss_cid_parse(&cid, ok[i], strlen(ok[i]), &err), 0);
		ss_cid_fmt(s, &cid);
		assert_string_equal(s, ok[i]);
		ss_cid_to_bytes(bin, &cid);
		assert_int_equal(ss_cid_from_bytes(&again, bin, sizeof(bin), &used, &err), 0);
		assert_int_equal(used, SS_CID_BINSZ);
		assert_true(ss_cid_equal(&cid, &again));
	}
	assert_int_equal(cid.codec, SS_CID_DAG_CBOR);
	assert_int_equal(ss_cid_parse(&cid, ok[1], strlen(ok[1]), &err), 0);
	assert_int_equal(cid.codec, SS_CID_RAW);
}

/* The well-known CID of the empty raw block, and a mismatch after one changed byte. */
static void test_cid__compute_and_match(void **state)
{
	char s[SS_CID_STRSZ];
	ss_cid cid;

	ss_cid_compute(&cid, SS_CID_RAW, "", 0);
	ss_cid_fmt(s, &cid);
	assert_string_equal(s, "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku");
	ss_cid_compute(&cid, SS_CID_DAG_CBOR, "\xa0", 1);
	assert_true(ss_cid_matches(&cid, "\xa0", 1));
	assert_false(ss_cid_matches(&cid, "\x80", 1));
}

/* Everything but the blessed form is refused: the interop suite's invalid CIDs, and valid CIDs
 * that a repository never holds (CIDv0, dag-pb, base58, hex, upper case). */
static void test_cid__refuses(void **state)
{
	static const char *const bad[] = {
	    "",
	    "example.com",
	    "cid:bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
	    " bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2a",
	    "bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2a ",
	    "bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2",
	    "bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2b", /* stray bits */
	    "BAFYREIDFAYVFUWQA7QLNOPDJIQRXZS6BLMOEU4RUJCJTNCI5BELUDIRZ2A",
	    "QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR",
	    "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", /* dag-pb */
	    "zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7",
	    "f017012202c5f688262e0ece8569aa6f94d60aad55ca8d9d83734e4a7430d0cff6588ec2b",
	};
	static const unsigned char v0[] = {0x12, 0x20, 1, 2, 3, 4};
	ss_cid cid;
	ss_error err;
	size_t used;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ss_error_clear(&err);
		if (ss_cid_parse(&cid, bad[i], strlen(bad[i]), &err) == 0)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(err.code, SS_EINVALID);
	}
	SS_ASSERT_FAILS(ss_cid_from_bytes(&cid, v0, sizeof(v0), &used, &err), err, SS_EINVALID);
	SS_ASSERT_FAILS(
	    ss_cid_from_bytes(&cid, (const unsigned char *)"\x01\x71\x12\x20", 4, &used, &err), err,
	    SS_EINVALID);
	assert_non_null(strstr(err.message, "cut short"));
}

int test_cid_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cid__parse_format_round_trip),
	    cmocka_unit_test(test_cid__compute_and_match),
	    cmocka_unit_test(test_cid__refuses),
	};
	return cmocka_run_group_tests_name("core/cid", tests, NULL, NULL);
}
