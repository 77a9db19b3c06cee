/* recover.c: finishing what killed runs left, in the order recover.h gives. */
#include "sync/recover.h"

#include <string.h>

#include "core/git/commit.h"
#include "core/git/merge.h"
#include "sync/fetch.h"
#include "sync/push.h"

/* The tracking ref's commit; zero when there is none. */
static int tracking(ss_repo *repo, ss_oid *out, ss_error *err)
{
	int ret = ss_commit_read_ref(repo, SS_REPO_TRACKING_REF, out, err);

	if (ret < 0 && err->code == SS_ENOTFOUND) {
		ss_oid_clear(out);
		return 0;
	}
	return ret;
}

int ss_recover_clone(ss_repo *repo, ss_state *st, ss_space *sp, ss_recovered *out, ss_error *err)
{
	ss_recovered r;
	ss_oid before, after;
	int ret;

	memset(&r, 0, sizeof(r));
	if ((ret = ss_merge_recover(repo, &r.merge, err)) < 0 ||
	    (sp && (ret = ss_push_recover(repo, st, sp, &r.push, err)) < 0) ||
	    (ret = ss_push_conclude(repo, st, NULL, err)) < 0 ||
	    (ret = tracking(repo, &before, err)) < 0 ||
	    (ret = ss_fetch_recover(repo, st, err)) < 0 || (ret = tracking(repo, &after, err)) < 0)
		goto out;
	r.fetch = !ss_oid_equal(&before, &after);
out:
	if (out)
		*out = r;
	return ret < 0 && err->code < 0 ? err->code : ret;
}
