/*
 * state_ident.h: the identity cache's table (core/state/state_ident.c, table identities of schema
 * version 5): per account (by DID), what its DID document said when it was last read.
 *
 *   handle      the verified handle, or NULL (kept while the document still names it)
 *   pds         its #atproto_pds endpoint
 *   space_host  its #atproto_space_host endpoint (an authority's), or NULL
 *   key         the did:key of its #atproto verification method (the key its commits are
 *               signed with), and prev_key: the one before it, kept when a new one was read
 *   resolved_at when the document was read (unix seconds; 0: never, to be read again)
 * sync/identity/idcache.h decides how long an entry is trusted; this module only keeps it.
 */
#ifndef SS_STATE_IDENT_H
#define SS_STATE_IDENT_H

#include <stdint.h>

#include "core/state/state.h"
#include "core/util/error.h"

typedef struct ss_state_ident {
	const char *did;
	const char *handle;
	const char *pds;
	const char *space_host;
	const char *key;
	const char *prev_key;
	int64_t resolved_at;
} ss_state_ident;

void ss_state_ident_release(ss_state_ident *id);
/* SS_ENOTFOUND when nothing is kept for did. */
int ss_state_ident_get(ss_state *st, const char *did, ss_state_ident *out, ss_error *err);
/* Keeps id (replacing what was kept for its DID). */
int ss_state_ident_put(ss_state *st, const ss_state_ident *id, ss_error *err);

#endif
