#include "sync/identity/session.h"

#include <dirent.h>
#include <stddef.h>
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
#include "core/util/base64.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "sync/identity/identity.h"
#include "sync/net/oauth.h"
#include "sync/net/xrpc_server.h"

#define SESSION_SUFFIX ".session"
#define MAX_SESSION    (64 * 1024)

/* A stored session: what the file holds. An OAuth session (kind "oauth") adds its
 * authorization server, client id, scope and DPoP key (the private scalar, base64url). */
typedef struct stored {
	char *did, *handle, *pds, *access, *refresh;
	char *kind, *issuer, *client, *token_ep, *revoke_ep, *scope, *dpop;
} stored;

/* The file's keys, in the order they are written. */
static const struct {
	const char *name;
	size_t off;
} FIELDS[] = {
    {"did", offsetof(stored, did)},         {"handle", offsetof(stored, handle)},
    {"pds", offsetof(stored, pds)},         {"kind", offsetof(stored, kind)},
    {"issuer", offsetof(stored, issuer)},   {"client", offsetof(stored, client)},
    {"token", offsetof(stored, token_ep)},  {"revoke", offsetof(stored, revoke_ep)},
    {"scope", offsetof(stored, scope)},     {"access", offsetof(stored, access)},
    {"refresh", offsetof(stored, refresh)}, {"dpop", offsetof(stored, dpop)},
};
#define NFIELDS (sizeof(FIELDS) / sizeof(FIELDS[0]))

static char **field_of(stored *s, size_t i)
{
	return (char **)((char *)s + FIELDS[i].off);
}

static const char *field_in(const stored *s, size_t i)
{
	return *(char *const *)((const char *)s + FIELDS[i].off);
}

static void stored_release(stored *s)
{
	for (size_t i = 0; i < NFIELDS; i++)
		ss_secret_free(*field_of(s, i));
	memset(s, 0, sizeof(*s));
}

static bool is_oauth(const stored *s)
{
	return s->kind && !strcmp(s->kind, "oauth");
}

/* The command that makes this kind of session again. */
static const char *login_cmd(const stored *s)
{
	return is_oauth(s) ? "skillsync login --oauth" : "skillsync login";
}

/* The stored session's DPoP key. */
static int load_key(const stored *s, ss_p256_key **key, ss_error *err)
{
	ss_buf d = SS_BUF_INIT;
	ss_error ignored;
	int ret;

	ss_buf_secret(&d);
	if (ss_base64_decode(&d, s->dpop, strlen(s->dpop), SS_BASE64_URL, &ignored) < 0 ||
	    d.len != 32)
		ret = ss_error_set(err, SS_EAUTH,
		                   "the session of '%s' has a damaged key (run 'skillsync login "
		                   "--oauth %s')",
		                   s->did, s->did);
	else
		ret = ss_p256_key_from_private(key, (const uint8_t *)d.ptr, err);
	ss_buf_release(&d);
	return ret;
}

void ss_session_info_release(ss_session_info *info)
{
	if (!info)
		return;
	free(info->did);
	free(info->handle);
	free(info->pds);
	free(info->scope);
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
	info->oauth = is_oauth(s);
	info->scope = s->scope ? ss_xstrdup(s->scope) : NULL;
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
		for (size_t i = 0; i < NFIELDS && !field; i++)
			if (!strcmp(line, FIELDS[i].name))
				field = field_of(s, i);
		if (field) {
			ss_secret_free(*field);
			*field = ss_xstrdup(sp + 1);
		}
	}
	if (!s->did || !ss_syntax_is_did(s->did) || !s->pds || !s->access || !s->refresh ||
	    (is_oauth(s) && (!s->client || !s->token_ep || !s->dpop || !s->scope))) {
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

	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = field_in(s, i);

		if (v && !one_line_value(v))
			return ss_error_set(err, SS_ERROR,
			                    "the server sent a session that cannot be kept");
	}
	ss_buf_secret(&text);
	if ((ret = session_path(&path, s->did, err)) < 0)
		goto out;
	ss_buf_puts(&text, "# skillsync session: private, do not share\n");
	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = field_in(s, i);

		if (v)
			ss_buf_printf(&text, "%s %s\n", FIELDS[i].name, v);
	}
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

