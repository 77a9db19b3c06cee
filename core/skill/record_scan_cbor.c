/*
 * record_scan_cbor.c: the record decoder's way for a block read from a member's repository. The
 * record is taken straight from its DAG-CBOR into the skill, where it used to be written as
 * JSON text (ss_cbor_to_json) and that text scanned again (core/skill/record_scan.c): on a clone,
 * the two were a tenth of the main thread's time.
 *
 * It takes only blocks whose JSON form the text scanner would take, and takes them as it
 * would: same keys (core/skill/record_fields.c), same strings (the text scanner reads back what
 * ss_cbor_to_json escapes), same integers, key order and limits. Everything else is left to
 * the JSON form (returns false), so every error still comes from one place: any reader error,
 * a "$type" below the top (ss_cbor_to_json leaves it to ss_cbor_decode), bytes or a link
 * (their JSON form is an object), text holding a NUL (jansson refuses \u0000), an integer
 * beyond 2^53 - 1, nesting deeper than the frontmatter allows, a map of more keys than the
 * scanners check, trailing bytes. tests/core/record.c and tests/fuzz/record.c decode blocks
 * both ways and compare.
 */
#include "core/skill/record_priv.h"

#include <string.h>

#include "core/atproto/cbor.h"
#include "core/skill/skill.h"
#include "core/skill/skillmd.h"
#include "core/skill/validate.h"
#include "core/skill/value.h"
#include "core/util/buf.h"

typedef struct cscan {
	ss_cbor_reader r;
	ss_buf str; /* the text just read, NUL-terminated */
} cscan;

/* The next item, any kind: false on a reader error. */
static bool next(cscan *c, ss_cbor_item *it)
{
	ss_error ignored;

	return ss_cbor_read(&c->r, it, &ignored) == 0;
}

/* Text without a NUL into out (NUL-terminated). */
static bool take_text(const ss_cbor_item *it, ss_buf *out)
{
	if (it->type != SS_CBOR_TEXT || memchr(it->ptr, '\0', it->len))
		return false;
	ss_buf_clear(out);
	ss_buf_put(out, it->ptr, it->len);
	return true;
}

static bool next_text(cscan *c, ss_buf *out)
{
	ss_cbor_item it;

	return next(c, &it) && take_text(&it, out);
}

static bool next_bool(cscan *c, bool *v)
{
	ss_cbor_item it;

	if (!next(c, &it) || (it.type != SS_CBOR_TRUE && it.type != SS_CBOR_FALSE))
		return false;
	*v = it.type == SS_CBOR_TRUE;
	return true;
}

/* A map's key into out (prev: the last key, NULL for the first): sorted, text, no NUL. */
static bool next_key(cscan *c, ss_cbor_item *key, const ss_cbor_item *prev, ss_buf *out)
{
	ss_error ignored;

	return ss_cbor_read_key(&c->r, key, prev, &ignored) == 0 && take_text(key, out);
}

/* One value at depth (the frontmatter map is 0) into *out, as the text scanner's scan_value
 * makes it from the value's JSON form; false (nothing in *out) to leave it to that form. */
static bool scan_value(cscan *c, int depth, ss_value **out)
{
	ss_cbor_item it, key, prev;
	ss_buf k = SS_BUF_INIT;
	ss_value *v = NULL;

	*out = NULL;
	if (depth > SS_SKILLMD_MAX_DEPTH || !next(c, &it))
		return false;
	switch (it.type) {
	case SS_CBOR_TEXT:
		if (memchr(it.ptr, '\0', it.len))
			return false;
		*out = ss_value_new_string((const char *)it.ptr, it.len);
		return true;
	case SS_CBOR_INT:
		if (it.i > SS_VALUE_INT_MAX || it.i < -SS_VALUE_INT_MAX)
			return false;
		*out = ss_value_new_int(it.i);
		return true;
	case SS_CBOR_TRUE:
	case SS_CBOR_FALSE:
		*out = ss_value_new_bool(it.type == SS_CBOR_TRUE);
		return true;
	case SS_CBOR_NULL:
		*out = ss_value_new_null();
		return true;
	case SS_CBOR_ARRAY:
		v = ss_value_new_list();
		for (size_t i = 0; i < it.len; i++) {
			ss_value *item;

			if (!scan_value(c, depth + 1, &item))
				goto fail;
			ss_value_list_append(v, item);
		}
		*out = v;
		return true;
	case SS_CBOR_MAP:
		if (it.len > SS_SCAN_MAX_KEYS)
			return false;
		v = ss_value_new_map();
		for (size_t i = 0; i < it.len; i++) {
			ss_value *item;

			if (!next_key(c, &key, i ? &prev : NULL, &k) ||
			    (k.len == 5 && !memcmp(k.ptr, "$type", 5)) ||
			    !scan_value(c, depth + 1, &item))
				goto fail;
			ss_value_map_append(v, k.ptr, item);
			prev = key;
		}
		ss_buf_release(&k);
		*out = v;
		return true;
	case SS_CBOR_BYTES:
	case SS_CBOR_LINK:
		break;
	}
	return false;
fail:
	ss_buf_release(&k);
	ss_value_free(v);
	return false;
}

