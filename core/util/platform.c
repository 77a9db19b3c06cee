/* platform.c: the calls that differ between systems, and their fallbacks (see
 * core/util/platform.h). */
#include "core/util/platform.h"

#include <string.h>
#include <sys/mman.h>

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
