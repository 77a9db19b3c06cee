/* record_decode.c: a garden.engram.skill record from the network -> a validated skill. */
#include "core/skill/record.h"
#include "core/skill/record_priv.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/skill/skill.h"
#include "core/skill/skillmd.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"
#include "core/util/time.h"

/*
 * How much longer than its text a record can get when encoded again (ss_record_encode, which
 * the validation's record size check runs): every string encodes to at most the bytes it took
 * in the text (jansson escapes only '"', '\\' and control characters, which the text had to
 * escape at least as long), whitespace, unknown keys and "executable": false go, and what can
 * be added is "$type" (30 bytes) and two datetimes written in full (at most 4 bytes each over
 * the shortest RFC 3339 text). A record whose text is that much under SS_MAX_RECORD passes the
 * check without encoding it (a tenth of a clone's CPU); a larger one is encoded and measured.
 */
#define ENCODE_GROWTH 256

typedef struct decode_ctx {
	ss_report *report;
	const char *rkey; /* quoted for messages */
	ss_buf md;        /* "<rkey>/SKILL.md" */
} decode_ctx;

static void bad(decode_ctx *c, const char *field, const char *msg)
{
	ss_report_error(c->report, c->md.ptr, field, "%s", msg);
}

/* The string under key: NULL (reported) when missing and required, or not a string. */
static const char *get_string(decode_ctx *c, json_t *obj, const char *key, bool required,
                              size_t *len)
{
	json_t *j = json_object_get(obj, key);

	if (!j) {
		if (required)
			bad(c, key, "missing");
		return NULL;
	}
	if (!json_is_string(j)) {
		bad(c, key, "must be a string");
		return NULL;
	}
	if (len)
		*len = json_string_length(j);
	return json_string_value(j);
}

static ss_value *json_to_value(decode_ctx *c, json_t *j, const char *key, int depth)
{
	ss_value *v = NULL;
	const char *k;
	json_t *item;
	size_t i;

	if (depth > SS_SKILLMD_MAX_DEPTH) {
		bad(c, key, "nested too deeply");
		return NULL;
	}
	switch (json_typeof(j)) {
	case JSON_NULL:
		return ss_value_new_null();
	case JSON_TRUE:
	case JSON_FALSE:
		return ss_value_new_bool(json_is_true(j));
	case JSON_INTEGER:
		if (json_integer_value(j) > SS_VALUE_INT_MAX ||
		    json_integer_value(j) < -SS_VALUE_INT_MAX) {
			bad(c, key, "holds an integer beyond 2^53 - 1 (not storable in records)");
			return NULL;
		}
		return ss_value_new_int((int64_t)json_integer_value(j));
	case JSON_STRING:
		return ss_value_new_string(json_string_value(j), json_string_length(j));
	case JSON_REAL:
		bad(c, key, "holds a number with a fraction (not allowed in records)");
		return NULL;
	case JSON_ARRAY:
		v = ss_value_new_list();
		json_array_foreach(j, i, item)
		{
			ss_value *sub = json_to_value(c, item, key, depth + 1);
			if (!sub)
				goto fail;
			ss_value_list_append(v, sub);
		}
		return v;
	case JSON_OBJECT:
		v = ss_value_new_map();
		json_object_foreach(j, k, item)
		{
			ss_value *sub = json_to_value(c, item, depth ? key : k, depth + 1);
			if (!sub)
				goto fail;
			ss_value_map_append(v, k, sub);
		}
		return v;
	}
fail:
	ss_value_free(v);
	return NULL;
}

static void take_files(decode_ctx *c, json_t *files, ss_skill *s)
{
	ss_buf field = SS_BUF_INIT;
	json_t *f;
	size_t i;

	if (!json_is_array(files)) {
		bad(c, "files", "must be an array");
		return;
	}
	if (json_array_size(files) > SS_MAX_FILES) {
		ss_report_error(c->report, c->rkey, "files", "%zu files, more than the %d allowed",
		                json_array_size(files), SS_MAX_FILES);
		return;
	}
	json_array_foreach(files, i, f)
	{
		json_t *path = json_object_get(f, "path"), *content = json_object_get(f, "content");
		json_t *exec = json_object_get(f, "executable");

		ss_buf_clear(&field);
		ss_buf_printf(&field, "files[%zu]", i);
		if (!json_is_object(f) || !json_is_string(path) || !json_is_string(content) ||
		    (exec && !json_is_boolean(exec))) {
			bad(c, field.ptr,
			    "must have a string path, a string content and an optional "
			    "boolean executable");
			continue;
		}
		if (strlen(json_string_value(path)) != json_string_length(path)) {
			bad(c, field.ptr, "path holds a NUL character");
			continue;
		}
		ss_skill_add_file(s, json_string_value(path), json_string_value(content),
		                  json_string_length(content), exec && json_is_true(exec));
	}
	ss_buf_release(&field);
	ss_skill_sort_files(s);
}

