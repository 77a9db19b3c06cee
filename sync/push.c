/* push.c: one push run (see sync/push.h). */
#include "sync/push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/commit.h"
#include "core/crash.h"
#include "core/mem.h"
#include "core/merge.h"
#include "core/note.h"
#include "core/validate.h"
#include "sync/fetch.h"
#include "sync/push_internal.h"

/* Room for one write's JSON around its record (op, collection, rkey, punctuation). */
#define WRITE_OVERHEAD 256
#define MAX_WRITES     200
#define MAX_BODY       (SS_PDS_MAX_REQUEST - SS_RECORD_ENVELOPE)

void ss_push_result_release(ss_push_result *r)
{
	if (!r)
		return;
	ss_outgoing_free(r->outgoing);
	memset(r, 0, sizeof(*r));
}

static ss_space_op space_op(ss_plan_op op)
{
	return op == SS_PLAN_CREATE   ? SS_SPACE_CREATE
	       : op == SS_PLAN_UPDATE ? SS_SPACE_UPDATE
	                              : SS_SPACE_DELETE;
}

/* Assigns each write its request: at most MAX_WRITES writes and MAX_BODY bytes each. */
static size_t assign_batches(const ss_outgoing *o, ss_journal_write *jw)
{
	size_t batch = 0, count = 0, bytes = 0;

	for (size_t i = 0; i < ss_outgoing_count(o); i++) {
		const ss_outgoing_item *it = ss_outgoing_get(o, i);
		size_t size = it->record_len + strlen(it->write->name) + WRITE_OVERHEAD;

		if (count && (count == MAX_WRITES || bytes + size > MAX_BODY)) {
			batch++;
			count = 0;
			bytes = 0;
		}
		jw[i].batch = batch;
		count++;
		bytes += size;
	}
	return ss_outgoing_count(o) ? batch + 1 : 0;
}

static int send_batches(ss_repo *repo, ss_state *st, ss_space *sp, const char *me, ss_journal *j,
                        const ss_outgoing *o, ss_push_result *out, ss_error *err)
{
	char *commit = j->base_commit ? ss_xstrdup(j->base_commit) : NULL, *rev = NULL;
	ss_space_write *sw = ss_xcalloc(j->nwrites + 1, sizeof(*sw));
	char point[64];
	size_t first = 0;
	int rc, ret = -1;

	for (size_t b = 0; b < j->nbatches; b++) {
		ss_space_applied applied;
		size_t n = 0;

		memset(&applied, 0, sizeof(applied));
		while (first + n < j->nwrites && j->writes[first + n].batch == b) {
			const ss_outgoing_item *it = ss_outgoing_get(o, first + n);
			sw[n].op = space_op(it->write->op);
			sw[n].rkey = it->write->name;
			sw[n].value_json = it->record;
			n++;
		}
		snprintf(point, sizeof(point), "before-batch-%zu", b + 1);
		ss_crash_point(point);
		if (ss_state_journal_sending(st, b, err) < 0)
			goto out;
		rc = ss_space_apply(sp, sw, n, commit, &applied, err);
		out->requests += applied.nrequests;
		if (rc < 0) {
			bool nothing = b == 0 && applied.napplied == 0;
			ss_space_applied_release(&applied);
			if (rc == SS_ECONFLICT && nothing) {
				ss_state_journal_clear(st, NULL);
				ret = ss_error_set(
				    err, SS_ECONFLICT,
				    "your repo in the space changed since the last fetch "
				    "(another device or client wrote to it): nothing was "
				    "pushed; run 'skillsync pull' first");
			} else if (nothing) {
				ss_state_journal_clear(st, NULL);
				ret = rc;
			} else {
				ret = ss_error_prefix(err,
				                      "push interrupted after %zu of %zu writes "
				                      "(run 'skillsync push' again to finish)",
				                      first + applied.napplied, j->nwrites);
			}
			goto out;
		}
		if (ss_state_journal_landed(st, b, applied.cids, applied.napplied, applied.commit,
		                            applied.rev, err) < 0) {
			ss_space_applied_release(&applied);
			goto out;
		}
		for (size_t i = 0; i < applied.napplied && i < n; i++)
			if (applied.cids[i])
				j->writes[first + i].cid = ss_xstrdup(applied.cids[i]);
		free(commit);
		free(rev);
		commit = applied.commit ? ss_xstrdup(applied.commit) : NULL;
		rev = applied.rev ? ss_xstrdup(applied.rev) : NULL;
		out->sent += applied.napplied;
		ss_space_applied_release(&applied);
		snprintf(point, sizeof(point), "after-batch-%zu", b + 1);
		ss_crash_point(point);
		first += n;
	}
	{
		ss_push_landed l = {j->writes, j->nwrites, j->push_time, j->head, commit, rev};
		if (ss_push_finish(repo, st, me, &l, &out->tracking, err) < 0)
			goto out;
		out->changed = true;
	}
	ret = 0;
out:
	free(commit);
	free(rev);
	free(sw);
	return ret;
}

