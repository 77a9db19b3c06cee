/*
 * space_admin.h: what a space's authority does to its permissioned space: create it, list,
 * add and remove its members (com.atproto.simplespace.*, docs/SPACE-ADMIN.md). Every call goes
 * to the authority's own PDS with its own session (an ss_xrpc from ss_session_open); no space
 * credential is involved.
 *
 * Shapes sent: the October 2026 alpha's (createSpace `spaceType` + `readPolicy` +
 * `writePolicy`, each policy an object with its `$type`; putMember `{space, did, read,
 * write}`); listMembers entries are read as `{did, read?, write?}` (a missing flag reads as
 * true: the August form had none). The JSON stays in the XRPC module's family: this file and
 * sync/space/space_proto.c speak through sync/net/xrpc_call.h.
 *
 * Errors: the server's SpaceAlreadyExists is SS_EEXISTS, SpaceNotFound SS_ENOTFOUND,
 * NotSpaceOwner SS_EAUTH, each one line saying what to do; the rest as sync/net/xrpc.h says.
 */
#ifndef SS_SPACE_ADMIN_H
#define SS_SPACE_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "sync/net/xrpc.h"

/* engram's space type: the only one skillsync creates. */
#define SS_SPACE_ADMIN_TYPE "garden.engram.space"
/* Longest space key (record-key syntax). */
#define SS_SPACE_ADMIN_SKEY_MAX 512
/* listMembers: entries per page asked, and the most pages read (a longer list fails). */
#define SS_SPACE_ADMIN_PAGE      100
#define SS_SPACE_ADMIN_MAX_PAGES 1000

/* Who may read, or write, in a space (simplespace.defs). */
typedef enum ss_space_admin_policy {
	SS_SPACE_POLICY_MEMBERS = 0, /* #memberListPolicy: the members the authority listed */
	SS_SPACE_POLICY_PUBLIC,      /* #publicPolicy: anyone */
} ss_space_admin_policy;

/* "members" or "public" -> *out; SS_EINVALID naming what is accepted. */
int ss_space_admin_policy_parse(const char *s, ss_space_admin_policy *out, ss_error *err);
/* "members" / "public" (static text). */
const char *ss_space_admin_policy_name(ss_space_admin_policy p);

/* A space key's syntax (a record key: 1-512 of A-Za-z0-9 . - _ : ~, not "." or ".."); the
 * message says which rule broke. */
int ss_space_admin_check_skey(const char *skey, ss_error *err);

/* A space, parsed from its at:// URI. */
typedef struct ss_space_admin_ref {
	char *uri;       /* at://<authority>/space/<type>/<skey> */
	char *authority; /* a DID, or a handle when the URI named one (the caller resolves it) */
	char *type;      /* the space type NSID */
	char *skey;
} ss_space_admin_ref;
void ss_space_admin_ref_release(ss_space_admin_ref *ref);

/*
 * The space s names: an `at://<authority>/space/<type>/<skey>` URI, or a bare space key of a
 * garden.engram.space whose authority is default_authority (a DID; NULL: a bare key is
 * refused). SS_EINVALID, naming s, for anything else.
 */
int ss_space_admin_ref_parse(const char *s, const char *default_authority, ss_space_admin_ref *out,
                             ss_error *err);

/* The createSpace input (JSON) for skey with the two policies, into out (cleared first). */
void ss_space_admin_create_body(ss_buf *out, const char *skey, ss_space_admin_policy read,
                                ss_space_admin_policy write);

/*
 * createSpace on x's PDS (the authority's session): *uri (free()) is the URI the host
 * answered. SS_EEXISTS when the authority already has a space of that key.
 */
int ss_space_admin_create(ss_xrpc *x, const char *skey, ss_space_admin_policy read,
                          ss_space_admin_policy write, char **uri, ss_error *err);

/* One member as the host lists it. */
typedef struct ss_space_admin_member {
	char *did;
	bool read;
	bool write;
} ss_space_admin_member;
void ss_space_admin_members_free(ss_space_admin_member *list, size_t n);

/*
 * Reads one listMembers answer (JSON text): its entries are appended to *list (*n of them,
 * *alloc its room, for ss_xgrow), *cursor (free(); NULL: the last page) is the next cursor.
 * An entry without a valid DID is SS_ERROR; flags that are not booleans read as true.
 */
int ss_space_admin_members_page(const char *json, size_t len, ss_space_admin_member **list,
                                size_t *n, size_t *alloc, char **cursor, ss_error *err);

/* Every member of space (all pages, in the host's order): *out (free with
 * ss_space_admin_members_free) of *n. */
int ss_space_admin_list_members(ss_xrpc *x, const char *space, ss_space_admin_member **out,
                                size_t *n, ss_error *err);

/* putMember: did may read, and write when write (an upsert: an existing member's flags are
 * replaced). */
int ss_space_admin_put_member(ss_xrpc *x, const char *space, const char *did, bool write,
                              ss_error *err);

/* removeMember. */
int ss_space_admin_remove_member(ss_xrpc *x, const char *space, const char *did, ss_error *err);

#endif
