#include "sync/identity/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/atproto/syntax.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "sync/identity/identity.h"
#include "sync/net/xrpc_server.h"

#define SESSION_SUFFIX ".session"
#define MAX_SESSION    (64 * 1024)

/* A stored session: what the file holds. */
typedef struct stored {
	char *did, *handle, *pds, *access, *refresh;
} stored;

static void stored_release(stored *s)
{
	free(s->did);
	free(s->handle);
	free(s->pds);
	ss_secret_free(s->access);
	ss_secret_free(s->refresh);
	memset(s, 0, sizeof(*s));
}

void ss_session_info_release(ss_session_info *info)
{
	if (!info)
		return;
	free(info->did);
	free(info->handle);
	free(info->pds);
	memset(info, 0, sizeof(*info));
}

void ss_session_list_free(ss_session_info *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		ss_session_info_release(&list[i]);
	free(list);
}

static void info_from(const stored *s, ss_session_info *info)
{
	if (!info)
		return;
	info->did = ss_xstrdup(s->did);
	info->handle = s->handle ? ss_xstrdup(s->handle) : NULL;
	info->pds = ss_xstrdup(s->pds);
}

int ss_session_config_dir(ss_buf *out, ss_error *err)
{
	const char *v;

	if ((v = getenv("SKILLSYNC_CONFIG_HOME")) && *v)
		return ss_buf_puts(out, v);
	if ((v = getenv("XDG_CONFIG_HOME")) && *v)
		return ss_fs_join(out, v, "skillsync");
	if ((v = getenv("HOME")) && *v)
		return ss_fs_join(out, v, ".config/skillsync");
	return ss_error_set(err, SS_ERROR,
	                    "cannot find a configuration directory: set SKILLSYNC_CONFIG_HOME");
}

/* <config>/sessions, created with mode 0700 when create. */
static int sessions_dir(ss_buf *out, bool create, ss_error *err)
{
	ss_buf config = SS_BUF_INIT;
	int ret;

	if ((ret = ss_session_config_dir(&config, err)) < 0)
		goto out;
	ss_fs_join(out, config.ptr, "sessions");
	if (create) {
		if ((ret = ss_fs_mkdir_p(out->ptr, 0700, err)) < 0)
			goto out;
		/* Existing directories keep their mode: make ours private either way. */
		if (chmod(config.ptr, 0700) < 0 || chmod(out->ptr, 0700) < 0) {
			ret = ss_error_set(err, SS_ERROR, "cannot make '%s' private: %s", out->ptr,
			                   strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	ss_buf_release(&config);
	return ret;
}

static int session_path(ss_buf *out, const char *did, ss_error *err)
{
	ss_buf dir = SS_BUF_INIT;
	int ret = sessions_dir(&dir, true, err);

	if (!ret)
		ret = ss_buf_printf(out, "%s/%s%s", dir.ptr, did, SESSION_SUFFIX);
	ss_buf_release(&dir);
	return ret;
}

/* Parses "key value" lines; SS_EINVALID naming path when a field is missing or bad. */
static int parse_stored(const char *path, char *text, stored *s, ss_error *err)
{
	char *line = text, *next;

	memset(s, 0, sizeof(*s));
	for (; line && *line; line = next) {
		char *sp, **field = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] == '#' || !(sp = strchr(line, ' ')))
			continue;
		*sp = '\0';
		if (!strcmp(line, "did"))
			field = &s->did;
		else if (!strcmp(line, "handle"))
			field = &s->handle;
		else if (!strcmp(line, "pds"))
			field = &s->pds;
		else if (!strcmp(line, "access"))
			field = &s->access;
		else if (!strcmp(line, "refresh"))
			field = &s->refresh;
		if (field) {
			ss_secret_free(*field);
			*field = ss_xstrdup(sp + 1);
		}
	}
	if (!s->did || !ss_syntax_is_did(s->did) || !s->pds || !s->access || !s->refresh) {
		stored_release(s);
		return ss_error_set(err, SS_EAUTH,
		                    "session file '%s' is damaged: run 'skillsync login' again",
		                    path);
	}
	return 0;
}

static int load(const char *path, stored *s, ss_error *err)
{
	ss_buf text = SS_BUF_INIT;
	int ret;

	ss_buf_secret(&text);
	ret = ss_fs_read_file(&text, path, MAX_SESSION, err);

	if (!ret)
		ret = parse_stored(path, text.ptr, s, err);
	ss_buf_release(&text);
	return ret;
}

static bool one_line_value(const char *s)
{
	return s && !strpbrk(s, "\r\n");
}

/* Writes s atomically with mode 0600. */
static int save(const stored *s, ss_error *err)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	int ret;

	if (!one_line_value(s->did) || !one_line_value(s->pds) || !one_line_value(s->access) ||
	    !one_line_value(s->refresh) || (s->handle && !one_line_value(s->handle)))
		return ss_error_set(err, SS_ERROR, "the server sent a session that cannot be kept");
	ss_buf_secret(&text);
	if ((ret = session_path(&path, s->did, err)) < 0)
		goto out;
	ss_buf_printf(&text, "# skillsync session: private, do not share\ndid %s\n", s->did);
	if (s->handle)
		ss_buf_printf(&text, "handle %s\n", s->handle);
	ss_buf_printf(&text, "pds %s\naccess %s\nrefresh %s\n", s->pds, s->access, s->refresh);
	ret = ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, err);
