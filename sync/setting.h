/*
 * setting.h: the person's settings (docs/CONFIG.md): request timeout, pull's merge style,
 * link's default agents, colour, progress. One lookup for each, in this order: the
 * environment variable, the clone's value (its state's config table, key "setting.<key>"),
 * the per-user file (<config dir>/config, the directory of sessions: $SKILLSYNC_CONFIG_HOME,
 * else $XDG_CONFIG_HOME/skillsync, else ~/.config/skillsync), the default.
 *
 * Rules: a key not in the table or a value it does not take is refused (SS_EINVALID) when
 * set, and when read (naming where it came from), never silently ignored. The per-user file is
 * one "key = value" a line ('#' comments), replaced atomically, mode 0644: never a secret.
 */
#ifndef SS_SETTING_H
#define SS_SETTING_H

#include <stdbool.h>

#include "core/util/buf.h"
#include "core/util/error.h"

struct ss_state;

typedef enum {
	SS_SETTING_DEFAULT,
	SS_SETTING_GLOBAL,
	SS_SETTING_CLONE,
	SS_SETTING_ENV,
} ss_setting_origin;

typedef struct ss_setting_def {
	const char *key;
	const char *env;  /* the environment variable that overrides it */
	const char *def;  /* the default */
	const char *want; /* what it takes, for messages and docs */
} ss_setting_def;

size_t ss_setting_count(void);
const ss_setting_def *ss_setting_at(size_t i);

/* SS_EINVALID "unknown key 'x' (one of: ...)" or "'key' takes ..., not 'v'"; else 0. */
int ss_setting_check(const char *key, const char *value, ss_error *err);

/*
 * The value of key for a run in the clone st (NULL: outside a clone): *out a new string
 * (free()), *origin (may be NULL) where it came from. SS_EINVALID for an unknown key or a bad
 * value wherever it was set.
 */
int ss_setting_get(struct ss_state *st, const char *key, char **out, ss_setting_origin *origin,
                   ss_error *err);

/* The same for the settings that are whole seconds (timeout), and yes/no-like choices: *out
 * is true when the value equals yes. */
int ss_setting_seconds(struct ss_state *st, const char *key, long *out, ss_error *err);
int ss_setting_is(struct ss_state *st, const char *key, const char *yes, bool *out, ss_error *err);

/* Sets (value NULL: removes) key in the clone's state, or in the per-user file (st NULL). */
int ss_setting_set(struct ss_state *st, const char *key, const char *value, ss_error *err);

/* review.trust as given to `config` (DIDs or handles, comma-separated) -> DIDs alone, *out
 * (free()): a handle is the DID of the member of the clone st (may be NULL) that has it, else
 * resolved once (sync/identity/identity.h). SS_EINVALID for a value that is not such a list;
 * a handle that does not resolve fails with the resolution's code. Trust is kept by DID: a
 * handle can later name another account. */
int ss_setting_trust_dids(struct ss_state *st, const char *value, char **out, ss_error *err);

/* key's value in the per-user file alone: 1 and *out (free()), or 0 when it has none. */
int ss_setting_global_get(const char *key, char **out, ss_error *err);

/* A new HTTP client (sync/net/http.h) whose request timeout is the timeout setting (docs/CONFIG.md)
 * of the clone st, or outside a clone (st NULL) of the environment and the per-user file. The
 * one way a command makes its client: ss_http_new itself reads no setting. */
struct ss_http;
int ss_setting_http_new(struct ss_http **out, struct ss_state *st, ss_error *err);

/* The per-user file's path. */
int ss_setting_global_path(ss_buf *out, ss_error *err);

#endif
