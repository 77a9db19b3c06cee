/* push.c: one push run (see sync/push.h). */
#include "sync/push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/pds.h"
#include "core/git/commit.h"
#include "core/git/merge.h"
#include "core/skill/record.h"
#include "core/skill/validate.h"
#include "core/util/crash.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "sync/fetch.h"
#include "sync/push_priv.h"

/* Room for one write's JSON around its record (op, collection, rkey, punctuation). */
#define WRITE_OVERHEAD 256
/* Room for the writes of one request: what the PDS takes, less the request's own envelope. */
#define MAX_BODY (SS_PDS_MAX_REQUEST - SS_RECORD_ENVELOPE)

void ss_push_result_release(ss_push_result *r)
{
	if (!r)
		return;
	ss_outgoing_free(r->outgoing);
	memset(r, 0, sizeof(*r));
}

/* Assigns each write its request (core/atproto/pds.h); returns the number of requests. */
static size_t assign_batches(const ss_outgoing *o, ss_journal_write *jw)
{
	size_t n = ss_outgoing_count(o), batch = 0;
	size_t *sizes = ss_xcalloc(n ? n : 1, sizeof(*sizes));

	for (size_t i = 0; i < n; i++) {
		const ss_outgoing_item *it = ss_outgoing_get(o, i);
		ss_record_blob *b = NULL;
		size_t nb = 0;

		/* each blob ref's mimeType becomes the PDS's at upload: room for it */
		if (it->record)
			ss_record_blobs(it->record, it->record_len, &b, &nb);
		ss_record_blobs_free(b, nb);
		sizes[i] = it->record_len + strlen(it->write->name) + WRITE_OVERHEAD +
		           nb * SS_BLOB_MIME_RESERVE;
	}
	for (size_t start = 0; start < n; batch++) {
		size_t fit = ss_pds_batch_fit(sizes + start, n - start, MAX_BODY);

		for (size_t i = start; i < start + fit; i++)
			jw[i].batch = batch;
		start += fit;
	}
	free(sizes);
	return batch;
}

