#include "core/skill/validate.h"

#include <string.h>
#include <strings.h>

#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "core/skill/value.h"
#include "core/util/utf8.h"

void ss_validate_quote(ss_buf *out, const char *s, size_t len)
{
	size_t n = ss_utf8_cut(s, len, 80);

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		ss_buf_putc(out, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	if (n < len)
		ss_buf_puts(out, "...");
}

const char *ss_validate_name(const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return "must not be empty";
	if (len > SS_MAX_NAME)
		return "longer than 64 bytes";
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (c == '-' && i > 0 && i + 1 < len && name[i + 1] != '-')
			continue;
		return "must be lowercase letters, digits and single hyphens";
	}
	return NULL;
}

/*
 * The next code point of s (n bytes) from *i on that skip does not pass over, with *i moved past
 * it: -1 at the end, -2 on bytes that are not UTF-8.
 */
static int32_t next_kept(const char *s, size_t n, size_t *i, bool (*skip)(uint32_t))
{
	while (*i < n) {
		uint32_t cp;
		size_t len = ss_utf8_next((const unsigned char *)s + *i, n - *i, &cp);

		if (!len)
			return -2;
		*i += len;
		if (!skip(cp))
			return (int32_t)cp;
	}
	return -1;
}

/* Code points HFS+ ignores when it compares names (as git and libgit2 list them). */
static bool hfs_ignored(uint32_t cp)
{
	return cp == 0x200c || cp == 0x200d || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff;
}

/* Whether HFS+ reads component c (n bytes of valid UTF-8) as ".git". */
static bool hfs_dotgit(const char *c, size_t n)
{
	size_t i = 0;

	for (const char *want = ".git"; *want; want++) {
		int32_t cp = next_kept(c, n, &i, hfs_ignored);
		if (cp >= 'A' && cp <= 'Z')
			cp += 'a' - 'A';
		if (cp != *want)
			return false;
	}
	return next_kept(c, n, &i, hfs_ignored) == -1;
}

/* Whether NTFS reads component c as ".git": ".git" or its 8.3 short name "git~1", in any case,
 * followed by nothing but dots and spaces (which NTFS drops) or by ':' (a data stream). */
static bool ntfs_dotgit(const char *c, size_t n)
{
	size_t start;

	if (n >= 4 && !strncasecmp(c, ".git", 4))
		start = 4;
	else if (n >= 5 && !strncasecmp(c, "git~1", 5))
		start = 5;
	else
		return false;
	if (start < n && c[start] == ':')
		return true;
	for (size_t i = start; i < n; i++)
		if (c[i] != '.' && c[i] != ' ')
			return false;
	return true;
}

const char *ss_validate_component(const char *c, size_t n)
{
	if (n == 0)
		return "path has an empty component";
	if ((n == 1 && c[0] == '.') || (n == 2 && !memcmp(c, "..", 2)))
		return "path has a '.' or '..' component";
	if (n == 4 && !strncasecmp(c, ".git", 4))
		return "path has a '.git' component";
	if (ntfs_dotgit(c, n) || hfs_dotgit(c, n))
		return "path has a component that Windows or macOS reads as '.git'";
	if (n > SS_MAX_COMPONENT)
		return "path has a component longer than 255 bytes";
	return NULL;
}

const char *ss_validate_path(const char *path, size_t len)
{
	const char *start = path, *why;
	size_t depth = 0;

	if (!len)
		return "empty path";
	if (len > SS_MAX_PATH)
		return "path longer than 512 bytes";
	if (path[0] == '/')
		return "absolute path (paths are relative to the skill directory)";
	if (!ss_utf8_valid(path, len))
		return "path is not valid UTF-8";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];
		if (c < 0x20 || c == 0x7f)
			return "path holds control characters";
		if (c == '\\')
			return "path has a backslash (use forward slashes)";
	}
	if (len == 8 && !strncasecmp(path, SS_SKILL_MD, 8))
		return "SKILL.md cannot be one of the other files";
	for (size_t i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		if ((why = ss_validate_component(start, (size_t)(path + i - start))))
			return why;
		if (++depth > SS_MAX_DEPTH)
			return "path has more than 32 components";
		start = path + i + 1;
	}
	return NULL;
}

