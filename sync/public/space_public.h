/*
 * space_public.h: the public-repos transport: a space is the authority's repo plus the listed
 * members' repos, each a public ATProto repo holding garden.engram.skill records.
 *
 * heads: com.atproto.sync.getLatestCommit per member (concurrently); list: the member's repo
 * as a CAR (com.atproto.sync.getRepo, since the last revision when the cache holds its tree),
 * members in flight at once over one shared connection cache, each checked against its signed
 * commit before a record is believed (sync/public/verify.h); apply:
 * com.atproto.repo.applyWrites on my PDS guarded by swapCommit, split by 200 writes and
 * 1,000,000 bytes (sync/net/xrpc_repo.h).
 */
#ifndef SS_SPACE_PUBLIC_H
#define SS_SPACE_PUBLIC_H

#include <stddef.h>

#include "core/state/state.h"
#include "core/util/error.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/transport/space.h"

/* A member, already resolved (identity.h): where its repo lives. */
typedef struct ss_space_public_member {
	const char *did;
	const char *handle; /* may be NULL */
	const char *pds;
} ss_space_public_member;

/*
 * A space over members (copied; duplicates are ignored). http is borrowed and must outlive
 * the space. mine (NULL: read-only) is an authenticated client for my PDS, owned by the space
 * from now on (also on failure); me_did is my DID (copied).
 */
int ss_space_public_new(ss_space **out, ss_http *http, ss_xrpc *mine, const char *me_did,
                        const ss_space_public_member *members, size_t n, ss_error *err);

/*
 * Where the space keeps each member's last verified tree (a directory made when first needed;
 * NULL: none, then every listing is a full one) and the state whose identity cache holds their
 * signing keys (sync/identity/idcache.h; NULL: read fresh each run). sp must be a public
 * space.
 */
void ss_space_public_set_cache(ss_space *sp, const char *dir, ss_state *st);

#endif
