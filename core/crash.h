/*
 * crash.h: test-only kill points, to prove that every step of a write is safe to interrupt.
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

void ss_crash_point(const char *name);

#endif
