/* crash.c: test-only kill and delay points (see crash.h). */
#include "core/util/crash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/time.h"

void ss_crash_point(const char *name)
{
	const char *want = getenv(SS_CRASH_ENV);

	if (want && name && !strcmp(want, name))
		_exit(137);
}

void ss_crash_delay(const char *name)
{
	const char *want = getenv(SS_DELAY_ENV), *arg;
	size_t len = name ? strlen(name) : 0;
	char *end;
	long ms;

	if (!want || !len || strncmp(want, name, len) || want[len] != ':')
		return;
	arg = want + len + 1;
	if (*arg < '0' || *arg > '9')
		return;
	errno = 0;
	ms = strtol(arg, &end, 10);
	if (errno || ms > 600000 || (*end && *end != ':'))
		return;
	if (!*end) {
		ss_time_sleep_ms(ms);
		return;
	}
	/* until the file exists, ms at most */
	for (long waited = 0; waited < ms && access(end + 1, F_OK) < 0; waited += 20)
		ss_time_sleep_ms(20);
}
