#include "core/util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/mem.h"
#include "core/util/secret.h"

int ss_fs_read_file(ss_buf *out, const char *path, size_t max, ss_error *err)
{
	char chunk[65536];
	size_t start = out->len;
	int fd;
	int ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return ss_error_set(err, errno == ENOENT ? SS_ENOTFOUND : SS_ERROR,
		                    "cannot read '%s': %s", path, strerror(errno));
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path,
			                   strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (max && out->len - start + (size_t)n > max) {
			ret = ss_error_set(err, SS_ETOOBIG,
			                   "cannot read '%s': larger than %zu bytes", path, max);
			goto out;
		}
		if (ss_buf_put(out, chunk, (size_t)n) < 0) {
			ret = ss_error_set(err, SS_ETOOBIG, "cannot read '%s': too large", path);
			goto out;
		}
	}
	ret = 0;
out:
	if (ret < 0)
		ss_buf_truncate(out, start);
	if (out->secret)
		ss_secret_wipe(chunk, sizeof(chunk));
	close(fd);
	return ret;
}

int ss_fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ss_fs_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = -1;

	if (fd >= 0) {
		ret = fsync(fd);
		close(fd);
	}
	return ret;
}

/* fsyncs the directory that holds path. */
static int sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir =
	    slash ? ss_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : ss_xstrdup(".");
	int ret = ss_fs_sync_dir(dir);

	free(dir);
	return ret;
}

int ss_fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, ss_error *err)
{
	ss_buf tmp = SS_BUF_INIT;
	int fd = -1;
	int ret = -1;

	ss_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fchmod(fd, mode) < 0 || ss_fs_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		ret = ss_error_set(err, errno == ENOSPC ? SS_ETOOBIG : SS_ERROR,
		                   "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.ptr, path) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	/* The rename itself lasts only once the directory holding it is on disk. */
	if (sync_parent(path) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		unlink(tmp.ptr);
	ss_buf_release(&tmp);
	return ret;
}

int ss_fs_mkdir_p(const char *path, mode_t mode, ss_error *err)
{
	char *copy = ss_xstrdup(path);
	char *p = copy;
	int ret = 0;

	while (*p == '/')
		p++;
	for (;; p++) {
		char saved = *p;
		if (saved != '/' && saved != '\0')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			ret = ss_error_set(err, SS_ERROR, "cannot create directory '%s': %s", copy,
			                   strerror(errno));
			break;
		}
		*p = saved;
		if (saved == '\0')
			break;
	}
	if (ret == 0 && !ss_fs_is_dir(path))
		ret = ss_error_set(err, SS_ERROR, "cannot create directory '%s': not a directory",
		                   path);
	free(copy);
	return ret;
}

/* Removes everything inside the directory dfd (closed here), never following a symlink: each
 * entry is opened relative to its parent with O_NOFOLLOW, so a symlink swapped in meanwhile is
 * removed as a link, never entered. */
static int remove_inside(int dfd, const char *path, ss_error *err)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *de;
	int ret = 0;

	if (!dir) {
		close(dfd);
		return ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", path, strerror(errno));
	}
	while (ret == 0 && (de = readdir(dir)) != NULL) {
		ss_buf child = SS_BUF_INIT;
		int cfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ss_fs_join(&child, path, de->d_name);
		if (unlinkat(dirfd(dir), de->d_name, 0) == 0)
			goto next;
		if (errno != EISDIR && errno != EPERM) {
			ret = ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", child.ptr,
			                   strerror(errno));
			goto next;
		}
		cfd =
		    openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			ret = ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", child.ptr,
			                   strerror(errno));
			goto next;
		}
		ret = remove_inside(cfd, child.ptr, err);
		if (ret == 0 && unlinkat(dirfd(dir), de->d_name, AT_REMOVEDIR) < 0)
			ret = ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", child.ptr,
			                   strerror(errno));
	next:
		ss_buf_release(&child);
	}
	closedir(dir);
	return ret;
}

int ss_fs_remove_tree(const char *path, ss_error *err)
{
	int fd;

	if (unlink(path) == 0)
		return 0;
	if (errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", path, strerror(errno));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", path, strerror(errno));
	if (remove_inside(fd, path, err) < 0)
		return -1;
	if (rmdir(path) < 0)
		return ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

bool ss_fs_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ss_fs_join(ss_buf *out, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	int rc;

	if ((rc = ss_buf_put(out, dir, n)) < 0)
		return rc;
	if (n && dir[n - 1] != '/' && (rc = ss_buf_putc(out, '/')) < 0)
		return rc;
	while (*name == '/')
		name++;
	return ss_buf_puts(out, name);
}