static void check_name(const ss_skill *s, const char *dirname, const char *file, ss_report *r)
{
	const char *why = ss_validate_name(s->name);
	ss_buf q = SS_BUF_INIT;

	ss_validate_quote(&q, s->name, strlen(s->name));
	if (why && !strcmp(why, "longer than 64 bytes"))
		ss_report_error(r, file, "name", "longer than 64 bytes (%zu)", strlen(s->name));
	else if (why && !s->name[0])
		ss_report_error(r, file, "name", "%s", why);
	else if (why)
		ss_report_error(r, file, "name", "'%s' %s", q.ptr, why);
	else if (strcmp(s->name, dirname))
		ss_report_error(r, file, "name", "'%s' does not match the directory name '%s'",
		                q.ptr, dirname);
	ss_buf_release(&q);
}

/* Whether s (len bytes of UTF-8) is only space, as the reference validator's strip() sees it. */
static bool blank(const char *s, size_t len)
{
	size_t start, end;

	ss_utf8_trim(s, len, &start, &end);
	return start == end;
}

/* Reports a field the specification wants non-empty when it is empty or only white space;
 * returns whether it did. */
static bool empty_field(const char *str, size_t len, const char *file, const char *key,
                        ss_report *r)
{
	if (!len)
		ss_report_error(r, file, key, "must not be empty");
	else if (blank(str, len))
		ss_report_error(r, file, key, "must not be only white space");
	else
		return false;
	return true;
}

static void check_description(const ss_skill *s, const char *file, ss_report *r)
{
	size_t len = strlen(s->description);

	if (empty_field(s->description, len, file, "description", r))
		return;
	if (len > SS_MAX_DESCRIPTION)
		ss_report_error(r, file, "description", "longer than %d bytes (%zu)",
		                SS_MAX_DESCRIPTION, len);
}

/* Strings anywhere in v must hold no NUL (the PDS refuses them). */
static bool has_nul(const ss_value *v)
{
	size_t len;
	const char *str;

	if (ss_value_type_of(v) == SS_VALUE_STRING) {
		str = ss_value_string(v, &len);
		return strlen(str) != len;
	}
	for (size_t i = 0; i < ss_value_count(v); i++) {
		const char *key;
		const ss_value *item = ss_value_at(v, i, &key);
		if (has_nul(item))
			return true;
	}
	return false;
}

/*
 * The optional fields are checked as the reference validator (skills-ref) reads the Agent
 * Skills specification, never stricter for a frontmatter reason: it reads every scalar as
 * text and checks only compatibility's length and type, so a value of another type or an
 * empty one is a warning, kept as written (the record carries it as JSON: docs/VALIDATION.md).
 */
static void warn_type(const ss_value *v, const char *file, const char *key, const char *want,
                      ss_report *r)
{
	ss_report_warning(r, file, key, "should be %s, not %s (kept as written)", want,
	                  ss_value_type_name(ss_value_type_of(v)));
}

static bool is_string(const ss_value *v)
{
	return ss_value_type_of(v) == SS_VALUE_STRING;
}

/* allowed-tools: a string ("Read Bash(git:*)") or a list of strings (Claude Code's form). */
static void check_allowed_tools(const ss_value *v, const char *file, ss_report *r)
{
	if (is_string(v))
		return;
	if (ss_value_type_of(v) != SS_VALUE_LIST) {
		warn_type(v, file, "allowed-tools", "a string or a list of strings", r);
		return;
	}
	for (size_t i = 0; i < ss_value_count(v); i++) {
		const ss_value *item = ss_value_at(v, i, NULL);
		if (!is_string(item))
			ss_report_warning(r, file, "allowed-tools",
			                  "item %zu should be a string, not %s (kept as written)",
			                  i + 1, ss_value_type_name(ss_value_type_of(item)));
	}
}

static void check_compatibility(const ss_value *v, const char *file, ss_report *r)
{
	const char *key = "compatibility", *str;
	size_t len;

	if (ss_value_type_of(v) == SS_VALUE_LIST || ss_value_type_of(v) == SS_VALUE_MAP) {
		ss_report_error(r, file, key, "must be a string, not %s",
		                ss_value_type_name(ss_value_type_of(v)));
		return;
	}
	if (!is_string(v)) {
		warn_type(v, file, key, "a string", r);
		return;
	}
	str = ss_value_string(v, &len);
	if (!len)
		ss_report_warning(r, file, key, "should not be empty (kept as written)");
	else if (blank(str, len))
		ss_report_warning(r, file, key, "should not be only white space (kept as written)");
	else if (ss_utf8_count(str, len) > SS_MAX_COMPATIBILITY)
		ss_report_error(r, file, key, "longer than %d characters (%zu)",
		                SS_MAX_COMPATIBILITY, ss_utf8_count(str, len));
}

