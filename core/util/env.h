/*
 * env.h: reading skillsync's own environment variables (SKILLSYNC_TIMEOUT,
 * SKILLSYNC_LOCK_WAIT, ...), so that each is parsed and refused the same way.
 *
 * Rules: an unset or empty variable means "use the default"; a set one that is not what it
 * should be is an error naming the variable and its value, never silently ignored.
 */
#ifndef SS_ENV_H
#define SS_ENV_H

#include "core/util/error.h"

/*
 * Reads $name as whole seconds from min to max: 1 and *out set when it is, 0 (and *out
 * untouched) when unset or empty, SS_EINVALID ("SKILLSYNC_X is 'v': want whole seconds from
 * min to max") otherwise.
 */
int ss_env_seconds(const char *name, long min, long max, long *out, ss_error *err);

#endif
