/*
 * review_priv.h: what the review gate's runs share between their files: sync/review.c (the
 * pull's gate, review, pin) and sync/review_accept.c (accept).
 */
#ifndef SS_REVIEW_PRIV_H
#define SS_REVIEW_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/commit.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/state/state.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* One skill a commit takes in: its subtree (has false: the skill removed). */
typedef struct ss_review__take {
	char *name;
	ss_oid tree;
	bool has;
} ss_review__take;

/* hex (NULL: none) as an id; *has false for NULL. */
int ss_review__parse_opt(const char *hex, ss_oid *out, bool *has, ss_error *err);

/* "- bob.example's version of <name> (at://..., cid ...): why" (did NULL: the removal), a
 * line of a commit message. */
void ss_review__who_line(ss_buf *out, ss_state *st, const char *name, const char *did,
                         const char *cid, const char *why);

/* A commit of main's tree (head, head_tree) with the takes applied, fast-forwarded onto main
 * (merge as ss_merge_commit fills it); *out (may be NULL) the new head. */
int ss_review__take_in(ss_repo *repo, const ss_oid *head, const ss_oid *head_tree,
                       const ss_review__take *takes, size_t n, const char *message,
                       const ss_commit_opts *opts, ss_merge_result *merge, ss_oid *out,
                       ss_error *err);

#endif
