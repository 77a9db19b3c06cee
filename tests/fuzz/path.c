/* The path validator: a path it accepts breaks none of the documented rules (docs/VALIDATION.md).
 */
#include "tests/fuzz/fuzz.h"

#include <strings.h>

#include "core/skill/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *c = p;

	if (ss_validate_path(p, size))
		return 0;
	fuzz_check(size > 0 && size <= 512, "a path of a refused length passed");
	fuzz_check(p[0] != '/', "an absolute path passed");
	fuzz_check(!memchr(p, '\\', size) && !memchr(p, '\0', size), "a backslash or NUL passed");
	for (size_t i = 0; i < size; i++)
		fuzz_check((unsigned char)p[i] >= 0x20 && p[i] != 0x7f,
		           "a control character passed");
	fuzz_check(size != 8 || memcmp(p, "SKILL.md", 8), "SKILL.md itself passed");
	while (c <= end) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((slash ? slash : end) - c);

		fuzz_check(n > 0, "an empty component passed");
		fuzz_check(!(n == 1 && c[0] == '.') && !(n == 2 && !memcmp(c, "..", 2)),
		           "a . or .. component passed");
		fuzz_check(!(n == 4 && !strncasecmp(c, ".git", 4)), "a .git component passed");
		c += n + 1;
	}
	return 0;
}
