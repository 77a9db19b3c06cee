/* card_remote.c: my card published under a guard, and anyone's card read (cmd/card_remote.h). */
#include "cmd/card_remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/skill/report.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"
#include "sync/identity/identity.h"
#include "sync/identity/session.h"
#include "sync/net/xrpc_repo.h"
#include "sync/setting.h"

void cli_card_remote_release(cli_card_remote *r)
{
	ss_xrpc_free(r->x);
	ss_http_free(r->http);
	free(r->cid);
	free(r->created_at);
	memset(r, 0, sizeof(*r));
}

static int changed_elsewhere(ss_ctx *ctx)
{
	return ss_error_set(&ctx->err, SS_ECONFLICT,
	                    "your published card changed since this clone last published it: see "
	                    "it with 'skillsync card --show <you>'; --force replaces it");
}

int cli_card_read_mine(ss_ctx *ctx, bool force, cli_card_remote *r)
{
	const char *me = ss_state_me(ctx->state);
	ss_xrpc_record rec;
	ss_report *report = NULL;
	ss_card *old = NULL;
	char *known = NULL;
	ss_error ignored;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&rec, 0, sizeof(rec));
	if (!me)
		return ss_error_set(
		    &ctx->err, SS_EAUTH,
		    "this clone is read-only: clone the space with '--as <handle>' to "
		    "publish a card");
	if (ss_setting_http_new(&r->http, ctx->state, &ctx->err) < 0 ||
	    ss_session_open(r->http, me, &r->x, NULL, &ctx->err) < 0)
		goto out;
	if (ss_xrpc_get_record(r->x, me, SS_CARD_NSID, SS_CARD_RKEY, &rec, &ctx->err) < 0) {
		if (ctx->err.code != SS_ENOTFOUND)
			goto out;
		ret = 0; /* no card yet */
		goto out;
	}
	r->cid = ss_xstrdup(rec.cid);
	if (ss_state_config_get(ctx->state, "card.cid", &known, &ctx->err) < 0 &&
	    ctx->err.code != SS_ENOTFOUND)
		goto out;
	if (!force && (!known || strcmp(known, rec.cid))) {
		ret = changed_elsewhere(ctx);
		goto out;
	}
	/* createdAt is kept from the published card when it is a valid one. */
	report = ss_report_new();
	if (rec.value_json &&
	    ss_card_decode(&old, rec.value_json, rec.value_len, report, &ignored) == 0)
		r->created_at = ss_xstrdup(ss_card_created_at(old));
	ret = 0;
out:
	free(known);
	ss_card_free(old);
	ss_report_free(report);
	ss_xrpc_record_release(&rec);
	return ret;
}

