/* link.c: link records in the state's config, and the links themselves (core/agent/link.h). */
#include "core/agent/link.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/skill/skilldir.h"
#include "core/state/state.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

#define MAX_FILE (64u << 20) /* far above any skill file: a copy is never cut short */

void ss_link_set_add(ss_link_set *l, const char *skill, const char *source, const char *path,
                     bool copy)
{
	ss_link *k;

	ss_xgrow((void **)&l->links, sizeof(*l->links), l->nlinks + 1, &l->links_alloc);
	k = &l->links[l->nlinks++];
	k->skill = ss_xstrdup(skill);
	k->source = ss_xstrdup(source);
	k->path = ss_xstrdup(path);
	k->copy = copy;
}

static void link_release(ss_link *k)
{
	free(k->skill);
	free(k->source);
	free(k->path);
}

void ss_link_set_drop(ss_link_set *l, size_t i)
{
	link_release(&l->links[i]);
	l->links[i] = l->links[--l->nlinks];
}

ss_link *ss_link_set_find(ss_link_set *l, const char *path)
{
	for (size_t i = 0; i < l->nlinks; i++)
		if (!strcmp(l->links[i].path, path))
			return &l->links[i];
	return NULL;
}

void ss_link_set_add_target(ss_link_set *l, const char *agent, const char *dir, bool global,
                            bool copy)
{
	ss_link_target *t = NULL;

	for (size_t i = 0; i < l->ntargets; i++)
		if (!strcmp(l->targets[i].dir, dir))
			t = &l->targets[i];
	if (!t) {
		ss_xgrow((void **)&l->targets, sizeof(*l->targets), l->ntargets + 1,
		         &l->targets_alloc);
		t = &l->targets[l->ntargets++];
		t->dir = ss_xstrdup(dir);
	} else {
		free(t->agent);
	}
	t->agent = ss_xstrdup(agent);
	t->global = global;
	t->copy = copy;
}

void ss_link_set_release(ss_link_set *l)
{
	for (size_t i = 0; i < l->nlinks; i++)
		link_release(&l->links[i]);
	for (size_t i = 0; i < l->ntargets; i++) {
		free(l->targets[i].agent);
		free(l->targets[i].dir);
	}
	free(l->links);
	free(l->targets);
	memset(l, 0, sizeof(*l));
}

/* Splits line (modified) at tabs into at most max fields; returns how many. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

int ss_link_set_load(ss_state *st, ss_link_set *out, ss_error *err)
{
	char *value = NULL, *line, *next;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ss_state_config_get(st, "link_auto", &value, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		return rc;
	out->auto_link = rc == 0 && !strcmp(value, "1");
	free(value);
	value = NULL;
	rc = ss_state_config_get(st, "links", &value, err);
	if (rc < 0)
		return err->code == SS_ENOTFOUND ? 0 : rc;
	for (line = value; line && *line; line = next) {
		char *f[5];
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = split(line, f, 5);
		if (n == 5 && !strcmp(f[0], "T"))
			ss_link_set_add_target(out, f[1], f[4], !strcmp(f[2], "g"),
			                       !strcmp(f[3], "c"));
		else if (n == 5 && !strcmp(f[0], "L"))
			ss_link_set_add(out, f[2], f[3], f[4], !strcmp(f[1], "c"));
		/* any other line: written by a later version; dropped at the next save */
	}
	free(value);
	return 0;
}

static int check_field(const char *s, ss_error *err)
{
	if (strpbrk(s, "\t\n"))
		return ss_error_set(err, SS_EINVALID,
		                    "cannot remember the link '%s': a tab or newline in a path", s);
	return 0;
}

int ss_link_set_save(ss_state *st, const ss_link_set *l, ss_error *err)
{
	ss_buf b = SS_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < l->ntargets && rc == 0; i++) {
		const ss_link_target *t = &l->targets[i];

		if ((rc = check_field(t->agent, err)) == 0 && (rc = check_field(t->dir, err)) == 0)
			ss_buf_printf(&b, "T\t%s\t%s\t%s\t%s\n", t->agent, t->global ? "g" : "p",
			              t->copy ? "c" : "s", t->dir);
	}
	for (size_t i = 0; i < l->nlinks && rc == 0; i++) {
		const ss_link *k = &l->links[i];

		if ((rc = check_field(k->skill, err)) == 0 &&
		    (rc = check_field(k->source, err)) == 0 &&
		    (rc = check_field(k->path, err)) == 0)
			ss_buf_printf(&b, "L\t%s\t%s\t%s\t%s\n", k->copy ? "c" : "s", k->skill,
			              k->source, k->path);
	}
	if (rc == 0)
		rc = ss_state_config_set(st, "links", b.len ? b.ptr : NULL, err);
	if (rc == 0)
		rc = ss_state_config_set(st, "link_auto", l->auto_link ? "1" : NULL, err);
	ss_buf_release(&b);
	return rc;
}

