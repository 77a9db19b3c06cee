/*
 * fuzz.h: what the libFuzzer targets share (tests/fuzz/<target>.c, docs/RELIABILITY.md).
 *
 * Each target defines LLVMFuzzerTestOneInput for one parser: any input must be refused or
 * accepted without a crash, a sanitizer report or a leak, and what a parser accepts must come
 * back the same through its writer (where it has one). A broken property aborts (fuzz_check).
 */
#ifndef SS_FUZZ_H
#define SS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with what when cond is false: libFuzzer keeps the input as a crash. */
#define fuzz_check(cond, what)                                                                     \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz property broken: %s\n", what);                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A NUL-terminated malloc'd copy of data (the C-string parsers). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