int cli_card_put(ss_ctx *ctx, cli_card_remote *r, const ss_card *card, char **uri)
{
	const char *me = ss_state_me(ctx->state);
	ss_buf json = SS_BUF_INIT;
	ss_report *report = ss_report_new();
	ss_xrpc_put put;
	ss_xrpc_record done;
	ss_xrpc_commit commit = {NULL, NULL};
	ss_state_member m = {NULL, NULL, NULL, NULL, NULL, 0};
	int ret = -1;

	memset(&done, 0, sizeof(done));
	if (ss_card_record_json(card, &json, &ctx->err) < 0)
		goto out;
	/* What goes out is checked against the lexicon like what comes in. */
	if (ss_card_check(json.ptr, json.len, report, &ctx->err) < 0) {
		ss_error_prefix(&ctx->err, "the card built is not valid");
		goto out;
	}
	memset(&put, 0, sizeof(put));
	put.repo = me;
	put.collection = SS_CARD_NSID;
	put.rkey = SS_CARD_RKEY;
	put.record_json = json.ptr;
	put.swap_record = r->cid;
	put.must_not_exist = !r->cid;
	/* The card is a record in my public repo: when the clone follows that repo and it is at the
	 * head the state knows, the write is guarded by that head too, and the state then knows the
	 * new one (else the next push would find my repo moved and ask for a pull). */
	if (!cli_space_clone(ctx) && ss_state_member_get(ctx->state, me, &m, &ctx->err) == 0)
		put.swap_commit = m.commit;
	if (put.swap_commit && ss_xrpc_put_record(r->x, &put, &done, &commit, &ctx->err) == 0) {
		if (commit.cid && commit.rev &&
		    ss_state_member_set_head(ctx->state, me, commit.cid, commit.rev, &ctx->err) < 0)
			goto out;
	} else {
		/* my repo moved since the last fetch (or is not followed): the card alone guarded
		 */
		ss_xrpc_record_release(&done);
		put.swap_commit = NULL;
		if (ss_xrpc_put_record(r->x, &put, &done, NULL, &ctx->err) < 0) {
			if (ctx->err.code == SS_ECONFLICT)
				changed_elsewhere(ctx);
			goto out;
		}
	}
	if (ss_state_config_set(ctx->state, "card.cid", done.cid, &ctx->err) < 0 ||
	    ss_state_config_set(ctx->state, "card.created-at", ss_card_created_at(card),
	                        &ctx->err) < 0)
		goto out;
	*uri = ss_xstrdup(done.uri);
	ret = 0;
out:
	ss_xrpc_record_release(&done);
	ss_xrpc_commit_release(&commit);
	ss_state_member_release(&m);
	ss_report_free(report);
	ss_buf_release(&json);
	return ret;
}

static void print_problems(const ss_report *report)
{
	ss_buf line = SS_BUF_INIT;

	for (size_t i = 0; i < ss_report_count(report); i++) {
		ss_buf_clear(&line);
		ss_report_format(ss_report_at(report, i), &line);
		fputs("  ", stderr);
		cli_print_safe(stderr, line.ptr);
		fputc('\n', stderr);
	}
	ss_buf_release(&line);
}

int cli_card_show(ss_ctx *ctx, const char *who, bool json)
{
	ss_http *http = NULL;
	ss_xrpc *x = NULL;
	ss_identity id;
	ss_xrpc_record rec;
	ss_report *report = ss_report_new();
	ss_card *card = NULL;
	ss_buf text = SS_BUF_INIT;
	int ret;

	memset(&id, 0, sizeof(id));
	memset(&rec, 0, sizeof(rec));
	if (ss_setting_http_new(&http, ctx->state, &ctx->err) < 0 ||
	    ss_identity_resolve(http, who, &id, &ctx->err) < 0 ||
	    ss_xrpc_new(&x, http, id.pds, &ctx->err) < 0 ||
	    ss_xrpc_get_record(x, id.did, SS_CARD_NSID, SS_CARD_RKEY, &rec, &ctx->err) < 0) {
		if (ctx->err.code == SS_ENOTFOUND && id.did)
			ss_error_set(&ctx->err, SS_ENOTFOUND, "'%s' has published no agent card",
			             who);
		ret = cli_fail(&ctx->err);
		goto out;
	}
	if (!rec.value_json ||
	    ss_card_decode(&card, rec.value_json, rec.value_len, report, &ctx->err) < 0) {
		fputs("skillsync: the card of '", stderr);
		cli_print_safe(stderr, who);
		fputs("' is not valid:\n", stderr);
		print_problems(report);
		ret = SS_EXIT_ERROR;
		goto out;
	}
	if (json) {
		ss_card_format_json(card, &text);
		ss_buf_putc(&text, '\n');
	} else {
		ss_buf_puts(&text, "card of ");
		ss_utf8_escape(&text, id.did, strlen(id.did), SS_ESCAPE_TEXT);
		ss_buf_putc(&text, '\n');
		ss_card_format_text(card, &text);
	}
	fputs(text.ptr, stdout);
	ret = SS_EXIT_OK;
out:
	ss_buf_release(&text);
	ss_card_free(card);
	ss_report_free(report);
	ss_xrpc_record_release(&rec);
	ss_identity_release(&id);
	ss_xrpc_free(x);
	ss_http_free(http);
	return ret;
}
