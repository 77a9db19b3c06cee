/*
 * secret.h: keeping passwords, tokens and keys out of places they outlive their use.
 *
 * Rules: every buffer that held a secret is wiped before its memory goes back (ss_secret_wipe,
 * through core/util/platform.h: a plain memset before free() is a dead store the compiler drops);
 * an ss_buf that holds one is marked with ss_buf_secret (its growth and release wipe); the process
 * never writes a core dump (ss_secret_no_dumps, once at start); the programs skillsync starts get
 * an environment without skillsync's own secrets (ss_secret_child_env).
 */
#ifndef SS_SECRET_H
#define SS_SECRET_H

#include <stddef.h>

/* The environment variables that hold skillsync's secrets. */
#define SS_SECRET_ENV_PASSWORD "SKILLSYNC_PASSWORD"

/* Zeroes n bytes at p in a way the compiler keeps. */
void ss_secret_wipe(void *p, size_t n);
/* Wipes the string s, then frees it; NULL is fine. */
void ss_secret_free(char *s);
/* No core dump and no debugger attach from now on (RLIMIT_CORE 0, and core/util/platform.h's
 * ss_platform_no_attach). */
void ss_secret_no_dumps(void);
/* environ without skillsync's secret variables, for execve(): a NULL-terminated array of
 * borrowed strings; free() the array. */
char **ss_secret_child_env(void);

#endif
