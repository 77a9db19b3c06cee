/*
 * space_proto.h: every detail of the permissioned-space protocol (com.atproto.space.*) that
 * skillsync follows, in one module, so that the next alpha of the protocol changes this file:
 * method names, header names, the signature base, token types, audiences, the credential's
 * renewal margin, the error names that mean "get a new credential", the URI form, and the
 * shapes of the answers (listRepos is read in both its August and its October form).
 *
 * Version followed: the spaces alpha of 1 October 2026 (signed HTTP headers instead of DPoP,
 * listRepos entries {did, repoRev, hash, spaceRev}); see docs/SPACES.md.
 *
 * Rules: nothing here keeps a secret beyond the call (header lines that carry the credential
 * or the delegation token are wiped by ss_space_proto_lines_free); answers are parsed with
 * every size bounded by the HTTP layer's cap; strings handed out are malloc'd.
 */
#ifndef SS_SPACE_PROTO_H
#define SS_SPACE_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/car.h"
#include "core/atproto/cid.h"
#include "core/atproto/p256.h"
#include "core/atproto/space_commit.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/xrpc.h"

#define SS_SPACE_PROTO_VERSION "spaces alpha of 2026-10-01 (signed HTTP headers)"

#define SS_SPACE_NSID_DELEGATION "com.atproto.space.getDelegationToken"
#define SS_SPACE_NSID_CREDENTIAL "com.atproto.space.getSpaceCredential"
#define SS_SPACE_NSID_LIST_REPOS "com.atproto.space.listRepos"
#define SS_SPACE_NSID_LIST_OPS   "com.atproto.space.listRepoOps"
#define SS_SPACE_NSID_GET_RECORD "com.atproto.space.getRecord"
#define SS_SPACE_NSID_LATEST     "com.atproto.space.getLatestCommit"
#define SS_SPACE_NSID_APPLY      "com.atproto.space.applyWrites"
#define SS_SPACE_NSID_GET_REPO   "com.atproto.space.getRepo"
#define SS_SPACE_NSID_GET_BLOB   "com.atproto.space.getBlob"

/* The credential is renewed when it expires within this many seconds. */
#define SS_SPACE_RENEW_MARGIN_S 90
/* Page sizes asked for (the lexicons' maximum for listRepos and listRepoOps). */
#define SS_SPACE_REPOS_LIMIT "1000"
#define SS_SPACE_OPS_LIMIT   "1000"
/* Pages of listRepos or listRepoOps one listing may take (a cursor loop ends there). */
#define SS_SPACE_MAX_PAGES 10000

/* ---- URIs: at://<authority DID>/space/<space type>/<skey> (parsed by sync/space/space_admin.h)
 * ---- */

/* The URI text (malloc'd) of authority (a DID), type and skey. */
char *ss_space_uri_format(const char *authority, const char *type, const char *skey);

/* ---- which alpha a URI or a host speaks (sync/space/space_proto_alpha.c) ---- */

/* The alpha skillsync speaks, as describeServer's spacesAlpha would name it. */
#define SS_SPACE_PROTO_ALPHA "2026-10-01"

/* How a text names a permissioned space, by the alpha whose spelling it is. */
typedef enum ss_space_uri_form {
	SS_SPACE_URI_OTHER = 0, /* not a space URI: a handle, a DID, anything else */
	SS_SPACE_URI_OURS,  /* at://...: the 2026-10-01 form, at://<authority>/space/<type>/<key> */
	SS_SPACE_URI_NEWER, /* at:space/<did>/<type>/<key> or ats://<did>/<type>/<key> */
} ss_space_uri_form;

/* The form of s (the scheme's case ignored, as URI schemes are); pure. */
ss_space_uri_form ss_space_proto_uri_form(const char *s);

/* SS_EINVALID with the one line for s, a space URI of a newer alpha: which protocol it is
 * and which one skillsync speaks. */
int ss_space_proto_newer_uri(const char *s, ss_error *err);

/* Whether a non-2xx answer (status, its XRPC error name or NULL) is the unknown-method error
 * of an XRPC server (501 MethodNotImplemented); pure. */
bool ss_space_proto_unknown_method(long status, const char *error_name);

/* When a non-2xx answer of nsid at service (status, body) is the unknown-method error, err
 * becomes the line saying the server speaks a newer alpha (or none) and which one skillsync
 * speaks (SS_EINVALID); else err stays. Returns err->code. */
int ss_space_proto_alpha_unknown(const char *service, const char *nsid, long status,
                                 const ss_buf *body, ss_error *err);

/* Whether a 2xx answer of nsid has the shape of a newer alpha rather than 2026-10-01's
 * (listRepos answering "writers", as listWriters would, and no "repos"); pure. */
bool ss_space_proto_newer_shape(const char *nsid, const ss_buf *body);

/* The alpha a describeServer answer names in spacesAlpha (malloc'd), or NULL; pure. */
char *ss_space_proto_alpha_of(const ss_buf *body);

/*
 * After a call of nsid to the space host failed with err (an answer of the wrong shape, an
 * unknown method: SS_ERROR or SS_EINVALID; other codes are left as they are): when the host's
 * describeServer names another alpha in spacesAlpha, or body (the 2xx answer that did not
 * read, or NULL) has a newer alpha's shape, err becomes one line naming the host, the alpha it
 * speaks and the one skillsync speaks (SS_EINVALID). Asks describeServer once, without
 * credentials; its failure leaves err as it was. Returns err->code.
 */
int ss_space_proto_alpha_explain(ss_http *http, const char *host, const char *nsid,
                                 const ss_buf *body, ss_error *err);

