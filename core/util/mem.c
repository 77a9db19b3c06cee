#include "core/util/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t size)
{
	fprintf(stderr, "skillsync: out of memory (wanted %zu bytes)\n", size);
	abort();
}

void *ss_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *ss_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *ss_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void ss_xgrow(void **ptr, size_t item, size_t want, size_t *alloc)
{
	size_t n = *alloc ? *alloc : 8;

	if (want <= *alloc)
		return;
	while (n < want) {
		if (n > SIZE_MAX / 2 / item)
			die_oom(SIZE_MAX);
		n *= 2;
	}
	*ptr = ss_xrealloc(*ptr, n * item);
	*alloc = n;
}

char *ss_xstrdup(const char *s)
{
	return ss_xmemdup(s, strlen(s));
}

char *ss_xstrndup(const char *s, size_t n)
{
	size_t len = 0;

	while (len < n && s[len])
		len++;
	return ss_xmemdup(s, len);
}

char *ss_xmemdup(const void *p, size_t n)
{
	char *out = ss_xmalloc(n + 1);

	if (n)
		memcpy(out, p, n);
	out[n] = '\0';
	return out;
}
