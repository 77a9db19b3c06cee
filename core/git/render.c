/* render.c: a fetched record to a skill subtree (see core/git/render.h). */
#include "core/git/render.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/cid.h"
#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

void ss_render_release(ss_render *r)
{
	if (!r)
		return;
	free(r->reason);
	free(r->created_at);
	free(r->updated_at);
	free(r->note);
	memset(r, 0, sizeof(*r));
}

/* The report's first error, and how many more there are, as one line. */
static char *reason_of(const ss_report *rep)
{
	ss_buf b = SS_BUF_INIT;
	size_t errors = ss_report_errors(rep);

	for (size_t i = 0; i < ss_report_count(rep); i++) {
		const ss_report_item *it = ss_report_at(rep, i);

		if (it->severity != SS_SEV_ERROR)
			continue;
		ss_report_format(it, &b);
		break;
	}
	if (!b.len)
		ss_buf_puts(&b, "invalid record");
	if (errors > 1)
		ss_buf_printf(&b, " (and %zu more problem%s)", errors - 1, errors > 2 ? "s" : "");
	return ss_buf_detach(&b, NULL);
}

typedef struct feed {
	ss_tree_builder *b;
	ss_error *err;
} feed;

static int add_file(const char *path, const char *bytes, size_t len, bool executable, void *ud)
{
	feed *f = ud;

	return ss_tree_builder_add(f->b, path, bytes, len, executable, f->err);
}

static char *text(const char *fmt, ...) SS_PRINTF(1, 2);

/* The formatted text, malloc'd. */
static char *text(const char *fmt, ...)
{
	ss_buf b = SS_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	ss_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return ss_buf_detach(&b, NULL);
}

/* Whether old holds f's bytes under f's path (into bytes). */
static bool in_old(ss_repo *repo, const ss_oid *old, const ss_skill_file *f, const ss_cid *cid,
                   ss_buf *bytes)
{
	ss_error ignored;

	ss_buf_clear(bytes);
	return old && ss_tree_read_file(repo, old, f->path, bytes, &ignored) == 0 &&
	       bytes->len == f->len && ss_cid_matches(cid, bytes->ptr, bytes->len);
}

/* Why read r (for f) cannot be taken, or NULL (malloc'd). */
static char *read_problem(const ss_cid_read *r, const ss_skill_file *f, const ss_cid *cid)
{
	if (r->rc < 0)
		return text("its blob %s could not be read: %s", f->blob_cid, r->err.message);
	if (r->out->len != f->len || !ss_cid_matches(cid, r->out->ptr, r->out->len))
		return text("its blob does not hash to the CID the record names (%s): "
		            "what the server sent does not verify",
		            f->blob_cid);
	return NULL;
}

/* The awaited files of a skill and their CIDs, for a walk of the last version's files. */
typedef struct awaited {
	ss_skill *skill;
	const ss_cid *cids;
	size_t reused;
} awaited;

/* A file of the last version that holds the bytes of an awaited file elsewhere (a file moved
 * or copied within the skill) gives them to it. */
static int take_moved(const ss_tree_file *t, void *payload)
{
	awaited *a = payload;

	for (size_t i = 0; i < a->skill->nfiles; i++) {
		ss_skill_file *f = &a->skill->files[i];

		if (!f->content && f->len == t->len &&
		    ss_cid_matches(&a->cids[i], t->data, t->len)) {
			ss_skill_fill_blob(f, t->data, t->len);
			a->reused++;
		}
	}
	return 0;
}

/* The awaited files' CIDs into cids, and the bytes of those old holds (under the same path,
 * else anywhere in it); the first problem (malloc'd, *bad its file) or NULL. */
static char *take_old(ss_repo *repo, ss_skill *skill, ss_render_blobs *src, ss_cid *cids,
                      size_t *bad)
{
	ss_buf bytes = SS_BUF_INIT;
	awaited a = {skill, cids, 0};
	ss_error err;

	for (size_t i = 0; i < skill->nfiles; i++) {
		ss_skill_file *f = &skill->files[i];

		if (f->content)
			continue;
		if (ss_cid_parse(&cids[i], f->blob_cid, strlen(f->blob_cid), &err) < 0) {
			*bad = i;
			ss_buf_release(&bytes);
			return ss_xstrdup(err.message);
		}
		if (in_old(repo, src->old, f, &cids[i], &bytes)) {
			ss_skill_fill_blob(f, bytes.ptr, bytes.len);
			src->reused++;
		}
	}
	ss_buf_release(&bytes);
	if (src->old && ss_skill_awaits_blobs(skill) &&
	    ss_tree_each_file(repo, src->old, take_moved, &a, &err) == 0)
		src->reused += a.reused;
	return NULL;
}

