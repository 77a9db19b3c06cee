/*
 * state_config.c: the config table, and the three values every run asks for (me, authority,
 * tracking), read once when the state opens and kept in step with the table by
 * ss_state_config_set and by a rollback.
 */
#include "core/state/state_priv.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

int ss_state_config_get(ss_state *st, const char *key, char **out, ss_error *err)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = -1;

	if (ss_state__prepare_cached(st, &s, "SELECT value FROM config WHERE key = ?1", err) < 0)
		return -1;
	ss_state__bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*out = ss_state__column_dup(s, 0);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = ss_error_set(err, SS_ENOTFOUND, "local state has no '%s'", key);
	} else {
		ret = ss_state__sqlite_error(st, err, "cannot read config");
	}
	ss_state__done(st, s);
	return ret;
}

/* Puts value (NULL: none) in the cache when key is one of the cached keys. */
static int cache_put(ss_state *st, const char *key, const char *value, ss_error *err)
{
	ss_oid oid;

	if (!strcmp(key, "me")) {
		free(st->me);
		st->me = value ? ss_xstrdup(value) : NULL;
	} else if (!strcmp(key, "authority")) {
		free(st->authority);
		st->authority = value ? ss_xstrdup(value) : NULL;
	} else if (!strcmp(key, "tracking")) {
		ss_oid_clear(&oid);
		if (value && ss_oid_parse(&oid, value, err) < 0)
			return ss_error_prefix(err, "local state: 'tracking'");
		st->tracking = oid;
	}
	return 0;
}

int ss_state_config_set(ss_state *st, const char *key, const char *value, ss_error *err)
{
	int rc;

	if (!value)
		rc = ss_state__exec(st, err, "DELETE FROM config WHERE key = ?1", 1, key, NULL,
		                    NULL, NULL);
	else
		rc = ss_state__exec(st, err,
		                    "INSERT OR REPLACE INTO config (key, value) VALUES (?1, ?2)", 2,
		                    key, value, NULL, NULL);
	if (rc < 0 || (rc = cache_put(st, key, value, err)) < 0)
		return rc;
	if (!strcmp(key, "me") || !strcmp(key, "authority") || !strcmp(key, "transport") ||
	    !strcmp(key, "space"))
		return ss_state_mirror__changed(st, err);
	return 0;
}

int ss_state_reload(ss_state *st, ss_error *err)
{
	static const char *const keys[] = {"me", "authority", "tracking"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *value = NULL;
		int rc = ss_state_config_get(st, keys[i], &value, err);

		if (rc < 0 && err->code != SS_ENOTFOUND)
			return rc;
		rc = cache_put(st, keys[i], value, err);
		free(value);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void ss_state_config__release(ss_state *st)
{
	free(st->me);
	free(st->authority);
	st->me = st->authority = NULL;
	ss_oid_clear(&st->tracking);
}

const char *ss_state_path(const ss_state *st)
{
	return st->path;
}

const char *ss_state_me(const ss_state *st)
{
	return st->me;
}

const char *ss_state_authority(const ss_state *st)
{
	return st->authority;
}

bool ss_state_tracking(const ss_state *st, ss_oid *out)
{
	*out = st->tracking;
	return !ss_oid_is_zero(&st->tracking);
}

int ss_state_set_me(ss_state *st, const char *did, ss_error *err)
{
	return ss_state_config_set(st, "me", did, err);
}

int ss_state_set_authority(ss_state *st, const char *did, ss_error *err)
{
	return ss_state_config_set(st, "authority", did, err);
}

int ss_state_set_tracking(ss_state *st, const ss_oid *commit, ss_error *err)
{
	char hex[SS_OID_HEXSZ + 1];

	if (!commit || ss_oid_is_zero(commit))
		return ss_state_config_set(st, "tracking", NULL, err);
	ss_oid_fmt(hex, commit);
	return ss_state_config_set(st, "tracking", hex, err);
}