int ss_link_folder(const char *base, const char *rel, bool create, ss_error *err)
{
	ss_buf path = SS_BUF_INIT, name = SS_BUF_INIT;
	int fd, next, ret = 0;

	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT && !create
		           ? 0
		           : ss_error_set(err, SS_ERROR, "cannot open '%s': %s", base,
		                          strerror(errno));
	ss_buf_puts(&path, base);
	for (const char *p = rel; *p; p += strspn(p, "/")) {
		size_t n = strcspn(p, "/");
		struct stat sb;
		int e;

		ss_buf_clear(&name);
		ss_buf_put(&name, p, n);
		p += n;
		ss_fs_join(&path, "/", name.ptr);
		next = openat(fd, name.ptr, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && !create)
			break;
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, name.ptr, 0755) < 0 && errno != EEXIST) {
				ret = ss_error_set(err, SS_ERROR, "cannot create '%s': %s",
				                   path.ptr, strerror(errno));
				break;
			}
			next =
			    openat(fd, name.ptr, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			e = errno;
			if (fstatat(fd, name.ptr, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(sb.st_mode))
				ret = ss_error_set(err, SS_EINVALID, "'%s' is a symbolic link",
				                   path.ptr);
			else
				ret = ss_error_set(err, SS_ERROR, "cannot open '%s': %s", path.ptr,
				                   strerror(e));
			break;
		}
		close(fd);
		fd = next;
	}
	close(fd);
	ss_buf_release(&path);
	ss_buf_release(&name);
	return ret;
}

/* The marker of the copy at path names source. */
static bool marker_names(const char *path, const char *source)
{
	ss_buf p = SS_BUF_INIT, content = SS_BUF_INIT;
	ss_error ignored;
	bool ok;

	ss_fs_join(&p, path, SS_LINK_MARKER);
	ok = ss_fs_read_file(&content, p.ptr, 8192, &ignored) == 0 &&
	     content.len == strlen(source) + 1 && !strncmp(content.ptr, source, content.len - 1);
	ss_buf_release(&p);
	ss_buf_release(&content);
	return ok;
}

ss_link_status ss_link_check(const ss_link *l)
{
	struct stat sb;
	char target[4096];
	ssize_t n;

	if (lstat(l->path, &sb) < 0)
		return errno == ENOENT ? SS_LINK_MISSING : SS_LINK_ELSEWHERE;
	if (!l->copy) {
		if (!S_ISLNK(sb.st_mode))
			return SS_LINK_ELSEWHERE;
		n = readlink(l->path, target, sizeof(target) - 1);
		if (n < 0)
			return SS_LINK_ELSEWHERE;
		target[n] = '\0';
		return strcmp(target, l->source) ? SS_LINK_ELSEWHERE : SS_LINK_OK;
	}
	return S_ISDIR(sb.st_mode) && marker_names(l->path, l->source) ? SS_LINK_OK
	                                                               : SS_LINK_ELSEWHERE;
}

/* Copies the regular files and directories under src into the new directory dst (symbolic
 * links and special files are left out: a skill holds neither). */
