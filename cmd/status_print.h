/*
 * status_print.h (cmd/): what `status` found, shared by cmd/cmd_status.c (which gathers it) and
 * cmd/status_print.c (which prints it as text or JSON).
 */
#ifndef SS_CMD_STATUS_PRINT_H
#define SS_CMD_STATUS_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cmd.h"
#include "core/diff/outgoing.h"
#include "core/git/commit.h"
#include "core/git/worktree.h"
#include "core/util/buf.h"

typedef struct cli_status_run {
	ss_ctx *ctx;
	bool json;
	bool interrupted; /* a pull was killed midway while it updated the files */
	ss_buf blocked;   /* interrupted: why it cannot finish by itself (a path of the person's) */
	char **pull;      /* interrupted: the paths holding the pull's own content (merge.h) */
	size_t npull;
	ss_status s;      /* the person's changes; s.apart: the pull's paths that show as changed */
	ss_outgoing *out; /* what push would send; NULL before the first commit */
	ss_commit_list ahead; /* commits not yet pushed (merges left out when printing) */
	size_t behind;        /* tracking commits main has not merged (nor the waiting merge) */
	size_t nconflicts;    /* conflicted paths, all entries together */
	ss_buf notices;       /* one line each */
	ss_buf invalid;       /* one line per problem */
	size_t ninvalid;
	cli_member_list members;
	size_t waiting; /* changes held for review, not rejected (sync/review.h) */
	char **pinned;  /* the pinned skills */
	size_t npinned, pinned_alloc;
} cli_status_run;

void cli_status_print_text(const cli_status_run *r);
void cli_status_print_json(const cli_status_run *r);

#endif
