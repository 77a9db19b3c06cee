/*
 * record_summary.h: a record decoding's whole result as text (the return, every report line,
 * the skill and meta encoded again), for the record targets that compare the decoder's paths
 * (tests/fuzz/record.c, tests/fuzz/record_block.c). Frees r, s and meta.
 */
#ifndef SS_FUZZ_RECORD_SUMMARY_H
#define SS_FUZZ_RECORD_SUMMARY_H

#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "tests/fuzz/fuzz.h"

static inline int fuzz_record_summary(int ret, ss_report *r, ss_skill *s, ss_record_meta *meta,
                                      ss_buf *out)
{
	ss_error err;

	ss_buf_printf(out, "%d\n", ret);
	for (size_t i = 0; i < ss_report_count(r); i++) {
		ss_report_format(ss_report_at(r, i), out);
		ss_buf_putc(out, '\n');
	}
	if (ret == 0) {
		fuzz_check(ss_record_encode(s, meta->created_at, meta->updated_at, meta->note, out,
		                            &err) == 0,
		           "a decoded record does not encode");
		ss_buf_printf(out, "\n%lld %lld", (long long)meta->created_us,
		              (long long)meta->updated_us);
	}
	ss_record_meta_release(meta);
	ss_skill_free(s);
	ss_report_free(r);
	return ret;
}

#endif