/* The bytes of every awaited file: from the last version when it holds them, else read (all at
 * once) and each checked against its CID; the first problem (malloc'd, *bad its file) or
 * NULL. */
static char *fill_from(ss_repo *repo, ss_skill *skill, ss_render_blobs *src, size_t *bad)
{
	ss_cid_read *reads = ss_xcalloc(skill->nfiles + 1, sizeof(*reads));
	ss_cid *cids = ss_xcalloc(skill->nfiles + 1, sizeof(*cids));
	size_t *of = ss_xcalloc(skill->nfiles + 1, sizeof(*of)), n = 0;
	char *why = take_old(repo, skill, src, cids, bad);

	for (size_t i = 0; i < skill->nfiles && !why; i++) {
		if (skill->files[i].content)
			continue;
		reads[n] = (ss_cid_read){.cid = skill->files[i].blob_cid,
		                         .max = skill->files[i].len,
		                         .out = ss_xcalloc(1, sizeof(ss_buf))};
		ss_buf_init(reads[n].out);
		of[n++] = i;
	}
	if (n) {
		src->get(src->payload, reads, n);
		src->fetched += n;
	}
	for (size_t k = 0; k < n; k++) {
		ss_skill_file *f = &skill->files[of[k]];

		if (!why && !(why = read_problem(&reads[k], f, &cids[of[k]])))
			ss_skill_fill_blob(f, reads[k].out->ptr, reads[k].out->len);
		else if (why && *bad == SIZE_MAX)
			*bad = of[k];
		ss_buf_release(reads[k].out);
		free(reads[k].out);
	}
	free(reads);
	free(cids);
	free(of);
	return why;
}

/* Gives every awaited file of skill its bytes; false with out->reason and out->refused when one
 * cannot be had. */
static bool fill_blobs(ss_repo *repo, const char *rkey, ss_skill *skill, ss_render_blobs *src,
                       ss_render *out)
{
	ss_buf label = SS_BUF_INIT;
	size_t bad = SIZE_MAX;
	char *why;

	if (!ss_skill_awaits_blobs(skill))
		return true;
	why =
	    src ? fill_from(repo, skill, src, &bad) : ss_xstrdup("blob files cannot be read here");
	if (!why)
		return true;
	for (size_t i = 0; bad == SIZE_MAX && i < skill->nfiles; i++)
		if (!skill->files[i].content)
			bad = i;
	ss_skill_label(&label, rkey, skill->files[bad].path);
	out->reason = text("%s: %s", label.ptr, why);
	out->refused = true;
	free(why);
	ss_buf_release(&label);
	return false;
}

int ss_render_record(ss_repo *repo, const char *rkey, const ss_record_value *value, ss_render *out,
                     ss_error *err)
{
	return ss_render_record_blobs(repo, rkey, value, NULL, out, err);
}

int ss_render_record_blobs(ss_repo *repo, const char *rkey, const ss_record_value *value,
                           ss_render_blobs *src, ss_render *out, ss_error *err)
{
	ss_report *rep = ss_report_new();
	ss_skill *skill = NULL;
	ss_record_meta meta;
	ss_tree_builder *b = NULL;
	feed f;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	ss_record_meta_init(&meta);
	if (ss_record_decode_value(value, rkey, &skill, &meta, rep) < 0) {
		out->reason = reason_of(rep);
		ret = 0;
		goto out;
	}
	if (!fill_blobs(repo, rkey, skill, src, out)) {
		ret = 0;
		goto out;
	}
	if (ss_tree_builder_new(&b, repo) < 0) {
		ss_error_set(err, SS_ERROR, "cannot build a tree for '%s'", rkey);
		goto out;
	}
	f.b = b;
	f.err = err;
	rc = ss_skill_to_files(skill, add_file, &f);
	if (rc == 0)
		rc = ss_tree_builder_write(b, &out->tree, err);
	if (rc < 0 && err->code == SS_EINVALID) {
		/* A path the git layer refuses (the validation should have caught it). */
		out->reason = ss_xstrdup(err->message);
		ret = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	out->valid = true;
	out->created_at = meta.created_at;
	out->updated_at = meta.updated_at;
	out->note = meta.note;
	out->updated_us = meta.updated_us;
	meta.created_at = meta.updated_at = meta.note = NULL;
	ret = 0;
out:
	ss_tree_builder_free(b);
	ss_skill_free(skill);
	ss_record_meta_release(&meta);
	ss_report_free(rep);
	return ret;
}
