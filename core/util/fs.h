/*
 * fs.h: the few file operations every module shares.
 *
 * Writes are atomic: the data goes to a temporary file beside the target, is fsynced, then
 * renamed over it, so a crash leaves either the old file or the new one, never a mix.
 */
#ifndef SS_FS_H
#define SS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* Appends the whole file at path to out; SS_ETOOBIG past max bytes (0: no cap). */
int ss_fs_read_file(ss_buf *out, const char *path, size_t max, ss_error *err);

/* Replaces path with data, created with mode (before umask for new files: mode exactly). */
int ss_fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, ss_error *err);

/* Writes all len bytes to fd, retrying short writes and EINTR; -1 with errno set on failure. */
int ss_fs_write_all(int fd, const void *data, size_t len);

/* fsyncs the directory dir (what was created or renamed in it is durable); -1 with errno set. */
int ss_fs_sync_dir(const char *dir);

/* Creates path and its missing parents with mode; an existing directory is fine. */
int ss_fs_mkdir_p(const char *path, mode_t mode, ss_error *err);

/* Removes path and everything below it, never following symlinks; a missing path is fine. */
int ss_fs_remove_tree(const char *path, ss_error *err);

/* Whether path is a directory, not a link to one (lstat). */
bool ss_fs_is_dir(const char *path);

/* Appends dir "/" name to out, with no doubled slash. */
int ss_fs_join(ss_buf *out, const char *dir, const char *name);

#endif
