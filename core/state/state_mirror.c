/*
 * state_mirror.c: the member list's plain-text mirror, and the rebuild of a damaged state
 * from it.
 *
 * The members, me, authority, transport and space live only in the state (the records come back
 * from the space, the tracking commit from git), so every change of them rewrites
 * <gitdir>/skillsync/members atomically, one line each:
 *
 *     authority <TAB> did
 *     me <TAB> did                       (absent: read-only)
 *     transport <TAB> public             (or space)
 *     space <TAB> at://...               (the permissioned space's URI)
 *     member <TAB> role <TAB> did <TAB> handle or "-" <TAB> pds or "-"
 *     hold <TAB> name, did, cid, view tree, kept tree, rejected, updatedAt, reason, seen
 *     pin <TAB> name                     (core/state/state_hold.c: the review gate)
 *
 * It is read only to rebuild a damaged state (ss_state_open_existing).
 */
#include "core/state/state_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/state/state_member.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

#define MIRROR_MAX (4u << 20)

static void mirror_path(const char *state_path, ss_buf *out)
{
	const char *slash = strrchr(state_path, '/');

	ss_buf_put(out, state_path, slash ? (size_t)(slash - state_path) + 1 : 0);
	ss_buf_puts(out, "members");
}

/* A field as written: "-" for none, or for text a line could not hold. */
static const char *field(const char *s)
{
	return s && *s && !strpbrk(s, "\t\r\n") && strcmp(s, "-") ? s : "-";
}

int ss_state_mirror__write(ss_state *st, ss_error *err)
{
	static const char *const keys[] = {"authority", "me", "transport", "space"};
	ss_state_member *list = NULL;
	ss_buf text = SS_BUF_INIT, path = SS_BUF_INIT;
	size_t n = 0;
	int ret = -1;

	ss_buf_puts(&text,
	            "# the members of this clone, read only to rebuild a damaged state.db\n");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *value = NULL;
		int rc = ss_state_config_get(st, keys[i], &value, err);

		if (rc < 0 && err->code != SS_ENOTFOUND)
			goto out;
		if (rc == 0 && strcmp(field(value), "-"))
			ss_buf_printf(&text, "%s\t%s\n", keys[i], value);
		free(value);
	}
	ss_error_clear(err);
	if (ss_state_members_list(st, &list, &n, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (strcmp(field(list[i].did), "-"))
			ss_buf_printf(&text, "member\t%d\t%s\t%s\t%s\n", (int)list[i].role,
			              list[i].did, field(list[i].handle), field(list[i].pds));
	if (ss_state_hold__mirror(st, &text, err) < 0)
		goto out;
	mirror_path(st->path, &path);
	ret = ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, err);
	if (ret == 0)
		st->mirror_dirty = false;
out:
	ss_state_members_free(list, n);
	ss_buf_release(&text);
	ss_buf_release(&path);
	return ret;
}

int ss_state_mirror__changed(ss_state *st, ss_error *err)
{
	st->mirror_dirty = true;
	return st->in_transaction ? 0 : ss_state_mirror__write(st, err);
}

int ss_state_mirror__write_missing(ss_state *st, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	struct stat sb;
	bool missing;

	mirror_path(st->path, &path);
	missing = lstat(path.ptr, &sb) < 0 && errno == ENOENT;
	ss_buf_release(&path);
	return missing && ss_state_authority(st) ? ss_state_mirror__write(st, err) : 0;
}

/* "-" -> NULL */
static const char *opt(const char *s)
{
	return strcmp(s, "-") ? s : NULL;
}

/* Fills the fresh state st from the mirror's text (modified in place). */
static int fill(ss_state *st, char *text, const char *path, ss_error *err)
{
	unsigned lineno = 0;

	for (char *line = text, *next; line && *line; line = next) {
		char *f[5] = {NULL};
		size_t nf = 0;
		bool taken;
		int rc = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || !line[0])
			continue;
		if (ss_state_hold__restore(st, line, &taken, err) < 0)
			return ss_error_prefix(err, "'%s' line %u", path, lineno);
		if (taken)
			continue;
		for (char *p = line; p && nf < 5; nf++) {
			f[nf] = p;
			if ((p = strchr(p, '\t')))
				*p++ = '\0';
		}
		if (nf == 2 && (!strcmp(f[0], "authority") || !strcmp(f[0], "me") ||
		                !strcmp(f[0], "transport") || !strcmp(f[0], "space"))) {
			rc = ss_state_config_set(st, f[0], f[1], err);
		} else if (nf == 5 && !strcmp(f[0], "member") && f[1][0] >= '0' && f[1][0] <= '2' &&
		           !f[1][1]) {
			ss_state_member m = {f[2], opt(f[3]), opt(f[4]),
			                     NULL, NULL,      (ss_state_role)(f[1][0] - '0')};

			rc = ss_state_member_put(st, &m, err);
		} else {
			return ss_error_set(err, SS_EINVALID,
			                    "'%s' line %u: not a member list line", path, lineno);
		}
		if (rc < 0)
			return rc;
	}
	if (!ss_state_authority(st))
		return ss_error_set(err, SS_EINVALID, "'%s' names no authority", path);
	return 0;
}