static void take_time(decode_ctx *c, json_t *root, const char *key, char **text, int64_t *us)
{
	const char *s = get_string(c, root, key, true, NULL);

	if (!s)
		return;
	if (ss_time_parse(s, us) < 0) {
		bad(c, key, "not a datetime (RFC 3339 with a time zone)");
		return;
	}
	*text = ss_xstrdup(s);
}

/* Returns the ss_validate_skill flags for the fields already reported. */
static int take_fields(decode_ctx *c, json_t *root, ss_skill *s, const char *rkey)
{
	const char *name = get_string(c, root, "name", true, NULL);
	const char *desc = get_string(c, root, "description", true, NULL);
	const char *body;
	json_t *dmi = json_object_get(root, SS_FIELD_DISABLE_MODEL_INVOCATION);
	size_t len;
	int flags = 0;

	if (name && strcmp(name, rkey)) {
		ss_buf q = SS_BUF_INIT;
		ss_validate_quote(&q, name, strlen(name));
		ss_report_error(c->report, c->md.ptr, "name",
		                "'%s' differs from the record key '%s'", q.ptr, c->rkey);
		ss_buf_release(&q);
		name = NULL;
	}
	if (name)
		ss_skill_set_name(s, name);
	else
		flags |= SS_VALIDATE_SKIP_NAME;
	if (desc)
		ss_skill_set_description(s, desc);
	else
		flags |= SS_VALIDATE_SKIP_DESCRIPTION;
	if ((body = get_string(c, root, "instructions", true, &len)))
		ss_skill_set_instructions(s, body, len);
	if (dmi && !json_is_boolean(dmi))
		bad(c, SS_FIELD_DISABLE_MODEL_INVOCATION, "must be true or false");
	else if (dmi)
		s->disable_model_invocation = json_is_true(dmi) ? SS_DMI_TRUE : SS_DMI_FALSE;
	return flags;
}

static void take_frontmatter(decode_ctx *c, json_t *fm, ss_skill *s)
{
	ss_value *v;

	if (!json_is_object(fm)) {
		bad(c, "frontmatter", "must be an object");
		return;
	}
	if ((v = json_to_value(c, fm, "frontmatter", 0)))
		ss_skill_set_frontmatter(s, v);
}

/* SKILL.md's frontmatter as written: optional; checked only for its type and size here (whether
 * it still says the record's values is ss_skill_md's decision). */
static void take_frontmatter_text(decode_ctx *c, json_t *root, ss_skill *s)
{
	size_t len;
	const char *text = get_string(c, root, SS_FIELD_FRONTMATTER_TEXT, false, &len);

	if (text && len > SS_MAX_FRONTMATTER_TEXT)
		ss_report_error(c->report, c->md.ptr, SS_FIELD_FRONTMATTER_TEXT,
		                "longer than %d bytes (%zu)", SS_MAX_FRONTMATTER_TEXT, len);
	else if (text)
		ss_skill_set_frontmatter_text(s, text, len);
}

static void take_meta(decode_ctx *c, json_t *root, ss_record_meta *m)
{
	json_t *type = json_object_get(root, "$type");
	size_t len;
	const char *note = get_string(c, root, "note", false, &len);

	if (type && (!json_is_string(type) || strcmp(json_string_value(type), SS_RECORD_TYPE)))
		bad(c, "$type", "is not '" SS_RECORD_TYPE "'");
	if (note && len > SS_MAX_NOTE)
		ss_report_error(c->report, c->md.ptr, "note", "longer than %d bytes (%zu)",
		                SS_MAX_NOTE, len);
	else if (note)
		m->note = ss_xstrdup(note);
	take_time(c, root, "createdAt", &m->created_at, &m->created_us);
	take_time(c, root, "updatedAt", &m->updated_at, &m->updated_us);
}

