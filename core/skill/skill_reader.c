/* skill_reader.c: building a skill from its file set (ss_skill_reader_* in core/skill/skill.h). */
#include "core/skill/skill.h"

#include <stdlib.h>
#include <string.h>

#include "core/skill/skillmd.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

struct ss_skill_reader {
	char *dirname;
	ss_report *report;
	ss_skill *skill;
	char *md; /* SKILL.md's bytes, NULL until fed */
	size_t md_len;
	size_t skipped;  /* files that exist but were not taken */
	bool md_skipped; /* SKILL.md exists but was not taken (already reported) */
	size_t errors;   /* the report's errors when reading began */
};

ss_skill_reader *ss_skill_reader_new(const char *dirname, ss_report *report)
{
	ss_skill_reader *r = ss_xcalloc(1, sizeof(*r));

	r->dirname = ss_xstrdup(dirname);
	r->report = report;
	r->errors = ss_report_errors(report);
	r->skill = ss_skill_new();
	return r;
}

void ss_skill_reader_add(ss_skill_reader *r, const char *path, const void *bytes, size_t len,
                         bool executable)
{
	if (!strcmp(path, SS_SKILL_MD) && !r->md) {
		r->md = ss_xmemdup(bytes, len);
		r->md_len = len;
		return;
	}
	ss_skill_add_file(r->skill, path, bytes, len, executable);
}

void ss_skill_reader_skip(ss_skill_reader *r, const char *path)
{
	if (!strcmp(path, SS_SKILL_MD))
		r->md_skipped = true;
	else
		r->skipped++;
}

/* Moves the string under key out of fm into *dst; reports (and returns -1 on) a problem. */
static int take_string(ss_skill_reader *r, ss_value *fm, const char *key, const char *file,
                       char **dst)
{
	ss_value *v = ss_value_map_take(fm, key);
	const char *s;
	size_t len;

	int ret = -1;

	if (!v) {
		ss_report_error(r->report, file, key, "missing");
		return -1;
	}
	if (ss_value_type_of(v) != SS_VALUE_STRING) {
		ss_report_error(r->report, file, key, "must be a string, not %s",
		                ss_value_type_name(ss_value_type_of(v)));
	} else {
		s = ss_value_string(v, &len);
		if (strlen(s) != len) {
			ss_report_error(r->report, file, key, "must not contain NUL characters");
		} else {
			free(*dst);
			*dst = ss_xstrdup(s);
			ret = 0;
		}
	}
	ss_value_free(v);
	return ret;
}

/* Returns the ss_validate_skill flags for the fields already reported. */
static int take_fields(ss_skill_reader *r, ss_value *fm, const char *file)
{
	ss_value *dmi;
	int flags = 0;

	if (take_string(r, fm, "name", file, &r->skill->name) < 0)
		flags |= SS_VALIDATE_SKIP_NAME;
	if (take_string(r, fm, "description", file, &r->skill->description) < 0)
		flags |= SS_VALIDATE_SKIP_DESCRIPTION;
	dmi = ss_value_map_take(fm, SS_KEY_DISABLE_MODEL_INVOCATION);
	if (dmi && ss_value_type_of(dmi) != SS_VALUE_BOOL)
		ss_report_error(r->report, file, SS_KEY_DISABLE_MODEL_INVOCATION,
		                "must be true or false, not %s",
		                ss_value_type_name(ss_value_type_of(dmi)));
	else if (dmi)
		r->skill->disable_model_invocation =
		    ss_value_bool(dmi) ? SS_DMI_TRUE : SS_DMI_FALSE;
	ss_value_free(dmi);
	return flags;
}

/* The frontmatter as written travels with the skill when a record can hold it (UTF-8 without a
 * NUL, within its limit); else the skill is written back in the canonical form. */
static void keep_text(ss_skill *s, const char *text, size_t len)
{
	if (len <= SS_MAX_FRONTMATTER_TEXT && ss_utf8_text(text, len))
		ss_skill_set_frontmatter_text(s, text, len);
}

int ss_skill_reader_finish(ss_skill_reader *r, ss_skill **out)
{
	size_t body_off = 0;
	ss_buf file = SS_BUF_INIT;
	ss_value *fm = NULL;
	int flags = SS_VALIDATE_SKIP_FIELDS, ret = SS_EINVALID;

	ss_skill_label(&file, r->dirname, SS_SKILL_MD);
	if (!r->md) {
		if (!r->md_skipped)
			ss_report_error(r->report, file.ptr, NULL,
			                "missing (every skill needs a SKILL.md)");
	} else if (ss_skillmd_parse(r->md, r->md_len, file.ptr, &fm, &body_off, r->report) == 0) {
		flags = take_fields(r, fm, file.ptr);
		ss_skill_set_frontmatter(r->skill, fm);
		ss_skill_set_instructions(r->skill, r->md + body_off, r->md_len - body_off);
		keep_text(r->skill, r->md, body_off);
	}
	ss_skill_sort_files(r->skill);
	ss_validate_skill(r->skill, r->dirname, r->skipped, flags, r->report);
	if (ss_report_errors(r->report) == r->errors) {
		*out = r->skill;
		r->skill = NULL;
		ret = 0;
	}
	ss_buf_release(&file);
	ss_skill_reader_free(r);
	return ret;
}

void ss_skill_reader_free(ss_skill_reader *r)
{
	if (!r)
		return;
	ss_skill_free(r->skill);
	free(r->md);
	free(r->dirname);
	free(r);
}
