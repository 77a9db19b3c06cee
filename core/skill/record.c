/* record.c: encoding a skill as a garden.engram.skill record (decoding: record_decode.c). */
#include "core/skill/record.h"
#include "core/skill/record_priv.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

void ss_record_meta_init(ss_record_meta *m)
{
	memset(m, 0, sizeof(*m));
}

void ss_record_meta_release(ss_record_meta *m)
{
	if (!m)
		return;
	free(m->created_at);
	free(m->updated_at);
	free(m->note);
	ss_record_meta_init(m);
}

/* Sets key to a string of len bytes; fails on text that is not UTF-8. */
static int set_string(json_t *obj, const char *key, const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);

	if (!j)
		return -1;
	return json_object_set_new(obj, key, j);
}

json_t *ss_record_value_json(const ss_value *v)
{
	json_t *j = NULL;
	const char *s;
	size_t len;

	switch (ss_value_type_of(v)) {
	case SS_VALUE_NULL:
		return json_null();
	case SS_VALUE_BOOL:
		return json_boolean(ss_value_bool(v));
	case SS_VALUE_INT:
		return json_integer((json_int_t)ss_value_int(v));
	case SS_VALUE_STRING:
		s = ss_value_string(v, &len);
		return json_stringn(s, len);
	case SS_VALUE_LIST:
		j = json_array();
		for (size_t i = 0; i < ss_value_count(v); i++) {
			json_t *item = ss_record_value_json(ss_value_at(v, i, NULL));
			if (!item || json_array_append_new(j, item) < 0)
				goto fail;
		}
		return j;
	case SS_VALUE_MAP:
		j = json_object();
		for (size_t i = 0; i < ss_value_count(v); i++) {
			const char *key;
			json_t *item = ss_record_value_json(ss_value_at(v, i, &key));
			if (!item || json_object_set_new(j, key, item) < 0)
				goto fail;
		}
		return j;
	}
fail:
	json_decref(j);
	return NULL;
}

static json_t *files_to_json(const ss_skill *skill, const bool *blob)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < skill->nfiles; i++) {
		const ss_skill_file *f = &skill->files[i];
		json_t *o;

		if (blob[i])
			continue;
		o = json_object();

		json_array_append_new(arr, o);
		if (set_string(o, "path", f->path, strlen(f->path)) < 0 ||
		    set_string(o, "content", f->content, f->len) < 0) {
			json_decref(arr);
			return NULL;
		}
		if (f->executable)
			json_object_set_new(o, "executable", json_true());
	}
	return arr;
}

/* SKILL.md's frontmatter as written, when the skill has it (docs/RECORD-FORMAT.md). */
static int put_frontmatter_text(json_t *root, const ss_skill *skill)
{
	if (!skill->frontmatter_text)
		return 0;
	return set_string(root, SS_FIELD_FRONTMATTER_TEXT, skill->frontmatter_text,
	                  skill->frontmatter_text_len);
}

/* The files of skill, split (ss_record_split) into files[] and blobFiles. */
static int set_files(json_t *root, const ss_skill *skill, const bool *blob, const char *mime)
{
	size_t nblobs = 0;
	json_t *files;

	for (size_t i = 0; i < skill->nfiles; i++)
		nblobs += blob[i];
	if (skill->nfiles > nblobs) {
		if (!(files = files_to_json(skill, blob)))
			return -1;
		json_object_set_new(root, "files", files);
	}
	if (nblobs) {
		if (!(files = ss_record__blob_files(skill, blob, mime)))
			return -1;
		json_object_set_new(root, SS_FIELD_BLOB_FILES, files);
	}
	return 0;
}

int ss_record_encode(const ss_skill *skill, const char *created_at, const char *updated_at,
                     const char *note, ss_buf *out, ss_error *err)
{
	bool *blob = ss_xcalloc(skill->nfiles + 1, sizeof(*blob));
	int ret;

	ss_record_split(skill, blob);
	ret = ss_record__encode_split(skill, blob, SS_BLOB_MIME, created_at, updated_at, note, out,
	                              err);
	free(blob);
	return ret;
}

int ss_record__encode_split(const ss_skill *skill, const bool *blob, const char *mime,
                            const char *created_at, const char *updated_at, const char *note,
                            ss_buf *out, ss_error *err)
{
	json_t *root = json_object(), *fm = NULL;
	char *text = NULL;
	int ret = SS_EINVALID;

	json_object_set_new(root, "$type", json_string(SS_RECORD_TYPE));
	if (set_string(root, "name", skill->name, strlen(skill->name)) < 0 ||
	    set_string(root, "description", skill->description, strlen(skill->description)) < 0)
		goto fail;
	if (skill->disable_model_invocation != SS_DMI_ABSENT)
		json_object_set_new(root, SS_FIELD_DISABLE_MODEL_INVOCATION,
		                    json_boolean(skill->disable_model_invocation == SS_DMI_TRUE));
	if (set_string(root, "instructions", skill->instructions, skill->instructions_len) < 0)
		goto fail;
	if (set_files(root, skill, blob, mime) < 0)
		goto fail;
	if (ss_value_count(skill->frontmatter)) {
		if (!(fm = ss_record_value_json(skill->frontmatter)))
			goto fail;
		json_object_set_new(root, "frontmatter", fm);
	}
	if (put_frontmatter_text(root, skill) < 0)
		goto fail;
	if (note && *note &&
	    set_string(root, "note", note, ss_utf8_cut(note, strlen(note), SS_MAX_NOTE)) < 0)
		goto fail;
	if (set_string(root, "createdAt", created_at, strlen(created_at)) < 0 ||
	    set_string(root, "updatedAt", updated_at, strlen(updated_at)) < 0)
		goto fail;
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		goto fail;
	ss_buf_puts(out, text);
	free(text);
	json_decref(root);
	return 0;
fail:
	json_decref(root);
	return ss_error_set(err, ret, "cannot encode skill '%s': text is not valid UTF-8",
	                    skill->name);
}

bool ss_record_same(const char *a, size_t alen, const char *b, size_t blen)
{
	json_t *ja = json_loadb(a, alen, 0, NULL), *jb = json_loadb(b, blen, 0, NULL);
	bool same = ja && jb && json_equal(ja, jb);

	json_decref(ja);
	json_decref(jb);
	return same;
}
