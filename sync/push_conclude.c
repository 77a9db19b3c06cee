/* push_conclude.c: main takes in the tracking commit a push made (see ss_push_conclude). */
#include <stdlib.h>
#include <string.h>

#include "core/git/commit.h"
#include "core/git/merge.h"
#include "sync/push_priv.h"

int ss_push__contains(ss_repo *repo, const ss_oid *tip, const ss_oid *commit, bool *out,
                      ss_error *err)
{
	ss_commit_list l = {0};

	*out = false;
	if (ss_commit_log(repo, tip, commit, NULL, 1, &l, err) < 0)
		return -1;
	*out = l.count == 0;
	ss_commit_list_release(&l);
	return 0;
}

/* The state's config key as an id; *found false when absent. */
static int config_oid(ss_state *st, const char *key, ss_oid *out, bool *found, ss_error *err)
{
	char *hex = NULL;
	int rc;

	*found = false;
	rc = ss_state_config_get(st, key, &hex, err);
	if (rc < 0 && err->code == SS_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	rc = ss_oid_parse(out, hex, err);
	free(hex);
	if (rc < 0)
		return rc;
	*found = true;
	return 0;
}

int ss_push_conclude(ss_repo *repo, ss_state *st, bool *concluded, ss_error *err)
{
	ss_oid tracking, pushed_tracking, pushed, head, tree, merge;
	ss_commit_opts co;
	bool have_t, have_pt, have_p, in;
	int rc;

	if (concluded)
		*concluded = false;
	have_t = ss_state_tracking(st, &tracking);
	if ((rc = config_oid(st, "pushed_tracking", &pushed_tracking, &have_pt, err)) < 0 ||
	    (rc = config_oid(st, "pushed", &pushed, &have_p, err)) < 0)
		return rc;
	if (!have_t || !have_pt || !have_p || !ss_oid_equal(&tracking, &pushed_tracking) ||
	    ss_merge_in_progress(repo))
		return 0;
	rc = ss_commit_read_ref(repo, "HEAD", &head, err);
	if (rc < 0 && err->code == SS_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	/* already in main (a pull merged it), or main no longer holds what was pushed */
	if ((rc = ss_push__contains(repo, &head, &tracking, &in, err)) < 0 || in)
		return rc;
	if ((rc = ss_push__contains(repo, &head, &pushed, &in, err)) < 0 || !in)
		return rc;
	{
		ss_oid parents[2] = {head, tracking};

		memset(&co, 0, sizeof(co));
		if ((rc = ss_commit_tree(repo, &head, &tree, err)) < 0 ||
		    (rc = ss_commit_create(repo, &co, &tree, parents, 2,
		                           "Merge the pushed records of the space\n\n"
		                           "The space now holds what this branch pushed; "
		                           "no file changes.\n",
		                           &merge, err)) < 0)
			return rc;
	}
	rc = ss_commit_update_ref(repo, SS_REPO_MAIN_REF, &merge, &head, "skillsync: push", err);
	if (rc < 0 &&
	    err->code == SS_ECONFLICT) /* main moved meanwhile (git): a later pull merges it */
		return 0;
	if (rc < 0)
		return rc;
	if (concluded)
		*concluded = true;
	return 0;
}
