/*
 * members.h: who is in the space and in which role: the one rule that `clone`, `members add`
 * and `members remove` (and a transport naming a new writer) follow, over the clone's state.
 * No network: callers resolve handles first (sync/clone.h).
 *
 * Every DID in the space has one role, the first that applies:
 *   1. the authority: the space's owner, named once by clone (config "authority");
 *   2. me: the signed-in account the clone writes as (config "me"; absent: read-only);
 *   3. a member: named with `clone --member`, `members add`, or by the transport.
 * Rules:
 *   - me may be the authority (`clone --as` the authority's account): one DID, whose role is
 *     the authority's, and config "me" names it;
 *   - naming someone who is already in the space (the authority, me, a member named before)
 *     changes nothing and is not an error: the caller learns in which role they already are;
 *   - the authority and me cannot be removed (SS_EINVALID "cannot remove '<who>': it is the
 *     space's authority" / "it is you"); one not in the space is SS_ENOTFOUND "'<who>' is not
 *     a member of this space".
 * A clone made before this rule may hold me in a member's row: config "me" decides.
 */
#ifndef SS_MEMBERS_H
#define SS_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/state/state.h"
#include "core/state/state_member.h"
#include "core/util/error.h"

/* The role in a sentence: "the space's authority", "you", "a member" (static text). */
const char *ss_members_role_text(ss_state_role role);

/*
 * Makes a new clone's space: the authority and me (NULL: a read-only clone), rows and config
 * "authority" and "me". Their did, handle and pds are used; the roles are decided here.
 */
int ss_members_init(ss_state *st, const ss_state_member *authority, const ss_state_member *me,
                    ss_error *err);

/*
 * Adds m (did, handle, pds) as a member, unless its DID is already in the space: then nothing
 * changes. *added (may be NULL) says which; *role (may be NULL) is the role it has now.
 */
int ss_members_add(ss_state *st, const ss_state_member *m, bool *added, ss_state_role *role,
                   ss_error *err);

/* Removes did (named who in the messages) with its records, by the rules above. */
int ss_members_remove(ss_state *st, const char *did, const char *who, ss_error *err);

/*
 * The DID (*did: free()) of who, a DID or a handle (a leading '@' is fine; handles compare
 * without case), among the state's members, without the network: so a member whose DID no
 * longer resolves can still be named. err->code SS_ENOTFOUND when none matches.
 */
int ss_members_find(ss_state *st, const char *who, char **did, ss_error *err);

/* All of the space, ordered by DID, each with its role by the rule (ss_state_members_free). */
int ss_members_list(ss_state *st, ss_state_member **out, size_t *n, ss_error *err);

#endif
