/* push_preview.c: what a push would send, read-only (see ss_push_preview). */
#include <stdlib.h>
#include <string.h>

#include "core/git/commit.h"
#include "sync/push_priv.h"

void ss_push_plan_release(ss_push_plan *p)
{
	if (!p)
		return;
	ss_outgoing_free(p->outgoing);
	memset(p, 0, sizeof(*p));
}

int ss_push_preview(ss_repo *repo, ss_state *st, int64_t now_ms, unsigned flags, ss_push_plan *out,
                    ss_error *err)
{
	bool in = true;
	char *rebuilt = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	/* A rebuilt state knows none of the records: a push would have nothing to diff against. */
	rc = ss_state_config_get(st, "rebuilt", &rebuilt, err);
	free(rebuilt);
	if (rc == 0)
		return ss_error_set(err, SS_ECONFLICT,
		                    "the local state was rebuilt and lists no records yet: nothing "
		                    "can be pushed; run 'skillsync pull' first");
	if (err->code != SS_ENOTFOUND)
		return rc;
	ss_error_clear(err);
	out->me = ss_state_me(st);
	ss_state_tracking(st, &out->tracking);
	if ((rc = ss_commit_read_ref(repo, "HEAD", &out->head, err)) < 0)
		return err->code == SS_ENOTFOUND
		           ? ss_error_set(err, SS_EINVALID, "nothing committed yet")
		           : rc;
	if (!ss_oid_is_zero(&out->tracking) &&
	    (rc = ss_push__contains(repo, &out->head, &out->tracking, &in, err)) < 0)
		return rc;
	if (!in) /* HEAD against a view it has not merged would undo the others' changes */
		return ss_error_set(err, SS_ECONFLICT,
		                    "the space changed since your last pull (fetched, not merged): "
		                    "nothing can be pushed; run 'skillsync pull' first");
	return ss_outgoing_new(&out->outgoing, repo, st, out->me, &out->tracking, &out->head,
	                       now_ms, flags, err);
}
