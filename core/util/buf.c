#include "core/util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"
#include "core/util/secret.h"

char ss_buf_empty[1];

void ss_buf_init(ss_buf *b)
{
	b->ptr = ss_buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->max = 0;
	b->secret = 0;
}

void ss_buf_secret(ss_buf *b)
{
	b->secret = 1;
}

void ss_buf_release(ss_buf *b)
{
	if (!b)
		return;
	if (b->alloc && b->secret)
		ss_secret_wipe(b->ptr, b->alloc);
	if (b->alloc)
		free(b->ptr);
	ss_buf_init(b);
}

void ss_buf_clear(ss_buf *b)
{
	if (b->alloc && b->secret)
		ss_secret_wipe(b->ptr, b->len);
	b->len = 0;
	if (b->alloc)
		b->ptr[0] = '\0';
}

char *ss_buf_detach(ss_buf *b, size_t *len)
{
	char *out = b->alloc ? b->ptr : ss_xstrdup("");

	if (len)
		*len = b->len;
	b->ptr = ss_buf_empty;
	b->len = 0;
	b->alloc = 0;
	return out;
}

static int reserve(ss_buf *b, size_t extra)
{
	size_t want;

	if (extra > (size_t)-1 - b->len - 1)
		return SS_ETOOBIG;
	if (b->max && b->len + extra > b->max)
		return SS_ETOOBIG;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	if (!b->alloc) {
		char *p = NULL;
		size_t alloc = 0;
		ss_xgrow((void **)&p, 1, want < 64 ? 64 : want, &alloc);
		p[0] = '\0';
		b->ptr = p;
		b->alloc = alloc;
		return 0;
	}
	if (b->secret) {
		/* realloc would leave the old bytes behind in freed memory */
		char *p = NULL;
		size_t alloc = 0;

		ss_xgrow((void **)&p, 1, want, &alloc);
		memcpy(p, b->ptr, b->len + 1);
		ss_secret_wipe(b->ptr, b->alloc);
		free(b->ptr);
		b->ptr = p;
		b->alloc = alloc;
		return 0;
	}
	ss_xgrow((void **)&b->ptr, 1, want, &b->alloc);
	return 0;
}

int ss_buf_put(ss_buf *b, const void *data, size_t len)
{
	int rc;

	if (len == 0)
		return 0;
	if ((rc = reserve(b, len)) < 0)
		return rc;
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int ss_buf_puts(ss_buf *b, const char *s)
{
	return ss_buf_put(b, s, strlen(s));
}

int ss_buf_putc(ss_buf *b, char c)
{
	return ss_buf_put(b, &c, 1);
}

int ss_buf_vprintf(ss_buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;
	int rc;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return SS_ERROR;
	if ((rc = reserve(b, (size_t)n)) < 0)
		return rc;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int ss_buf_printf(ss_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ss_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void ss_buf_truncate(ss_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->ptr[len] = '\0';
}
