#include "core/util/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/env.h"
#include "core/util/mem.h"

struct ss_lock {
	int fd;
};

/* Reads who holds the lock (the file's first line) into out, or "unknown". */
static void holder(int fd, char *out, size_t size)
{
	char text[512];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	char host[256] = "";
	long long pid = 0, started = 0;
	char when[64] = "at an unknown time";

	if (n > 0) {
		text[n] = '\0';
		if (sscanf(text, "pid %lld host %255s started %lld", &pid, host, &started) >= 2 &&
		    started > 0) {
			time_t t = (time_t)started;
			struct tm tm;
			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
	}
	if (pid > 0)
		snprintf(out, size, "pid %lld on %s, started %s", pid, host[0] ? host : "?", when);
	else
		snprintf(out, size, "pid unknown");
}

int ss_lock_take(ss_lock **out, const char *path, ss_error *err)
{
	long s;
	int rc = ss_env_seconds("SKILLSYNC_LOCK_WAIT", 0, 3600, &s, err);

	if (rc < 0)
		return rc;
	return ss_lock_acquire(out, path, rc ? (unsigned)s * 1000u : SS_LOCK_WAIT_MS, err);
}

int ss_lock_acquire(ss_lock **out, const char *path, unsigned wait_ms, ss_error *err)
{
	struct timespec pause = {0, 50 * 1000 * 1000};
	unsigned waited = 0;
	char host[256] = "localhost", who[400];
	ss_buf text = SS_BUF_INIT;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return ss_error_set(err, SS_ERROR, "cannot open the lock '%s': %s", path,
		                    strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			int e = errno;
			close(fd);
			return ss_error_set(err, SS_ERROR, "cannot lock '%s': %s", path,
			                    strerror(e));
		}
		if (waited >= wait_ms) {
			holder(fd, who, sizeof(who));
			close(fd);
			return ss_error_set(err, SS_ELOCKED,
			                    "another skillsync (%s) is working in this clone", who);
		}
		nanosleep(&pause, NULL);
		waited += 50;
	}
	/* Ours now: whatever the file said was left by a process that ended. */
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	ss_buf_printf(&text, "pid %lld host %s started %lld\n", (long long)getpid(), host,
	              (long long)time(NULL));
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text.ptr, text.len, 0) != (ssize_t)text.len) {
		int e = errno;
		ss_buf_release(&text);
		close(fd);
		return ss_error_set(err, SS_ERROR, "cannot write the lock '%s': %s", path,
		                    strerror(e));
	}
	ss_buf_release(&text);
	*out = ss_xmalloc(sizeof(**out));
	(*out)->fd = fd;
	return 0;
}

void ss_lock_free(ss_lock *lock)
{
	if (!lock)
		return;
	if (ftruncate(lock->fd, 0) < 0) {
		/* Nothing to do: the content is only informative. */
	}
	close(lock->fd);
	free(lock);
}
