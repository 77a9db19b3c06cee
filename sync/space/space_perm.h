/*
 * space_perm.h: the permissioned-space transport: a space is `at://<authority>/space/<type>/
 * <skey>` at its space host, and each writer's records live in that writer's space repo on
 * its own PDS (com.atproto.space.*, sync/space/space_proto.h).
 *
 * heads: the writers listRepos names (pages of up to 1,000, the credential's audience the
 * authority), with each writer's repo revision and set hash; the authority and I are always
 * in the answer (with no revision when we never wrote), so that our roles stay. A writer the
 * state does not know yet is resolved once (handle, PDS) and kept in the state by fetch.
 * list: listRepoOps since the revision the state holds, else (or when the ops do not check
 * out) the whole repo with getRepo (the credential's audience the writer), each checked
 * against the writer's signed commit (docs/SPACES.md "Trust"); records as JSON text with
 * their CIDs.
 * apply: applyWrites on my PDS with my session (<=200 writes, <1,000,000 bytes a request),
 * after checking that every record I update or delete still has the CID the state expects
 * and that no record I create appeared (listRepoOps since my last revision, or getRecord when
 * none is known); otherwise SS_ECONFLICT "pull first", nothing written. Creates go as
 * #create, which the host refuses on an existing key.
 */
#ifndef SS_SPACE_PERM_H
#define SS_SPACE_PERM_H

#include <stddef.h>

#include "core/util/error.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/transport/space.h"

/* A writer the state knows (all borrowed; handle, pds and rev may be NULL). */
typedef struct ss_space_perm_writer {
	const char *did;
	const char *handle;
	const char *pds;
	const char *rev;
} ss_space_perm_writer;

/*
 * The space uri (authority: its DID) over http (borrowed). mine (NULL: not signed in; reads
 * then fail saying to sign in) is my session's client, owned by the space from now on (also
 * on failure); me_did my DID (copied); known: what the state holds of the writers.
 */
int ss_space_perm_new(ss_space **out, ss_http *http, ss_xrpc *mine, const char *me_did,
                      const char *uri, const char *authority, const ss_space_perm_writer *known,
                      size_t n, ss_error *err);

/*
 * The clone's state (borrowed, must outlive sp): the writers' set hashes, and the identity
 * cache (sync/identity/idcache.h) that keeps the space host and the author keys, so that a
 * fetch within its lifetime asks no DID document.
 */
void ss_space_perm_set_state(ss_space *sp, ss_state *st);

#endif