/* ---- signing (HTTP message signatures, label "atproto-space") ---- */

/* The Signature-Input's inner list: ("authorization"[ "atproto-space-audience"]) with keyid
 * and alg, in the canonical form the verifier rebuilds. */
void ss_space_proto_sig_params(ss_buf *out, bool with_audience, const char *keyid);
/* The signature base: the covered components' lines and "@signature-params", joined by \n. */
void ss_space_proto_sig_base(ss_buf *out, const char *authorization, const char *audience,
                             const char *params);

/*
 * The header lines of a signed request (NULL-terminated; free with ss_space_proto_lines_free):
 * audience NULL is the exchange (Authorization: Bearer <token>, no audience), else a
 * credentialed request (Authorization: Atproto-Space <token>, Atproto-Space-Audience).
 */
int ss_space_proto_sign(const ss_p256_key *key, const char *keyid, const char *token,
                        const char *audience, char ***lines, ss_error *err);
void ss_space_proto_lines_free(char **lines);

/* ---- answers ---- */

/* ---- calls ---- */

/*
 * getDelegationToken on my PDS with my session (mine): *token (malloc'd, a secret). An
 * app-password session is refused by the PDS (400 InvalidToken): SS_EAUTH with one line saying
 * that reading a permissioned space needs a sign-in with the account password.
 */
int ss_space_proto_delegation(ss_xrpc *mine, const char *space, char **token, ss_error *err);

/*
 * getSpaceCredential at host, the delegation token signed with key (named keyid, its
 * did:key): *cred (malloc'd, a secret). The token is spent whatever the answer, and never
 * sent twice. On failure *again says that the same exchange with a new delegation token may
 * succeed: a 502, 503 or 504, a connection cut after the request went out (the host may have
 * spent the token), or JwtReplayed (a token the host saw already).
 */
int ss_space_proto_exchange(ss_http *http, const char *host, const ss_p256_key *key,
                            const char *keyid, const char *space, const char *token, char **cred,
                            bool *again, ss_error *err);

/*
 * A GET of nsid (params as sync/net/xrpc.h's) at service, signed with the credential for
 * audience; body gets the answer of a 2xx. Otherwise the error of ss_space_proto_error, with
 * *renew set when a new credential may cure it.
 */
int ss_space_proto_get(ss_http *http, const char *service, const char *nsid,
                       const char *const *params, const ss_p256_key *key, const char *keyid,
                       const char *cred, const char *audience, ss_buf *body, bool *renew,
                       ss_error *err);

/* A writer as listRepos names it (both forms read: rev or repoRev). */
typedef struct ss_space_repo {
	char *did;
	char *rev;  /* the writer's repo revision */
	char *hash; /* the set hash, base64 without padding, or NULL */
} ss_space_repo;
void ss_space_repos_free(ss_space_repo *r, size_t n);

/* Appends a listRepos page's entries to *repos (grown); *cursor the next cursor or NULL. */
int ss_space_proto_repos_page(const ss_buf *body, ss_space_repo **repos, size_t *n, char **cursor,
                              ss_error *err);

/* One op of listRepoOps. */
typedef struct ss_space_op {
	char *rev;
	char *collection;
	char *rkey;
	char *cid;        /* NULL: a delete */
	char *prev;       /* NULL: a create */
	char *value_json; /* the value when it is still current (JSON text), else NULL */
	size_t value_len;
} ss_space_op;
void ss_space_ops_free(ss_space_op *ops, size_t n);

/* A listRepoOps page: ops (appended), the next cursor, and the commit's rev and hash when the
 * page was the last (commit_rev NULL otherwise). */
int ss_space_proto_ops_page(const ss_buf *body, ss_space_op **ops, size_t *n, char **cursor,
                            char **commit_rev, char **commit_hash, ss_error *err);

/* One entry of getRepo's index: a record of the repo, any collection. */
typedef struct ss_space_repo_entry {
	char *collection;
	char *rkey;
	ss_cid cid;
	const unsigned char *data; /* its block, borrowed from the CAR; NULL when it holds none */
	size_t len;
} ss_space_repo_entry;

/* getRepo's answer, read (ss_space_proto_repo_car). */
typedef struct ss_space_repo_car {
	ss_space_commit commit; /* the signed commit (its checks: sync/space/space_verify.c) */
	ss_space_repo_entry *entries; /* the index, in its order */
	size_t n;
	ss_car *car;
} ss_space_repo_car;

/*
 * Reads getRepo's CAR (len bytes of data, which must outlive out): roots [commit, index];
 * every block hashing to its CID (core/atproto/car.h); the commit block a DAG-CBOR signed space
 * commit; the index block a DAG-CBOR map "<collection>/<rkey>" -> CID link, keys in DAG-CBOR
 * order; every other block a record the index names. SS_EINVALID saying what is wrong (the
 * caller names the method).
 * Nothing of the commit is checked but its shape.
 */
int ss_space_proto_repo_car(const void *data, size_t len, ss_space_repo_car *out, ss_error *err);
void ss_space_repo_car_release(ss_space_repo_car *c);

/* getRecord's cid. */
int ss_space_proto_record_cid(const ss_buf *body, char **cid, ss_error *err);

/* ---- errors ---- */

/*
 * Turns a non-2xx answer of nsid into err (sync/net/xrpc.h's codes), with one line saying what to
 * do for the errors people meet (not a member, space deleted or missing, credential revoked,
 * clock skew, an app-password session). *renew says the credential should be minted again
 * and the request sent once more.
 */
int ss_space_proto_error(const char *nsid, long status, const ss_buf *body, bool *renew,
                         ss_error *err);

#endif
