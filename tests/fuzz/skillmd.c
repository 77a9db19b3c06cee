/* The SKILL.md reader: parse; what parses is written back and must read back the same. */
#include "tests/fuzz/fuzz.h"

#include "core/skill/skillmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_report *report = ss_report_new();
	ss_value *fm = NULL, *again = NULL;
	size_t off = 0, off2 = 0;
	ss_buf out = SS_BUF_INIT;

	if (ss_skillmd_parse((const char *)data, size, "fuzz/SKILL.md", &fm, &off, report) == 0) {
		fuzz_check(off <= size, "the body starts past the end");
		ss_skillmd_emit(fm, NULL, (const char *)data + off, size - off, &out);
		fuzz_check(
		    ss_skillmd_parse(out.ptr, out.len, "fuzz/SKILL.md", &again, &off2, report) == 0,
		    "a written SKILL.md does not read back");
		fuzz_check(ss_value_equal(fm, again), "a written SKILL.md reads back different");
		fuzz_check(out.len - off2 == size - off &&
		               !memcmp(out.ptr + off2, data + off, size - off),
		           "the body changed");
	}
	ss_value_free(fm);
	ss_value_free(again);
	ss_buf_release(&out);
	ss_report_free(report);
	return 0;
}
