/* card.c: building the agent's card from settings and skills (checking: card_check.c;
 * output: card_json.c). */
#include "core/agent/card_priv.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/atproto/crypto.h"
#include "core/util/grapheme.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, where text was cut */

static const char *const default_name = "skillsync agent";
static const char *const default_description =
    "An agent whose skills are kept in a memory space with skillsync.";
static const char *const default_version = "1.0.0";
static const char *const memory_model = "skills as garden.engram.skill records in a memory space";

void ss_card_free(ss_card *c)
{
	if (!c)
		return;
	json_decref(c->record);
	json_decref(c->lexicon);
	for (size_t i = 0; i < c->nleft; i++) {
		free(c->left_names[i]);
		free(c->left_reasons[i]);
	}
	free(c->left_names);
	free(c->left_reasons);
	free(c);
}

static int set_text(json_t *obj, const char *key, const char *s, size_t len, ss_error *err)
{
	json_t *j = json_stringn(s, len);

	if (!j || json_object_set_new(obj, key, j) < 0)
		return ss_error_set(err, SS_EINVALID, "'%s' is not valid UTF-8 text", key);
	return 0;
}

/* A setting the person gave: refused when it breaks the lexicon's limits or format. */
static int setting(ss_card *c, json_t *obj, const char *def, const char *prop, const char *option,
                   const char *value, ss_error *err)
{
	ss_card_limit l = ss_card__limit_of(c->lexicon, def, prop);
	size_t len = strlen(value), graphemes;

	if (!ss_utf8_valid(value, len))
		return ss_error_set(err, SS_EINVALID, "%s is not valid UTF-8", option);
	if (l.max_length && len > l.max_length)
		return ss_error_set(err, SS_EINVALID, "%s is %zu bytes long; the card allows %zu",
		                    option, len, l.max_length);
	if (l.max_graphemes) {
		if (ss_grapheme_count(value, len, &graphemes, err) < 0)
			return -1;
		if (graphemes > l.max_graphemes)
			return ss_error_set(
			    err, SS_EINVALID,
			    "%s is %zu characters (graphemes) long; the card allows %zu", option,
			    graphemes, l.max_graphemes);
	}
	if (!strcmp(prop, "url") && !ss_card__is_uri(value))
		return ss_error_set(err, SS_EINVALID, "%s '%s' is not an absolute URL", option,
		                    value);
	return set_text(obj, prop, value, len, err);
}

static bool given(const char *s)
{
	return s && *s;
}

static json_t *string_list(const char *s)
{
	json_t *a = json_array();

	json_array_append_new(a, json_string(s));
	return a;
}

int ss_card_new(ss_card **out, const ss_card_settings *s, const char *created_at,
                const char *updated_at, ss_error *err)
{
	ss_card *c = ss_xcalloc(1, sizeof(*c));
	json_t *r, *caps, *provider = NULL;
	int ret = -1;

	c->lexicon = ss_card_lexicon__load();
	c->record = r = json_object();
	json_object_set_new(r, "$type", json_string(SS_CARD_NSID));
	if (setting(c, r, "main", "name", "--name", given(s->name) ? s->name : default_name, err) <
	        0 ||
	    setting(c, r, "main", "description", "--description",
	            given(s->description) ? s->description : default_description, err) < 0 ||
	    setting(c, r, "main", "version", "--version",
	            given(s->version) ? s->version : default_version, err) < 0)
		goto out;
	if (given(s->url) && setting(c, r, "main", "url", "--url", s->url, err) < 0)
		goto out;
	if (given(s->provider_name) || given(s->provider_url)) {
		provider = json_object();
		json_object_set_new(r, "provider", provider);
		if ((given(s->provider_name) &&
		     setting(c, provider, "provider", "name", "--provider-name", s->provider_name,
		             err) < 0) ||
		    (given(s->provider_url) && setting(c, provider, "provider", "url",
		                                       "--provider-url", s->provider_url, err) < 0))
			goto out;
	}
	caps = json_object();
	json_object_set_new(r, "capabilities", caps);
	json_object_set_new(caps, "protocols", string_list("atproto"));
	json_object_set_new(caps, "statefulness", json_string("persistent"));
	json_object_set_new(caps, "memoryModel", json_string(memory_model));
	json_object_set_new(r, "defaultInputModes", string_list("text"));
	json_object_set_new(r, "defaultOutputModes", string_list("text"));
	json_object_set_new(r, "skills", json_array());
	if (set_text(r, "createdAt", created_at, strlen(created_at), err) < 0 ||
	    (updated_at && set_text(r, "updatedAt", updated_at, strlen(updated_at), err) < 0))
		goto out;
	*out = c;
	c = NULL;
	ret = 0;
out:
	ss_card_free(c);
	return ret;
}

