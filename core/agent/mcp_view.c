/*
 * mcp_view.c: the MCP server's view of main (core/agent/mcp_priv.h): the skills that pass
 * validation, each file with its SHA-256 digest, the skill:// URIs that name them, and the
 * entries skills/list gives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/agent/mcp_priv.h"
#include "core/atproto/crypto.h"
#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "core/skill/skillmd.h"
#include "core/skill/validate.h"
#include "core/util/hex.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

static void skill_release(ss_mcp__skill *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
	free(s->name);
	free(s->description);
	json_decref(s->frontmatter);
	memset(s, 0, sizeof(*s));
}

void ss_mcp__view_release(ss_mcp__view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		skill_release(&v->skills[i]);
	free(v->skills);
	memset(v, 0, sizeof(*v));
}

static void skill_copy(ss_mcp__skill *out, const ss_mcp__skill *s)
{
	*out = *s;
	out->name = ss_xstrdup(s->name);
	out->description = ss_xstrdup(s->description);
	json_incref(out->frontmatter);
	out->files = ss_xcalloc(s->nfiles ? s->nfiles : 1, sizeof(*out->files));
	for (size_t i = 0; i < s->nfiles; i++) {
		out->files[i] = s->files[i];
		out->files[i].path = ss_xstrdup(s->files[i].path);
	}
}

/* ---- one skill read from its tree ---- */

typedef struct load_run {
	ss_mcp__skill *s;
	size_t alloc;
	ss_skill_reader *reader;
	bool served; /* false once a file is not a regular file */
	ss_buf skillmd;
} load_run;

static void digest(char out[SS_MCP__DIGEST_LEN + 1], const void *data, size_t len)
{
	uint8_t sum[SS_SHA256_LEN];

	ss_crypto_sha256(data, len, sum);
	memcpy(out, "sha256:", 7);
	ss_hex_encode(out + 7, sum, SS_SHA256_LEN);
}

static int take_file(const ss_tree_file *f, void *payload)
{
	load_run *l = payload;
	ss_mcp__file *out;

	if (f->mode != SS_MODE_FILE && f->mode != SS_MODE_EXEC) {
		l->served = false; /* a link or a submodule: never a skill commit accepts */
		return 0;
	}
	ss_skill_reader_add(l->reader, f->path, f->data, f->len, f->executable);
	if (!strcmp(f->path, SS_SKILL_MD))
		ss_buf_put(&l->skillmd, f->data, f->len);
	ss_xgrow((void **)&l->s->files, sizeof(*l->s->files), l->s->nfiles + 1, &l->alloc);
	out = &l->s->files[l->s->nfiles++];
	out->path = ss_xstrdup(f->path);
	out->blob = f->oid;
	out->executable = f->executable;
	out->text = ss_utf8_text(f->data, f->len);
	digest(out->digest, f->data, f->len);
	return 0;
}

/* SKILL.md first, the rest in git's order. */
static void skillmd_first(ss_mcp__skill *s)
{
	for (size_t i = 1; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, SS_SKILL_MD)) {
			ss_mcp__file f = s->files[i];

			memmove(s->files + 1, s->files, i * sizeof(*s->files));
			s->files[0] = f;
			return;
		}
}

/* The frontmatter of SKILL.md as JSON, every key in the file's order; NULL when unreadable. */
static json_t *frontmatter_json(const ss_buf *skillmd)
{
	ss_report *r = ss_report_new();
	ss_value *fm = NULL;
	size_t body = 0;
	json_t *j = NULL;

	if (ss_skillmd_parse(skillmd->ptr, skillmd->len, SS_SKILL_MD, &fm, &body, r) == 0)
		j = ss_record_value_json(fm);
	ss_value_free(fm);
	ss_report_free(r);
	return j;
}

/* Reads the skill name at tree into *out: 1 when it is served, 0 when it is not (it does not
 * pass validation), -1 on error. */
static int load_skill(ss_repo *repo, const char *name, const ss_oid *tree, ss_mcp__skill *out,
                      ss_error *err)
{
	ss_report *report = ss_report_new();
	ss_skill *skill = NULL;
	load_run l;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	l.s = out;
	l.served = true;
	l.reader = ss_skill_reader_new(name, report);
	ss_buf_init(&l.skillmd);
	out->name = ss_xstrdup(name);
	out->tree = *tree;
	if (ss_tree_each_file(repo, tree, take_file, &l, err) < 0) {
		ss_skill_reader_free(l.reader);
		goto out;
	}
	ret = 0;
	if (ss_skill_reader_finish(l.reader, &skill) < 0 || !l.served ||
	    !(out->frontmatter = frontmatter_json(&l.skillmd)))
		goto out;
	out->description = ss_xstrdup(skill->description);
	out->prompt_only = skill->disable_model_invocation == SS_DMI_TRUE;
	skillmd_first(out);
	ret = 1;
out:
	if (ret != 1)
		skill_release(out);
	ss_skill_free(skill);
	ss_report_free(report);
	ss_buf_release(&l.skillmd);
	return ret;
}

static const ss_mcp__skill *find(const ss_mcp__view *v, const char *name)
{
	size_t lo = 0, hi = v ? v->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->skills[mid].name, name);

		if (!c)
			return &v->skills[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const ss_mcp__skill *ss_mcp__view_find(const ss_mcp__view *v, const char *name)
{
	return find(v, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const ss_mcp__skill *)a)->name, ((const ss_mcp__skill *)b)->name);
}

