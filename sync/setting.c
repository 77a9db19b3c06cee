#include "sync/setting.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/atproto/syntax.h"
#include "core/state/state.h"
#include "core/state/state_member.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "sync/identity/identity.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"

#define FILE_MAX (64u * 1024)

static const ss_setting_def table[] = {
    {"timeout", "SKILLSYNC_TIMEOUT", "60", "whole seconds from 1 to 3600"},
    {"pull.ff", "SKILLSYNC_PULL_FF", "true", "true or only"},
    /* the default must name core/agent/agent.c's default_target agents */
    {"link.agents", "SKILLSYNC_LINK_AGENTS", "claude,agents", "agent names, comma-separated"},
    {"color", "SKILLSYNC_COLOR", "auto", "auto, always or never"},
    {"progress", "SKILLSYNC_PROGRESS", "auto", "auto or never"},
    /* the review gate (core/diff/gate.h) */
    {"review.policy", "SKILLSYNC_REVIEW_POLICY", "scripts", "scripts, all or off"},
    {"review.trust", "SKILLSYNC_REVIEW_TRUST", "",
     "members' DIDs, comma-separated ('skillsync config review.trust' takes handles too and "
     "stores their DIDs)"},
    /* skillsync mcp: push right after update_skill commits */
    {"mcp.push", "SKILLSYNC_MCP_PUSH", "false", "true or false"},
};

#define NSETTINGS (sizeof(table) / sizeof(table[0]))

size_t ss_setting_count(void)
{
	return NSETTINGS;
}

const ss_setting_def *ss_setting_at(size_t i)
{
	return i < NSETTINGS ? &table[i] : NULL;
}

static const ss_setting_def *find(const char *key)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(table[i].key, key))
			return &table[i];
	return NULL;
}

static bool one_of(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(v, *list))
			return true;
	return false;
}

/* An agent name list: lowercase words and dashes, comma-separated, none empty. The agents
 * themselves are checked by link against its table (core/agent/agent.h). */
static bool agent_list(const char *v)
{
	bool word = false;

	for (; *v; v++) {
		if ((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '-')
			word = true;
		else if (*v == ',' && word)
			word = false;
		else
			return false;
	}
	return word;
}

/* Members, comma-separated: each a DID (dids) or also a handle (the empty list is the
 * default). */
static bool member_list(const char *v, bool dids)
{
	ss_buf one = SS_BUF_INIT;
	bool ok = true;

	for (const char *p = v; ok && *v;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		ss_buf_clear(&one);
		ss_buf_put(&one, p, n);
		ok = ss_syntax_is_did(one.ptr) || (!dids && ss_syntax_is_handle(one.ptr));
		if (!comma)
			break;
		p = comma + 1;
	}
	ss_buf_release(&one);
	return ok;
}

static bool seconds(const char *v, long *out)
{
	char *end;
	long n;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > 3600)
		return false;
	if (out)
		*out = n;
	return true;
}

static bool valid(const ss_setting_def *d, const char *v)
{
	static const char *const ff[] = {"true", "only", NULL};
	static const char *const color[] = {"auto", "always", "never", NULL};
	static const char *const progress[] = {"auto", "never", NULL};
	static const char *const policy[] = {"scripts", "all", "off", NULL};
	static const char *const boolean[] = {"true", "false", NULL};

	if (!strcmp(d->key, "timeout"))
		return seconds(v, NULL);
	if (!strcmp(d->key, "pull.ff"))
		return one_of(v, ff);
	if (!strcmp(d->key, "link.agents"))
		return agent_list(v);
	if (!strcmp(d->key, "color"))
		return one_of(v, color);
	if (!strcmp(d->key, "review.policy"))
		return one_of(v, policy);
	if (!strcmp(d->key, "review.trust"))
		return member_list(v, true);
	if (!strcmp(d->key, "mcp.push"))
		return one_of(v, boolean);
	return one_of(v, progress);
}

int ss_setting_check(const char *key, const char *value, ss_error *err)
{
	const ss_setting_def *d = find(key);

	if (!d) {
		ss_buf known = SS_BUF_INIT;
		int ret;

		for (size_t i = 0; i < NSETTINGS; i++)
			ss_buf_printf(&known, "%s%s", i ? ", " : "", table[i].key);
		ret =
		    ss_error_set(err, SS_EINVALID, "unknown key '%s' (one of: %s)", key, known.ptr);
		ss_buf_release(&known);
		return ret;
	}
	if (value && !valid(d, value))
		return ss_error_set(err, SS_EINVALID, "'%s' takes %s, not '%s'", key, d->want,
		                    value);
	return 0;
}

