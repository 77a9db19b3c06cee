/*
 * space.h: the transport interface: how skillsync reaches a memory space
 * (docs/concepts/transports.md).
 *
 * Three questions, whatever the transport:
 *   heads:  who writes in the space, and at which revision is each member's repo now;
 *   list:   a member's records: all of them, or what changed since a revision when the
 *           transport can say (pages of different members are in flight at once);
 *   apply:  a batch of writes to MY repo, guarded (all or nothing against a known commit)
 *           where the transport can guard it.
 * Two implementations sit behind it: public repos (sync/public/space_public.c: the authority and
 * the listed members, com.atproto.repo.listRecords, sync.getLatestCommit, repo.applyWrites with
 * swapCommit) and the permissioned space (sync/space/space_perm.c: com.atproto.space.*, the writers
 * listed by the space host, reads signed with a space credential). Callers never know
 * which one they hold: they branch on ss_space_caps() only.
 *
 * Rules: records travel as JSON text, or as the DAG-CBOR block a repository holds when the
 * transport read one (core/skill/record.h decodes either: ss_record_value); a transport never
 * writes anywhere but my repo; callbacks get borrowed strings valid for the call only; a member
 * that cannot be read this time is named, and the others go on (fetch keeps its last known
 * versions: docs/concepts/precedence.md).
 */
#ifndef SS_SPACE_H
#define SS_SPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/cid.h"
#include "core/atproto/write.h"
#include "core/state/state.h"
#include "core/util/buf.h"
#include "core/util/error.h"

typedef struct ss_space ss_space;
typedef struct ss_http ss_http; /* sync/net/http.h */

/* What a transport can do beyond the minimum. */
enum {
	SS_SPACE_CAN_LIST_SINCE = 1 << 0, /* list() honours since_rev (else always full) */
	SS_SPACE_CAN_GUARD = 1 << 1,      /* apply() is all-or-nothing against swap_commit */
};

/* A member as heads() sees it now. */
typedef struct ss_space_head {
	char *did;
	char *handle; /* NULL when unknown */
	char *commit; /* the repo's current commit CID; NULL: the repo has no commit / no records */
	char *rev;    /* the repo's current revision; NULL as above */
	char *pds;    /* where the repo lives, when the transport resolved it (else NULL) */
	int rc;       /* ss_space_heads_partial: < 0 when the member could not be read this time */
	char *error;  /* ... and why (one line naming the member); NULL when rc is 0 */
} ss_space_head;

void ss_space_heads_free(ss_space_head *heads, size_t n);

/* One member to list: all its records (since_rev NULL) or the changes since since_rev. */
typedef struct ss_space_want {
	const char *did;
	const char *since_rev;
} ss_space_want;

/* A listed record version (borrowed for the callback). */
typedef struct ss_space_record {
	const char *did;
	const char *rkey;
	const char *cid;
	const char *value_json; /* the value, JSON text of value_len bytes, or NULL: */
	size_t value_len;
	const char *problem; /* why the transport could not read this record, or NULL */
	/* the value as the DAG-CBOR block of the member's repository (value_json NULL; the
	 * record decoder takes either, core/skill/record.h: ss_record_value) */
	const unsigned char *value_cbor;
	size_t value_cbor_len;
	/* problem is the server's: what it sent does not verify against the member's signed
	 * commit (a block missing or not hashing, a listing entry the signed tree does not name),
	 * as opposed to a record of the member's that is invalid by itself */
	bool refused;
} ss_space_record; /* rkey is NULL for an entry with nothing to keep it by (problem says why) */

/*
 * How a member's records were read this time (fetch --json "reads"). path: "full" (public: the
 * signed tree and every listRecords page), "since" (public: getRepo?since diffed against the
 * kept tree), "ops" (space: listRepoOps folded into the kept set hash, checked against the
 * signed commit), "car" (space: getRepo, the whole repo checked against its signed commit).
 */
typedef struct ss_space_read {
	bool full;        /* the listing held every record (then records not reported are gone) */
	const char *path; /* as above */
	bool verified;    /* checked against the member's signed commit */
	const char *fallback; /* why the incremental way was asked but not taken; NULL otherwise */
	/* why an answer of this read was refused because what the server sent does not verify
	 * (a replayed older commit, a bad signature, a block that does not hash), though the read
	 * then checked out (asked again, or in full); NULL when none was (docs/SECURITY.md) */
	const char *caught;
} ss_space_read;

/*
 * What a listing reports. record: one record (new or changed, or any record of a full listing);
 * deleted: a record gone since since_rev (incremental listings only); done: the member's
 * listing ended, and how it was read.
 * failed (may be NULL): the member's listing could not finish (why: one line naming it; how:
 * the read that was refused, or NULL when nothing could be read); its records reported so far
 * stand, done is not called for it, and the others go on. Without failed, one member's
 * failure fails ss_space_list after the others ended.
 * A negative return (with err set) stops the listing and is returned by ss_space_list.
 */