/* Moves from to a free name "<from>.damaged-<time>[-N]" into aside. */
static int move_aside(const char *from, ss_buf *aside, ss_error *err)
{
	ss_buf journal = SS_BUF_INIT, to = SS_BUF_INIT;
	struct stat sb;
	int ret = -1;

	ss_buf_printf(aside, "%s.damaged-%lld", from, (long long)time(NULL));
	for (unsigned i = 1; lstat(aside->ptr, &sb) == 0 && i < 1000; i++) {
		ss_buf_clear(aside);
		ss_buf_printf(aside, "%s.damaged-%lld-%u", from, (long long)time(NULL), i);
	}
	if (rename(from, aside->ptr) < 0) {
		ss_error_set(err, SS_ERROR, "cannot move '%s' aside: %s", from, strerror(errno));
		goto out;
	}
	/* A journal left beside it belongs to the damaged file, never to the fresh one. */
	ss_buf_printf(&journal, "%s-journal", from);
	ss_buf_printf(&to, "%s-journal", aside->ptr);
	if (rename(journal.ptr, to.ptr) < 0 && errno != ENOENT) {
		ss_error_set(err, SS_ERROR, "cannot move '%s' aside: %s", journal.ptr,
		             strerror(errno));
		goto out;
	}
	ret = 0;
out:
	ss_buf_release(&journal);
	ss_buf_release(&to);
	return ret;
}

/* Builds the fresh state in <db>.new from the mirror's text, and closes it. */
static int build_new(const char *db, char *text, const char *mirror, ss_error *err)
{
	ss_state *st = ss_xcalloc(1, sizeof(*st));
	ss_buf why = SS_BUF_INIT;
	int ret = -1;

	ss_buf_printf(&why, "%s.new-journal", db);
	unlink(why.ptr); /* what an earlier rebuild cut short left */
	ss_buf_clear(&why);
	ss_buf_printf(&why, "%s.new", db);
	unlink(why.ptr);
	st->path = ss_buf_detach(&why, NULL);
	if (ss_state__open_db(st, false, &why, err) < 0 || ss_state_begin(st, err) < 0)
		goto out;
	if (fill(st, text, mirror, err) < 0 ||
	    ss_state_config_set(st, "view_stale", "1", err) < 0 ||
	    ss_state_config_set(st, "rebuilt", "1", err) < 0 || ss_state_commit(st, err) < 0)
		goto out;
	ret = 0;
out:
	ss_state_free(st);
	ss_buf_release(&why);
	return ret;
}

static int rebuild(ss_state **out, const char *gitdir, const char *why, ss_error *err)
{
	ss_buf db = SS_BUF_INIT, mirror = SS_BUF_INIT, text = SS_BUF_INIT, aside = SS_BUF_INIT;
	ss_buf fresh = SS_BUF_INIT;
	int ret = -1;

	ss_fs_join(&db, gitdir, "skillsync/state.db");
	ss_buf_printf(&fresh, "%s.new", db.ptr);
	mirror_path(db.ptr, &mirror);
	if (ss_fs_read_file(&text, mirror.ptr, MIRROR_MAX, err) < 0) {
		ret = ss_error_set(err, SS_ERROR,
		                   "local state '%s' is damaged (%s) and this clone has no member "
		                   "list to rebuild it from: clone the space again with "
		                   "'skillsync clone'",
		                   db.ptr, why);
		goto out;
	}
	/* The fresh state is complete before the damaged one moves: a failure leaves it as is. */
	if (build_new(db.ptr, text.ptr, mirror.ptr, err) < 0 ||
	    move_aside(db.ptr, &aside, err) < 0) {
		unlink(fresh.ptr);
		ss_error_prefix(err, "local state '%s' is damaged (%s); rebuilding it", db.ptr,
		                why);
		goto out;
	}
	if (rename(fresh.ptr, db.ptr) < 0) {
		ss_error_set(err, SS_ERROR, "cannot rename '%s' to '%s': %s", fresh.ptr, db.ptr,
		             strerror(errno));
		goto out;
	}
	if ((ret = ss_state_open(out, gitdir, err)) == 0) {
		ss_buf_clear(&text);
		ss_buf_printf(&text,
		              "local state '%s' was damaged (%s): moved it to '%s' and rebuilt it "
		              "from the member list; the next pull lists the space again",
		              db.ptr, why, aside.ptr);
		(*out)->rebuilt = ss_buf_detach(&text, NULL);
	}
out:
	ss_buf_release(&db);
	ss_buf_release(&fresh);
	ss_buf_release(&mirror);
	ss_buf_release(&text);
	ss_buf_release(&aside);
	return ret;
}

/*
 * Two runs may find the same damage (the state opens before the clone's lock is taken): one
 * rebuilds at a time (flock on skillsync/rebuild.lock), and the one that waited opens what the
 * other built.
 */
int ss_state__rebuild(ss_state **out, const char *gitdir, const char *why, ss_error *err)
{
	ss_buf lock = SS_BUF_INIT, again = SS_BUF_INIT;
	int fd, ret;

	ss_fs_join(&lock, gitdir, "skillsync/rebuild.lock");
	fd = open(lock.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		ret =
		    ss_error_set(err, SS_ERROR, "cannot lock '%s': %s", lock.ptr, strerror(errno));
	} else {
		ret = ss_state__try_open(out, gitdir, &again, err);
		if (ret < 0 && again.len)
			ret = rebuild(out, gitdir, why, err);
	}
	if (fd >= 0)
		close(fd); /* and the lock with it */
	ss_buf_release(&lock);
	ss_buf_release(&again);
	return ret;
}