int ss_setting_global_path(ss_buf *out, ss_error *err)
{
	ss_buf dir = SS_BUF_INIT;
	int ret = ss_session_config_dir(&dir, err);

	if (ret == 0)
		ret = ss_fs_join(out, dir.ptr, "config");
	ss_buf_release(&dir);
	return ret;
}

/* The per-user file's text ("" when there is none). */
static int read_global(ss_buf *text, ss_buf *path, ss_error *err)
{
	if (ss_setting_global_path(path, err) < 0) {
		ss_error_clear(err); /* no home, no configuration directory: no per-user file */
		return 0;
	}
	if (ss_fs_read_file(text, path->ptr, FILE_MAX, err) < 0) {
		if (err->code != SS_ENOTFOUND)
			return ss_error_prefix(err, "cannot read '%s'", path->ptr);
		ss_error_clear(err);
	}
	return 0;
}

/* Splits the line at line (up to its newline) into key and value, trimmed: false for a
 * blank or comment line. */
static bool parse_line(const char *line, ss_buf *key, ss_buf *value)
{
	const char *end = strchr(line, '\n'), *eq;
	size_t n = end ? (size_t)(end - line) : strlen(line);

	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	if (!n || *line == '#')
		return false;
	eq = memchr(line, '=', n);
	ss_buf_clear(key);
	ss_buf_clear(value);
	if (!eq) {
		ss_buf_put(key, line, n);
		return true;
	}
	{
		size_t k = (size_t)(eq - line), v0 = k + 1;

		while (k && (line[k - 1] == ' ' || line[k - 1] == '\t'))
			k--;
		while (v0 < n && (line[v0] == ' ' || line[v0] == '\t'))
			v0++;
		ss_buf_put(key, line, k);
		ss_buf_put(value, line + v0, n - v0);
	}
	return true;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : NULL;
}

int ss_setting_global_get(const char *key, char **out, ss_error *err)
{
	ss_buf text = SS_BUF_INIT, path = SS_BUF_INIT, k = SS_BUF_INIT, v = SS_BUF_INIT;
	int ret = read_global(&text, &path, err);

	for (const char *p = text.ptr; ret == 0 && p && *p; p = next_line(p))
		if (parse_line(p, &k, &v) && !strcmp(k.ptr, key)) {
			free(*out);
			*out = ss_xstrdup(v.ptr); /* the last one wins, as in git */
		}
	if (ret == 0 && *out)
		ret = 1;
	ss_buf_release(&text);
	ss_buf_release(&path);
	ss_buf_release(&k);
	ss_buf_release(&v);
	return ret;
}

static void state_key(ss_buf *out, const char *key)
{
	ss_buf_printf(out, "setting.%s", key);
}

int ss_setting_get(struct ss_state *st, const char *key, char **out, ss_setting_origin *origin,
                   ss_error *err)
{
	const ss_setting_def *d = find(key);
	ss_setting_origin from = SS_SETTING_DEFAULT;
	ss_buf sk = SS_BUF_INIT;
	char *value = NULL;
	const char *env;
	int rc;

	if (!d)
		return ss_setting_check(key, NULL, err);
	if ((env = getenv(d->env)) && *env) {
		value = ss_xstrdup(env);
		from = SS_SETTING_ENV;
	}
	if (!value && st) {
		state_key(&sk, key);
		rc = ss_state_config_get(st, sk.ptr, &value, err);
		ss_buf_release(&sk);
		if (rc < 0 && err->code != SS_ENOTFOUND)
			return rc;
		ss_error_clear(err);
		if (value)
			from = SS_SETTING_CLONE;
	}
	if (!value) {
		if ((rc = ss_setting_global_get(key, &value, err)) < 0)
			return rc;
		if (value)
			from = SS_SETTING_GLOBAL;
	}
	if (!value)
		value = ss_xstrdup(d->def);
	if (!valid(d, value)) {
		static const char *const where[] = {"default", "per-user config", "clone's config",
		                                    NULL};
		if (from == SS_SETTING_ENV)
			rc = ss_error_set(err, SS_EINVALID, "%s is '%s': want %s", d->env, value,
			                  d->want);
		else
			rc = ss_error_set(err, SS_EINVALID, "'%s' in the %s is '%s': want %s", key,
			                  where[from], value, d->want);
		free(value);
		return rc;
	}
	*out = value;
	if (origin)
		*origin = from;
	return 0;
}

int ss_setting_seconds(struct ss_state *st, const char *key, long *out, ss_error *err)
{
	char *v = NULL;

	if (ss_setting_get(st, key, &v, NULL, err) < 0)
		return -1;
	seconds(v, out);
	free(v);
	return 0;
}

