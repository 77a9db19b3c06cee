/*
 * platform.h: the few calls skillsync makes that are not plain POSIX.1-2008, each with its
 * portable fallback beside it (core/util/platform.c), so that a build for another system (macOS,
 * the BSDs: docs/INSTALL.md) is a matter of this one file. Nothing else calls prctl,
 * explicit_bzero, madvise or malloc_trim, or reads a stat's nanosecond times by their Linux names.
 */
#ifndef SS_PLATFORM_H
#define SS_PLATFORM_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

/* Zeroes n bytes at p in a way the compiler may not drop as a dead store. */
void ss_platform_wipe(void *p, size_t n);

/* No debugger may attach to this process from now on, where the system can refuse it (Linux:
 * not dumpable, which also stops core dumps; macOS: PT_DENY_ATTACH); a no-op elsewhere. */
void ss_platform_no_attach(void);

/* Tells the kernel the pages of [addr, addr + len) of a read-only file mapping are not needed
 * now: they are read from the file again when touched. Best effort. */
void ss_platform_release_pages(void *addr, size_t len);

/* Gives the memory the allocator holds free back to the system, where the allocator can
 * (glibc's malloc_trim: what a program frees stays resident in its arenas, the second
 * threads' too, for later allocations); a no-op elsewhere. For the moment a large step that
 * allocates little follows one that freed a lot. */
void ss_platform_trim_heap(void);

/* A file's modification and status-change times, to the nanosecond where the system keeps it. */
struct timespec ss_platform_mtime(const struct stat *st);
struct timespec ss_platform_ctime(const struct stat *st);

/* Calls fn with each name of the directory open at fd (".", ".." included) and its d_type
 * (DT_UNKNOWN where the file system does not say), until fn returns non-zero (returned). fd is
 * read, not closed. -1 with errno when the directory cannot be read. Linux: getdents64 on fd
 * itself; elsewhere readdir on a duplicate of fd. */
int ss_platform_dir_each(int fd, int (*fn)(void *payload, const char *name, unsigned char type),
                         void *payload);

/* Loads the shared library soname for the rest of the process and the addresses of its n
 * functions names into fns (for a library loaded when first needed rather than linked): 0, or
 * -1 with a line saying what is missing in why. */
int ss_platform_dl_load(const char *soname, const char *const *names, size_t n, void **fns,
                        char *why, size_t whylen);

#endif
