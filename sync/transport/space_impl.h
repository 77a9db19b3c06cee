/*
 * space_impl.h: what a transport implements (the transports only; callers use
 * sync/transport/space.h).
 *
 * An implementation embeds `ss_space` as the first member of its own struct, fills `vt`, and
 * hands out a pointer to that member; sync/transport/space.c dispatches through the table.
 */
#ifndef SS_SPACE_IMPL_H
#define SS_SPACE_IMPL_H

#include "sync/transport/space.h"

typedef struct ss_space_vtable {
	const char *kind;
	unsigned caps;
	/* every member, those that cannot be read with rc/error (ss_space_heads_partial) */
	int (*heads)(ss_space *sp, ss_space_head **out, size_t *n, ss_error *err);
	int (*list)(ss_space *sp, const ss_space_want *wants, size_t n, const ss_space_listener *l,
	            ss_error *err);
	int (*apply)(ss_space *sp, const ss_space_write *writes, size_t n, const char *swap_commit,
	             ss_space_applied *out, ss_error *err);
	void (*free)(ss_space *sp);
	/* may be NULL: my repo is at commit after my writes (ss_space_landed) */
	void (*landed)(ss_space *sp, const char *commit);
	/* a member's blobs (ss_space_get_blobs); my blob up (ss_space_upload_blob) */
	void (*get_blobs)(ss_space *sp, const char *did, ss_cid_read *reads, size_t n);
	int (*upload_blob)(ss_space *sp, const void *bytes, size_t len, char **cid, char **mime,
	                   ss_error *err);
} ss_space_vtable;

struct ss_space {
	const ss_space_vtable *vt;
	char *me;       /* my DID, NULL when read-only; freed by ss_space_free */
	bool signed_in; /* my session is usable: apply() can write */
};

#endif
