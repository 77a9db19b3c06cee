/* space_open.c: the space a clone follows, built from its local state. */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "sync/session.h"
#include "sync/space.h"
#include "sync/space_public.h"

int ss_space_open(ss_space **out, ss_http *http, ss_state *st, bool for_writing, ss_error *err)
{
	ss_state_member *members = NULL;
	ss_space_public_member *pm = NULL;
	const char *me = ss_state_me(st);
	char *transport = NULL;
	ss_xrpc *mine = NULL;
	size_t n = 0, np = 0;
	int rc, ret = -1;

	rc = ss_state_config_get(st, "transport", &transport, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		goto out;
	if (transport && strcmp(transport, "public")) {
		ss_error_set(err, SS_EINVALID, "unknown space transport '%s' in the local state",
		             transport);
		goto out;
	}
	if (me) {
		rc = ss_session_open(http, me, &mine, NULL, err);
		if (rc < 0 && (for_writing || err->code != SS_EAUTH))
			goto out;
	} else if (for_writing) {
		ss_space_read_only(err);
		goto out;
	}
	if (ss_state_members_list(st, &members, &n, err) < 0)
		goto out;
	pm = ss_xcalloc(n ? n : 1, sizeof(*pm));
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
		np++;
	}
	ret = ss_space_public_new(out, http, mine, me, pm, np, err);
	mine = NULL; /* the space owns it now, also on failure */
out:
	ss_xrpc_free(mine);
	ss_state_members_free(members, n);
	free(pm);
	free(transport);
	return ret;
}
