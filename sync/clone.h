/*
 * clone.h: `clone` as one run, the way libgit2 keeps git_clone in the library, and the
 * membership changes of a clone (`members add|remove`): cmd/ parses, calls and prints.
 *
 * The run:
 *   0. opts->authority may be a permissioned space's URI (at://<authority>/space/
 *      garden.engram.space/<skey>, sync/space/space_perm.h): then the writers come from the space
 *      host (no opts->members), and the state's config names transport "space" and the URI;
 *   1. the directory: opts->dir, else the authority's handle (or its DID's last part; a
 *      space's key for a space URI); one
 *      that exists and is not an empty directory is refused (SS_EEXISTS, git's words);
 *   2. the clone is built in <dir>.skillsync-partial and renamed to <dir> only when
 *      complete, so an interrupted clone never leaves a directory that looks finished. A
 *      partial directory holding the marker .git/skillsync/partial-clone (written first
 *      thing, removed just before the rename) was left by a killed clone: it is removed
 *      (waiting for its lock if another clone is building it) and the run starts over; any
 *      other is refused (SS_EEXISTS);
 *   3. me: opts->as, else the only signed-in account, else nobody (a read-only clone);
 *   4. under the new clone's lock: the state with the space's members by core/diff/members.h's
 *      rule (the authority, me, then each opts->members name), the first fetch
 *      (sync/fetch.h), main at its tracking commit, the checkout.
 * Nothing here prints: the callbacks and the result say what happened.
 */
#ifndef SS_CLONE_H
#define SS_CLONE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/state/state.h"
#include "core/state/state_member.h"
#include "core/util/error.h"
#include "sync/fetch.h"
#include "sync/net/http.h"

typedef struct ss_clone_opts {
	const char *authority;      /* a handle or DID, or a space URI (step 0) */
	const char *dir;            /* NULL: from the authority (step 1) */
	const char *const *members; /* handles or DIDs */
	size_t nmembers;
	const char *as;             /* a signed-in account's handle or DID; NULL: step 3 */
	const ss_fetch_opts *fetch; /* skipped records and progress; may be NULL */
	/* Each may be NULL; called with payload. */
	void (*removing)(void *payload, const char *partial); /* a killed clone's leftover goes */
	void (*cloning)(void *payload, const char *dir);      /* the build starts */
	/* A name in members that was already in the space (as role): nothing changed. */
	void (*kept)(void *payload, const char *who, ss_state_role role);
	/* The records are in; the checkout comes next. stats: what the clone cost on the wire. */
	void (*fetched)(void *payload, const ss_http_stats *stats);
	/* The checkout: done of total files written, from 0 up to total. */
	void (*checkout)(void *payload, size_t done, size_t total);
	void *payload;
} ss_clone_opts;

typedef struct ss_clone_result {
	char *dir;             /* the clone's directory */
	char *partial;         /* after a failed build: the partial clone left (else NULL) */
	ss_fetch_result fetch; /* the first fetch: fetch.added is the number of skills */
} ss_clone_result;

void ss_clone_result_release(ss_clone_result *r);

/*
 * Runs the steps above. SS_EEXISTS (step 1 or 2), SS_ELOCKED (a partial clone being built),
 * SS_EAUTH (--as not signed in), SS_EINVALID (several accounts signed in and no --as),
 * SS_ENETWORK and the fetch's codes. out is filled as far as the run got; release it always.
 */
int ss_clone_run(const ss_clone_opts *opts, ss_clone_result *out, ss_error *err);

/* What naming someone as a member did. */
typedef struct ss_clone_named {
	char *did;          /* who's DID */
	bool added;         /* false: already in the space; nothing changed */
	ss_state_role role; /* the role it has now */
} ss_clone_named;

void ss_clone_named_release(ss_clone_named *n);

/* Resolves who (a handle or DID) and adds it as a member by core/diff/members.h's rule. */
int ss_clone_member_add(ss_state *st, ss_http *http, const char *who, ss_clone_named *out,
                        ss_error *err);

/*
 * Removes who (a DID or handle) by core/diff/members.h's rule. The state's members are searched
 * first, without the network (a member whose DID no longer resolves can be removed); a handle
 * the state does not know is resolved.
 */
int ss_clone_member_remove(ss_state *st, ss_http *http, const char *who, ss_error *err);

#endif