int ss_mcp__view_load(ss_repo *repo, const ss_mcp__view *old, ss_mcp__view *out, ss_error *err)
{
	ss_tree_list top = {NULL, 0};
	ss_oid tree;
	size_t alloc = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ss_commit_read_ref(repo, "HEAD", &out->head, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		return 0; /* nothing committed yet: no skill */
	}
	if (rc < 0 || ss_commit_tree(repo, &out->head, &tree, err) < 0 ||
	    ss_tree_list_top(repo, &tree, &top, err) < 0)
		return -1;
	out->has_head = true;
	for (size_t i = 0; i < top.count; i++) {
		const ss_tree_entry *e = &top.entries[i];
		const ss_mcp__skill *prev = find(old, e->name);
		ss_mcp__skill s;

		if (e->mode != SS_MODE_TREE || ss_validate_name(e->name))
			continue;
		if (prev && ss_oid_equal(&prev->tree, &e->oid)) {
			skill_copy(&s, prev);
		} else if ((rc = load_skill(repo, e->name, &e->oid, &s, err)) <= 0) {
			if (rc < 0)
				goto fail;
			continue;
		}
		ss_xgrow((void **)&out->skills, sizeof(*out->skills), out->n + 1, &alloc);
		out->skills[out->n++] = s;
	}
	ss_tree_list_release(&top);
	if (out->n)
		qsort(out->skills, out->n, sizeof(*out->skills), by_name);
	return 0;
fail:
	ss_tree_list_release(&top);
	ss_mcp__view_release(out);
	return -1;
}

int ss_mcp__view_current(ss_repo *repo, const ss_mcp__view *v, bool *out, ss_error *err)
{
	ss_oid head;
	int rc = ss_commit_read_ref(repo, "HEAD", &head, err);

	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		*out = !v->has_head;
		return 0;
	}
	if (rc < 0)
		return -1;
	*out = v->has_head && ss_oid_equal(&head, &v->head);
	return 0;
}

const ss_mcp__file *ss_mcp__skill_file(const ss_mcp__skill *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	return NULL;
}

/* ---- URIs ---- */

/* s percent-decoded once (a new string), or NULL for a bad escape or a NUL byte. */
static char *percent_decode(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = ss_xmalloc(n + 1);

	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= n || (hi = ss_hex_digit(s[i + 1])) < 0 ||
		    (lo = ss_hex_digit(s[i + 2])) < 0 || (hi == 0 && lo == 0)) {
			free(out);
			return NULL;
		}
		out[o++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[o] = '\0';
	return out;
}

int ss_mcp__uri_parse(const char *uri, char **name, char **path)
{
	size_t n = strlen(SS_MCP__SCHEME);
	char *decoded, *slash;

	*name = *path = NULL;
	/* a query or fragment is nothing a file has; an escaped '?' or '#' is part of a name */
	if (strncmp(uri, SS_MCP__SCHEME, n) || strpbrk(uri + n, "?#") ||
	    !(decoded = percent_decode(uri + n)))
		return -1;
	slash = strchr(decoded, '/');
	*path = ss_xstrdup(slash ? slash + 1 : "");
	if (slash)
		*slash = '\0';
	*name = decoded;
	if (!ss_utf8_valid(decoded, strlen(decoded)) || ss_validate_name(*name) ||
	    (slash && strcmp(*path, SS_SKILL_MD) && ss_validate_path(*path, strlen(*path)))) {
		free(*name);
		free(*path);
		*name = *path = NULL;
		return -1;
	}
	return 0;
}

char *ss_mcp__uri(const char *name, const char *path)
{
	ss_buf b = SS_BUF_INIT;

	ss_buf_printf(&b, SS_MCP__SCHEME "%s%s%s", name, path && *path ? "/" : "",
	              path ? path : "");
	return ss_buf_detach(&b, NULL);
}

json_t *ss_mcp__skill_entry(const ss_mcp__skill *s)
{
	json_t *resources = json_array();

	for (size_t i = 0; i < s->nfiles; i++) {
		char *uri = ss_mcp__uri(s->name, s->files[i].path);

		json_array_append_new(
		    resources, json_pack("{s:s, s:s}", "uri", uri, "digest", s->files[i].digest));
		free(uri);
	}
	{
		char *uri = ss_mcp__uri(s->name, SS_SKILL_MD);
		json_t *entry = json_pack("{s:s, s:O, s:o}", "uri", uri, "frontmatter",
		                          s->frontmatter, "resources", resources);

		free(uri);
		return entry;
	}
}

/* ---- text and MIME types ---- */

const char *ss_mcp__mime(const char *path, bool text)
{
	static const struct {
		const char *suffix, *mime;
	} known[] = {
	    {".md", "text/markdown"},      {".markdown", "text/markdown"},
	    {".txt", "text/plain"},        {".py", "text/x-python"},
	    {".sh", "text/x-shellscript"}, {".bash", "text/x-shellscript"},
	    {".js", "text/javascript"},    {".mjs", "text/javascript"},
	    {".ts", "text/x-typescript"},  {".json", "application/json"},
	    {".yaml", "application/yaml"}, {".yml", "application/yaml"},
	    {".html", "text/html"},        {".css", "text/css"},
	    {".csv", "text/csv"},          {".xml", "application/xml"},
	    {".xsd", "application/xml"},   {".svg", "image/svg+xml"},
	    {".pdf", "application/pdf"},   {".png", "image/png"},
	    {".jpg", "image/jpeg"},        {".jpeg", "image/jpeg"},
	    {".gif", "image/gif"},         {".ttf", "font/ttf"},
	    {".otf", "font/otf"},          {".woff2", "font/woff2"},
	    {".zip", "application/zip"},   {".gz", "application/gzip"},
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && !strchr(dot, '/') && i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(dot, known[i].suffix))
			return known[i].mime;
	return text ? "text/plain" : "application/octet-stream";
}