static int copy_tree(const char *src, const char *dst, ss_error *err)
{
	DIR *d;
	struct dirent *e;
	ss_buf s = SS_BUF_INIT, t = SS_BUF_INIT, data = SS_BUF_INIT;
	int ret = -1;

	if (mkdir(dst, 0755) < 0)
		return ss_error_set(err, errno == EEXIST ? SS_EEXISTS : SS_ERROR,
		                    "cannot create '%s': %s", dst, strerror(errno));
	d = opendir(src);
	if (!d)
		return ss_error_set(err, SS_ERROR, "cannot read '%s': %s", src, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		struct stat sb;
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ss_buf_clear(&s);
		ss_buf_clear(&t);
		ss_fs_join(&s, src, e->d_name);
		ss_fs_join(&t, dst, e->d_name);
		if (lstat(s.ptr, &sb) < 0) {
			ss_error_set(err, SS_ERROR, "cannot read '%s': %s", s.ptr, strerror(errno));
			goto out;
		}
		if (S_ISDIR(sb.st_mode)) {
			if (copy_tree(s.ptr, t.ptr, err) < 0)
				goto out;
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		ss_buf_clear(&data);
		if (ss_fs_read_file(&data, s.ptr, MAX_FILE, err) < 0)
			goto out;
		fd = open(t.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		          sb.st_mode & 0111 ? 0755 : 0644);
		if (fd < 0 || ss_fs_write_all(fd, data.ptr, data.len) < 0) {
			ss_error_set(err, SS_ERROR, "cannot write '%s': %s", t.ptr,
			             strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
	}
	ret = 0;
out:
	closedir(d);
	ss_buf_release(&s);
	ss_buf_release(&t);
	ss_buf_release(&data);
	return ret;
}

/* A full copy of source with its marker at the new path tmp. */
static int make_copy(const char *source, const char *tmp, ss_error *err)
{
	ss_buf m = SS_BUF_INIT, text = SS_BUF_INIT;
	int rc;

	rc = copy_tree(source, tmp, err);
	if (rc == 0) {
		ss_fs_join(&m, tmp, SS_LINK_MARKER);
		ss_buf_printf(&text, "%s\n", source);
		rc = ss_fs_write_atomic(m.ptr, text.ptr, text.len, 0644, err);
	}
	if (rc < 0 && err->code != SS_EEXISTS) {
		ss_error keep = *err, ignored;

		ss_fs_remove_tree(tmp, &ignored);
		*err = keep;
	}
	ss_buf_release(&m);
	ss_buf_release(&text);
	return rc;
}

/* path with a suffix beside it: "<dir>/.<name>.skillsync-<what>". */
static void beside(ss_buf *out, const char *path, const char *what)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;

	ss_buf_clear(out);
	ss_buf_put(out, path, dir);
	ss_buf_printf(out, ".%s.skillsync-%s", path + dir, what);
}

int ss_link_make(const char *source, const char *path, bool copy, ss_error *err)
{
	struct stat sb;
	ss_buf tmp = SS_BUF_INIT;
	ss_error ignored;
	int rc = 0;

	if (lstat(path, &sb) == 0 || errno != ENOENT)
		return ss_error_set(err, SS_EEXISTS, "'%s' exists", path);
	if (!copy) {
		if (symlink(source, path) < 0)
			return ss_error_set(err, errno == EEXIST ? SS_EEXISTS : SS_ERROR,
			                    "cannot link '%s': %s", path, strerror(errno));
		return 0;
	}
	beside(&tmp, path, "new");
	ss_fs_remove_tree(tmp.ptr, &ignored); /* left by a killed run: ours by its name */
	rc = make_copy(source, tmp.ptr, err);
	/* rename() replaces an empty directory made meanwhile: refuse that with a last look. */
	if (rc == 0 && (lstat(path, &sb) == 0 || errno != ENOENT)) {
		ss_fs_remove_tree(tmp.ptr, &ignored);
		rc = ss_error_set(err, SS_EEXISTS, "'%s' exists", path);
	}
	if (rc == 0 && rename(tmp.ptr, path) < 0) {
		rc = ss_error_set(err, SS_ERROR, "cannot create '%s': %s", path, strerror(errno));
		ss_fs_remove_tree(tmp.ptr, &ignored);
	}
	ss_buf_release(&tmp);
	return rc;
}

int ss_link_remove(const ss_link *l, ss_error *err)
{
	if (!l->copy) {
		if (unlink(l->path) < 0 && errno != ENOENT)
			return ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", l->path,
			                    strerror(errno));
		return 0;
	}
	return ss_fs_remove_tree(l->path, err);
}

int ss_link_refresh(const ss_link *l, ss_error *err)
{
	ss_buf tmp = SS_BUF_INIT, old = SS_BUF_INIT;
	ss_error ignored;
	int rc;

	beside(&tmp, l->path, "new");
	beside(&old, l->path, "old");
	ss_fs_remove_tree(tmp.ptr, &ignored);
	ss_fs_remove_tree(old.ptr, &ignored);
	rc = make_copy(l->source, tmp.ptr, err);
	if (rc == 0 && rename(l->path, old.ptr) < 0)
		rc = ss_error_set(err, SS_ERROR, "cannot replace '%s': %s", l->path,
		                  strerror(errno));
	if (rc == 0 && rename(tmp.ptr, l->path) < 0) {
		rc = ss_error_set(err, SS_ERROR, "cannot replace '%s': %s", l->path,
		                  strerror(errno));
		if (rename(old.ptr, l->path) < 0) { /* the old copy stays beside, named */
			ss_error_prefix(err, "the old copy is in '%s'", old.ptr);
			ss_buf_clear(&old);
		}
	}
	ss_fs_remove_tree(tmp.ptr, &ignored);
	if (old.len)
		ss_fs_remove_tree(old.ptr, &ignored);
	ss_buf_release(&tmp);
	ss_buf_release(&old);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ss_link_skills(const char *workdir, char ***names, size_t *n, ss_error *err)
{
	DIR *d = opendir(workdir);
	struct dirent *e;
	char **list = NULL;
	size_t count = 0, alloc = 0;
	ss_buf p = SS_BUF_INIT;

	if (!d)
		return ss_error_set(err, SS_ERROR, "cannot read '%s': %s", workdir,
		                    strerror(errno));
	while ((e = readdir(d)) != NULL) {
		struct stat sb;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    ss_skilldir_outside(e->d_name, true))
			continue;
		ss_buf_clear(&p);
		ss_fs_join(&p, workdir, e->d_name);
		if (!ss_fs_is_dir(p.ptr))
			continue;
		ss_buf_puts(&p, "/SKILL.md");
		if (lstat(p.ptr, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue;
		ss_xgrow((void **)&list, sizeof(*list), count + 1, &alloc);
		list[count++] = ss_xstrdup(e->d_name);
	}
	closedir(d);
	ss_buf_release(&p);
	if (count)
		qsort(list, count, sizeof(*list), cmp_names);
	*names = list;
	*n = count;
	return 0;
}

void ss_link_skills_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
