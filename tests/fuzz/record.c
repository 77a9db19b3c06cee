/* The record decoder: decode; what decodes is encoded again and must decode to the same text.
 * The scanner for the common shape, wherever it takes an input, must give exactly the general
 * (jansson) path's result: the return, every report line, the skill and meta encoded again;
 * the same for the record's DAG-CBOR (its CID). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/record_summary.h"

#include "core/skill/record.h"
#include "core/skill/record_cid_priv.h"
#include "core/skill/record_priv.h"
#include "core/skill/skill.h"

/* One path's whole result as text: the return, the report's lines, the record encoded again. */
static int summary(const uint8_t *data, size_t size, ss_record_path path, ss_buf *out)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_record_meta meta;
	int ret;

	ss_record_meta_init(&meta);
	ret = ss_record_decode__path((const char *)data, size, "fuzz", &s, &meta, r, path);
	return fuzz_record_summary(ret, r, s, &meta, out);
}

/* A record's CID: what the scanner takes straight from the text must be the general path's
 * DAG-CBOR, byte for byte; what it leaves, it leaves untouched. */
static void cid_paths_agree(const uint8_t *data, size_t size)
{
	ss_buf fast = SS_BUF_INIT, general = SS_BUF_INIT;
	ss_error err;
	int scanned = ss_record_cid__scan((const char *)data, size, &fast);

	fuzz_check(scanned == 0 || fast.len == 0, "the CID scanner left bytes behind");
	if (scanned == 0) {
		fuzz_check(ss_record__cbor_general((const char *)data, size, &general, &err) == 0,
		           "the CID scanner takes what the general path refuses");
		fuzz_check(fast.len == general.len && !memcmp(fast.ptr, general.ptr, fast.len),
		           "the CID scanner and the general path differ");
	}
	ss_buf_release(&fast);
	ss_buf_release(&general);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_report *report = ss_report_new();
	ss_skill *skill = NULL, *again = NULL;
	ss_record_meta meta, meta2;
	ss_buf out = SS_BUF_INIT, out2 = SS_BUF_INIT, fast = SS_BUF_INIT, general = SS_BUF_INIT;
	ss_error err;

	ss_record_meta_init(&meta);
	ss_record_meta_init(&meta2);
	if (ss_record_decode((const char *)data, size, "fuzz", &skill, &meta, report) == 0) {
		fuzz_check(ss_record_encode(skill, meta.created_at, meta.updated_at, meta.note,
		                            &out, &err) == 0,
		           "a decoded record does not encode");
		fuzz_check(ss_record_decode(out.ptr, out.len, "fuzz", &again, &meta2, report) == 0,
		           "an encoded record does not decode");
		fuzz_check(ss_record_encode(again, meta2.created_at, meta2.updated_at, meta2.note,
		                            &out2, &err) == 0,
		           "a decoded record does not encode twice");
		fuzz_check(out.len == out2.len && !memcmp(out.ptr, out2.ptr, out.len),
		           "encoding is not stable");
	}
	if (summary(data, size, SS_RECORD_PATH_FAST, &fast) != SS_ENOTFOUND) {
		summary(data, size, SS_RECORD_PATH_GENERAL, &general);
		fuzz_check(fast.len == general.len && !memcmp(fast.ptr, general.ptr, fast.len),
		           "the scanner and the general path differ");
	}
	cid_paths_agree(data, size);
	ss_buf_release(&fast);
	ss_buf_release(&general);
	ss_skill_free(skill);
	ss_skill_free(again);
	ss_record_meta_release(&meta);
	ss_record_meta_release(&meta2);
	ss_buf_release(&out);
	ss_buf_release(&out2);
	ss_report_free(report);
	return 0;
}