typedef struct ss_space_listener {
	int (*record)(void *payload, const ss_space_record *rec, ss_error *err);
	int (*deleted)(void *payload, const char *did, const char *rkey, ss_error *err);
	int (*done)(void *payload, const char *did, const ss_space_read *how, ss_error *err);
	void *payload;
	int (*failed)(void *payload, const char *did, const ss_space_read *how, const ss_error *why,
	              ss_error *err);
	/* incomplete (may be NULL): called after done when the transport refused some of the
	 * member's records (each reported through record with its problem): the member must be
	 * listed in full next time, whatever its revision. */
	int (*incomplete)(void *payload, const char *did, ss_error *err);
} ss_space_listener;

/* A write to my repo (a plan's write, core/diff/plan.h; each transport translates it once). */
typedef struct ss_space_write {
	ss_write_op op;
	const char *rkey;
	const char *value_json; /* create/update: the record, JSON text */
	const char *swap_cid;   /* update/delete: the CID my record must still have */
} ss_space_write;

/* What apply() did: also filled as far as it got when it fails. */
typedef struct ss_space_applied {
	size_t napplied; /* writes that landed, in order */
	char **cids;     /* napplied entries: the new record CID (NULL for deletes) */
	char *commit;    /* my repo's commit after the last batch that landed; NULL when none */
	char *rev;
	size_t nrequests; /* requests sent */
} ss_space_applied;

void ss_space_applied_release(ss_space_applied *a);

/* The transport's kind ("public" or "space"), for the state's config and messages. */
const char *ss_space_kind(const ss_space *sp);
unsigned ss_space_caps(const ss_space *sp);
/* My DID, or NULL for a read-only space (apply() then fails with SS_EAUTH). */
const char *ss_space_me(const ss_space *sp);

/* Whether my session could be opened (false for a read-only clone, or after a logout). */
bool ss_space_signed_in(const ss_space *sp);

/* Sets err to the line saying a read-only clone cannot write, and how to get one that can;
 * returns SS_EAUTH. */
int ss_space_read_only(ss_error *err);

/* Every member with its current head; fails (naming the first such member) when one cannot be
 * read. */
int ss_space_heads(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err);
/* The same, but a member that cannot be read comes with rc and error set, and the call
 * succeeds (fails only when nothing could be asked at all). */
int ss_space_heads_partial(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err);

/* Lists the wanted members' records, calling l as pages arrive. */
int ss_space_list(ss_space *sp, const ss_space_want *wants, size_t n, const ss_space_listener *l,
                  ss_error *err);

/*
 * Applies writes to my repo in order, split into as many requests as the transport needs.
 * swap_commit (NULL: unguarded) is the commit my repo must still be at, else nothing is
 * written and SS_ECONFLICT says "pull first"; each next request is guarded by the commit the
 * previous one made. out is filled as far as the writes got, also on failure.
 */
int ss_space_apply(ss_space *sp, const ss_space_write *writes, size_t n, const char *swap_commit,
                   ss_space_applied *out, ss_error *err);

/*
 * After writes of mine landed and were recorded: my repo is at commit. The
 * transport may bring what it keeps of my repo up to date (public repos: the verified node
 * cache, one getRepo?since). Best effort: nothing it does fails the writes, and without it the
 * next listing of my repo is at worst a full one.
 */
void ss_space_landed(ss_space *sp, const char *commit);

/*
 * Blobs: the files a record names by CID (docs/RECORD-FORMAT.md, blobFiles).
 * get_blobs: a member's blobs (public: com.atproto.sync.getBlob on its PDS, several at once;
 * space: com.atproto.space.getBlob with the space's credential), each read ending with its own
 * rc and err; not checked against their CIDs (core/git/render.h does).
 * upload_blob: len bytes to my repo (com.atproto.repo.uploadBlob on my PDS, for either
 * transport); *cid and *mime (malloc'd): what the PDS stored, the mimeType a record must name.
 */
void ss_space_get_blobs(ss_space *sp, const char *did, ss_cid_read *reads, size_t n);
int ss_space_upload_blob(ss_space *sp, const void *bytes, size_t len, char **cid, char **mime,
                         ss_error *err);

/*
 * Opens the space a clone follows, from its state: config "transport" picks the
 * implementation, the members table says who writes, config "me" who I am. With for_writing,
 * my session must be usable (SS_EAUTH saying to log in otherwise); without, a missing session
 * only makes apply() fail, and "mine" still ranks first. http is borrowed.
 */
int ss_space_open(ss_space **out, ss_http *http, ss_state *st, bool for_writing, ss_error *err);

void ss_space_free(ss_space *sp);

#endif
