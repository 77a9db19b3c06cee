/*
 * space_cred.h: the space credential of one run, and the requests signed with it.
 *
 * Minting: a delegation token from my PDS with my session (getDelegationToken), exchanged at
 * the space host (the authority's `#atproto_space_host` service, else its PDS) for a
 * credential, the exchange signed with a P-256 key made for this run. The credential is kept
 * in memory only, renewed before it expires (sync/space/space_proto.h's margin, or half its life
 * when that is shorter) and once more when a request is refused with a 401; the key is made
 * once per run and never written anywhere. Secrets are wiped when freed (core/util/secret.h) and
 * never reach a message, argv, a file or a child process.
 */
#ifndef SS_SPACE_CRED_H
#define SS_SPACE_CRED_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/identity/idcache.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"

typedef struct ss_space_cred ss_space_cred;

/*
 * For the space (its URI) of authority (a DID), minting with mine (my session's client,
 * borrowed; NULL: none, and every request fails with SS_EAUTH saying to sign in). http is
 * borrowed. Nothing is sent before the first request.
 */
int ss_space_cred_new(ss_space_cred **out, ss_http *http, ss_xrpc *mine, const char *space,
                      const char *authority, ss_error *err);
void ss_space_cred_free(ss_space_cred *c);

/*
 * The space host's URL: the authority's #atproto_space_host (else its PDS) through the identity
 * cache ids (sync/identity/idcache.h; borrowed; NULL: its DID document read once per run):
 * the kept host while fresh, so that a fetch costs no identity request, and the DID document read
 * again once when the kept host cannot be reached.
 */
void ss_space_cred_use_ids(ss_space_cred *c, ss_idcache *ids);
int ss_space_cred_host(ss_space_cred *c, const char **host, ss_error *err);

/* A signed GET of nsid at service (a base URL; NULL: the space host) for audience (a DID), as
 * ss_space_proto_get, renewing the credential as said above. */
int ss_space_cred_get(ss_space_cred *c, const char *service, const char *nsid,
                      const char *const *params, const char *audience, ss_buf *body, ss_error *err);

/* How many credentials this run minted (for --json and the tests). */
size_t ss_space_cred_minted(const ss_space_cred *c);

#endif
