#include "core/util/env.h"

#include <errno.h>
#include <stdlib.h>

int ss_env_seconds(const char *name, long min, long max, long *out, ss_error *err)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || *s < '0' || *s > '9' || v < min || v > max)
		return ss_error_set(err, SS_EINVALID,
		                    "%s is '%s': want whole seconds from %ld to %ld", name, s, min,
		                    max);
	*out = v;
	return 1;
}
