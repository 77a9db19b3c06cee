#include "core/util/secret.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/util/mem.h"
#include "core/util/platform.h"

extern char **environ;

static const char *const secret_vars[] = {SS_SECRET_ENV_PASSWORD, NULL};

void ss_secret_wipe(void *p, size_t n)
{
	if (p && n)
		ss_platform_wipe(p, n);
}

void ss_secret_free(char *s)
{
	if (s)
		ss_secret_wipe(s, strlen(s));
	free(s);
}

void ss_secret_no_dumps(void)
{
	struct rlimit none = {0, 0};

	ss_platform_no_attach();
	setrlimit(RLIMIT_CORE, &none);
}

static int is_secret(const char *entry)
{
	for (size_t i = 0; secret_vars[i]; i++) {
		size_t n = strlen(secret_vars[i]);

		if (!strncmp(entry, secret_vars[i], n) && entry[n] == '=')
			return 1;
	}
	return 0;
}

char **ss_secret_child_env(void)
{
	size_t n = 0, k = 0;
	char **out;

	while (environ && environ[n])
		n++;
	out = ss_xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (!is_secret(environ[i]))
			out[k++] = environ[i];
	return out;
}