int ss_push_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_push_opts *opts,
                ss_push_result *out, ss_error *err)
{
	char *me = NULL, *tracking_hex = NULL, head_hex[SS_OID_HEXSZ + 1];
	ss_oid tracking, head;
	ss_state_member member;
	ss_journal j;
	ss_journal_write *jw = NULL;
	int64_t now = opts && opts->now_ms ? opts->now_ms : ss_note_time_now_ms();
	bool dry = opts && opts->dry_run;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&member, 0, sizeof(member));
	memset(&j, 0, sizeof(j));
	rc = ss_state_config_get(st, "me", &me, err);
	if (rc < 0) {
		ret = rc == SS_ENOTFOUND ? ss_space_read_only(err) : rc;
		goto out;
	}
	if (ss_merge_in_progress(repo)) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "a merge waits to be concluded: resolve the conflicts, then run "
		                   "'skillsync commit' before pushing");
		goto out;
	}
	ss_oid_clear(&tracking);
	if (ss_state_config_get(st, "tracking", &tracking_hex, err) == 0 &&
	    ss_oid_parse(&tracking, tracking_hex, err) < 0)
		goto out;
	if ((rc = ss_commit_read_ref(repo, "HEAD", &head, err)) < 0) {
		ret = rc == SS_ENOTFOUND ? ss_error_set(err, SS_EINVALID, "nothing committed yet")
		                         : rc;
		goto out;
	}
	if (!ss_oid_is_zero(&tracking)) {
		bool in;

		if (ss_push_contains(repo, &head, &tracking, &in, err) < 0)
			goto out;
		if (!in) {
			/* HEAD against a view it has not merged would undo the others' changes */
			ret =
			    ss_error_set(err, SS_ECONFLICT,
			                 "the space changed since your last pull (fetched, not "
			                 "merged): nothing was pushed; run 'skillsync pull' first");
			goto out;
		}
	}
	if (ss_outgoing_new(&out->outgoing, repo, st, me, &tracking, &head, now,
	                    dry ? SS_OUTGOING_NOTES : SS_OUTGOING_RECORDS, err) < 0)
		goto out;
	if (dry || ss_outgoing_count(out->outgoing) == 0) {
		ret = 0;
		goto out;
	}
	if ((rc = ss_state_member_get(st, me, &member, err)) < 0 && rc != SS_ENOTFOUND)
		goto out;
	ss_oid_fmt(head_hex, &head);
	jw = ss_xcalloc(ss_outgoing_count(out->outgoing) + 1, sizeof(*jw));
	j.base_commit = member.commit;
	j.base_tracking = tracking_hex ? tracking_hex : "";
	j.head = head_hex;
	j.push_time = ss_outgoing_time(out->outgoing);
	j.writes = jw;
	j.nwrites = ss_outgoing_count(out->outgoing);
	j.nbatches = assign_batches(out->outgoing, jw);
	for (size_t i = 0; i < j.nwrites; i++) {
		const ss_outgoing_item *it = ss_outgoing_get(out->outgoing, i);
		char tree_hex[SS_OID_HEXSZ + 1];

		jw[i].op = it->write->op;
		jw[i].rkey = it->write->name;
		jw[i].swap_cid = it->write->swap_cid;
		jw[i].created_at = it->write->created_at;
		jw[i].note = it->note;
		if (it->write->op != SS_PLAN_DELETE) {
			ss_oid_fmt(tree_hex, &it->tree);
			jw[i].tree = ss_xstrdup(tree_hex);
		}
	}
	if (ss_state_begin(st, err) < 0)
		goto out;
	if (ss_state_journal_begin(st, &j, err) < 0 || ss_state_commit(st, err) < 0) {
		ss_state_rollback(st);
		goto out;
	}
	ret = send_batches(repo, st, sp, me, &j, out->outgoing, out, err);
out:
	for (size_t i = 0; jw && i < j.nwrites; i++) {
		free((char *)(uintptr_t)jw[i].tree);
		free((char *)(uintptr_t)jw[i].cid);
	}
	free(jw);
	free(me);
	free(tracking_hex);
	ss_state_member_release(&member);
	return ret;
}