out:
	ss_buf_release(&text);
	ss_buf_release(&path);
	return ret;
}

/* Takes the sessions lock (blocking); *fd to pass to unlock. */
static int lock_sessions(int *fd, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	int ret = sessions_dir(&path, true, err);

	*fd = -1;
	if (ret < 0)
		goto out;
	ss_buf_puts(&path, "/.lock");
	*fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0) {
		ret =
		    ss_error_set(err, SS_ERROR, "cannot lock '%s': %s", path.ptr, strerror(errno));
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
out:
	ss_buf_release(&path);
	return ret;
}

static void unlock_sessions(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

static int by_did(const void *a, const void *b)
{
	return strcmp(((const ss_session_info *)a)->did, ((const ss_session_info *)b)->did);
}

int ss_session_list(ss_session_info **out, size_t *n, ss_error *err)
{
	ss_buf dir = SS_BUF_INIT, path = SS_BUF_INIT;
	ss_session_info *list = NULL;
	size_t count = 0, alloc = 0;
	struct dirent *de;
	DIR *d = NULL;
	int ret;

	*out = NULL;
	*n = 0;
	if ((ret = sessions_dir(&dir, false, err)) < 0)
		goto out;
	if (!(d = opendir(dir.ptr))) {
		ret = errno == ENOENT ? 0
		                      : ss_error_set(err, SS_ERROR, "cannot read '%s': %s", dir.ptr,
		                                     strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), sl = strlen(SESSION_SUFFIX);
		stored s;

		if (len <= sl || strcmp(de->d_name + len - sl, SESSION_SUFFIX))
			continue;
		ss_buf_clear(&path);
		ss_fs_join(&path, dir.ptr, de->d_name);
		if ((ret = load(path.ptr, &s, err)) < 0)
			goto out;
		ss_xgrow((void **)&list, sizeof(*list), count + 1, &alloc);
		info_from(&s, &list[count++]);
		stored_release(&s);
	}
	if (count)
		qsort(list, count, sizeof(*list), by_did);
	*out = list;
	*n = count;
	list = NULL;
	count = 0;
	ret = 0;
out:
	ss_session_list_free(list, count);
	if (d)
		closedir(d);
	ss_buf_release(&dir);
	ss_buf_release(&path);
	return ret;
}

/* Loads the stored session matching who (DID or handle; NULL: the only one). */
static int find(const char *who, stored *s, ss_buf *path, ss_error *err)
{
	ss_session_info *list = NULL;
	size_t n = 0, match = (size_t)-1;
	int ret;

	if (who && who[0] == '@')
		who++;
	if ((ret = ss_session_list(&list, &n, err)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		if (!who || !strcmp(list[i].did, who) ||
		    (list[i].handle && !strcasecmp(list[i].handle, who)))
			match = i;
	if (!n || match == (size_t)-1)
		ret =
		    who ? ss_error_set(err, SS_EAUTH,
		                       "not signed in as '%s' (run 'skillsync login %s')", who, who)
		        : ss_error_set(err, SS_EAUTH,
		                       "not signed in (run 'skillsync login <handle>')");
	else if (!who && n > 1)
		ret = ss_error_set(
		    err, SS_EAUTH,
		    "signed in as %zu accounts: say which one (see 'skillsync whoami')", n);
	else if ((ret = session_path(path, list[match].did, err)) == 0)
		ret = load(path->ptr, s, err);
	ss_session_list_free(list, n);
	return ret;
}

/* The refresh hook's state: which session the client belongs to. */
typedef struct hook {
	char *did;
	char *label; /* handle or DID, for messages */
} hook;

static void hook_free(void *p)
{
	hook *h = p;

	if (!h)
		return;
	free(h->did);
	free(h->label);
	free(h);
}

/*
 * Gets a fresh access token under the lock: another process may have refreshed already (the
 * stored token then differs from ours and is still valid); else refreshSession, and the
 * rotated tokens are saved before they are used.
 */
static int refresh(ss_xrpc *x, void *payload, ss_error *err)
{
	ss_error ignored;
	hook *h = payload;
	ss_buf path = SS_BUF_INIT;
	ss_xrpc_session fresh = {0};
	stored s = {0};
	long long exp;
	int fd = -1, ret;

	if ((ret = lock_sessions(&fd, err)) < 0)
		goto out;
	if ((ret = session_path(&path, h->did, err)) < 0 || (ret = load(path.ptr, &s, err)) < 0)
		goto out;
	if (ss_xrpc_token(x) && strcmp(s.access, ss_xrpc_token(x)) &&
	    ss_xrpc_jwt_exp(s.access, &exp, &ignored) == 0 && exp - 60 > (long long)time(NULL)) {
		ss_xrpc_set_token(x, s.access);
		goto out;
	}
	if ((ret = ss_xrpc_refresh_session(x, s.refresh, &fresh, err)) < 0) {
		if (err->code == SS_EAUTH)
			ss_error_set(err, SS_EAUTH,
			             "the session of '%s' has ended (run 'skillsync login %s')",
			             h->label, h->label);
		goto out;
	}
	ss_secret_free(s.access);
	ss_secret_free(s.refresh);
	s.access = fresh.access_jwt;
	s.refresh = fresh.refresh_jwt;
	fresh.access_jwt = fresh.refresh_jwt = NULL;
	if ((ret = save(&s, err)) < 0)
		goto out;
	ss_xrpc_set_token(x, s.access);
out:
	unlock_sessions(fd);
	ss_xrpc_session_release(&fresh);
	stored_release(&s);
	ss_buf_release(&path);
	return ret;
}

int ss_session_open(ss_http *http, const char *who, ss_xrpc **out, ss_session_info *info,
                    ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	ss_xrpc *x = NULL;
	stored s = {0};
	hook *h;
	int ret;

	if ((ret = find(who, &s, &path, err)) < 0)
		goto out;
	if ((ret = ss_xrpc_new(&x, http, s.pds, err)) < 0)
		goto out;
	ss_xrpc_set_token(x, s.access);
	h = ss_xcalloc(1, sizeof(*h));
	h->did = ss_xstrdup(s.did);
	h->label = ss_xstrdup(s.handle ? s.handle : s.did);
	ss_xrpc_set_refresh(x, refresh, h, hook_free);
	info_from(&s, info);
	*out = x;
	x = NULL;
out:
	ss_xrpc_free(x);
	stored_release(&s);
	ss_buf_release(&path);
	return ret;
}

int ss_session_login(ss_http *http, const char *who, const char *password, ss_session_info *out,
                     ss_error *err)
{
	ss_identity id = {0};
	ss_xrpc_session sess = {0};
	ss_xrpc *x = NULL;
	stored s = {0};
	int fd = -1, ret;

	if ((ret = ss_identity_resolve(http, who, &id, err)) < 0)
		goto out;
	if ((ret = ss_xrpc_new(&x, http, id.pds, err)) < 0)
		goto out;
	if ((ret = ss_xrpc_create_session(x, id.did, password, &sess, err)) < 0) {
		if (err->code == SS_EAUTH)
			ss_error_prefix(err, "cannot sign in as '%s'", who);
		goto out;
	}
	if (strcmp(sess.did, id.did)) {
		ret = ss_error_set(err, SS_EAUTH, "'%s' signed in as '%s', not as '%s'", id.pds,
		                   sess.did, id.did);
		goto out;
	}
	s.did = ss_xstrdup(id.did);
	/* The verified handle (identity.h), not the one the server's answer names. */
	s.handle = id.handle ? ss_xstrdup(id.handle) : NULL;
	s.pds = ss_xstrdup(id.pds);
	s.access = sess.access_jwt;
	s.refresh = sess.refresh_jwt;
	sess.access_jwt = sess.refresh_jwt = NULL;
	if ((ret = lock_sessions(&fd, err)) < 0 || (ret = save(&s, err)) < 0)
		goto out;
	info_from(&s, out);
out:
	unlock_sessions(fd);
	stored_release(&s);
	ss_xrpc_session_release(&sess);
	ss_xrpc_free(x);
	ss_identity_release(&id);
	return ret;
}

int ss_session_logout(ss_http *http, const char *who, ss_session_info *out, ss_error *err)
{
	ss_error ignored;
	ss_buf path = SS_BUF_INIT;
	ss_xrpc *x = NULL;
	stored s = {0};
	int fd = -1, ret;

	if ((ret = lock_sessions(&fd, err)) < 0 || (ret = find(who, &s, &path, err)) < 0)
		goto out;
	/* Best effort: the local session goes whatever the server says. */
	if (ss_xrpc_new(&x, http, s.pds, &ignored) == 0)
		ss_xrpc_delete_session(x, s.refresh, &ignored);
	if (unlink(path.ptr) < 0 && errno != ENOENT) {
		ret = ss_error_set(err, SS_ERROR, "cannot remove '%s': %s", path.ptr,
		                   strerror(errno));
		goto out;
	}
	info_from(&s, out);
out:
	unlock_sessions(fd);
	ss_xrpc_free(x);
	stored_release(&s);
	ss_buf_release(&path);
	return ret;
}
