/*
 * idcache.h: the one identity cache both transports use: what each account's DID
 * document said (its PDS, the space host for an authority, the #atproto key its commits are
 * signed with, the verified handle) kept in the clone's state (core/state/state_ident.h) with the
 * time it was read.
 *
 * Rules (docs/SECURITY.md says why):
 *  - an entry younger than SS_IDENTITY_TTL_S is the answer: no request;
 *  - an older one (or none) is read again from the DID document, once per run and DID;
 *  - a signature that fails with the kept key, or a request to the kept PDS or space host that
 *    fails as if the account had moved, reads the document again at once (once per run);
 *  - a key read that differs from the kept one keeps the kept one as the previous key, so that
 *    a commit still signed by it is reported as such ("signed by the previous key"), not as
 *    tampering; it is refused all the same (its versions wait for the current key).
 * Without a state (a command outside a clone) the cache lives for the run only.
 */
#ifndef SS_IDCACHE_H
#define SS_IDCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/multikey.h"
#include "core/state/state.h"
#include "core/state/state_ident.h"
#include "core/util/error.h"
#include "sync/net/http.h"

/* How long what a DID document said is trusted without reading it again (1 hour). */
#define SS_IDENTITY_TTL_S 3600

typedef struct ss_idcache ss_idcache;

/* st may be NULL (nothing kept beyond the run); both are borrowed for the cache's life. */
ss_idcache *ss_idcache_new(ss_http *http, ss_state *st);
void ss_idcache_free(ss_idcache *c);

/* Requests made so far (DID documents and key histories read). */
size_t ss_idcache_requests(const ss_idcache *c);

/*
 * did's identity (*out: the caller's, ss_state_ident_release): the kept one while fresh, else
 * (or with fresh, unless already read this run) its DID document read now. read_now (may be
 * NULL) says which.
 */
int ss_idcache_get(ss_idcache *c, const char *did, bool fresh, ss_state_ident *out, bool *read_now,
                   ss_error *err);

/*
 * Keeps what doc, did's DID document read just now by a resolution that verified handle
 * (sync/identity/identity.h: ss_identity.doc), says, as if this cache had read it: no second read
 * of it for the key. Best effort: a document it cannot use is read again when it is needed.
 */
void ss_idcache_keep_doc(ss_idcache *c, const char *did, const char *handle, const char *doc);

/*
 * Reads at once (one request each, in parallel) the documents of those of the n DIDs that
 * ss_idcache_get would read now (not read this run, nothing fresh kept), so that the gets
 * that follow, one member after the other, find them read: one round trip instead of one per
 * member. Best effort: a document that cannot be read or used is left to ss_idcache_get,
 * which reads it again and says why. Fewer than two to read: nothing done.
 */
void ss_idcache_prefetch(ss_idcache *c, const char *const *dids, size_t n);

/*
 * Keeps a handle verified elsewhere (sync/identity/identity.h resolves it both ways) for did, with
 * the PDS that resolution found; NULL arguments keep what was kept.
 */
void ss_idcache_note(ss_idcache *c, const char *did, const char *handle, const char *pds);

/*
 * After a request to did's repo at pds failed with code: when it failed as if the repo had
 * moved (SS_ENETWORK: its PDS unreachable; SS_ENOTFOUND: not holding the repo), did's document
 * is read again (once per run) and the PDS it names now is returned (malloc'd) when it is
 * another one; else NULL.
 */
char *ss_idcache_moved_pds(ss_idcache *c, const char *did, const char *pds, int code);

/* A check of a signature with one key: 0 when pk made it, else < 0 with err set. */
typedef int (*ss_idcache_check_fn)(const ss_pubkey *pk, void *arg, ss_error *err);

/*
 * check with did's #atproto key: the kept key while fresh; on failure (or stale) the key its
 * document names now. When only a previous key of did makes it: SS_EINVALID saying "signed by
 * the previous key"; when none does: SS_EINVALID saying the signature does not match.
 */
int ss_idcache_verify(ss_idcache *c, const char *did, ss_idcache_check_fn check, void *arg,
                      ss_error *err);

#endif
