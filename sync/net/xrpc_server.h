/*
 * xrpc_server.h: the calls about accounts rather than repos (sync/net/xrpc_server.c):
 * com.atproto.server's sessions, com.atproto.identity.resolveHandle, and what skillsync reads
 * in a DID document.
 *
 * Rules: a session's tokens are secrets (the answers that hold them are wiped,
 * core/util/secret.h); a wrong password is SS_EAUTH; a malformed DID document is SS_EINVALID.
 * Errors otherwise as sync/net/xrpc.h says.
 */
#ifndef SS_XRPC_SERVER_H
#define SS_XRPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/error.h"
#include "sync/net/xrpc.h"

typedef struct ss_xrpc_session {
	char *did;
	char *handle;
	char *access_jwt;  /* NULL from getSession */
	char *refresh_jwt; /* NULL from getSession */
	char *pds;         /* the PDS endpoint in the session's DID document, when sent */
	bool active;
} ss_xrpc_session;
void ss_xrpc_session_release(ss_xrpc_session *s);

/* createSession: identifier is a handle or DID; a wrong password is SS_EAUTH. */
int ss_xrpc_create_session(ss_xrpc *x, const char *identifier, const char *password,
                           ss_xrpc_session *out, ss_error *err);
/* refreshSession with refresh_jwt (the client's own token is not used nor changed). */
int ss_xrpc_refresh_session(ss_xrpc *x, const char *refresh_jwt, ss_xrpc_session *out,
                            ss_error *err);
int ss_xrpc_delete_session(ss_xrpc *x, const char *refresh_jwt, ss_error *err);
/* getSession with the client's access token (did, handle, active). */
int ss_xrpc_get_session(ss_xrpc *x, ss_xrpc_session *out, ss_error *err);

/* com.atproto.identity.resolveHandle: *did is malloc'd. */
int ss_xrpc_resolve_handle(ss_xrpc *x, const char *handle, char **did, ss_error *err);

/* ---- DID documents (pure: JSON stays here) ---- */

/*
 * From a DID document (JSON text): its id, the `#atproto_pds` service endpoint and the first
 * alsoKnownAs `at://` handle (NULL when none). All malloc'd; SS_EINVALID when malformed.
 */
typedef struct ss_xrpc_did_doc {
	char *id;
	char *pds;
	char *handle;
	char **also_known_as; /* NULL-terminated, every entry */
} ss_xrpc_did_doc;
int ss_xrpc_parse_did_doc(const char *json, size_t len, ss_xrpc_did_doc *out, ss_error *err);
void ss_xrpc_did_doc_release(ss_xrpc_did_doc *doc);
/*
 * The space host of a DID document (JSON text): its `#atproto_space_host` service, else its
 * `#atproto_pds` (malloc'd); SS_EINVALID when it names neither.
 */
int ss_xrpc_did_doc_space_host(const char *doc, size_t len, char **host, ss_error *err);

#endif
