/* The datetime parser: what parses is written back (milliseconds, UTC) and reads back the same. */
#include "tests/fuzz/fuzz.h"

#include "core/util/time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	ss_buf out = SS_BUF_INIT, out2 = SS_BUF_INIT;
	int64_t us, us2;

	if (ss_time_parse(s, &us) == 0) {
		ss_time_format(us, &out);
		fuzz_check(ss_time_parse(out.ptr, &us2) == 0, "a written datetime does not parse");
		ss_time_format(us2, &out2);
		fuzz_check(!strcmp(out.ptr, out2.ptr), "a written datetime reads back different");
		fuzz_check(us2 <= us && us - us2 < 1000, "writing moved the instant");
	}
	ss_buf_release(&out);
	ss_buf_release(&out2);
	free(s);
	return 0;
}