static void check_metadata(const ss_value *v, const char *file, ss_report *r)
{
	if (ss_value_type_of(v) != SS_VALUE_MAP) {
		warn_type(v, file, "metadata", "a map of strings to strings", r);
		return;
	}
	for (size_t i = 0; i < ss_value_count(v); i++) {
		const char *key;
		const ss_value *item = ss_value_at(v, i, &key);
		if (!is_string(item))
			ss_report_warning(
			    r, file, "metadata",
			    "value of '%s' should be a string, not %s (kept as written)", key,
			    ss_value_type_name(ss_value_type_of(item)));
	}
}

static void check_extra_key(const char *key, const ss_value *v, const char *file, ss_report *r)
{
	if (has_nul(v)) {
		ss_report_error(r, file, key, "must not contain NUL characters");
	} else if (!strcmp(key, "license")) {
		if (!is_string(v))
			warn_type(v, file, key, "a string", r);
	} else if (!strcmp(key, "allowed-tools")) {
		check_allowed_tools(v, file, r);
	} else if (!strcmp(key, "compatibility")) {
		check_compatibility(v, file, r);
	} else if (!strcmp(key, "metadata")) {
		check_metadata(v, file, r);
	} else if (!strcmp(key, "name") || !strcmp(key, "description") ||
	           !strcmp(key, SS_KEY_DISABLE_MODEL_INVOCATION)) {
		ss_report_error(r, file, key, "given twice");
	} else {
		ss_report_warning(r, file, key, "unknown frontmatter key (kept as is)");
	}
}

static void check_fields(const ss_skill *s, const char *dirname, int flags, ss_report *r)
{
	ss_buf file = SS_BUF_INIT;

	ss_skill_label(&file, dirname, SS_SKILL_MD);
	if (!(flags & SS_VALIDATE_SKIP_NAME))
		check_name(s, dirname, file.ptr, r);
	if (!(flags & SS_VALIDATE_SKIP_DESCRIPTION))
		check_description(s, file.ptr, r);
	for (size_t i = 0; i < ss_value_count(s->frontmatter); i++) {
		const char *key;
		const ss_value *v = ss_value_at(s->frontmatter, i, &key);
		check_extra_key(key, v, file.ptr, r);
	}
	if (s->instructions_len > SS_MAX_INSTRUCTIONS)
		ss_report_error(r, file.ptr, "body", "longer than %d bytes (%zu)",
		                SS_MAX_INSTRUCTIONS, s->instructions_len);
	ss_buf_release(&file);
}

static void check_text(const char *bytes, size_t len, const char *file, const char *field,
                       ss_report *r)
{
	if (memchr(bytes, '\0', len))
		ss_report_error(r, file, field,
		                "binary file (holds a NUL byte); only text files can be kept");
	else if (!ss_utf8_valid(bytes, len))
		ss_report_error(r, file, field, "not valid UTF-8 text");
}

/* Two paths clash when one is a directory prefix of the other ("a" and "a/b"). */
static bool clashes(const char *a, const char *b)
{
	size_t n = strlen(a);
	return !strncmp(a, b, n) && b[n] == '/';
}

/*
 * Whether a and b name the same thing on a file system that ignores case (macOS, Windows) but
 * not here: at their first different component, the two differ only in ASCII case ("A.md" and
 * "a.md", or "Docs/x" and "docs/y").
 */
static bool case_clash(const char *a, const char *b)
{
	for (;;) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");

		if (na != nb)
			return false;
		if (memcmp(a, b, na))
			return !strncasecmp(a, b, na);
		if (!a[na] || !b[nb])
			return false;
		a += na + 1;
		b += nb + 1;
	}
}

static void check_file(const ss_skill *s, size_t i, const char *dirname, ss_report *r)
{
	const ss_skill_file *f = &s->files[i];
	ss_buf file = SS_BUF_INIT, q = SS_BUF_INIT;
	const char *why;

	ss_validate_quote(&q, f->path, strlen(f->path));
	ss_skill_label(&file, dirname, q.ptr);
	why = ss_validate_path(f->path, strlen(f->path));
	if (why) {
		ss_report_error(r, file.ptr, NULL, "%s", why);
		goto out;
	}
	if (i > 0 && !strcmp(s->files[i - 1].path, f->path))
		ss_report_error(r, file.ptr, NULL, "given twice");
	for (size_t j = 0; j < s->nfiles; j++)
		if (j != i && clashes(f->path, s->files[j].path)) {
			ss_report_error(r, file.ptr, NULL, "is a file and a directory at once");
			break;
		}
	for (size_t j = 0; j < i; j++)
		if (case_clash(s->files[j].path, f->path)) {
			ss_buf other = SS_BUF_INIT;
			ss_validate_quote(&other, s->files[j].path, strlen(s->files[j].path));
			ss_report_error(r, file.ptr, NULL,
			                "differs from '%s' only in case (one file on macOS and "
			                "Windows)",
			                other.ptr);
			ss_buf_release(&other);
			break;
		}
	ss_validate_file_size(r, file.ptr, f->len);
out:
	ss_buf_release(&file);
	ss_buf_release(&q);
}

