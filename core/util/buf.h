/*
 * buf.h: the one growable byte buffer (in the spirit of git's strbuf and curl's dynbuf).
 *
 * Rules: `ptr` is never NULL and always NUL-terminated after `len` bytes (the bytes themselves
 * may hold NULs); a buffer on the stack starts with ss_buf_init() or SS_BUF_INIT and ends with
 * ss_buf_release(). `max`, when not 0, caps `len`: an append past it fails with SS_ETOOBIG and
 * leaves the buffer as it was (set it for anything read from the network or disk). A buffer
 * marked with ss_buf_secret wipes every copy it leaves behind: the old memory when it grows,
 * its memory when released, cleared or detached-and-freed by ss_secret_free.
 */
#ifndef SS_BUF_H
#define SS_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "core/util/error.h"

typedef struct ss_buf {
	char *ptr;
	size_t len;
	size_t alloc; /* 0 while ptr points at the shared empty string */
	size_t max;   /* 0: no cap */
	int secret;   /* ss_buf_secret: growth and release wipe (core/util/secret.h) */
} ss_buf;

extern char ss_buf_empty[];
#define SS_BUF_INIT                                                                                \
	{                                                                                          \
		ss_buf_empty, 0, 0, 0, 0                                                           \
	}

void ss_buf_init(ss_buf *b);
void ss_buf_release(ss_buf *b);
/* Marks b as holding a secret (a password, a token, a key) from now on. */
void ss_buf_secret(ss_buf *b);
/* Empties the buffer, keeping its memory and cap. */
void ss_buf_clear(ss_buf *b);
/* Hands the bytes over to the caller (free() them); the buffer is empty again. */
char *ss_buf_detach(ss_buf *b, size_t *len);

int ss_buf_put(ss_buf *b, const void *data, size_t len);
int ss_buf_puts(ss_buf *b, const char *s);
int ss_buf_putc(ss_buf *b, char c);
int ss_buf_printf(ss_buf *b, const char *fmt, ...) SS_PRINTF(2, 3);
int ss_buf_vprintf(ss_buf *b, const char *fmt, va_list ap) SS_PRINTF(2, 0);
/* Shortens the buffer to len bytes (no-op if it is shorter). */
void ss_buf_truncate(ss_buf *b, size_t len);

#endif