static void left_out(ss_card *c, const char *name, const char *reason)
{
	if (c->nleft == c->left_alloc) {
		size_t alloc = c->left_alloc;

		ss_xgrow((void **)&c->left_names, sizeof(char *), c->nleft + 1, &alloc);
		ss_xgrow((void **)&c->left_reasons, sizeof(char *), c->nleft + 1, &c->left_alloc);
	}
	c->left_names[c->nleft] = ss_xstrdup(name);
	c->left_reasons[c->nleft++] = ss_xstrdup(reason);
}

/* s fitted to a string limit (cut with an ellipsis); *cut set when it was cut. */
static int fitted(json_t **out, const char *s, size_t len, ss_card_limit l, bool *cut,
                  ss_error *err)
{
	ss_buf b = SS_BUF_INIT;
	bool was_cut = false;
	int ret =
	    ss_grapheme_fit(&b, s, len, l.max_length, l.max_graphemes, ELLIPSIS, &was_cut, err);

	if (ret == 0)
		*out = json_stringn(b.ptr, b.len);
	if (was_cut)
		*cut = true;
	ss_buf_release(&b);
	return ret;
}

/* Appends one item (trimmed of spaces; empty ones skipped) while the array has room. */
static int add_item(json_t *array, const char *s, size_t len, size_t max_items, size_t item_max,
                    bool *cut, ss_error *err)
{
	ss_card_limit l = {item_max, 0, 0};
	json_t *j = NULL;

	while (len && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (!len)
		return 0;
	if (max_items && json_array_size(array) >= max_items) {
		*cut = true;
		return 0;
	}
	if (fitted(&j, s, len, l, cut, err) < 0)
		return -1;
	json_array_append_new(array, j);
	return 0;
}

/* A list from metadata: a YAML list of strings, or one string split at sep. */
static int metadata_list(json_t *skill, const char *prop, const ss_value *v, char sep,
                         ss_card_limit l, bool *cut, ss_error *err)
{
	json_t *array;
	int ret = 0;

	if (!v)
		return 0;
	array = json_array();
	if (ss_value_type_of(v) == SS_VALUE_STRING) {
		size_t len;
		const char *s = ss_value_string(v, &len), *end = s + len;

		while (ret == 0 && s < end) {
			const char *next = memchr(s, sep, (size_t)(end - s));

			if (!next)
				next = end;
			ret = add_item(array, s, (size_t)(next - s), l.max_length,
			               l.item_max_length, cut, err);
			s = next + 1;
		}
	} else if (ss_value_type_of(v) == SS_VALUE_LIST) {
		for (size_t i = 0; ret == 0 && i < ss_value_count(v); i++) {
			const ss_value *item = ss_value_at(v, i, NULL);
			size_t len;
			const char *s;

			if (ss_value_type_of(item) != SS_VALUE_STRING)
				continue;
			s = ss_value_string(item, &len);
			ret = add_item(array, s, len, l.max_length, l.item_max_length, cut, err);
		}
	}
	if (ret == 0 && json_array_size(array))
		json_object_set_new(skill, prop, array);
	else
		json_decref(array);
	return ret;
}

int ss_card_add_skill(ss_card *c, const char *name, const char *description,
                      const ss_value *frontmatter, ss_error *err)
{
	json_t *skills = json_object_get(c->record, "skills"), *skill, *j = NULL;
	ss_card_limit max = ss_card__limit_of(c->lexicon, "main", "skills");
	ss_card_limit id = ss_card__limit_of(c->lexicon, "skill", "id");
	ss_card_limit nm = ss_card__limit_of(c->lexicon, "skill", "name");
	const ss_value *metadata = frontmatter ? ss_value_map_get(frontmatter, "metadata") : NULL;
	bool cut = false;
	int ret = -1;

	if (max.max_length && json_array_size(skills) >= max.max_length) {
		ss_buf why = SS_BUF_INIT;

		ss_buf_printf(&why, "the card holds at most %zu skills", max.max_length);
		left_out(c, name, why.ptr);
		ss_buf_release(&why);
		return 0;
	}
	if ((id.max_length && strlen(name) > id.max_length) ||
	    (nm.max_length && strlen(name) > nm.max_length)) {
		left_out(c, name, "its name is longer than a card's skill id may be");
		return 0;
	}
	skill = json_object();
	if (set_text(skill, "id", name, strlen(name), err) < 0 ||
	    set_text(skill, "name", name, strlen(name), err) < 0 ||
	    fitted(&j, description, strlen(description),
	           ss_card__limit_of(c->lexicon, "skill", "description"), &cut, err) < 0)
		goto out;
	json_object_set_new(skill, "description", j);
	if (metadata && ss_value_type_of(metadata) == SS_VALUE_MAP &&
	    (metadata_list(skill, "tags", ss_value_map_get(metadata, "tags"), ',',
	                   ss_card__limit_of(c->lexicon, "skill", "tags"), &cut, err) < 0 ||
	     metadata_list(skill, "examples", ss_value_map_get(metadata, "examples"), '\n',
	                   ss_card__limit_of(c->lexicon, "skill", "examples"), &cut, err) < 0))
		goto out;
	json_array_append(skills, skill);
	if (cut)
		c->ncut++;
	ret = 0;
out:
	json_decref(skill);
	return ret;
}

int ss_card_leave_out(ss_card *c, const char *name, const char *reason, ss_error *err)
{
	left_out(c, name, reason);
	return 0;
}

size_t ss_card_skill_count(const ss_card *c)
{
	return json_array_size(json_object_get(c->record, "skills"));
}

size_t ss_card_left_out_count(const ss_card *c)
{
	return c->nleft;
}

void ss_card_left_out(const ss_card *c, size_t i, const char **name, const char **reason)
{
	*name = c->left_names[i];
	*reason = c->left_reasons[i];
}

size_t ss_card_cut_count(const ss_card *c)
{
	return c->ncut;
}

int ss_card_record_json(const ss_card *c, ss_buf *out, ss_error *err)
{
	char *text = json_dumps(c->record, JSON_COMPACT);
	int ret = 0;

	if (!text)
		return ss_error_set(err, SS_ERROR, "cannot encode the card");
	if (ss_buf_puts(out, text) < 0)
		ret = ss_error_set(err, SS_ETOOBIG, "the card is too large");
	free(text);
	return ret;
}

int ss_card_digest(const ss_card *c, char out[65], ss_error *err)
{
	json_t *copy = json_deep_copy(c->record);
	char *text = NULL;
	uint8_t md[SS_SHA256_LEN];

	if (copy) {
		json_object_del(copy, "createdAt");
		json_object_del(copy, "updatedAt");
		text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(copy);
	}
	if (!text)
		return ss_error_set(err, SS_ERROR, "cannot encode the card");
	ss_crypto_sha256(text, strlen(text), md);
	free(text);
	for (size_t i = 0; i < sizeof(md); i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int ss_card_decode(ss_card **out, const char *json, size_t len, ss_report *report, ss_error *err)
{
	ss_card *c;

	if (ss_card_check(json, len, report, err) < 0)
		return -1;
	c = ss_xcalloc(1, sizeof(*c));
	c->lexicon = ss_card_lexicon__load();
	c->record = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	if (!c->record) { /* checked just above */
		ss_card_free(c);
		return ss_error_set(err, SS_EINVALID, "card: not JSON");
	}
	*out = c;
	return 0;
}

const char *ss_card_created_at(const ss_card *c)
{
	return json_string_value(json_object_get(c->record, "createdAt"));
}