/* Why the text is not one JSON value; a key given twice is named (jansson's text ends with
 * "near '<the key as written>'"). */
static void not_json(decode_ctx *c, const json_error_t *jerr)
{
	const char *near = strstr(jerr->text, "near '");
	ss_buf key = SS_BUF_INIT;
	size_t len;

	if (json_error_code(jerr) != json_error_duplicate_key || !near) {
		ss_report_error(c->report, c->rkey, NULL, "record is not valid JSON (%s)",
		                jerr->text);
		return;
	}
	near += strlen("near '");
	len = strlen(near);
	if (len && near[len - 1] == '\'') /* absent when jansson cut a long key short */
		len--;
	ss_validate_quote(&key, near, len);
	ss_report_error(c->report, c->rkey, NULL, "record gives the key %s twice", key.ptr);
	ss_buf_release(&key);
}

int ss_record_decode(const char *json, size_t len, const char *rkey, ss_skill **skill,
                     ss_record_meta *meta, ss_report *report)
{
	return ss_record_decode__path(json, len, rkey, skill, meta, report, SS_RECORD_PATH_AUTO);
}

/*
 * The end of both ways: s (taken by a scanner, or from jansson's tree with flags) is validated
 * and handed over with m when the report got no error. Frees what it does not hand over.
 */
static int finish(ss_skill *s, ss_record_meta *m, const char *qrkey, int flags, size_t errors,
                  ss_skill **skill, ss_record_meta *meta, ss_report *report)
{
	ss_validate_skill(s, qrkey, 0, flags, report);
	ss_record__check_files(s, qrkey, report);
	if (ss_report_errors(report) != errors) {
		ss_skill_free(s);
		ss_record_meta_release(m);
		return SS_EINVALID;
	}
	*skill = s;
	if (meta)
		*meta = *m;
	else
		ss_record_meta_release(m);
	return 0;
}

int ss_record_decode__path(const char *json, size_t len, const char *rkey, ss_skill **skill,
                           ss_record_meta *meta, ss_report *report, ss_record_path path)
{
	size_t errors = ss_report_errors(report);
	ss_buf qkey = SS_BUF_INIT;
	decode_ctx c = {report, NULL, SS_BUF_INIT};
	ss_record_meta m;
	ss_skill *s = ss_skill_new();
	json_t *root = NULL;
	json_error_t jerr;
	int flags, ret = SS_EINVALID;

	ss_record_meta_init(&m);
	ss_validate_quote(&qkey, rkey, strlen(rkey));
	c.rkey = qkey.ptr;
	ss_skill_label(&c.md, qkey.ptr, SS_SKILL_MD);
	if (len > SS_RECORD_MAX_INPUT) {
		ss_report_error(report, c.rkey, NULL, "record larger than %d bytes (%zu)",
		                SS_RECORD_MAX_INPUT, len);
		goto out;
	}
	if (path != SS_RECORD_PATH_GENERAL) {
		if (ss_record__scan(json, len, rkey, s, &m)) {
			flags = 0;
			goto validate;
		}
		if (path == SS_RECORD_PATH_FAST) {
			ret = SS_ENOTFOUND;
			goto out;
		}
		ss_skill_free(s);
		s = ss_skill_new();
		ss_record_meta_release(&m);
		ss_record_meta_init(&m);
	}
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		not_json(&c, &jerr);
		goto out;
	}
	if (!json_is_object(root)) {
		ss_report_error(report, c.rkey, NULL, "record is not a JSON object");
		goto out;
	}
	flags = take_fields(&c, root, s, rkey);
	if (json_object_get(root, "files"))
		take_files(&c, json_object_get(root, "files"), s);
	if (json_object_get(root, "frontmatter"))
		take_frontmatter(&c, json_object_get(root, "frontmatter"), s);
	take_frontmatter_text(&c, root, s);
	if (json_object_get(root, SS_FIELD_BLOB_FILES))
		ss_record__take_blob_files(json_object_get(root, SS_FIELD_BLOB_FILES), s, report,
		                           c.rkey, c.md.ptr);
	take_meta(&c, root, &m);
