/*
 * record_fields.c: what the record scanners (of JSON text, core/skill/record_scan.c, and of a
 * DAG-CBOR block, core/skill/record_scan_cbor.c) share: which top-level keys they read and how each
 * value is taken, so that both take a record the same way (see core/skill/record_priv.h).
 */
#include "core/skill/record_priv.h"

#include <string.h>

#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"
#include "core/util/time.h"

/* The top-level keys read, as bits of a seen set. */
enum {
	KEY_TYPE = 1 << 0,
	KEY_NAME = 1 << 1,
	KEY_DESCRIPTION = 1 << 2,
	KEY_INSTRUCTIONS = 1 << 3,
	KEY_NOTE = 1 << 4,
	KEY_CREATED = 1 << 5,
	KEY_UPDATED = 1 << 6,
	KEY_DMI = 1 << 7,
	KEY_FILES = 1 << 8,
	KEY_FRONTMATTER = 1 << 9,
	KEY_FRONTMATTER_TEXT = 1 << 10,
	KEY_REQUIRED = KEY_NAME | KEY_DESCRIPTION | KEY_INSTRUCTIONS | KEY_CREATED | KEY_UPDATED,
};

static bool key_is(const char *key, size_t len, const char *name)
{
	return len == strlen(name) && !memcmp(key, name, len);
}

ss_scan_kind ss_record_scan__key(const char *key, size_t len, unsigned *bit)
{
	static const struct {
		const char *name;
		unsigned bit;
		ss_scan_kind kind;
	} keys[] = {
	    {"instructions", KEY_INSTRUCTIONS, SS_SCAN_STRING},
	    {"files", KEY_FILES, SS_SCAN_FILES},
	    {"frontmatter", KEY_FRONTMATTER, SS_SCAN_FRONTMATTER},
	    {"description", KEY_DESCRIPTION, SS_SCAN_STRING},
	    {"name", KEY_NAME, SS_SCAN_STRING},
	    {"$type", KEY_TYPE, SS_SCAN_STRING},
	    {"createdAt", KEY_CREATED, SS_SCAN_STRING},
	    {"updatedAt", KEY_UPDATED, SS_SCAN_STRING},
	    {"note", KEY_NOTE, SS_SCAN_STRING},
	    {SS_FIELD_DISABLE_MODEL_INVOCATION, KEY_DMI, SS_SCAN_BOOL},
	    {SS_FIELD_FRONTMATTER_TEXT, KEY_FRONTMATTER_TEXT, SS_SCAN_STRING},
	    {SS_FIELD_BLOB_FILES, 0, SS_SCAN_GENERAL},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (key_is(key, len, keys[i].name)) {
			*bit = keys[i].bit;
			return keys[i].kind;
		}
	*bit = 0;
	return SS_SCAN_OTHER;
}

/* A datetime into *text and *us: false when it is not one. */
static bool take_time(const char *str, size_t len, char **text, int64_t *us)
{
	if (strlen(str) != len || ss_time_parse(str, us) < 0)
		return false;
	*text = ss_xstrdup(str);
	return true;
}

/* SKILL.md's frontmatter as written: false (the general path reports it) when over its limit. */
static bool take_frontmatter_text(ss_skill *s, const char *str, size_t len)
{
	if (strlen(str) != len || len > SS_MAX_FRONTMATTER_TEXT)
		return false;
	ss_skill_set_frontmatter_text(s, str, len);
	return true;
}

bool ss_record_scan__string(unsigned bit, const char *str, size_t len, const char *rkey,
                            ss_skill *s, ss_record_meta *m, unsigned *seen)
{
	if (*seen & bit) /* given twice: jansson reports it */
		return false;
	*seen |= bit;
	switch (bit) {
	case KEY_INSTRUCTIONS:
		ss_skill_set_instructions(s, str, len);
		return true;
	case KEY_DESCRIPTION:
		if (strlen(str) != len)
			return false;
		ss_skill_set_description(s, str);
		return true;
	case KEY_NAME:
		if (strlen(str) != len || strcmp(str, rkey))
			return false;
		ss_skill_set_name(s, str);
		return true;
	case KEY_TYPE:
		return len == strlen(SS_RECORD_TYPE) && !strcmp(str, SS_RECORD_TYPE);
	case KEY_CREATED:
		return take_time(str, len, &m->created_at, &m->created_us);
	case KEY_UPDATED:
		return take_time(str, len, &m->updated_at, &m->updated_us);
	case KEY_NOTE:
		if (len > SS_MAX_NOTE)
			return false;
		m->note = ss_xstrdup(str);
		return true;
	case KEY_FRONTMATTER_TEXT:
		return take_frontmatter_text(s, str, len);
	}
	return false;
}

unsigned ss_record_scan__file_key(const char *key, size_t len)
{
	return key_is(key, len, "path")         ? 1
	       : key_is(key, len, "content")    ? 2
	       : key_is(key, len, "executable") ? 4
	                                        : 0;
}

bool ss_record_scan__end(unsigned seen, ss_skill *s)
{
	if ((seen & KEY_REQUIRED) != KEY_REQUIRED)
		return false;
	if (seen & KEY_FILES)
		ss_skill_sort_files(s);
	return true;
}
