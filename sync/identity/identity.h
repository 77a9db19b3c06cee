/*
 * identity.h: who an account is and where its repo lives: handle -> DID -> PDS.
 *
 * Order for a handle: DNS TXT `_atproto.<handle>` ("did=<did>"), then
 * https://<handle>/.well-known/atproto-did, then com.atproto.identity.resolveHandle on
 * $SKILLSYNC_HANDLE_RESOLVER when set. Handles under special-use TLDs (.test, .localhost,
 * .invalid, .example, .local, .arpa, .internal, .onion, .alt) cannot resolve through public DNS or
 * https, so they go straight to the resolver (and fail when none is set).
 * A DID's document: did:plc from $SKILLSYNC_PLC_URL (default https://plc.directory), did:web
 * from https://<host>/.well-known/did.json. The PDS is the `#atproto_pds` service. When a
 * handle was given, the document's alsoKnownAs must contain at://<handle>, else SS_EINVALID.
 * Handles and DIDs are checked for syntax before they go into a URL or a DNS name.
 */
#ifndef SS_IDENTITY_H
#define SS_IDENTITY_H

#include <stdbool.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/http.h"

typedef struct ss_identity {
	char *did;
	char *handle; /* the verified handle (lowercase), or NULL when the document names none */
	char *pds;    /* the PDS base URL */
	char *doc;    /* the DID document's text as it was read (for the identity cache) */
} ss_identity;

void ss_identity_release(ss_identity *id);

/* True for handles under a special-use TLD (see above). */
bool ss_identity_is_special_handle(const char *handle);

/* handle -> DID (*did malloc'd); SS_ENOTFOUND when no method knows it. */
int ss_identity_resolve_handle(ss_http *http, const char *handle, char **did, ss_error *err);

/*
 * A handle or DID -> DID, verified handle and PDS. For a handle, the document must point back
 * to it; for a DID, the document's handle is kept only when it is a valid handle that resolves
 * back to the same DID (else handle is NULL and the DID is shown).
 */
int ss_identity_resolve(ss_http *http, const char *handle_or_did, ss_identity *out, ss_error *err);

/* The same for n names at once (8 at a time), each on a thread of its own with a client of the
 * same options as http, whose requests are added to http's counters: out[i], rcs[i] and
 * errs[i] for names[i], as ss_identity_resolve would give them. */
void ss_identity_resolve_many(ss_http *http, const char *const *names, size_t n, ss_identity *out,
                              int *rcs, ss_error *errs);

/* did's document as JSON text, appended to out, checked to be a JSON object whose id is did
 * (for what the document says beyond this module's fields: a space host, keys). */
int ss_identity_did_doc(ss_http *http, const char *did, ss_buf *out, ss_error *err);

/* The same for n DIDs at once (one request each, in parallel over http): out[i] (appended),
 * rcs[i] and errs[i] for dids[i], as ss_identity_did_doc would give them. */
void ss_identity_did_docs(ss_http *http, const char *const *dids, size_t n, ss_buf *out, int *rcs,
                          ss_error *errs);

/*
 * The #atproto keys did's PLC operation log has named, oldest first (*keys: n malloc'd
 * did:keys, ss_identity_keys_free): $SKILLSYNC_PLC_URL/<did>/log. SS_ENOTFOUND for a DID
 * without a log (did:web keeps no history).
 */
int ss_identity_past_keys(ss_http *http, const char *did, char ***keys, size_t *n, ss_error *err);
void ss_identity_keys_free(char **keys, size_t n);

#endif
