/*
 * record_blobs.c: the files a record's text cannot hold, carried as ATProto blobs and named in
 * the record's "blobFiles" (docs/RECORD-FORMAT.md): which files they are (ss_record_split, the
 * one rule), their entries written and read.
 */
#include "core/skill/record.h"
#include "core/skill/record_priv.h"

#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/atproto/cid.h"
#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

bool ss_record_text_file(const ss_skill_file *f)
{
	return f->content && f->len <= SS_MAX_CONTENT && ss_utf8_text(f->content, f->len);
}

void ss_record_blob_cid(const ss_skill_file *f, char out[SS_CID_STRSZ])
{
	ss_cid cid;

	if (f->blob_cid && !f->content) {
		snprintf(out, SS_CID_STRSZ, "%s", f->blob_cid);
		return;
	}
	ss_cid_compute(&cid, SS_CID_RAW, f->content, f->len);
	ss_cid_fmt(out, &cid);
}

json_t *ss_record__blob_entry(const ss_skill_file *f, const char *mime)
{
	char cid[SS_CID_STRSZ];
	json_t *o = json_object(), *ref = json_object();

	ss_record_blob_cid(f, cid);
	json_object_set_new(ref, "$type", json_string("blob"));
	json_object_set_new(ref, "ref", json_pack("{s:s}", "$link", cid));
	json_object_set_new(ref, "mimeType", json_string(mime));
	json_object_set_new(ref, "size", json_integer((json_int_t)f->len));
	if (json_object_set_new(o, "path", json_string(f->path)) < 0) {
		json_decref(o);
		json_decref(ref);
		return NULL;
	}
	json_object_set_new(o, "blob", ref);
	if (f->executable)
		json_object_set_new(o, "executable", json_true());
	return o;
}

