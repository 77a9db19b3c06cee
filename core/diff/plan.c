#include "core/diff/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

struct ss_plan {
	ss_plan_write *writes;
	size_t nwrites, walloc;
	ss_plan_notice *notices;
	size_t nnotices, nalloc;
};

static char *dup_or_null(const char *s)
{
	return s ? ss_xstrdup(s) : NULL;
}

static ss_plan_write *add_write(ss_plan *plan, ss_write_op op, const char *name)
{
	ss_plan_write *w;

	ss_xgrow((void **)&plan->writes, sizeof(*plan->writes), plan->nwrites + 1, &plan->walloc);
	w = &plan->writes[plan->nwrites++];
	memset(w, 0, sizeof(*w));
	w->op = op;
	w->name = ss_xstrdup(name);
	return w;
}

static void add_notice(ss_plan *plan, ss_plan_notice_kind kind, const char *name, const char *who)
{
	ss_plan_notice *n;

	ss_xgrow((void **)&plan->notices, sizeof(*plan->notices), plan->nnotices + 1,
	         &plan->nalloc);
	n = &plan->notices[plan->nnotices++];
	n->kind = kind;
	n->name = ss_xstrdup(name);
	n->who = dup_or_null(who);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const ss_plan_write *)a)->name, ((const ss_plan_write *)b)->name);
}

static int notice_by_name(const void *a, const void *b)
{
	return strcmp(((const ss_plan_notice *)a)->name, ((const ss_plan_notice *)b)->name);
}

static void plan_one(ss_plan *plan, const ss_plan_change *c, const ss_plan_owner *o,
                     const char *push_time)
{
	ss_plan_write *w;

	if (!c->in_head) {
		if (!c->in_view)
			return;
		if (!o->my_cid) {
			add_notice(plan, SS_PLAN_NOT_MINE, c->name, o->view_from);
			return;
		}
		w = add_write(plan, SS_WRITE_DELETE, c->name);
		w->swap_cid = ss_xstrdup(o->my_cid);
		if (o->next_from)
			add_notice(plan, SS_PLAN_NEXT_APPLIES, c->name, o->next_from);
		return;
	}
	if (o->my_cid) {
		w = add_write(plan, SS_WRITE_UPDATE, c->name);
		w->swap_cid = ss_xstrdup(o->my_cid);
		w->created_at = ss_xstrdup(o->my_created_at ? o->my_created_at : push_time);
	} else {
		w = add_write(plan, SS_WRITE_CREATE, c->name);
		w->created_at = ss_xstrdup(push_time);
		if (c->in_view && o->view_from)
			w->based_on = ss_xstrdup(o->view_from);
	}
	w->updated_at = ss_xstrdup(push_time);
	if (c->renamed_from && !c->in_view)
		w->renamed_from = ss_xstrdup(c->renamed_from);
}

int ss_plan_new(ss_plan **out, const ss_plan_change *changes, size_t nchanges,
                ss_plan_lookup_fn lookup, void *payload, const char *push_time, ss_error *err)
{
	ss_plan *plan = ss_xcalloc(1, sizeof(*plan));
	int ret = -1;

	for (size_t i = 0; i < nchanges; i++) {
		ss_plan_owner owner;
		int rc;

		memset(&owner, 0, sizeof(owner));
		if ((rc = lookup(payload, changes[i].name, &owner, err)) < 0) {
			ret = rc;
			goto out;
		}
		plan_one(plan, &changes[i], &owner, push_time);
	}
	if (plan->nwrites) /* qsort wants a non-NULL array even when empty */
		qsort(plan->writes, plan->nwrites, sizeof(*plan->writes), by_name);
	if (plan->nnotices)
		qsort(plan->notices, plan->nnotices, sizeof(*plan->notices), notice_by_name);
	*out = plan;
	plan = NULL;
	ret = 0;
out:
	ss_plan_free(plan);
	return ret;
}

void ss_plan_free(ss_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->nwrites; i++) {
		ss_plan_write *w = &plan->writes[i];
		free(w->name);
		free(w->swap_cid);
		free(w->created_at);
		free(w->updated_at);
		free(w->renamed_from);
		free(w->based_on);
	}
	for (size_t i = 0; i < plan->nnotices; i++) {
		free(plan->notices[i].name);
		free(plan->notices[i].who);
	}
	free(plan->writes);
	free(plan->notices);
	free(plan);
}

size_t ss_plan_count(const ss_plan *plan)
{
	return plan->nwrites;
}

const ss_plan_write *ss_plan_get(const ss_plan *plan, size_t i)
{
	return i < plan->nwrites ? &plan->writes[i] : NULL;
}

size_t ss_plan_notice_count(const ss_plan *plan)
{
	return plan->nnotices;
}

const ss_plan_notice *ss_plan_notice_get(const ss_plan *plan, size_t i)
{
	return i < plan->nnotices ? &plan->notices[i] : NULL;
}

const char *ss_plan_op_name(ss_write_op op)
{
	switch (op) {
	case SS_WRITE_CREATE:
		return "create";
	case SS_WRITE_UPDATE:
		return "update";
	case SS_WRITE_DELETE:
		return "delete";
	}
	return "?";
}
