/* skilldir_write.c: ss_skilldir_write (see core/skill/skilldir.h). */
#include "core/skill/skilldir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

typedef struct write_ctx {
	int root; /* the skill directory, opened O_DIRECTORY|O_NOFOLLOW */
	const char *dir;
	ss_error *err;
} write_ctx;

static int fail(write_ctx *w, const char *path, int code)
{
	return ss_error_set(w->err, code, "cannot write '%s/%s': %s", w->dir, path,
	                    strerror(errno));
}

/* Opens (creating) the directory holding path's last component; returns an fd or -1. */
static int open_parent(write_ctx *w, const char *path, const char **leaf)
{
	char *copy = ss_xstrdup(path), *p = copy, *slash;
	int fd = dup(w->root);

	while (fd >= 0 && (slash = strchr(p, '/'))) {
		int next;
		*slash = '\0';
		if (mkdirat(fd, p, 0755) < 0 && errno != EEXIST) {
			close(fd);
			fd = -1;
			break;
		}
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		p = slash + 1;
	}
	*leaf = path + (p - copy);
	free(copy);
	return fd;
}

static int write_one(const char *path, const char *bytes, size_t len, bool executable, void *ud)
{
	write_ctx *w = ud;
	mode_t mode = executable ? 0755 : 0644;
	const char *leaf;
	int dfd = open_parent(w, path, &leaf), fd = -1, ret = -1;

	if (dfd < 0)
		return fail(w, path, SS_ERROR);
	fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = fail(w, path, errno == EEXIST ? SS_EEXISTS : SS_ERROR);
		goto out;
	}
	if (fchmod(fd, mode) < 0 || ss_fs_write_all(fd, bytes, len) < 0) {
		ret = fail(w, path, errno == ENOSPC ? SS_ETOOBIG : SS_ERROR);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0 && close(fd) < 0 && ret == 0)
		ret = fail(w, path, SS_ERROR);
	close(dfd);
	return ret;
}

int ss_skilldir_write(const ss_skill *skill, const char *dir, ss_error *err)
{
	ss_error ignored;
	write_ctx w = {-1, dir, err};
	struct stat st;
	bool created = lstat(dir, &st) < 0;
	int ret;

	for (size_t i = 0; i < skill->nfiles; i++) {
		const char *p = skill->files[i].path;
		const char *why = ss_validate_path(p, strlen(p));
		if (why)
			return ss_error_set(err, SS_EINVALID, "cannot write skill '%s': %s",
			                    skill->name, why);
	}
	if ((ret = ss_fs_mkdir_p(dir, 0755, err)) < 0)
		return ret;
	w.root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w.root < 0)
		ret = ss_error_set(err, SS_ERROR, "cannot open '%s': %s", dir, strerror(errno));
	else
		ret = ss_skill_to_files(skill, write_one, &w);
	if (w.root >= 0)
		close(w.root);
	if (ret < 0 && created)
		ss_fs_remove_tree(dir, &ignored); /* the write's error is the one to report */
	return ret;
}