json_t *ss_record__blob_files(const ss_skill *s, const bool *blob, const char *mime)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->nfiles; i++) {
		json_t *o;

		if (!blob[i])
			continue;
		if (!(o = ss_record__blob_entry(&s->files[i], mime))) {
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

/* The bytes one entry adds to the record's compact JSON (with its comma). */
static size_t entry_len(json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	size_t n = text ? strlen(text) + 1 : 0;

	free(text);
	json_decref(o);
	return n;
}

static size_t inline_len(const ss_skill_file *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", json_string(f->path));
	json_object_set_new(o, "content", json_stringn(f->content, f->len));
	if (f->executable)
		json_object_set_new(o, "executable", json_true());
	return entry_len(o);
}

/* The text files[] holds, largest first (the last path among equals): the next to move out. */
static size_t largest_inline(const ss_skill *s, const bool *blob, const size_t *cost)
{
	size_t best = s->nfiles;

	for (size_t i = 0; i < s->nfiles; i++)
		if (!blob[i] && (best == s->nfiles || cost[i] >= cost[best]))
			best = i;
	return best;
}

void ss_record_split(const ss_skill *s, bool *blob)
{
	char mime[SS_BLOB_MIME_RESERVE + 1];
	size_t in_files = 0, total, *cost;
	ss_buf json = SS_BUF_INIT;
	ss_error ignored;

	for (size_t i = 0; i < s->nfiles; i++) {
		blob[i] = !ss_record_text_file(&s->files[i]) || in_files == SS_MAX_FILES;
		in_files += !blob[i];
	}
	memset(mime, 'x', SS_BLOB_MIME_RESERVE);
	mime[SS_BLOB_MIME_RESERVE] = '\0';
	if (ss_record__encode_split(s, blob, mime, "2000-01-01T00:00:00.000Z",
	                            "2000-01-01T00:00:00.000Z", NULL, &json, &ignored) < 0)
		return;
	total = json.len;
	ss_buf_release(&json);
	if (total <= SS_MAX_RECORD)
		return;
	cost = ss_xcalloc(s->nfiles, sizeof(*cost));
	for (size_t i = 0; i < s->nfiles; i++)
		cost[i] = blob[i] ? 0 : inline_len(&s->files[i]);
	while (total > SS_MAX_RECORD) {
		size_t i = largest_inline(s, blob, cost);

		if (i == s->nfiles)
			break;
		blob[i] = true;
		total = total - cost[i] + entry_len(ss_record__blob_entry(&s->files[i], mime));
	}
	free(cost);
}

void ss_record__check_files(const ss_skill *s, const char *rkey, ss_report *report)
{
	ss_buf label = SS_BUF_INIT, q = SS_BUF_INIT;

	for (size_t i = 0; i < s->nfiles; i++) {
		const ss_skill_file *f = &s->files[i];

		if (f->blob_cid || f->len <= SS_MAX_CONTENT)
			continue;
		ss_buf_clear(&q);
		ss_validate_quote(&q, f->path, strlen(f->path));
		ss_skill_label(&label, rkey, q.ptr);
		ss_report_error(report, label.ptr, NULL, "larger than %d bytes (%zu)",
		                SS_MAX_CONTENT, f->len);
	}
	ss_buf_release(&label);
	ss_buf_release(&q);
}

/* One blobFiles entry into s; false (reported) when it is not one. */
static bool take_blob_file(json_t *f, const char *field, ss_skill *s, ss_report *report,
                           const char *md)
{
	json_t *path = json_object_get(f, "path"), *b = json_object_get(f, "blob");
	json_t *exec = json_object_get(f, "executable"), *ref = json_object_get(b, "ref");
	json_t *link = json_object_get(ref, "$link"), *size = json_object_get(b, "size");
	const char *type = json_string_value(json_object_get(b, "$type"));
	ss_cid cid;
	ss_error err;

	if (!json_is_object(f) || !json_is_string(path) || !json_is_object(b) ||
	    (exec && !json_is_boolean(exec)) || !type || strcmp(type, "blob") ||
	    !json_is_string(link) || !json_is_integer(size) ||
	    !json_is_string(json_object_get(b, "mimeType"))) {
		ss_report_error(report, md, field,
		                "must have a string path, a blob ({$type: blob, ref, mimeType, "
		                "size}) and an optional boolean executable");
		return false;
	}
	if (ss_cid_parse(&cid, json_string_value(link), json_string_length(link), &err) < 0 ||
	    cid.codec != SS_CID_RAW) {
		ss_report_error(report, md, field, "blob ref is not a raw sha2-256 CID");
		return false;
	}
	if (strlen(json_string_value(path)) != json_string_length(path)) {
		ss_report_error(report, md, field, "path holds a NUL character");
		return false;
	}
	if (json_integer_value(size) < 0 || json_integer_value(size) > SS_MAX_BLOB) {
		ss_report_error(report, md, field, "blob size out of range (0 to %d)", SS_MAX_BLOB);
		return false;
	}
	ss_skill_add_blob_file(s, json_string_value(path), json_string_value(link),
	                       (size_t)json_integer_value(size), exec && json_is_true(exec));
	return true;
}

void ss_record__take_blob_files(json_t *arr, ss_skill *s, ss_report *report, const char *rkey,
                                const char *md)
{
	ss_buf field = SS_BUF_INIT;
	json_t *f;
	size_t i;

	if (!json_is_array(arr)) {
		ss_report_error(report, md, "blobFiles", "must be an array");
		return;
	}
	if (json_array_size(arr) > SS_MAX_SKILL_FILES) {
		ss_report_error(report, rkey, "blobFiles", "%zu files, more than the %d allowed",
		                json_array_size(arr), SS_MAX_SKILL_FILES);
		return;
	}
	json_array_foreach(arr, i, f)
	{
		ss_buf_clear(&field);
		ss_buf_printf(&field, "blobFiles[%zu]", i);
		take_blob_file(f, field.ptr, s, report, md);
	}
	ss_buf_release(&field);
	ss_skill_sort_files(s);
}

void ss_record_blobs(const char *json, size_t len, ss_record_blob **out, size_t *n)
{
	json_t *root = json_loadb(json, len, 0, NULL), *arr, *f;
	size_t i;

	*out = NULL;
	*n = 0;
	arr = json_object_get(root, SS_FIELD_BLOB_FILES);
	if (json_is_array(arr))
		*out = ss_xcalloc(json_array_size(arr) + 1, sizeof(**out));
	json_array_foreach(arr, i, f)
	{
		json_t *b = json_object_get(f, "blob");
		const char *path = json_string_value(json_object_get(f, "path"));
		const char *cid =
		    json_string_value(json_object_get(json_object_get(b, "ref"), "$link"));
		ss_record_blob *rb = &(*out)[*n];

		if (!path || !cid || strlen(cid) >= SS_CID_STRSZ)
			continue;
		rb->path = ss_xstrdup(path);
		snprintf(rb->cid, sizeof(rb->cid), "%s", cid);
		(*n)++;
	}
	json_decref(root);
}

void ss_record_blobs_free(ss_record_blob *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(b[i].path);
	free(b);
}

void ss_record_blob_set_mime(const char *json, size_t len, const char *cid, const char *mime,
                             ss_buf *out)
{
	json_t *root = json_loadb(json, len, 0, NULL), *f;
	char *text;
	size_t i;

	json_array_foreach(json_object_get(root, SS_FIELD_BLOB_FILES), i, f)
	{
		json_t *b = json_object_get(f, "blob");
		const char *link =
		    json_string_value(json_object_get(json_object_get(b, "ref"), "$link"));

		if (link && !strcmp(link, cid))
			json_object_set_new(b, "mimeType", json_string(mime));
	}
	text = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (text)
		ss_buf_puts(out, text);
	else
		ss_buf_put(out, json, len);
	free(text);
	json_decref(root);
}
