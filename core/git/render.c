/* render.c: a fetched record to a skill subtree (see core/git/render.h). */
#include "core/git/render.h"

#include <stdarg.h>
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

/* The bytes of f (awaited from its blob) from src->old when it holds them, else src->get; NULL
 * when they verify, else why not (malloc'd). */
static char *blob_bytes(ss_repo *repo, ss_render_blobs *src, const ss_skill_file *f, ss_buf *bytes)
{
	ss_error err;
	ss_cid cid;

	if (ss_cid_parse(&cid, f->blob_cid, strlen(f->blob_cid), &err) < 0)
		return ss_xstrdup(err.message);
	ss_buf_clear(bytes);
	if (src->old && ss_tree_read_file(repo, src->old, f->path, bytes, &err) == 0 &&
	    bytes->len == f->len && ss_cid_matches(&cid, bytes->ptr, bytes->len)) {
		src->reused++;
		return NULL;
	}
	src->fetched++;
	ss_buf_clear(bytes);
	if (src->get(src->payload, f->blob_cid, f->len, bytes, &err) < 0)
		return text("its blob %s could not be read: %s", f->blob_cid, err.message);
	if (bytes->len != f->len || !ss_cid_matches(&cid, bytes->ptr, bytes->len))
		return text("its blob does not hash to the CID the record names (%s): "
		            "what the server sent does not verify",
		            f->blob_cid);
	return NULL;
}

/* Gives every awaited file of skill its bytes; false with out->reason and out->refused when one
 * cannot be had. */
static bool fill_blobs(ss_repo *repo, const char *rkey, ss_skill *skill, ss_render_blobs *src,
                       ss_render *out)
{
	ss_buf bytes = SS_BUF_INIT, label = SS_BUF_INIT;
	char *why = NULL;

	for (size_t i = 0; i < skill->nfiles && !why; i++) {
		ss_skill_file *f = &skill->files[i];

		if (f->content)
			continue;
		why = src ? blob_bytes(repo, src, f, &bytes)
		          : ss_xstrdup("blob files cannot be read here");
		if (!why)
			ss_skill_fill_blob(f, bytes.ptr, bytes.len);
	}
	for (size_t i = 0; why && i < skill->nfiles; i++)
		if (!skill->files[i].content) {
			ss_skill_label(&label, rkey, skill->files[i].path);
			out->reason = text("%s: %s", label.ptr, why);
			out->refused = true;
			break;
		}
	free(why);
	ss_buf_release(&bytes);
	ss_buf_release(&label);
	return !out->reason;
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