int ss_setting_is(struct ss_state *st, const char *key, const char *yes, bool *out, ss_error *err)
{
	char *v = NULL;

	if (ss_setting_get(st, key, &v, NULL, err) < 0)
		return -1;
	*out = !strcmp(v, yes);
	free(v);
	return 0;
}

/* The per-user file with key set to value (NULL: removed), its other lines kept. */
static int global_set(const char *key, const char *value, ss_error *err)
{
	ss_buf text = SS_BUF_INIT, path = SS_BUF_INIT, k = SS_BUF_INIT, v = SS_BUF_INIT;
	ss_buf out = SS_BUF_INIT, dir = SS_BUF_INIT;
	int ret = read_global(&text, &path, err);

	if (ret == 0 && !path.len)
		ret = ss_setting_global_path(&path, err);
	for (const char *p = text.ptr; ret == 0 && p && *p; p = next_line(p)) {
		const char *nl = strchr(p, '\n');

		if (parse_line(p, &k, &v) && !strcmp(k.ptr, key))
			continue;
		ss_buf_put(&out, p, nl ? (size_t)(nl - p) : strlen(p));
		ss_buf_puts(&out, "\n");
	}
	if (ret == 0 && value)
		ss_buf_printf(&out, "%s = %s\n", key, value);
	if (ret == 0 && (ret = ss_session_config_dir(&dir, err)) == 0 &&
	    (ret = ss_fs_mkdir_p(dir.ptr, 0700, err)) == 0)
		ret = ss_fs_write_atomic(path.ptr, out.ptr, out.len, 0644, err);
	ss_buf_release(&text);
	ss_buf_release(&path);
	ss_buf_release(&k);
	ss_buf_release(&v);
	ss_buf_release(&out);
	ss_buf_release(&dir);
	return ret;
}

int ss_setting_set(struct ss_state *st, const char *key, const char *value, ss_error *err)
{
	ss_buf sk = SS_BUF_INIT;
	int ret;

	if (ss_setting_check(key, value, err) < 0)
		return -1;
	if (!st)
		return global_set(key, value, err);
	state_key(&sk, key);
	ret = ss_state_config_set(st, sk.ptr, value, err);
	ss_buf_release(&sk);
	return ret;
}

/* A handle's DID: the member's of that handle in the state st (may be NULL), else resolved
 * (the DID document must name the handle back). */
static int handle_did(struct ss_state *st, const char *handle, ss_buf *out, ss_error *err)
{
	ss_state_member *m = NULL;
	ss_identity id;
	ss_http *http = NULL;
	size_t n = 0;
	int ret;

	if (st && ss_state_members_list(st, &m, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (m[i].handle && !strcasecmp(m[i].handle, handle)) {
			ss_buf_puts(out, m[i].did);
			ss_state_members_free(m, n);
			return 0;
		}
	ss_state_members_free(m, n);
	memset(&id, 0, sizeof(id));
	if ((ret = ss_setting_http_new(&http, st, err)) == 0 &&
	    (ret = ss_identity_resolve(http, handle, &id, err)) == 0)
		ss_buf_puts(out, id.did);
	else
		ss_error_prefix(err, "cannot resolve '%s'", handle);
	ss_identity_release(&id);
	ss_http_free(http);
	return ret;
}

int ss_setting_trust_dids(struct ss_state *st, const char *value, char **out, ss_error *err)
{
	ss_buf one = SS_BUF_INIT, dids = SS_BUF_INIT;
	int ret = 0;

	if (!member_list(value, false))
		return ss_error_set(
		    err, SS_EINVALID,
		    "'review.trust' takes members' DIDs or handles, comma-separated, "
		    "not '%s'",
		    value);
	for (const char *p = value; ret == 0 && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		ss_buf_clear(&one);
		ss_buf_put(&one, p, n);
		if (dids.len)
			ss_buf_puts(&dids, ",");
		if (ss_syntax_is_did(one.ptr))
			ss_buf_puts(&dids, one.ptr);
		else
			ret = handle_did(st, one.ptr, &dids, err);
		p = comma ? comma + 1 : p + n;
	}
	if (ret == 0)
		*out = ss_buf_detach(&dids, NULL);
	ss_buf_release(&one);
	ss_buf_release(&dids);
	return ret;
}

int ss_setting_http_new(struct ss_http **out, struct ss_state *st, ss_error *err)
{
	ss_http_options o;
	long s = 0;

	memset(&o, 0, sizeof(o));
	if (ss_setting_seconds(st, "timeout", &s, err) < 0)
		return -1;
	o.timeout_ms = s * 1000;
	return ss_http_new(out, &o, err);
}