bool ss_validate_file_size(ss_report *report, const char *label, size_t len)
{
	if (len <= SS_MAX_BLOB)
		return false;
	ss_report_error(report, label, NULL,
	                "larger than %d bytes (%zu), the most a PDS takes for one file: move it "
	                "out of the skill (host it elsewhere and link to it from SKILL.md)",
	                SS_MAX_BLOB, len);
	return true;
}

/* The skill in all (body and files) must be at most SS_MAX_SKILL_BYTES; the message names the
 * largest file, the one to move out first. */
static void check_skill_bytes(const ss_skill *s, const char *dirname, ss_report *r)
{
	size_t total = s->instructions_len, largest = 0;

	for (size_t i = 0; i < s->nfiles; i++) {
		total += s->files[i].len;
		if (s->files[i].len > s->files[largest].len)
			largest = i;
	}
	if (total <= SS_MAX_SKILL_BYTES || !s->nfiles)
		return;
	ss_report_error(r, dirname, NULL,
	                "%zu bytes in all, more than the %d a skill can hold: move files out of "
	                "the skill, the largest first ('%s', %zu bytes)",
	                total, SS_MAX_SKILL_BYTES, s->files[largest].path, s->files[largest].len);
}

/* SKILL.md as written for s must fit what the local reader takes (SS_MAX_SKILLMD). */
static void check_skillmd_size(const ss_skill *s, const char *dirname, ss_report *r)
{
	ss_buf md = SS_BUF_INIT, file = SS_BUF_INIT;

	ss_skill_md(s, &md);
	if (md.len > SS_MAX_SKILLMD) {
		ss_skill_label(&file, dirname, SS_SKILL_MD);
		ss_report_error(r, file.ptr, NULL, "larger than %d bytes (%zu)", SS_MAX_SKILLMD,
		                md.len);
	}
	ss_buf_release(&md);
	ss_buf_release(&file);
}

static void check_record_size(const ss_skill *s, const char *dirname, ss_report *r)
{
	ss_error ignored;
	ss_buf json = SS_BUF_INIT;

	if (ss_record_encode(s, "2000-01-01T00:00:00.000Z", "2000-01-01T00:00:00.000Z", NULL, &json,
	                     &ignored) == 0 &&
	    json.len > SS_MAX_RECORD)
		ss_report_error(r, dirname, NULL,
		                "the record would be %zu bytes, more than %d (the PDS's %d-byte "
		                "request limit less %d for the request)",
		                json.len, SS_MAX_RECORD, SS_PDS_MAX_REQUEST, SS_RECORD_ENVELOPE);
	ss_buf_release(&json);
}

void ss_validate_skill(const ss_skill *s, const char *dirname, size_t extra, int flags,
                       ss_report *report)
{
	size_t errors = ss_report_errors(report);
	ss_buf file = SS_BUF_INIT;

	if (!(flags & SS_VALIDATE_SKIP_FIELDS)) {
		check_fields(s, dirname, flags, report);
		ss_skill_label(&file, dirname, SS_SKILL_MD);
		if (s->instructions_len <= SS_MAX_INSTRUCTIONS)
			check_text(s->instructions, s->instructions_len, file.ptr, "body", report);
	}
	if (s->nfiles + extra > SS_MAX_SKILL_FILES)
		ss_report_error(
		    report, dirname, NULL,
		    "%zu files, more than the %d a skill can hold: move some out of the "
		    "skill",
		    s->nfiles + extra, SS_MAX_SKILL_FILES);
	else
		for (size_t i = 0; i < s->nfiles; i++)
			check_file(s, i, dirname, report);
	if (ss_report_errors(report) == errors)
		check_skill_bytes(s, dirname, report);
	if (ss_report_errors(report) == errors && !(flags & SS_VALIDATE_SKIP_FIELDS))
		check_skillmd_size(s, dirname, report);
	if (ss_report_errors(report) == errors && !(flags & SS_VALIDATE_SKIP_RECORD_SIZE))
		check_record_size(s, dirname, report);
	ss_buf_release(&file);
}
