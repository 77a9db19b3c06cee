/*
 * mem.h: allocation that cannot return NULL.
 *
 * Like git's xmalloc: running out of memory ends the process with a message on stderr (the one
 * place core/ writes to a stream), so no caller carries an out-of-memory path.
 */
#ifndef SS_MEM_H
#define SS_MEM_H

#include <stddef.h>

void *ss_xmalloc(size_t size);
void *ss_xcalloc(size_t n, size_t size);
void *ss_xrealloc(void *ptr, size_t size);
/* Grows *ptr to hold at least want items of size item, doubling; updates *alloc. */
void ss_xgrow(void **ptr, size_t item, size_t want, size_t *alloc);
char *ss_xstrdup(const char *s);
char *ss_xstrndup(const char *s, size_t n);
/* A NUL-terminated copy of n bytes (the bytes may hold NULs; the copy ends with one more). */
char *ss_xmemdup(const void *p, size_t n);

#endif
