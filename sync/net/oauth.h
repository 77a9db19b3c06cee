/*
 * oauth.h: the calls of ATProto OAuth as a public native client (no client secret): the
 * discovery of a PDS's authorization server, the pushed authorization request, the token
 * endpoint (a code or a refresh token for DPoP-bound tokens) and revocation.
 *
 * Every call to the authorization server carries a DPoP proof made with the client's key and
 * the last nonce the server gave (kept in ss_oauth_client); a use_dpop_nonce answer is retried
 * once with the new nonce, and a second one is an error. The server's refusals are one line,
 * SS_EAUTH, with its error code and description escaped. Form bodies and token answers are
 * secrets: their memory is wiped.
 */
#ifndef SS_OAUTH_H
#define SS_OAUTH_H

#include "core/atproto/p256.h"
#include "core/util/error.h"
#include "sync/net/http.h"

/* The authorization server's metadata that the client uses (malloc'd strings). */
typedef struct ss_oauth_server {
	char *issuer, *par, *authorize, *token, *revoke;
} ss_oauth_server;

void ss_oauth_server_release(ss_oauth_server *s);

/*
 * pds's protected-resource metadata names pds itself as the resource and its authorization
 * server; the server's own
 * metadata must name the same issuer and require PAR, PKCE S256 and support DPoP with ES256.
 * SS_ENOTFOUND when the PDS offers no OAuth (its metadata is not there), SS_EINVALID (one line
 * naming what) when an answer does not fit.
 */
int ss_oauth_discover(ss_http *http, const char *pds, ss_oauth_server *out, ss_error *err);

/* The client: its id, its DPoP key (borrowed) and the authorization server's last nonce. */
typedef struct ss_oauth_client {
	const char *client_id;
	const ss_p256_key *key;
	char nonce[256];
} ss_oauth_client;

/* A pushed authorization request: form is k, v, ..., NULL (client_id is added); *request_uri
 * malloc'd. */
int ss_oauth_par(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *const *form,
                 char **request_uri, ss_error *err);

/* What the token endpoint gave (secrets: release them). */
typedef struct ss_oauth_tokens {
	char *access, *refresh, *sub, *scope;
	long long expires_in;
} ss_oauth_tokens;

void ss_oauth_tokens_release(ss_oauth_tokens *t);

/* A token request: form as for ss_oauth_par. The answer must be a DPoP token with a sub. */
int ss_oauth_token(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *const *form,
                   ss_oauth_tokens *out, ss_error *err);

/* Revokes token (a refresh token ends its whole session) at endpoint. */
int ss_oauth_revoke(ss_http *http, ss_oauth_client *c, const char *endpoint, const char *token,
                    ss_error *err);

#endif
