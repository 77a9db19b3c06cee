/* The URL check: any text is accepted or refused without a crash; plain http only to loopback. */
#include "tests/fuzz/fuzz.h"

#include <strings.h>

#include "sync/net/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	ss_error err;

	if (ss_url_check(s, &err) == 0)
		fuzz_check(!strncasecmp(s, "https://", 8) || !strncasecmp(s, "http://", 7),
		           "a URL neither http nor https passed");
	ss_url_host_is_loopback(s);
	free(s);
	return 0;
}
