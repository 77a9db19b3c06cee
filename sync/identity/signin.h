/*
 * signin.h: signing in with ATProto OAuth as a native public client, so that the session on
 * disk holds tokens bound to a key of its own and limited to a scope, never the password.
 *
 * ss_signin_begin resolves the account (handle or DID to its PDS), finds the PDS's
 * authorization server, makes a fresh DPoP key (P-256), a PKCE verifier (S256) and a state,
 * listens on 127.0.0.1 on a free port for the redirect, and pushes the authorization request
 * (PAR) with the loopback client id ("http://localhost?redirect_uri=...&scope=..."); the
 * caller shows ss_signin_url() to the person (and opens a browser on it). ss_signin_finish
 * then waits for the browser's redirect on the listener, or for the URL the browser ended on
 * pasted on paste_fd (for a machine whose browser is elsewhere), checks that its state and
 * iss are this sign-in's, exchanges the code for tokens (DPoP, PKCE), checks that they are
 * the account's own (sub is its DID) and keeps the session (sync/identity/session.h). An
 * error answer (the person said no), a timeout, a state or issuer that does not match, or a
 * token for another account is one line and keeps nothing.
 */
#ifndef SS_SIGNIN_H
#define SS_SIGNIN_H

#include "core/util/error.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"

typedef struct ss_signin ss_signin;

/* scope: the space-separated scopes to ask (must hold "atproto"). SS_ENOTFOUND when the
 * account's PDS offers no OAuth sign-in. */
int ss_signin_begin(ss_http *http, const char *who, const char *scope, ss_signin **out,
                    ss_error *err);

/* The authorization page's URL (no secret in it). */
const char *ss_signin_url(const ss_signin *s);

/* Waits at most timeout_s for the redirect (or a URL line on paste_fd, -1 for none), then
 * ends the sign-in as above; out (may be NULL) says who signed in. SS_EAUTH for a refusal, a
 * mismatch or the timeout. */
int ss_signin_finish(ss_signin *s, int paste_fd, int timeout_s, ss_session_info *out,
                     ss_error *err);

void ss_signin_free(ss_signin *s);

#endif
