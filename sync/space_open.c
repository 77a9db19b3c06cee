/* space_open.c: the space a clone follows, built from its local state. */
#include <stdlib.h>
#include <string.h>

#include "core/state/state_ident.h"
#include "core/state/state_member.h"
#include "core/util/mem.h"
#include "sync/identity/session.h"
#include "sync/public/space_public.h"
#include "sync/public/verify.h"
#include "sync/space/space_perm.h"
#include "sync/transport/space.h"

/* Whether a session for did is stored (signed in, even if it may have ended since). */
static bool session_stored(const char *did)
{
	ss_session_info *list = NULL;
	size_t n = 0;
	bool found = false;
	ss_error ignored;

	if (ss_session_list(&list, &n, &ignored) < 0)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = !strcmp(list[i].did, did);
	ss_session_list_free(list, n);
	return found;
}

/* No session for me: the line names my handle (from the state) rather than only my DID. */
static int not_signed_in(ss_state *st, const char *me, ss_error *err)
{
	ss_state_member m;
	const char *who;
	int ret;

	memset(&m, 0, sizeof(m));
	if (ss_state_member_get(st, me, &m, err) < 0)
		m.handle = NULL;
	who = m.handle ? m.handle : me;
	ret = ss_error_set(err, SS_EAUTH, "not signed in as '%s' (run 'skillsync login %s')", who,
	                   who);
	ss_state_member_release(&m);
	return ret;
}

/* The permissioned space of config "space", the state's members as the writers known. */
static int open_perm(ss_space **out, ss_http *http, ss_state *st, ss_xrpc *mine,
                     const ss_state_member *members, size_t n, ss_error *err)
{
	ss_space_perm_writer *known = ss_xcalloc(n ? n : 1, sizeof(*known));
	ss_state_ident *ids = ss_xcalloc(n ? n : 1, sizeof(*ids));
	const char *authority = ss_state_authority(st);
	char *uri = NULL;
	ss_error ignored;
	int ret;

	for (size_t i = 0; i < n; i++) {
		known[i] = (ss_space_perm_writer){members[i].did, members[i].handle, members[i].pds,
		                                  members[i].rev};
		/* where the identity cache last found it, when it did (a PDS move) */
		if (ss_state_ident_get(st, members[i].did, &ids[i], &ignored) == 0 && ids[i].pds)
			known[i].pds = ids[i].pds;
	}
	ret = ss_state_config_get(st, "space", &uri, err);
	if (ret < 0 || !authority) {
		ss_xrpc_free(mine);
		if (ret == 0)
			ret = ss_error_set(err, SS_EINVALID, "the local state names no authority");
		else
			ss_error_prefix(err, "the local state names no space URI");
	} else {
		ret = ss_space_perm_new(out, http, mine, ss_state_me(st), uri, authority, known, n,
		                        err);
		if (ret == 0)
			ss_space_perm_set_state(*out, st);
	}
	free(uri);
	free(known);
	for (size_t i = 0; i < n; i++)
		ss_state_ident_release(&ids[i]);
	free(ids);
	return ret;
}

int ss_space_open(ss_space **out, ss_http *http, ss_state *st, bool for_writing, ss_error *err)
{
	ss_state_member *members = NULL;
	ss_space_public_member *pm = NULL;
	ss_state_ident *ids = NULL;
	ss_error ignored;
	const char *me = ss_state_me(st);
	char *transport = NULL;
	ss_xrpc *mine = NULL;
	size_t n = 0, np = 0;
	int rc, ret = -1;

	rc = ss_state_config_get(st, "transport", &transport, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		goto out;
	if (transport && strcmp(transport, "public") && strcmp(transport, "space")) {
		ss_error_set(err, SS_EINVALID, "unknown space transport '%s' in the local state",
		             transport);
		goto out;
	}
	if (me) {
		rc = ss_session_open(http, me, &mine, NULL, err);
		if (rc < 0 && err->code == SS_EAUTH && for_writing && !session_stored(me))
			not_signed_in(st, me, err);
		if (rc < 0 && (for_writing || err->code != SS_EAUTH))
			goto out;
	} else if (for_writing) {
		ss_space_read_only(err);
		goto out;
	}
	if (ss_state_members_list(st, &members, &n, err) < 0)
		goto out;
	if (transport && !strcmp(transport, "space")) {
		ret = open_perm(out, http, st, mine, members, n, err);
		mine = NULL; /* the space owns it now, also on failure */
		goto out;
	}
	pm = ss_xcalloc(n ? n : 1, sizeof(*pm));
	ids = ss_xcalloc(n ? n : 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++) {
		if (!members[i].pds) {
			ss_error_set(err, SS_EINVALID,
			             "member '%s' has no known PDS in the local state",
			             members[i].did);
			goto out;
		}
		pm[np].did = members[i].did;
		pm[np].handle = members[i].handle;
		pm[np].pds = members[i].pds;
		/* where the identity cache last found it, when it did (a PDS move) */
		if (ss_state_ident_get(st, members[i].did, &ids[np], &ignored) == 0 && ids[np].pds)
			pm[np].pds = ids[np].pds;
		np++;
	}
	ret = ss_space_public_new(out, http, mine, me, pm, np, err);
	mine = NULL; /* the space owns it now, also on failure */
	if (ret == 0) {
		ss_buf dir = SS_BUF_INIT;

		ss_verify_cache_dir(&dir, ss_state_path(st));
		ss_space_public_set_cache(*out, dir.ptr, st);
		ss_buf_release(&dir);
	}
out:
	ss_xrpc_free(mine);
	ss_state_members_free(members, n);
	for (size_t i = 0; ids && i < np; i++)
		ss_state_ident_release(&ids[i]);
	free(ids);
	free(pm);
	free(transport);
	return ret;
}
