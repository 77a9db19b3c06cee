/* platform.c: the calls that differ between systems, and their fallbacks (see
 * core/util/platform.h). */
#if defined(__linux__)
#define _GNU_SOURCE /* getdents64 */
#endif
#include "core/util/platform.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <sys/ptrace.h>
#include <sys/types.h>
#endif

void ss_platform_wipe(void *p, size_t n)
{
#if defined(__GLIBC__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
	explicit_bzero(p, n);
#elif defined(__APPLE__) && defined(__STDC_LIB_EXT1__)
	memset_s(p, n, 0, n);
#else
	/* Stores through a volatile pointer are kept. */
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
#endif
}

void ss_platform_no_attach(void)
{
#if defined(__linux__)
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#elif defined(__APPLE__)
	ptrace(PT_DENY_ATTACH, 0, 0, 0);
#endif
}

void ss_platform_release_pages(void *addr, size_t len)
{
#if defined(__linux__)
	/* Linux: a shared file mapping's pages are dropped at once, and read again on a touch. */
	(void)madvise(addr, len, MADV_DONTNEED);
#else
	(void)posix_madvise(addr, len, POSIX_MADV_DONTNEED);
#endif
}

void ss_platform_trim_heap(void)
{
#if defined(__GLIBC__)
	(void)malloc_trim(0);
#endif
}

struct timespec ss_platform_mtime(const struct stat *st)
{
#if defined(__APPLE__)
	return st->st_mtimespec;
#else
	return st->st_mtim; /* POSIX.1-2008 */
#endif
}

struct timespec ss_platform_ctime(const struct stat *st)
{
#if defined(__APPLE__)
	return st->st_ctimespec;
#else
	return st->st_ctim;
#endif
}

int ss_platform_dir_each(int fd, int (*fn)(void *payload, const char *name, unsigned char type),
                         void *payload)
{
#if defined(__linux__) && defined(__GLIBC__)
	/* one system call per buffer of names, no DIR stream (its fstat and fcntl) */
	union {
		struct dirent64 align;
		char bytes[32768];
	} buf;

	for (;;) {
		ssize_t n = getdents64(fd, buf.bytes, sizeof(buf.bytes));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf.bytes + off);
			int rc = fn(payload, de->d_name, de->d_type);
			if (rc)
				return rc;
			off += de->d_reclen;
		}
	}
#else
	int dup_fd = dup(fd), rc = 0;
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *de;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	while (rc == 0 && (errno = 0, de = readdir(d)))
		rc = fn(payload, de->d_name, de->d_type);
	if (rc == 0 && errno) {
		int e = errno;
		closedir(d);
		errno = e;
		return -1;
	}
	closedir(d);
	return rc;
#endif
}

int ss_platform_dl_load(const char *soname, const char *const *names, size_t n, void **fns,
                        char *why, size_t whylen)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(why, whylen, "cannot load %s: %s", soname, dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!(fns[i] = dlsym(lib, names[i]))) {
			snprintf(why, whylen, "cannot load %s: it has no %s", soname, names[i]);
			dlclose(lib);
			return -1;
		}
	return 0; /* loaded for the process, as a linked library is */
}
