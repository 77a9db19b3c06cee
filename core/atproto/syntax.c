/* syntax.c: ATProto's identifier syntax (see core/atproto/syntax.h). */
#include "core/atproto/syntax.h"

#include <string.h>

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool ss_syntax_is_handle(const char *s)
{
	size_t len = strlen(s), labels = 0;
	const char *label = s, *last = s;

	if (!len || len > 253)
		return false;
	for (;;) {
		size_t n = strcspn(label, ".");

		if (n < 1 || n > 63 || label[0] == '-' || label[n - 1] == '-')
			return false;
		for (size_t i = 0; i < n; i++)
			if (!is_alnum(label[i]) && label[i] != '-')
				return false;
		labels++;
		last = label;
		if (!label[n])
			break;
		label += n + 1;
	}
	/* A top-level domain does not start with a digit. */
	return labels >= 2 && !(last[0] >= '0' && last[0] <= '9');
}

bool ss_syntax_is_did(const char *s)
{
	const char *p = s + 4, *id;
	size_t len = strlen(s);

	if (len > SS_SYNTAX_MAX_DID || strncmp(s, "did:", 4))
		return false;
	while (*p >= 'a' && *p <= 'z')
		p++;
	if (p == s + 4 || *p != ':')
		return false;
	id = ++p;
	for (; *p; p++)
		if (!is_alnum(*p) && !strchr("._:%-", *p))
			return false;
	return p > id && p[-1] != ':' && p[-1] != '%';
}
