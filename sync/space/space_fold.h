/*
 * space_fold.h: a space writer's listRepoOps answer checked as far as it can be without the
 * network or the state: its ops folded into the set hash the clone kept for the writer, and
 * the last page's signed commit read and held against them: the last op's revision, the MAC
 * (which binds the hash to the commit) and the set hash. The author's signature (a key from
 * the writer's DID document) and what the state keeps are the caller's (sync/space/space_verify.c).
 *
 * Rules: pure (no I/O, no state), so that it is fuzzed as it runs (tests/fuzz/space_ops.c);
 * the ops are those of sync/space/space_proto.h (each already of the right shape, but nothing is
 * assumed of them here: an op that names no record is refused).
 */
#ifndef SS_SPACE_FOLD_H
#define SS_SPACE_FOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/lthash.h"
#include "core/atproto/space_commit.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/space/space_proto.h"

/*
 * Folds ops (n, from the revision since: for the messages) into *h, reads the signed commit of
 * body (the last page's answer) into *c and checks it against them: its revision is the last
 * op's, its MAC for (space, writer), its hash the folded one. SS_EINVALID saying what fails
 * (*h then folded as far as it went, *c as read), with *forged true when it is the MAC: the
 * commit was not made for that hash, which no honest host sends (a compacted log, no commit or
 * a hash that does not match are what an honest host may send: forged false).
 */
int ss_space_fold_ops(const char *space, const char *writer, const char *since, ss_lthash *h,
                      const ss_space_op *ops, size_t n, const ss_buf *body, ss_space_commit *c,
                      bool *forged, ss_error *err);

#endif
