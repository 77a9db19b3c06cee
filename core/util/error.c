#include "core/util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ss_error_clear(ss_error *err)
{
	err->code = SS_OK;
	err->message[0] = '\0';
}

int ss_error_set(ss_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

/* Appends s to err's message, cut at the buffer's end. */
static void append(ss_error *err, const char *s)
{
	size_t used = strlen(err->message);
	size_t room = sizeof(err->message) - 1 - used;
	size_t n = strlen(s);

	if (n > room)
		n = room;
	memcpy(err->message + used, s, n);
	err->message[used + n] = '\0';
}

int ss_error_prefix(ss_error *err, const char *fmt, ...)
{
	char prefix[SS_ERROR_MSG_MAX];
	char old[SS_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->message, sizeof(old));
	err->message[0] = '\0';
	append(err, prefix);
	if (old[0]) {
		append(err, ": ");
		append(err, old);
	}
	if (err->code == SS_OK)
		err->code = SS_ERROR;
	return err->code;
}

const char *ss_error_name(int code)
{
	switch (code) {
	case SS_OK:
		return "ok";
	case SS_ENOTFOUND:
		return "not found";
	case SS_EINVALID:
		return "invalid";
	case SS_ECONFLICT:
		return "conflict";
	case SS_EAUTH:
		return "auth";
	case SS_ENETWORK:
		return "network";
	case SS_ELOCKED:
		return "locked";
	case SS_ETOOBIG:
		return "too big";
	case SS_EEXISTS:
		return "exists";
	case SS_EMERGE:
		return "merge conflict";
	default:
		return "error";
	}
}
