/*
 * audit_dir.c: the audit of a skill directory on disk (ss_audit_dir, core/skill/audit.h): its
 * files read and handed to ss_audit_file one by one, symbolic links reported, never followed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/skill/audit_priv.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_symlink(ss_audit_report *r, const char *skill, const char *rel, const char *path)
{
	char target[4096];
	ssize_t n = readlink(path, target, sizeof(target));
	const char *broken;
	size_t count;
	const ss_audit__rule *rules = ss_audit__rules(&count, &broken);

	for (size_t i = 0; rules && i < count; i++)
		if (rules[i].kind == SS_AUDIT_KIND_SYMLINK)
			ss_audit__add(r, &rules[i], skill, rel, 0, target, n > 0 ? (size_t)n : 0);
}

/* Audits dir/rel (rel "" for the skill's top) and everything below it. */
static int walk(ss_audit_report *r, const char *skill, const char *top, const char *rel,
                ss_error *err)
{
	ss_buf dir = SS_BUF_INIT, path = SS_BUF_INIT, sub = SS_BUF_INIT, bytes = SS_BUF_INIT;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d;
	int ret = -1;

	if (*rel)
		ss_fs_join(&dir, top, rel);
	else
		ss_buf_puts(&dir, top);
	if (!(d = opendir(dir.ptr))) {
		ss_error_set(err, SS_ERROR, "cannot read '%s': %s", dir.ptr, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".git"))
			continue;
		ss_xgrow((void **)&names, sizeof(*names), n + 1, &alloc);
		names[n++] = ss_xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		ss_buf_clear(&path);
		ss_buf_clear(&sub);
		ss_fs_join(&path, dir.ptr, names[i]);
		if (*rel)
			ss_fs_join(&sub, rel, names[i]);
		else
			ss_buf_puts(&sub, names[i]);
		if (lstat(path.ptr, &st) < 0) {
			ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path.ptr,
			             strerror(errno));
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			add_symlink(r, skill, sub.ptr, path.ptr);
		} else if (S_ISDIR(st.st_mode)) {
			if (walk(r, skill, top, sub.ptr, err) < 0)
				goto out;
		} else if (S_ISREG(st.st_mode)) {
			ss_buf_clear(&bytes);
			if (ss_fs_read_file(&bytes, path.ptr, SS_AUDIT_FILE_MAX, err) < 0) {
				if (err->code == SS_ETOOBIG)
					ss_error_set(err, SS_ETOOBIG,
					             "'%s/%s' is over %u MB: not audited", skill,
					             sub.ptr, SS_AUDIT_FILE_MAX >> 20);
				goto out;
			}
			ss_audit_file(r, skill, sub.ptr, bytes.ptr, bytes.len,
			              (st.st_mode & S_IXUSR) != 0);
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ss_buf_release(&dir);
	ss_buf_release(&path);
	ss_buf_release(&sub);
	ss_buf_release(&bytes);
	return ret;
}

int ss_audit_dir(ss_audit_report *r, const char *skill, const char *dir, ss_error *err)
{
	struct stat st;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return ss_error_set(err, SS_ENOTFOUND, "'%s' is not a skill directory", dir);
	return walk(r, skill, dir, "", err);
}
