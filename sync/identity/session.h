/*
 * session.h: signed-in accounts, kept between commands, and authenticated XRPC clients.
 *
 * Sessions live in $SKILLSYNC_CONFIG_HOME (default $XDG_CONFIG_HOME/skillsync, else
 * ~/.config/skillsync), in sessions/<did>.session (directory 0700, files 0600), written
 * atomically so a crash mid-write leaves the old session usable. createSession is rate-limited
 * by servers, so a command never signs in: it reuses the stored session, refreshing the access
 * token when its exp claim has passed (or the server calls it expired) and saving the rotated
 * refresh token at once, under a lock so two skillsync processes do not spend the same
 * refresh token. Passwords are never stored; tokens never appear in messages.
 *
 * `who` everywhere is a DID or a handle of a stored session, or NULL for the only one.
 */
#ifndef SS_SESSION_H
#define SS_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/p256.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"

/* What may be shown about a session (no tokens). */
typedef struct ss_session_info {
	char *did;
	char *handle;
	char *pds;
	bool oauth;  /* an OAuth session (else one made with a password) */
	char *scope; /* what an OAuth session was granted, or NULL */
} ss_session_info;

void ss_session_info_release(ss_session_info *info);
void ss_session_list_free(ss_session_info *list, size_t n);

/* The configuration directory (not created). */
int ss_session_config_dir(ss_buf *out, ss_error *err);

/*
 * Resolves who (handle or DID) to its PDS, signs in with password (an account or app
 * password) and stores the session; out (may be NULL) says who signed in. SS_EAUTH for a
 * wrong password.
 */
int ss_session_login(ss_http *http, const char *who, const char *password, ss_session_info *out,
                     ss_error *err);

/* An OAuth session to keep (sync/identity/signin.h makes one): all borrowed. */
typedef struct ss_session_oauth {
	const char *did, *handle, *pds;
	const char *issuer, *client_id, *token_ep, *revoke_ep; /* revoke_ep may be NULL */
	const char *scope, *access, *refresh;
	const ss_p256_key *key; /* the DPoP key the tokens are bound to */
} ss_session_oauth;

/* Stores o as the session of o->did (replacing any); out (may be NULL) says who. */
int ss_session_save_oauth(const ss_session_oauth *o, ss_session_info *out, ss_error *err);

/*
 * Signs out: deleteSession on the server, or for an OAuth session the revocation of its
 * refresh token at the authorization server (best effort: a server that cannot be reached or
 * refuses does not keep the local session), then removes the stored session. out (may be
 * NULL) says who was signed out. SS_EAUTH when no session matches who.
 */
int ss_session_logout(ss_http *http, const char *who, ss_session_info *out, ss_error *err);

/* Every stored session, sorted by DID; *out is NULL when there is none. */
int ss_session_list(ss_session_info **out, size_t *n, ss_error *err);

/*
 * An XRPC client for who's PDS, authenticated and refreshing itself (free it with
 * ss_xrpc_free; it borrows http). info (may be NULL) gets the session's did/handle/pds.
 * SS_EAUTH when not signed in (the message says to run `skillsync login`) or the session can
 * no longer be refreshed.
 */
int ss_session_open(ss_http *http, const char *who, ss_xrpc **out, ss_session_info *info,
                    ss_error *err);

#endif