/* Saves a new session under the lock; out (may be NULL) says who. */
static int keep(const stored *s, ss_session_info *out, ss_error *err)
{
	int fd = -1, ret;

	if ((ret = lock_sessions(&fd, err)) == 0 && (ret = save(s, err)) == 0)
		info_from(s, out);
	unlock_sessions(fd);
	return ret;
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

/* Replaces s's tokens with fresh (taken). */
static void take_tokens(stored *s, char **access, char **refresh)
{
	ss_secret_free(s->access);
	ss_secret_free(s->refresh);
	s->access = *access;
	s->refresh = *refresh;
	*access = *refresh = NULL;
}

/* refreshSession with the stored refresh token. */
static int password_refresh(ss_xrpc *x, stored *s, ss_error *err)
{
	ss_xrpc_session fresh = {0};
	int ret = ss_xrpc_refresh_session(x, s->refresh, &fresh, err);

	if (!ret)
		take_tokens(s, &fresh.access_jwt, &fresh.refresh_jwt);
	ss_xrpc_session_release(&fresh);
	return ret;
}

/* The refresh_token grant at the authorization server, with the session's DPoP key; the
 * tokens must still be the session's DID's. */
static int oauth_refresh(ss_http *http, stored *s, ss_error *err)
{
	const char *form[] = {"grant_type", "refresh_token", "refresh_token", s->refresh, NULL};
	ss_oauth_tokens fresh = {0};
	ss_oauth_client c = {.client_id = s->client};
	ss_p256_key *key = NULL;
	int ret;

	if ((ret = load_key(s, &key, err)) < 0)
		return ret;
	c.key = key;
	if ((ret = ss_oauth_token(http, &c, s->token_ep, form, &fresh, err)) < 0)
		goto out;
	if (strcmp(fresh.sub, s->did)) {
		ret = ss_error_set(err, SS_EAUTH, "the authorization server refreshed '%s' as '%s'",
		                   s->did, fresh.sub);
		goto out;
	}
	take_tokens(s, &fresh.access, &fresh.refresh);
	free(s->scope);
	s->scope = fresh.scope;
	fresh.scope = NULL;
out:
	ss_oauth_tokens_release(&fresh);
	ss_p256_key_free(key);
	return ret;
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
	if ((ret = is_oauth(&s) ? oauth_refresh(ss_xrpc_http(x), &s, err)
	                        : password_refresh(x, &s, err)) < 0) {
		if (err->code == SS_EAUTH)
			ss_error_set(err, SS_EAUTH, "the session of '%s' has ended (run '%s %s')",
			             h->label, login_cmd(&s), h->label);
		goto out;
	}
	if ((ret = save(&s, err)) < 0)
		goto out;
	ss_xrpc_set_token(x, s.access);
out:
	unlock_sessions(fd);
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
	if (is_oauth(&s)) {
		ss_p256_key *key;

		if ((ret = load_key(&s, &key, err)) < 0)
			goto out;
		ss_xrpc_set_dpop(x, key);
	}
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
	int ret;

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
	ret = keep(&s, out, err);
out:
	stored_release(&s);
	ss_xrpc_session_release(&sess);
	ss_xrpc_free(x);
	ss_identity_release(&id);
	return ret;
}

/* Revokes the session's refresh token (which ends its access tokens too), best effort. */
static void oauth_revoke(ss_http *http, const stored *s)
{
	ss_oauth_client c = {.client_id = s->client};
	ss_p256_key *key = NULL;
	ss_error ignored;

	if (!s->revoke_ep || load_key(s, &key, &ignored) < 0)
		return;
	c.key = key;
	ss_oauth_revoke(http, &c, s->revoke_ep, s->refresh, &ignored);
	ss_p256_key_free(key);
}

int ss_session_save_oauth(const ss_session_oauth *o, ss_session_info *out, ss_error *err)
{
	uint8_t d[32];
	ss_buf key = SS_BUF_INIT;
	stored s = {0};
	int ret;

	ss_buf_secret(&key);
	if ((ret = ss_p256_key_private(o->key, d, err)) < 0)
		goto out;
	ss_base64_encode(&key, d, sizeof(d), SS_BASE64_URL, false);
	ss_secret_wipe(d, sizeof(d));
	s.did = ss_xstrdup(o->did);
	s.handle = o->handle ? ss_xstrdup(o->handle) : NULL;
	s.pds = ss_xstrdup(o->pds);
	s.kind = ss_xstrdup("oauth");
	s.issuer = ss_xstrdup(o->issuer);
	s.client = ss_xstrdup(o->client_id);
	s.token_ep = ss_xstrdup(o->token_ep);
	s.revoke_ep = o->revoke_ep ? ss_xstrdup(o->revoke_ep) : NULL;
	s.scope = ss_xstrdup(o->scope);
	s.access = ss_xstrdup(o->access);
	s.refresh = ss_xstrdup(o->refresh);
	s.dpop = ss_buf_detach(&key, NULL);
	ret = keep(&s, out, err);
out:
	stored_release(&s);
	ss_buf_release(&key);
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
	if (is_oauth(&s))
		oauth_revoke(http, &s);
	else if (ss_xrpc_new(&x, http, s.pds, &ignored) == 0)
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
