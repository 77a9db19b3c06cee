/*
 * state_member.h: the members table of the local state (core/state/state_member.c): who writes in
 * the space, by DID, with its handle, its PDS, its role and the repo commit whose records the
 * state holds.
 *
 * Rules: the members are mirrored in <gitdir>/skillsync/members (core/state/state_mirror.c) at
 * every change, so that a damaged state can be rebuilt; a member removed takes its records and
 * its verified revision with it. The struct's strings are const so that callers can fill it
 * with borrowed text; a member the state hands out is the caller's (release it).
 */
#ifndef SS_STATE_MEMBER_H
#define SS_STATE_MEMBER_H

#include <stddef.h>

#include "core/state/state.h"
#include "core/util/error.h"

typedef enum ss_state_role {
	SS_ROLE_MEMBER = 0, /* listed with --member / `members add` */
	SS_ROLE_AUTHORITY,  /* the space's owner */
	SS_ROLE_ME,         /* the signed-in account, when not listed otherwise */
} ss_state_role;

typedef struct ss_state_member {
	const char *did;
	const char *handle; /* NULL when unknown */
	const char *pds;    /* service URL; NULL when not resolved yet */
	const char *commit; /* the repo commit CID whose records are in the state; NULL: never */
	const char *rev;    /* that commit's revision; NULL: never listed */
	ss_state_role role;
} ss_state_member;

void ss_state_member_release(ss_state_member *m);

/* Inserts or replaces a member (its records stay). */
int ss_state_member_put(ss_state *st, const ss_state_member *m, ss_error *err);
/* SS_ENOTFOUND when did is not a member. */
int ss_state_member_get(ss_state *st, const char *did, ss_state_member *out, ss_error *err);
/* Removes a member, all its records and its verified revision (core/state/state_floor.h: a member
 * added again starts fresh); a missing member is fine. */
int ss_state_member_remove(ss_state *st, const char *did, ss_error *err);
/* Records that the state now holds the member's records as of commit/rev. */
int ss_state_member_set_head(ss_state *st, const char *did, const char *commit, const char *rev,
                             ss_error *err);
/* All members, ordered by DID; *out is an array of *n members (ss_state_members_free). */
int ss_state_members_list(ss_state *st, ss_state_member **out, size_t *n, ss_error *err);
void ss_state_members_free(ss_state_member *members, size_t n);

#endif
