#include "core/skill/skill.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

ss_skill *ss_skill_new(void)
{
	ss_skill *s = ss_xcalloc(1, sizeof(*s));

	s->name = ss_xstrdup("");
	s->description = ss_xstrdup("");
	s->instructions = ss_xstrdup("");
	s->disable_model_invocation = SS_DMI_ABSENT;
	s->frontmatter = ss_value_new_map();
	return s;
}

void ss_skill_free(ss_skill *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].content);
		free(s->files[i].blob_cid);
	}
	free(s->files);
	free(s->name);
	free(s->description);
	free(s->instructions);
	ss_value_free(s->frontmatter);
	free(s->frontmatter_text);
	free(s);
}

void ss_skill_set_name(ss_skill *s, const char *name)
{
	free(s->name);
	s->name = ss_xstrdup(name);
}

void ss_skill_set_description(ss_skill *s, const char *description)
{
	free(s->description);
	s->description = ss_xstrdup(description);
}

void ss_skill_set_instructions(ss_skill *s, const char *bytes, size_t len)
{
	free(s->instructions);
	s->instructions = ss_xmemdup(bytes, len);
	s->instructions_len = len;
}

void ss_skill_set_frontmatter(ss_skill *s, ss_value *map)
{
	ss_value_free(s->frontmatter);
	s->frontmatter = map ? map : ss_value_new_map();
}

void ss_skill_set_frontmatter_text(ss_skill *s, const char *text, size_t len)
{
	free(s->frontmatter_text);
	s->frontmatter_text = text ? ss_xmemdup(text, len) : NULL;
	s->frontmatter_text_len = text ? len : 0;
}

void ss_skill_add_file(ss_skill *s, const char *path, const void *bytes, size_t len,
                       bool executable)
{
	ss_skill_file *f;

	ss_xgrow((void **)&s->files, sizeof(*s->files), s->nfiles + 1, &s->files_alloc);
	f = &s->files[s->nfiles++];
	f->path = ss_xstrdup(path);
	f->content = ss_xmemdup(bytes, len);
	f->len = len;
	f->executable = executable;
	f->blob_cid = NULL;
}

void ss_skill_add_blob_file(ss_skill *s, const char *path, const char *cid, size_t size,
                            bool executable)
{
	ss_skill_file *f;

	ss_xgrow((void **)&s->files, sizeof(*s->files), s->nfiles + 1, &s->files_alloc);
	f = &s->files[s->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = ss_xstrdup(path);
	f->len = size;
	f->executable = executable;
	f->blob_cid = ss_xstrdup(cid);
}

bool ss_skill_awaits_blobs(const ss_skill *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!s->files[i].content)
			return true;
	return false;
}

void ss_skill_fill_blob(ss_skill_file *f, const void *bytes, size_t len)
{
	free(f->content);
	f->content = ss_xmemdup(bytes, len);
	f->len = len;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const ss_skill_file *)a)->path, ((const ss_skill_file *)b)->path);
}

void ss_skill_sort_files(ss_skill *s)
{
	if (s->nfiles > 1)
		qsort(s->files, s->nfiles, sizeof(*s->files), cmp_file);
}

const ss_skill_file *ss_skill_file_get(const ss_skill *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	return NULL;
}

static bool same_text(const ss_skill *a, const ss_skill *b)
{
	if (!a->frontmatter_text || !b->frontmatter_text)
		return !a->frontmatter_text && !b->frontmatter_text;
	return a->frontmatter_text_len == b->frontmatter_text_len &&
	       !memcmp(a->frontmatter_text, b->frontmatter_text, a->frontmatter_text_len);
}

bool ss_skill_equal(const ss_skill *a, const ss_skill *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->description, b->description) ||
	    a->disable_model_invocation != b->disable_model_invocation ||
	    a->instructions_len != b->instructions_len ||
	    memcmp(a->instructions, b->instructions, a->instructions_len) ||
	    !ss_value_equal(a->frontmatter, b->frontmatter) || a->nfiles != b->nfiles ||
	    !same_text(a, b))
		return false;
	for (size_t i = 0; i < a->nfiles; i++) {
		const ss_skill_file *x = &a->files[i], *y = &b->files[i];
		if (strcmp(x->path, y->path) || x->len != y->len ||
		    x->executable != y->executable || !x->content != !y->content)
			return false;
		if (x->content ? memcmp(x->content, y->content, x->len)
		               : strcmp(x->blob_cid, y->blob_cid))
			return false;
	}
	return true;
}

int ss_skill_to_files(const ss_skill *s, ss_skill_file_cb cb, void *ud)
{
	ss_buf md = SS_BUF_INIT;
	int ret;

	ss_skill_md(s, &md);
	ret = cb(SS_SKILL_MD, md.ptr, md.len, false, ud);
	ss_buf_release(&md);
	for (size_t i = 0; ret == 0 && i < s->nfiles; i++)
		ret = s->files[i].content ? cb(s->files[i].path, s->files[i].content,
		                               s->files[i].len, s->files[i].executable, ud)
		                          : SS_EINVALID;
	return ret;
}

void ss_skill_label(ss_buf *out, const char *dirname, const char *path)
{
	ss_buf_clear(out);
	ss_buf_printf(out, "%s/%s", dirname, path);
}
