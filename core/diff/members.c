#include "core/diff/members.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/mem.h"

const char *ss_members_role_text(ss_state_role role)
{
	switch (role) {
	case SS_ROLE_AUTHORITY:
		return "the space's authority";
	case SS_ROLE_ME:
		return "you";
	default:
		return "a member";
	}
}

static int not_a_member(ss_error *err, const char *who)
{
	return ss_error_set(err, SS_ENOTFOUND, "'%s' is not a member of this space", who);
}

/* row's role by the rule: config "me" (me, NULL when absent) outranks a member's row. */
static ss_state_role role_by_rule(const ss_state_member *row, const char *me)
{
	if (row->role == SS_ROLE_MEMBER && me && !strcmp(me, row->did))
		return SS_ROLE_ME;
	return row->role;
}

/* did's role in *role; err->code SS_ENOTFOUND when did is not in the space. */
static int role_of(ss_state *st, const char *did, ss_state_role *role, ss_error *err)
{
	ss_state_member row;
	int rc;

	memset(&row, 0, sizeof(row));
	rc = ss_state_member_get(st, did, &row, err);
	if (rc == 0)
		*role = role_by_rule(&row, ss_state_me(st));
	ss_state_member_release(&row);
	return rc;
}

int ss_members_init(ss_state *st, const ss_state_member *authority, const ss_state_member *me,
                    ss_error *err)
{
	ss_state_member a = {authority->did, authority->handle, authority->pds, NULL,
	                     NULL,           SS_ROLE_AUTHORITY};
	int rc;

	if ((rc = ss_state_member_put(st, &a, err)) < 0 ||
	    (rc = ss_state_config_set(st, "authority", authority->did, err)) < 0 ||
	    (rc = ss_state_config_set(st, "me", me ? me->did : NULL, err)) < 0)
		return rc;
	if (me && strcmp(me->did, authority->did)) {
		ss_state_member m = {me->did, me->handle, me->pds, NULL, NULL, SS_ROLE_ME};

		return ss_state_member_put(st, &m, err);
	}
	return 0;
}

int ss_members_add(ss_state *st, const ss_state_member *m, bool *added, ss_state_role *role,
                   ss_error *err)
{
	ss_state_member row = {m->did, m->handle, m->pds, NULL, NULL, SS_ROLE_MEMBER};
	ss_state_role now = SS_ROLE_MEMBER;
	int rc = role_of(st, m->did, &now, err);
	bool is_new = rc < 0 && err->code == SS_ENOTFOUND;

	if (is_new) {
		ss_error_clear(err);
		rc = ss_state_member_put(st, &row, err);
	}
	if (rc < 0)
		return rc;
	if (added)
		*added = is_new;
	if (role)
		*role = now;
	return 0;
}

int ss_members_remove(ss_state *st, const char *did, const char *who, ss_error *err)
{
	ss_state_role role;
	int rc = role_of(st, did, &role, err);

	if (rc < 0 && err->code == SS_ENOTFOUND)
		return not_a_member(err, who);
	if (rc < 0)
		return rc;
	if (role != SS_ROLE_MEMBER)
		return ss_error_set(err, SS_EINVALID, "cannot remove '%s': it is %s", who,
		                    ss_members_role_text(role));
	return ss_state_member_remove(st, did, err);
}

int ss_members_find(ss_state *st, const char *who, char **did, ss_error *err)
{
	ss_state_member *list = NULL;
	const char *name = who[0] == '@' ? who + 1 : who;
	size_t n = 0;
	int rc = ss_state_members_list(st, &list, &n, err);

	if (rc < 0)
		return rc;
	rc = SS_ENOTFOUND;
	for (size_t i = 0; i < n && rc; i++)
		if (!strcmp(list[i].did, name) ||
		    (list[i].handle && !strcasecmp(list[i].handle, name))) {
			*did = ss_xstrdup(list[i].did);
			rc = 0;
		}
	ss_state_members_free(list, n);
	return rc ? not_a_member(err, who) : 0;
}

int ss_members_list(ss_state *st, ss_state_member **out, size_t *n, ss_error *err)
{
	int rc = ss_state_members_list(st, out, n, err);

	for (size_t i = 0; rc == 0 && i < *n; i++)
		(*out)[i].role = role_by_rule(&(*out)[i], ss_state_me(st));
	return rc;
}
