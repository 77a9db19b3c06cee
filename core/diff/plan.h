/*
 * plan.h: the diff engine: which record writes to MY repo turn the space's view (the tracking
 * tree) into what I committed (HEAD's tree).
 *
 * Pure: the caller diffs the two trees at the top level (work proportional to the change) and
 * answers, per name, what the local state knows (my record's CID and createdAt, whose version
 * the view holds, who would win without mine). The rules:
 *   - a skill in HEAD that differs from the view -> update of my record when I have one
 *     (swapping its CID), else create (a skill whose view came from someone else becomes my
 *     own version, `based_on` names whose);
 *   - a skill gone from HEAD -> delete of MY record only; when I have none, nothing is sent and
 *     a notice says so; when someone else also has one, a notice says theirs will apply;
 *   - a renamed directory -> delete (when mine) + create, the create knowing where it came from;
 *   - unchanged and non-skill entries -> nothing (the caller leaves them out).
 * createdAt is kept from my existing record, else it is the push time; updatedAt is always the
 * push time. Writes come out in name order, deletes and creates/updates mixed.
 */
#ifndef SS_PLAN_H
#define SS_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/atproto/write.h"
#include "core/util/error.h"

/* One top-level name that differs between the tracking tree and HEAD's tree. */
typedef struct ss_plan_change {
	const char *name;
	bool in_view;             /* a skill of that name is in the tracking tree */
	bool in_head;             /* a skill of that name is in HEAD's tree */
	const char *renamed_from; /* for a skill new in HEAD: the removed name it continues */
} ss_plan_change;

/* What the local state knows about a name; all strings borrowed, NULL when unknown. */
typedef struct ss_plan_owner {
	const char *my_cid;        /* my record's CID (valid or not), NULL when I have none */
	const char *my_created_at; /* my record's createdAt */
	const char *view_from;     /* who holds the view's version when it is not mine */
	const char *next_from;     /* who would win for this name without my record */
} ss_plan_owner;

/* Fills *out for name; returns 0, or a negative SS_E* code with err set. */
typedef int (*ss_plan_lookup_fn)(void *payload, const char *name, ss_plan_owner *out,
                                 ss_error *err);

typedef struct ss_plan_write {
	ss_write_op op;
	char *name;
	char *swap_cid;     /* UPDATE/DELETE: my record's current CID */
	char *created_at;   /* CREATE/UPDATE */
	char *updated_at;   /* CREATE/UPDATE: the push time */
	char *renamed_from; /* CREATE: the name of the directory it was renamed from */
	char *based_on;     /* CREATE: whose version the view held before mine */
} ss_plan_write;

typedef enum ss_plan_notice_kind {
	SS_PLAN_NOT_MINE,     /* deleted here, but I have no record: nothing to send */
	SS_PLAN_NEXT_APPLIES, /* my record is deleted, someone else's version will apply */
} ss_plan_notice_kind;

typedef struct ss_plan_notice {
	ss_plan_notice_kind kind;
	char *name;
	char *who; /* may be NULL for NOT_MINE when nobody is known */
} ss_plan_notice;

typedef struct ss_plan ss_plan;

/*
 * Computes the plan for the changes (in any order; each name at most once). push_time is the
 * record datetime of this push (see ss_time_format).
 */
int ss_plan_new(ss_plan **out, const ss_plan_change *changes, size_t nchanges,
                ss_plan_lookup_fn lookup, void *payload, const char *push_time, ss_error *err);
void ss_plan_free(ss_plan *plan);

size_t ss_plan_count(const ss_plan *plan);
const ss_plan_write *ss_plan_get(const ss_plan *plan, size_t i);
size_t ss_plan_notice_count(const ss_plan *plan);
const ss_plan_notice *ss_plan_notice_get(const ss_plan *plan, size_t i);

/* "create", "update", "delete". */
const char *ss_plan_op_name(ss_write_op op);

#endif
