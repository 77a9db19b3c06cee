/*
 * crash.h: test-only kill points, to prove that every step of a write is safe to interrupt,
 * and test-only delay points, to make something happen at a chosen moment of a run.
 *
 * ss_crash_point("name") ends the process at once with status 137 (what `kill -9` gives a
 * shell) when the environment variable SKILLSYNC_TEST_CRASH equals "name", and does nothing
 * otherwise. Nothing is flushed or cleaned up: the next run must find the repository and the
 * state as a real kill would leave them. The points are listed in docs/SCHEDULE.md (pull,
 * fetch, merge) and docs/PUSH.md (push).
 *
 * Rules: this is the one place outside cmd/ that ends the process, because it stands for a
 * kill; it exists for the end-to-end tests only and is inert unless the variable is set.
 */
#ifndef SS_CRASH_H
#define SS_CRASH_H

#define SS_CRASH_ENV "SKILLSYNC_TEST_CRASH"
#define SS_DELAY_ENV "SKILLSYNC_TEST_DELAY"

void ss_crash_point(const char *name);

/*
 * ss_crash_delay("name") waits each time the run passes the point when SKILLSYNC_TEST_DELAY is
 * "name:<ms>" (whole milliseconds, at most 600000), or "name:<ms>:<file>" (until <file> exists,
 * <ms> at most), and does nothing otherwise (any other value included), so that a test can act
 * on the server meanwhile (expire or revoke the space credential) and then let the run go on.
 * The points are listed in docs/RELIABILITY.md.
 */
void ss_crash_delay(const char *name);

#endif
