/* crash.c: test-only kill points (see crash.h). */
#include "core/crash.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ss_crash_point(const char *name)
{
	const char *want = getenv(SS_CRASH_ENV);

	if (want && name && !strcmp(want, name))
		_exit(137);
}
