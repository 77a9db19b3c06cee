/*
 * time.h: ATProto datetimes (RFC 3339 with a time zone) as comparable instants.
 *
 * The precedence rule compares updatedAt as instants, not as text: "2026-01-01T01:00:00+01:00"
 * and "2026-01-01T00:00:00Z" are the same instant. An instant is microseconds since
 * 1970-01-01T00:00:00Z (finer fractions are cut, not rounded).
 */
#ifndef SS_TIME_H
#define SS_TIME_H

#include <stdint.h>

#include "core/util/buf.h"

/*
 * Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" (uppercase T and Z, as ATProto
 * asks; "-00:00" refused). Returns 0 and sets *us, or SS_EINVALID for anything else.
 */
int ss_time_parse(const char *s, int64_t *us);

/* Appends us as "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC, milliseconds) to out. */
void ss_time_format(int64_t us, ss_buf *out);

/* The current instant. */
int64_t ss_time_now(void);

/* Waits ms milliseconds (a signal does not cut the wait short). */
void ss_time_sleep_ms(long ms);

#endif
