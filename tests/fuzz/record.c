/* The record decoder: decode; what decodes is encoded again and must decode to the same text. */
#include "tests/fuzz/fuzz.h"

#include "core/record.h"
#include "core/skill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_report *report = ss_report_new();
	ss_skill *skill = NULL, *again = NULL;
	ss_record_meta meta, meta2;
	ss_buf out = SS_BUF_INIT, out2 = SS_BUF_INIT;
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
	ss_skill_free(skill);
	ss_skill_free(again);
	ss_record_meta_release(&meta);
	ss_record_meta_release(&meta2);
	ss_buf_release(&out);
	ss_buf_release(&out2);
	ss_report_free(report);
	return 0;
}