/* One file object: path, content, and maybe executable, nothing else. */
static bool scan_file(cscan *c, ss_skill *s, ss_buf *path, ss_buf *content)
{
	ss_cbor_item it, key, prev;
	ss_buf k = SS_BUF_INIT;
	unsigned seen = 0;
	bool exec = false, ok = false;

	if (!next(c, &it) || it.type != SS_CBOR_MAP)
		return false;
	for (size_t i = 0; i < it.len; i++) {
		unsigned bit;

		if (!next_key(c, &key, i ? &prev : NULL, &k))
			goto out;
		bit = ss_record_scan__file_key(k.ptr, k.len);
		if (!(bit == 1   ? next_text(c, path)
		      : bit == 2 ? next_text(c, content)
		                 : bit == 4 && next_bool(c, &exec)))
			goto out;
		seen |= bit;
		prev = key;
	}
	if ((ok = (seen & 3) == 3))
		ss_skill_add_file(s, path->ptr, content->ptr, content->len, exec);
out:
	ss_buf_release(&k);
	return ok;
}

static bool scan_files(cscan *c, ss_skill *s)
{
	ss_buf path = SS_BUF_INIT, content = SS_BUF_INIT;
	ss_cbor_item it;
	bool ok = next(c, &it) && it.type == SS_CBOR_ARRAY && it.len <= SS_MAX_FILES;

	for (size_t i = 0; ok && i < it.len; i++)
		ok = scan_file(c, s, &path, &content);
	ss_buf_release(&path);
	ss_buf_release(&content);
	return ok;
}

/* One top-level key's value (other: the keys nobody reads, to count them). */
static bool scan_field(cscan *c, const ss_buf *key, const char *rkey, ss_skill *s,
                       ss_record_meta *m, unsigned *seen, size_t *other)
{
	ss_value *v;
	unsigned bit;
	bool b;

	switch (ss_record_scan__key(key->ptr, key->len, &bit)) {
	case SS_SCAN_STRING:
		return next_text(c, &c->str) &&
		       ss_record_scan__string(bit, c->str.ptr, c->str.len, rkey, s, m, seen);
	case SS_SCAN_BOOL:
		if (!next_bool(c, &b))
			return false;
		s->disable_model_invocation = b ? SS_DMI_TRUE : SS_DMI_FALSE;
		break;
	case SS_SCAN_FILES:
		if (!scan_files(c, s))
			return false;
		break;
	case SS_SCAN_FRONTMATTER: {
		const unsigned char *at = c->r.p;
		ss_cbor_item it;

		if (!next(c, &it) || it.type != SS_CBOR_MAP)
			return false;
		c->r.p = at;
		if (!scan_value(c, 0, &v))
			return false;
		ss_skill_set_frontmatter(s, v);
		break;
	}
	case SS_SCAN_GENERAL:
		return false;
	case SS_SCAN_OTHER:
		/* Read by nobody, but the text scanner checks its value as it checks any. */
		if (++*other > SS_SCAN_MAX_KEYS || !scan_value(c, 0, &v))
			return false;
		ss_value_free(v);
		return true;
	}
	*seen |= bit; /* keys are unique in a map the reader takes */
	return true;
}

bool ss_record_scan__cbor(const unsigned char *block, size_t len, const char *rkey, ss_skill *s,
                          ss_record_meta *m)
{
	cscan c = {{0}, SS_BUF_INIT};
	ss_buf key = SS_BUF_INIT;
	ss_cbor_item it, k, prev;
	unsigned seen = 0;
	size_t other = 0;
	bool ok = false;

	ss_cbor_reader_init(&c.r, block, len);
	if (!next(&c, &it) || it.type != SS_CBOR_MAP)
		goto out;
	for (size_t i = 0; i < it.len; i++) {
		if (!next_key(&c, &k, i ? &prev : NULL, &key) ||
		    !scan_field(&c, &key, rkey, s, m, &seen, &other))
			goto out;
		prev = k;
	}
	ok = c.r.p == c.r.end && ss_record_scan__end(seen, s);
out:
	ss_buf_release(&key);
	ss_buf_release(&c.str);
	return ok;
}
