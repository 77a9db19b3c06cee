/*
 * space_perm_priv.h: what the permissioned-space transport's files share (sync/space/space_perm.c:
 * heads; sync/space/space_perm_list.c: listings; sync/space/space_perm_apply.c: writes).
 */
#ifndef SS_SPACE_PERM_PRIV_H
#define SS_SPACE_PERM_PRIV_H

#include "core/atproto/lthash.h"
#include "sync/identity/idcache.h"
#include "sync/space/space_cred.h"
#include "sync/space/space_perm.h"
#include "sync/space/space_proto.h"
#include "sync/transport/space_impl.h"

typedef struct perm_writer {
	char *did;
	char *handle; /* NULL when unknown */
	char *pds;    /* NULL until resolved */
	char *rev;    /* listRepos's revision and set hash (base64), NULL when not listed */
	char *hash;
} perm_writer;

typedef struct perm_space {
	ss_space base;
	ss_http *http;
	ss_xrpc *mine; /* my session, or NULL */
	char *uri;
	char *authority;
	ss_space_cred *cred;
	char *my_rev;    /* my repo's revision as the state knows it (then as this run wrote it) */
	ss_state *st;    /* where a space host found in the DID document is kept, or NULL */
	ss_idcache *ids; /* the writers' keys (sync/identity/idcache.h), kept in st */
	perm_writer *writers;
	size_t nwriters, alloc;
} perm_space;

/* The writer did (added, unresolved, when unknown). */
perm_writer *ss_space_perm__writer(perm_space *ps, const char *did);
/* Its PDS, resolving it (and its handle) on first need. */
int ss_space_perm__pds(perm_space *ps, perm_writer *w, ss_error *err);
/* The handle when known, else the DID. */
const char *ss_space_perm__who(const perm_writer *w);

/* A writer's verified set hash, to keep once what it vouches for was taken in. */
typedef struct ss_space_kept {
	char rev[SS_SPACE_REV_MAX + 1];
	ss_lthash h;
} ss_space_kept;

/*
 * Verification (sync/space/space_verify.c) of what a listing of wr saw, against the set hash kept
 * in the state (core/state/state_space.h): ops since `since` (body: the last page, with the signed
 * commit) are folded into the kept LtHash, and the commit's MAC and hash must match, its
 * signature check out, and its revision be above wr's highest verified one (or be that very
 * commit: core/state/state_floor.h), which then rises to it; the new set hash goes to *out, for
 * ss_space_verify__keep once the records it vouches for were taken in (a refused fold or
 * record never moves the kept position). Otherwise SS_EINVALID with why (the kept state is
 * dropped, the floor stays) and the caller reads the writer in full (getRepo); *caught true
 * when what the host sent failed a check no honest answer fails (the MAC, the signature, a
 * commit below the floor: docs/SECURITY.md), false when the ops could not be folded (no kept
 * set hash, a compacted log). Without a state (ps->st NULL) nothing is checked: 0, *out
 * untouched.
 */
int ss_space_verify__ops(perm_space *ps, const perm_writer *wr, const char *since,
                         const ss_space_op *ops, size_t n, const ss_buf *body, ss_space_kept *out,
                         bool *caught, ss_error *err);
/* Keeps k as wr's set hash (nothing without a state); on failure it is dropped: -1. */
int ss_space_verify__keep(perm_space *ps, const perm_writer *wr, const ss_space_kept *k);
/*
 * The whole repo of wr as getRepo gave it (car, read by sync/space/space_proto.h): the LtHash of
 * every index entry (every collection) must give the signed commit's hash, the CAR must hold
 * the block of every skill record, the commit's MAC and its signature by wr's #atproto key
 * (fetched again once when it fails) must check out, and its revision must not be below wr's
 * highest verified one (core/state/state_floor.h; the revisions the host lists are never taken).
 * Then the floor rises to it and the set hash is kept in the state; otherwise SS_EINVALID
 * saying what failed, and the kept set hash is dropped (the floor stays).
 */
int ss_space_verify__car(perm_space *ps, const perm_writer *wr, const ss_space_repo_car *car,
                         ss_error *err);

int ss_space_perm__list(ss_space *sp, const ss_space_want *wants, size_t n,
                        const ss_space_listener *l, ss_error *err);
int ss_space_perm__apply(ss_space *sp, const ss_space_write *writes, size_t n,
                         const char *swap_commit, ss_space_applied *out, ss_error *err);

#endif
