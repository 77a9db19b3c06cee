/*
 * fetch_priv.h: what sync/fetch.c (listing) and sync/fetch_view.c (view and tracking
 * commit) share: the run's context.
 */
#ifndef SS_FETCH_PRIV_H
#define SS_FETCH_PRIV_H

#include "sync/fetch.h"

#include "core/state/state_member.h"

typedef struct ss_fetch_run_ctx {
	ss_repo *repo;
	ss_state *st;
	ss_space *sp;
	const ss_fetch_opts *opts;
	ss_fetch_result *res;
	ss_space_head *heads;
	size_t nheads;
	ss_state_member *members; /* for handles in messages */
	size_t nmembers;
	size_t to_list, members_done;
	bool dropped;               /* a member the transport no longer names was removed */
	const ss_space_want *wants; /* the members listed, since_rev set when incremental */
	size_t nwants;
	char **since; /* the wants' since_rev (owned) */
	char **retry; /* members with a blob that could not be had: listed in full next run */
	size_t nretry;
} ss_fetch_run_ctx;

/* The member's handle, or NULL when unknown. */
const char *ss_fetch__handle(const ss_fetch_run_ctx *f, const char *did);
/* The handle when known, else the DID. */
const char *ss_fetch__who(const ss_fetch_run_ctx *f, const char *did);

/*
 * Computes the view from the state's records, writes the tracking commit when the view
 * changed, saves the view table and commits the state's open transaction, then moves the
 * tracking ref.
 */
int ss_fetch_view__commit(ss_fetch_run_ctx *f, ss_error *err);

#endif
