/*
 * render.h: one fetched record -> one skill subtree in git, or the reason it is refused.
 *
 * The record (JSON text, straight from the network) is decoded with the hostile-safe codec
 * (core/skill/record.h), checked against the same rules as `validate` plus "the name is the record
 * key" (core/skill/validate.h), and its files are written as blobs and trees in memory
 * (core/git/tree.h): nothing touches the working directory, so nothing a record says can write
 * outside its skill's directory; the working tree is checked out later from the tree.
 * A refused record is not an error of the call: out->valid is false and out->reason says why
 * in one line (no record key or member: the caller adds them).
 */
#ifndef SS_RENDER_H
#define SS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/atproto/cid.h"
#include "core/git/repo.h"
#include "core/util/buf.h"
#include "core/util/error.h"

struct ss_record_value;

typedef struct ss_render {
	bool valid;
	bool refused; /* invalid because a blob could not be had or did not hash to its CID */
	char *reason; /* why it is refused; NULL when valid */
	ss_oid tree;  /* the skill's subtree (valid only) */
	char *created_at, *updated_at, *note; /* from the record; NULL when absent or refused */
	int64_t updated_us;                   /* updatedAt as an instant (valid only) */
} ss_render;

void ss_render_release(ss_render *r);

/*
 * Renders the record stored under rkey. Returns 0 (valid or refused: see out->valid), or a
 * negative code when writing to the repository failed.
 */
int ss_render_record(ss_repo *repo, const char *rkey, const struct ss_record_value *value,
                     ss_render *out, ss_error *err);

/*
 * Where the bytes of a record's blob files (core/skill/record.h: blobFiles) come from. old (may
 * be NULL): the subtree of the record's last version; a file it holds (under the same path, else
 * anywhere: a file moved) whose bytes hash to the blob's CID is taken from it, not asked for.
 * get: reads the others, all of
 * a record's at once (core/atproto/cid.h: each read its own outcome). Every blob's bytes are
 * checked against its CID (CIDv1 raw sha2-256) and size before they are written: a blob that
 * cannot be had or does not match refuses the record (out->refused, the reason naming the file).
 */
typedef struct ss_render_blobs {
	const ss_oid *old;
	void (*get)(void *payload, ss_cid_read *reads, size_t n);
	void *payload;
	size_t fetched, reused; /* blobs asked for, blobs taken from old */
} ss_render_blobs;

/* ss_render_record for a record that may name blobs (src NULL: such a record is refused). */
int ss_render_record_blobs(ss_repo *repo, const char *rkey, const struct ss_record_value *value,
                           ss_render_blobs *src, ss_render *out, ss_error *err);

#endif
