/*
 * lock.h: one skillsync at a time in a clone (cron's `pull` and a person's `push`).
 *
 * The lock is an flock() on <gitdir>/skillsync/lock: the kernel releases it when the process
 * ends, however it ends, so a lock left by a killed run never blocks the next one (a "stale"
 * lock file is simply taken over). The file's content (pid, hostname, start time) is only
 * there for the message the second run prints. The file is never removed (removing a lock
 * file races with a process that opened it and waits).
 *
 * Rules: take the lock before any write to the clone, release it (or exit) when done.
 */
#ifndef SS_LOCK_H
#define SS_LOCK_H

#include "core/util/error.h"

typedef struct ss_lock ss_lock;

/* The default wait before giving up, in milliseconds. */
#define SS_LOCK_WAIT_MS 5000

/*
 * ss_lock_acquire with the wait every run uses: $SKILLSYNC_LOCK_WAIT seconds (0 to 3600; 0: do
 * not wait), else SS_LOCK_WAIT_MS, so a scheduler can choose between waiting and skipping a
 * run. SS_EINVALID for a value out of range.
 */
int ss_lock_take(ss_lock **out, const char *path, ss_error *err);

/*
 * Takes the lock at path (created 0600 if missing), waiting up to wait_ms while another
 * process holds it; then fails with SS_ELOCKED "another skillsync (pid N on host, started T)
 * is working in this clone".
 */
int ss_lock_acquire(ss_lock **out, const char *path, unsigned wait_ms, ss_error *err);

/* Releases the lock and frees it; NULL is fine. */
void ss_lock_free(ss_lock *lock);

#endif
