/*
 * error.h: the one way a failure travels from core/ and sync/ to cmd/.
 *
 * The contract, for every function that can fail:
 *  - it returns int: 0 on success, a negative value on failure (often just -1: the cleanup
 *    idiom `int ret = -1; ... goto out` does not carry codes up);
 *  - on failure it has filled the caller-owned ss_error: err->code, the SS_E* code, and one
 *    line for the person (git's rules: lowercase, no full stop, problem first, the subject
 *    quoted). The code lives there only: a caller that branches on it reads err->code after a
 *    negative return, never the return value (`if (rc < 0 && err->code == SS_ENOTFOUND)`);
 *  - err is never NULL. A caller that does not care why something failed passes a local
 *    `ss_error ignored;` and says so.
 * Why this rule rather than "return the code you store": every `goto out` path would have to
 * carry the code by hand, and one forgotten `ret = rc` turns a conflict into a plain error;
 * the message and its code are set together, in one place, by ss_error_set.
 * A function with no ss_error (ss_time_parse, readers that fill an ss_report) returns its
 * SS_E* code itself; a function that has one and fails for such a reason sets err too.
 * Only cmd/ prints the message and turns err->code into an exit code. A specific code exists
 * only where a caller branches on it.
 */
#ifndef SS_ERROR_H
#define SS_ERROR_H

#include <stddef.h>

enum {
	SS_OK = 0,
	SS_ERROR = -1,     /* anything without a more specific code */
	SS_ENOTFOUND = -2, /* the thing asked for does not exist */
	SS_EINVALID = -3,  /* input that breaks a rule (skill, record, option value) */
	SS_ECONFLICT = -4, /* someone else wrote meanwhile (swap mismatch): pull first */
	SS_EAUTH = -5,     /* no session, wrong password, token refused */
	SS_ENETWORK = -6,  /* unreachable, timed out, broken transfer, server error */
	SS_ELOCKED = -7,   /* another skillsync holds the lock */
	SS_ETOOBIG = -8,   /* over a size limit */
	SS_EEXISTS = -9,   /* refused to overwrite something that exists */
	SS_EMERGE = -10,   /* a merge left conflicts to resolve */
};

#define SS_ERROR_MSG_MAX 1024

typedef struct ss_error {
	int code;
	char message[SS_ERROR_MSG_MAX];
} ss_error;

#if defined(__GNUC__)
#define SS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SS_PRINTF(f, a)
#endif

/* Resets err to "no error". */
void ss_error_clear(ss_error *err);

/*
 * Sets err to code and the formatted message; returns code, so that
 * `return ss_error_set(err, SS_ENOTFOUND, "skill '%s' not found", name);` reads naturally.
 */
int ss_error_set(ss_error *err, int code, const char *fmt, ...) SS_PRINTF(3, 4);

/*
 * Puts "<prefix>: " before the message already in err and returns its code: adds where a
 * lower layer's message came from, e.g. ss_error_prefix(err, "cannot read '%s'", path).
 */
int ss_error_prefix(ss_error *err, const char *fmt, ...) SS_PRINTF(2, 3);

/* A short name for a code ("not found", "conflict", ...), for logs and --json. */
const char *ss_error_name(int code);

#endif
