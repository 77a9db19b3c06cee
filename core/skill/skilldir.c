#include "core/skill/skilldir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

typedef struct walk {
	ss_skill_reader *reader;
	ss_report *report;
	const char *name; /* the skill's directory name, for labels */
	size_t entries;
	ss_buf label;
} walk;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in dir (without . and ..); NULL with err set if it cannot be read. */
static char **list_dir(const char *dir, size_t *n, ss_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t alloc = 0;

	*n = 0;
	if (!d) {
		ss_error_set(err, errno == ENOENT ? SS_ENOTFOUND : SS_ERROR, "cannot read '%s': %s",
		             dir, strerror(errno));
		return NULL;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ss_xgrow((void **)&names, sizeof(*names), *n + 1, &alloc);
		names[(*n)++] = ss_xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	else
		names = ss_xcalloc(1, sizeof(*names));
	return names;
}

static void take_file(walk *w, const char *full, const char *rel, const struct stat *st)
{
	bool md = !strcmp(rel, SS_SKILL_MD);
	size_t cap = md ? SS_MAX_SKILLMD : SS_MAX_BLOB;
	ss_buf data = SS_BUF_INIT;
	ss_error err;

	ss_skill_label(&w->label, w->name, rel);
	if (!md && ss_validate_file_size(w->report, w->label.ptr, (size_t)st->st_size)) {
		ss_skill_reader_skip(w->reader, rel);
	} else if ((size_t)st->st_size > cap) {
		ss_report_error(w->report, w->label.ptr, NULL, "larger than %zu bytes (%lld)", cap,
		                (long long)st->st_size);
		ss_skill_reader_skip(w->reader, rel);
	} else if (ss_fs_read_file(&data, full, cap, &err) < 0) {
		ss_report_error(w->report, w->label.ptr, NULL, "%s", err.message);
		ss_skill_reader_skip(w->reader, rel);
	} else {
		ss_skill_reader_add(w->reader, rel, data.ptr, data.len, st->st_mode & S_IXUSR);
	}
	ss_buf_release(&data);
}

static int walk_dir(walk *w, const char *dir, const char *rel, int depth, ss_error *err)
{
	ss_buf full = SS_BUF_INIT, sub = SS_BUF_INIT;
	size_t n = 0;
	char **names = list_dir(dir, &n, err);
	int ret = 0;

	if (!names)
		return err->code;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		ss_buf_clear(&full);
		ss_fs_join(&full, dir, names[i]);
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		ss_skill_label(&w->label, w->name, sub.ptr);
		if (++w->entries > SS_SKILLDIR_MAX_ENTRIES) {
			ss_report_error(w->report, w->name, NULL,
			                "more than %d entries; stopped reading",
			                SS_SKILLDIR_MAX_ENTRIES);
			break;
		}
		if (lstat(full.ptr, &st) < 0) {
			ss_report_error(w->report, w->label.ptr, NULL, "cannot read: %s",
			                strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			ss_report_error(
			    w->report, w->label.ptr, NULL,
			    "symbolic link (a skill holds only regular files: put a copy of "
			    "the file it points to in its place)");
			ss_skill_reader_skip(w->reader, sub.ptr);
		} else if (S_ISDIR(st.st_mode) && depth + 1 < SS_MAX_DEPTH) {
			/* its files have depth + 2 components: at most SS_MAX_DEPTH */
			if ((ret = walk_dir(w, full.ptr, sub.ptr, depth + 1, err)) < 0)
				break;
		} else if (S_ISREG(st.st_mode)) {
			take_file(w, full.ptr, sub.ptr, &st);
		} else {
			ss_report_error(w->report, w->label.ptr, NULL,
			                S_ISDIR(st.st_mode) ? "directories nested too deeply"
			                                    : "not a regular file");
			ss_skill_reader_skip(w->reader, sub.ptr);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ss_buf_release(&full);
	ss_buf_release(&sub);
	return ret;
}

bool ss_skilldir_outside(const char *name, bool is_dir)
{
	return !is_dir || name[0] == '.';
}

int ss_skilldir_read(const char *dir, ss_skill **out, ss_report *report, ss_error *err)
{
	char *real = realpath(dir, NULL);
	const char *slash;
	walk w;
	int ret;

	if (!real)
		return ss_error_set(err, errno == ENOENT ? SS_ENOTFOUND : SS_ERROR,
		                    "cannot read '%s': %s", dir, strerror(errno));
	slash = strrchr(real, '/');
	memset(&w, 0, sizeof(w));
	w.report = report;
	w.name = slash && slash[1] ? slash + 1 : real;
	w.reader = ss_skill_reader_new(w.name, report);
	ss_buf_init(&w.label);
	ret = walk_dir(&w, dir, "", 0, err);
	if (ret < 0) {
		ss_skill_reader_free(w.reader);
	} else {
		ret = ss_skill_reader_finish(w.reader, out);
		if (ret < 0)
			ss_error_set(err, SS_EINVALID, "invalid skill '%s'", w.name);
	}
	ss_buf_release(&w.label);
	free(real);
	return ret;
}