static int send_batches(ss_repo *repo, ss_state *st, ss_space *sp, const char *me, ss_journal *j,
                        const ss_outgoing *o, const ss_push_opts *opts, ss_push_result *out,
                        ss_error *err)
{
	void (*progress)(void *, size_t, size_t) = opts ? opts->progress : NULL;
	char *commit = j->base_commit ? ss_xstrdup(j->base_commit) : NULL, *rev = NULL;
	ss_space_write *sw = ss_xcalloc(j->nwrites + 1, sizeof(*sw));
	char **values = ss_xcalloc(j->nwrites + 1, sizeof(*values)), point[64];
	ss_push_blobs pb = {repo, st, sp, me, o};
	size_t first = 0;
	int rc, ret = -1;

	if (progress)
		progress(opts->payload, 0, j->nwrites);
	for (size_t b = 0; b < j->nbatches; b++) {
		ss_space_applied applied;
		size_t n = 0;

		memset(&applied, 0, sizeof(applied));
		while (first + n < j->nwrites && j->writes[first + n].batch == b)
			n++;
		snprintf(point, sizeof(point), "before-batch-%zu", b + 1);
		ss_crash_point(point);
		if (ss_state_journal_sending(st, b, err) < 0)
			goto out;
		rc = ss_push__upload_blobs(&pb, first, n, values, out, err);
		snprintf(point, sizeof(point), "after-blobs-%zu", b + 1);
		ss_crash_point(point);
		for (size_t i = 0; i < n; i++) {
			const ss_outgoing_item *it = ss_outgoing_get(o, first + i);
			sw[i].op = it->write->op;
			sw[i].rkey = it->write->name;
			sw[i].value_json = values[first + i] ? values[first + i] : it->record;
			sw[i].swap_cid = it->write->swap_cid;
		}
		if (rc == 0)
			rc = ss_space_apply(sp, sw, n, commit, &applied, err);
		out->requests += applied.nrequests;
		if (rc < 0) {
			/* the journal goes only when the server refused and nothing landed; else
			 * the next push or pull asks the server (ss_push_recover) */
			size_t landed = first + applied.napplied; /* before the release zeroes it */
			ss_push_failure f = ss_push__decide(err->code, landed);
			ss_error ignored; /* the push's error is the one to report */
			ss_space_applied_release(&applied);
			if (f == SS_PUSH_CONFLICT) {
				ss_state_journal_clear(st, &ignored);
				ret = ss_error_set(
				    err, SS_ECONFLICT,
				    "your repo in the space changed since the last fetch "
				    "(another device or client wrote to it): nothing was "
				    "pushed; run 'skillsync pull' first");
			} else if (f == SS_PUSH_REFUSED) {
				ss_state_journal_clear(st, &ignored);
				ret = rc;
			} else {
				err->code = ss_push__reported(f, err->code);
				ret = ss_error_prefix(err,
				                      "push interrupted after %zu of %zu writes "
				                      "(run 'skillsync push' again to finish)",
				                      landed, j->nwrites);
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
		if (progress)
			progress(opts->payload, first, j->nwrites);
	}
	{
		ss_push_landed l = {j->writes, j->nwrites, j->push_time, j->head, commit, rev, sp};
		if (ss_push__finish(repo, st, me, &l, &out->tracking, err) < 0)
			goto out;
		out->changed = true;
	}
	ret = 0;
out:
	for (size_t i = 0; i < j->nwrites; i++)
		free(values[i]);
	free(values);
	free(commit);
	free(rev);
	free(sw);
	return ret;
}

/* SS_EINVALID when the plan refuses a skill: a push sends all of HEAD or nothing. */
static int refused(const ss_outgoing *o, bool dry, ss_error *err)
{
	size_t n = ss_outgoing_refused_count(o);

	if (!n)
		return 0;
	return ss_error_set(err, SS_EINVALID,
	                    "%zu skill%s cannot be pushed: nothing %s sent; fix %s, then commit "
	                    "and push again",
	                    n, n == 1 ? "" : "s", dry ? "would be" : "was", n == 1 ? "it" : "them");
}

int ss_push_run(ss_repo *repo, ss_state *st, ss_space *sp, const ss_push_opts *opts,
                ss_push_result *out, ss_error *err)
{
	char tracking_hex[SS_OID_HEXSZ + 1], head_hex[SS_OID_HEXSZ + 1];
	ss_push_plan pv;
	ss_state_member member;
	ss_journal j;
	ss_journal_write *jw = NULL;
	int64_t now = opts && opts->now_ms ? opts->now_ms : ss_time_now() / 1000;
	bool dry = opts && opts->dry_run;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&pv, 0, sizeof(pv));
	memset(&member, 0, sizeof(member));
	memset(&j, 0, sizeof(j));
	if (!ss_state_me(st)) {
		ss_space_read_only(err);
		goto out;
	}
	if (ss_merge_in_progress(repo)) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "a merge waits to be concluded: resolve the conflicts, then run "
		                   "'skillsync commit' before pushing");
		goto out;
	}
	rc = ss_push_preview(repo, st, now,
	                     dry ? SS_OUTGOING_NOTES | SS_OUTGOING_CHECK : SS_OUTGOING_RECORDS, &pv,
	                     err);
	out->outgoing = pv.outgoing;
	pv.outgoing = NULL;
	if (rc < 0) {
		ret = rc;
		goto out;
	}
	if ((ret = refused(out->outgoing, dry, err)) < 0 || dry ||
	    ss_outgoing_count(out->outgoing) == 0)
		goto out;
	ret = -1;
	if ((rc = ss_state_member_get(st, pv.me, &member, err)) < 0 && err->code != SS_ENOTFOUND)
		goto out;
	ss_oid_fmt(head_hex, &pv.head);
	ss_oid_fmt(tracking_hex, &pv.tracking);
	jw = ss_xcalloc(ss_outgoing_count(out->outgoing) + 1, sizeof(*jw));
	j.base_commit = member.commit;
	j.base_tracking = ss_oid_is_zero(&pv.tracking) ? "" : tracking_hex;
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
		if (it->write->op != SS_WRITE_DELETE) {
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
	ret = send_batches(repo, st, sp, pv.me, &j, out->outgoing, opts, out, err);
out:
	for (size_t i = 0; jw && i < j.nwrites; i++) {
		free((char *)(uintptr_t)jw[i].tree);
		free((char *)(uintptr_t)jw[i].cid);
	}
	free(jw);
	ss_push_plan_release(&pv);
	ss_state_member_release(&member);
	return ret;
}
