/* push_recover.c: finish a push that was killed, from what the server says landed. */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/util/mem.h"
#include "sync/push_priv.h"

typedef struct probe {
	ss_state *st;
	ss_journal *j;
	bool *present;
	char **cid;     /* the server's CID per journal write */
	char **updated; /* the server's updatedAt per journal write */
	size_t others;  /* my records outside the journal that the state does not know as is */
	size_t listed_others;
} probe;

static ssize_t journal_index(const ss_journal *j, const char *rkey)
{
	for (size_t i = 0; i < j->nwrites; i++)
		if (!strcmp(j->writes[i].rkey, rkey))
			return (ssize_t)i;
	return -1;
}

static int on_record(void *payload, const ss_space_record *rec, ss_error *err)
{
	probe *p = payload;
	ssize_t i = rec->rkey ? journal_index(p->j, rec->rkey) : -1;
	ss_record_meta meta;
	ss_report *report;
	struct ss_skill *skill = NULL;

	ss_record_value value = {rec->value_json, rec->value_len, rec->value_cbor,
	                         rec->value_cbor_len};

	if (!rec->rkey || (!rec->value_json && !rec->value_cbor))
		return 0; /* an entry with no key or no readable value: none of the journal's */
	if (i < 0) {
		ss_state_record r;
		ss_error ignored;

		p->listed_others++;
		if (ss_state_record_get(p->st, rec->did, rec->rkey, &r, &ignored) < 0) {
			p->others++;
			return 0;
		}
		if (strcmp(r.cid, rec->cid))
			p->others++;
		ss_state_record_release(&r);
		return 0;
	}
	p->present[i] = true;
	p->cid[i] = ss_xstrdup(rec->cid);
	ss_record_meta_init(&meta);
	report = ss_report_new();
	if (ss_record_decode_value(&value, rec->rkey, &skill, &meta, report) == 0 &&
	    meta.updated_at)
		p->updated[i] = ss_xstrdup(meta.updated_at);
	ss_skill_free(skill);
	ss_report_free(report);
	ss_record_meta_release(&meta);
	(void)err;
	return 0;
}

static int on_deleted(void *payload, const char *did, const char *rkey, ss_error *err)
{
	return 0;
}

typedef struct mine_count {
	const char *me;
	const ss_journal *j;
	size_t n;
} mine_count;

/* Counts my records in the state that the journal does not name. */
static int count_mine(const ss_state_record *r, void *payload)
{
	mine_count *c = payload;

	if (!strcmp(r->did, c->me) && journal_index(c->j, r->rkey) < 0)
		c->n++;
	return 0;
}

/*
 * Keeps the notes of the journal's writes that did not land (landed: NULL, none did) and, when
 * nothing landed, drops the journal, in one transaction: the next push sends those writes
 * again with the notes this push made (core/state/state_journal.h).
 */
static int keep_notes(ss_state *st, const ss_journal *j, const bool *landed, ss_error *err)
{
	if (ss_state_begin(st, err) < 0)
		return -1;
	for (size_t i = 0; i < j->nwrites; i++)
		if ((!landed || !landed[i]) &&
		    ss_state_journal_keep_note(st, &j->writes[i], err) < 0)
			goto fail;
	if (!landed && ss_state_journal_clear(st, err) < 0)
		goto fail;
	if (ss_state_commit(st, err) < 0)
		goto fail;
	return 0;
fail:
	ss_state_rollback(st);
	return -1;
}

int ss_push_recover(ss_repo *repo, ss_state *st, ss_space *sp, size_t *landed, ss_error *err)
{
	ss_journal j;
	ss_space_head *heads = NULL;
	size_t nheads = 0, nlanded = 0;
	const ss_space_head *mine = NULL;
	const char *me = ss_state_me(st);
	probe p;
	ss_journal_write *done = NULL;
	bool *is_landed = NULL;
	ss_oid tracking;
	int rc, ret = -1;

	memset(&j, 0, sizeof(j));
	memset(&p, 0, sizeof(p));
	if (landed)
		*landed = 0;
	rc = ss_state_journal_get(st, &j, err);
	if (rc < 0 && err->code == SS_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (!me) {
		rc = ss_error_set(err, SS_ENOTFOUND, "a push journal in a clone with no account");
		goto out_rc;
	}
	if ((rc = ss_space_heads(sp, &heads, &nheads, err)) < 0)
		goto out_rc;
	for (size_t i = 0; i < nheads; i++)
		if (!strcmp(heads[i].did, me))
			mine = &heads[i];
	if (!ss_push__moved(j.base_commit, mine)) {
		/* my repo did not move: nothing of the push landed */
		ret = keep_notes(st, &j, NULL, err);
		goto out;
	}
	p.st = st;
	p.j = &j;
	p.present = ss_xcalloc(j.nwrites + 1, sizeof(*p.present));
	p.cid = ss_xcalloc(j.nwrites + 1, sizeof(*p.cid));
	p.updated = ss_xcalloc(j.nwrites + 1, sizeof(*p.updated));
	{
		ss_space_want want = {me, NULL};
		ss_space_listener l = {on_record, on_deleted, NULL, &p, NULL, NULL};
		if ((rc = ss_space_list(sp, &want, 1, &l, err)) < 0)
			goto out_rc;
	}
	done = ss_xcalloc(j.nwrites + 1, sizeof(*done));
	is_landed = ss_xcalloc(j.nwrites + 1, sizeof(*is_landed));
	for (size_t i = 0; i < j.nwrites; i++) {
		ss_journal_write *w = &j.writes[i];
		ss_push_held held = {p.present[i], p.updated[i]};

		if (!ss_push__landed(w, j.push_time, &held))
			continue;
		done[nlanded] = *w;
		done[nlanded].cid = w->op != SS_WRITE_DELETE ? p.cid[i] : NULL;
		nlanded++;
		is_landed[i] = true;
	}
	{
		/* my repo holds exactly what the state knows plus the journal: then the state may
		 * say it is at the server's commit, else the next fetch lists it again */
		mine_count c = {me, &j, 0};
		if ((rc = ss_state_records_each(st, NULL, count_mine, &c, err)) < 0)
			goto out_rc;
		if (c.n != p.listed_others)
			p.others++;
	}
	if (nlanded == 0) {
		ret = keep_notes(st, &j, NULL, err);
		goto out;
	} else {
		ss_push_landed l = {done, nlanded, j.push_time, j.head, NULL, NULL, NULL};
		if (keep_notes(st, &j, is_landed, err) < 0)
			goto out;
		if (p.others == 0) {
			l.commit = mine->commit;
			l.rev = mine->rev;
		}
		if (ss_push__finish(repo, st, me, &l, &tracking, err) < 0)
			goto out;
	}
	if (landed)
		*landed = nlanded;
	ret = 0;
	goto out;
out_rc:
	ret = rc;
out:
	for (size_t i = 0; i < j.nwrites && p.cid; i++) {
		free(p.cid[i]);
		free(p.updated[i]);
	}
	free(p.present);
	free(p.cid);
	free(p.updated);
	free(done);
	free(is_landed);
	ss_space_heads_free(heads, nheads);
	ss_state_journal_release(&j);
	return ret;
}