validate:
	if (len + ENCODE_GROWTH <= SS_MAX_RECORD)
		flags |= SS_VALIDATE_SKIP_RECORD_SIZE;
	ret = finish(s, &m, c.rkey, flags, errors, skill, meta, report);
	s = NULL;
out:
	if (s)
		ss_record_meta_release(&m);
	json_decref(root);
	ss_skill_free(s);
	ss_buf_release(&qkey);
	ss_buf_release(&c.md);
	return ret;
}

/*
 * The JSON form of a block the block scanner takes (no bytes, no links: their JSON objects can
 * be longer) is at most this many times its size: a byte of text becomes at most \u00XX, and
 * the rest of each item's text is at most six times its head of one byte or more ("false" and
 * a ',', a string's quotes, a map's braces, a pair's ':' and ','). So such a block this many
 * times under a limit has a JSON form under it.
 */
#define BLOCK_JSON_GROWTH 6

/* The block's JSON form, decoded as the text a transport would have given (ss_cbor_to_json;
 * ss_cbor_decode for what only it takes or says why it refuses). */
static int decode_block_json(const unsigned char *block, size_t len, const char *rkey,
                             ss_skill **skill, ss_record_meta *meta, ss_report *report)
{
	ss_buf text = SS_BUF_INIT, qkey = SS_BUF_INIT;
	const char *problem = NULL;
	char *dumped = NULL;
	json_t *v = NULL;
	ss_error why;
	int ret = SS_EINVALID;

	ss_error_clear(&why);
	if (len && block[0] >> 5 == 5 && ss_cbor_to_json(block, len, &text) == 0)
		ret = ss_record_decode(text.ptr, text.len, rkey, skill, meta, report);
	else if (ss_cbor_decode(block, len, &v, &why) < 0)
		problem = why.message;
	else if (!json_is_object(v))
		problem = "record is not an object";
	else if (!(dumped = json_dumps(v, JSON_COMPACT)))
		problem = "record cannot be written as JSON";
	else
		ret = ss_record_decode(dumped, strlen(dumped), rkey, skill, meta, report);
	if (problem) {
		ss_validate_quote(&qkey, rkey, strlen(rkey));
		ss_report_error(report, qkey.ptr, NULL, "%s", problem);
	}
	json_decref(v);
	free(dumped);
	ss_buf_release(&text);
	ss_buf_release(&qkey);
	return ret;
}

int ss_record_decode__block_path(const unsigned char *block, size_t len, const char *rkey,
                                 ss_skill **skill, ss_record_meta *meta, ss_report *report,
                                 ss_record_path path)
{
	size_t errors = ss_report_errors(report);
	ss_buf qkey = SS_BUF_INIT;
	ss_record_meta m;
	ss_skill *s;
	int flags = 0, ret;

	if (path == SS_RECORD_PATH_GENERAL || len > SS_RECORD_MAX_INPUT / BLOCK_JSON_GROWTH)
		return path == SS_RECORD_PATH_FAST
		           ? SS_ENOTFOUND
		           : decode_block_json(block, len, rkey, skill, meta, report);
	s = ss_skill_new();
	ss_record_meta_init(&m);
	if (!ss_record_scan__cbor(block, len, rkey, s, &m)) {
		ss_skill_free(s);
		ss_record_meta_release(&m);
		return path == SS_RECORD_PATH_FAST
		           ? SS_ENOTFOUND
		           : decode_block_json(block, len, rkey, skill, meta, report);
	}
	if (len * BLOCK_JSON_GROWTH + ENCODE_GROWTH <= SS_MAX_RECORD)
		flags |= SS_VALIDATE_SKIP_RECORD_SIZE;
	ss_validate_quote(&qkey, rkey, strlen(rkey));
	ret = finish(s, &m, qkey.ptr, flags, errors, skill, meta, report);
	ss_buf_release(&qkey);
	return ret;
}

int ss_record_decode_value(const ss_record_value *v, const char *rkey, ss_skill **skill,
                           ss_record_meta *meta, ss_report *report)
{
	if (!v->cbor)
		return ss_record_decode(v->json, v->json_len, rkey, skill, meta, report);
	return ss_record_decode__block_path(v->cbor, v->cbor_len, rkey, skill, meta, report,
	                                    SS_RECORD_PATH_AUTO);
}
