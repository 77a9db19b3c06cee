/*
 * pull_run.h (cmd/): what `fetch` and `pull` share: one run under the clone's lock, printed as
 * text or JSON. cmd/cmd_fetch.c and cmd/cmd_pull.c are its two faces; cmd/pull_print.c prints.
 */
#ifndef SS_CMD_PULL_RUN_H
#define SS_CMD_PULL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "sync/pull.h"
#include "sync/recover.h"

typedef struct cli_pull_skip {
	char *did, *handle, *rkey, *reason;
	bool refused; /* what the server sent did not verify (sync/fetch.h) */
} cli_pull_skip;

/* What a run did, for printing. */
typedef struct cli_pull_run {
	bool merge; /* pull (else fetch) */
	bool quiet, json;
	cli_progress_line line; /* the fetch's, then the checkout's; drawn when progress is on */
	ss_recovered recovered; /* what a killed run had left */
	ss_pull_result result;
	cli_pull_skip *skips; /* invalid records reported by the fetch */
	size_t nskips, skips_alloc;
	uint64_t requests;    /* HTTP requests sent */
	uint64_t bytes;       /* response bytes received */
	int code;             /* 0, or the SS_E* code the run stopped with */
	ss_review_items held; /* pull: the changes waiting for review after the run */
} cli_pull_run;

/* Parses the options (--ff-only for pull only), runs, prints; returns the exit code. */
int cli_pull_main(ss_ctx *ctx, int argc, char **argv, bool merge);

/* Prints what the run did (cmd/pull_print.c). Text goes to stdout, the failure to stderr. */
void cli_pull_print_text(const cli_pull_run *run, const ss_error *err);
void cli_pull_print_json(const cli_pull_run *run, const ss_error *err);
/* Whether the run changed anything worth printing under --quiet. */
bool cli_pull_changed(const cli_pull_run *run);
/* How many changes wait for review after the run (said also under --quiet). */
size_t cli_pull_waiting(const cli_pull_run *run);

#endif
