/*
 * mcp_update.c: the MCP tool update_skill (core/agent/mcp.h): an agent's new version of a
 * skill, checked as `commit` checks one (validation, then the audit's findings reported), and
 * committed on main with the agent's note as the message, so that the next push makes it the
 * record's note. Every refusal is the tool's error result (isError) in one line, with nothing
 * written.
 */
#include <stdlib.h>
#include <string.h>

#include "core/agent/mcp_priv.h"
#include "core/git/commit.h"
#include "core/git/merge.h"
#include "core/git/tree.h"
#include "core/skill/audit.h"
#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/util/mem.h"

static const char tool_json[] =
    "{\"name\":\"update_skill\","
    "\"description\":\"Record what you learned in a skill of this clone. The files given replace "
    "or add files of the skill (SKILL.md included; a new name makes a new skill), remove deletes "
    "files, and note says what changed and why. The new version is validated and audited as a "
    "commit is, then committed on main with the note, which becomes the record's note when it "
    "is pushed.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":\"the skill's name (its directory)\"},"
    "\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"relative to the skill, e.g. SKILL.md\"},"
    "\"content\":{\"type\":\"string\",\"description\":\"the whole file, UTF-8\"},"
    "\"executable\":{\"type\":\"boolean\"}},\"required\":[\"path\",\"content\"]}},"
    "\"remove\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"paths of files to delete\"},"
    "\"note\":{\"type\":\"string\",\"description\":\"what changed and why, for the people "
    "who share the skill\"}},"
    "\"required\":[\"name\",\"files\",\"note\"]}}";

json_t *ss_mcp__update_tool(void)
{
	return json_loads(tool_json, 0, NULL);
}

/* The files of the new version. */
typedef struct file_set {
	ss_skill_file *f;
	size_t n, alloc;
	bool other; /* the version in main holds a link or a submodule */
} file_set;

static ss_skill_file *set_find(file_set *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].path, path))
			return &s->f[i];
	return NULL;
}

static void set_put(file_set *s, const char *path, const char *bytes, size_t len, bool exec)
{
	ss_skill_file *f = set_find(s, path);

	if (!f) {
		ss_xgrow((void **)&s->f, sizeof(*s->f), s->n + 1, &s->alloc);
		f = &s->f[s->n++];
		f->path = ss_xstrdup(path);
	} else {
		free(f->content);
	}
	f->content = ss_xmemdup(bytes, len);
	f->len = len;
	f->executable = exec;
}

static bool set_remove(file_set *s, const char *path)
{
	ss_skill_file *f = set_find(s, path);

	if (!f)
		return false;
	free(f->path);
	free(f->content);
	*f = s->f[--s->n];
	return true;
}

static void set_release(file_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].path);
		free(s->f[i].content);
	}
	free(s->f);
	memset(s, 0, sizeof(*s));
}

static int take_existing(const ss_tree_file *f, void *payload)
{
	file_set *s = payload;

	if (f->mode == SS_MODE_FILE || f->mode == SS_MODE_EXEC)
		set_put(s, f->path, f->data, f->len, f->executable);
	else
		s->other = true;
	return 0;
}

/* The tool's error result: what (and subject, quoted, when not NULL) in one line. */
static json_t *refusal(const char *what, const char *subject)
{
	ss_buf b = SS_BUF_INIT;
	json_t *r;

	ss_buf_puts(&b, what);
	if (subject)
		ss_buf_printf(&b, " '%s'", subject);
	r = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", b.ptr, "isError",
	              1);
	ss_buf_release(&b);
	return r;
}

/* What the arguments ask, checked before anything is read: NULL, or the refusal. */
static json_t *check_args(json_t *args)
{
	const char *name = json_string_value(json_object_get(args, "name"));
	const char *note = json_string_value(json_object_get(args, "note"));
	json_t *files = json_object_get(args, "files"), *remove = json_object_get(args, "remove");
	const char *why;
	size_t i;
	json_t *x;

	if (!name)
		return refusal("name is missing", NULL);
	if ((why = ss_validate_name(name)))
		return refusal(why, NULL);
	if (!note || !note[strspn(note, " \t\r\n")])
		return refusal("note is missing: say what changed and why", NULL);
	if (!json_is_array(files) || (remove && !json_is_array(remove)))
		return refusal("files (and remove, when given) must be arrays", NULL);
	json_array_foreach(files, i, x)
	{
		const char *path = json_string_value(json_object_get(x, "path"));
		json_t *exec = json_object_get(x, "executable");

		if (!path || !json_is_string(json_object_get(x, "content")) ||
		    (exec && !json_is_boolean(exec)))
			return refusal("files[]: each needs a path and a content string", NULL);
		if (strcmp(path, SS_SKILL_MD) && (why = ss_validate_path(path, strlen(path))))
			return refusal(why, NULL);
	}
	json_array_foreach(remove, i, x) if (!json_is_string(x)) return refusal(
	    "remove[]: each is a path", NULL);
	return NULL;
}

/* Applies the arguments to the version main has: NULL, or the refusal. */
static json_t *apply(file_set *set, json_t *args)
{
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(args, "remove"), i, x)
	{
		const char *path = json_string_value(x);

		if (!strcmp(path, SS_SKILL_MD))
			return refusal("SKILL.md cannot be removed", NULL);
		if (!set_remove(set, path))
			return refusal("remove: the skill has no file", path);
	}
	json_array_foreach(json_object_get(args, "files"), i, x)
	{
		json_t *c = json_object_get(x, "content");

		set_put(set, json_string_value(json_object_get(x, "path")), json_string_value(c),
		        json_string_length(c), json_is_true(json_object_get(x, "executable")));
	}
	return NULL;
}

/* Validation as `commit` runs it: NULL, or the refusal naming the first problem. */
static json_t *validate(const char *name, const file_set *set)
{
	ss_report *r = ss_report_new();
	ss_skill_reader *reader = ss_skill_reader_new(name, r);
	ss_skill *skill = NULL;
	ss_error e;
	json_t *out = NULL;

	for (size_t i = 0; i < set->n; i++)
		ss_skill_reader_add(reader, set->f[i].path, set->f[i].content, set->f[i].len,
		                    set->f[i].executable);
	if (ss_skill_reader_finish(reader, &skill) < 0) {
		ss_error_clear(&e);
		ss_report_to_error(r, &e);
		out = refusal(e.message, NULL);
	}
	ss_skill_free(skill);
	ss_report_free(r);
	return out;
}

static json_t *findings_json(const ss_audit_report *a)
{
	json_t *list = json_array();

	for (size_t i = 0; i < a->n; i++) {
		const ss_audit_finding *f = &a->findings[i];

		json_array_append_new(list, json_pack("{s:s, s:I, s:s, s:s, s:s}", "path", f->path,
		                                      "line", (json_int_t)f->line, "rule", f->rule,
		                                      "level", ss_audit_level_name(f->level),
		                                      "message", f->message));
	}
	return list;
}

/* The new subtree written: its id. */
static int write_tree(ss_repo *repo, const file_set *set, ss_oid *out, ss_error *err)
{
	ss_tree_builder *b = NULL;
	int ret = -1;

	if (ss_tree_builder_new(&b, repo) < 0)
		return ss_error_set(err, SS_ERROR, "cannot build a tree");
	for (size_t i = 0; i < set->n; i++)
		if (ss_tree_builder_add(b, set->f[i].path, set->f[i].content, set->f[i].len,
		                        set->f[i].executable, err) < 0)
			goto out;
	ret = ss_tree_builder_write(b, out, err);
out:
	ss_tree_builder_free(b);
	return ret;
}

/* main with name at sub, committed and checked out (a fast-forward): 0, or -1 with err and the
 * uncommitted files in the way in *merge. */
static int commit_on_main(ss_repo *repo, const ss_oid *head, const ss_oid *head_tree,
                          const char *name, const ss_oid *sub, const char *message,
                          ss_merge_result *merge, ss_oid *out, ss_error *err)
{
	ss_tree_top *top = NULL;
	ss_commit_opts o;
	ss_oid tree, commit;
	int ret = -1;

	memset(&o, 0, sizeof(o));
	if (ss_tree_top_new(&top, repo, head_tree, false, err) < 0 ||
	    ss_tree_top_set(top, name, sub, SS_MODE_TREE, err) < 0 ||
	    ss_tree_top_write(top, &tree, err) < 0 ||
	    ss_commit_create(repo, &o, &tree, head, 1, message, &commit, err) < 0 ||
	    ss_merge_commit(repo, &commit, message, merge, err) < 0)
		goto out;
	*out = merge->head;
	ret = 0;
out:
	ss_tree_top_free(top);
	return ret;
}

/* The committed version: reads main, applies the arguments, checks and commits. */
static json_t *update_locked(ss_mcp *m, json_t *args, ss_buf *said)
{
	const char *name = json_string_value(json_object_get(args, "name"));
	const char *note = json_string_value(json_object_get(args, "note"));
	file_set set = {NULL, 0, 0, false};
	ss_merge_result merge;
	ss_audit_report audit;
	ss_oid head, head_tree, old, sub, commit;
	ss_buf msg = SS_BUF_INIT;
	unsigned mode = 0;
	bool has_old = false;
	char hex[SS_OID_HEXSZ + 1];
	json_t *out = NULL;
	ss_error err;

	ss_error_clear(&err);
	memset(&merge, 0, sizeof(merge));
	ss_audit_report_init(&audit);
	if (ss_commit_read_ref(m->repo, "HEAD", &head, &err) < 0 ||
	    ss_commit_tree(m->repo, &head, &head_tree, &err) < 0)
		goto fail;
	if (ss_tree_lookup(m->repo, &head_tree, name, &old, &mode, &err) == 0 &&
	    mode == SS_MODE_TREE) {
		has_old = true;
		if (ss_tree_each_file(m->repo, &old, take_existing, &set, &err) < 0)
			goto fail;
	}
	ss_error_clear(&err);
	if (set.other) {
		out = refusal("a link or a submodule is in the way: edit it in the working tree:",
		              name);
		goto out;
	}
	if ((out = apply(&set, args)) || (out = validate(name, &set)))
		goto out;
	for (size_t i = 0; i < set.n; i++)
		ss_audit_file(&audit, name, set.f[i].path, set.f[i].content, set.f[i].len,
		              set.f[i].executable);
	if (write_tree(m->repo, &set, &sub, &err) < 0)
		goto fail;
	if (has_old && ss_oid_equal(&old, &sub)) {
		out = json_pack("{s:[{s:s, s:s}], s:{s:s, s:n, s:o}}", "content", "type", "text",
		                "text", "nothing changed: main already has this version",
		                "structuredContent", "skill", name, "commit", "findings",
		                findings_json(&audit));
		goto out;
	}
	ss_buf_puts(&msg, note);
	if (commit_on_main(m->repo, &head, &head_tree, name, &sub, msg.ptr, &merge, &commit, &err) <
	    0) {
		if (err.code == SS_EEXISTS && merge.npaths)
			out = refusal("uncommitted changes in the way, nothing written:",
			              merge.paths[0]);
		goto fail;
	}
	ss_oid_fmt(hex, &commit);
	if (m->hooks.committed && m->hooks.committed(m->hooks.payload, said, &err) < 0) {
		ss_buf_printf(said, "the commit stays, but: %s", err.message);
		ss_error_clear(&err);
	}
	{
		ss_buf text = SS_BUF_INIT;

		ss_buf_printf(&text, "[main %.7s] %.*s (%zu audit finding%s, worst %s)%s%s", hex,
		              (int)strcspn(note, "\n"), note, audit.n, audit.n == 1 ? "" : "s",
		              ss_audit_level_name(ss_audit_worst(&audit)), said->len ? "; " : "",
		              said->len ? said->ptr : "");
		out = json_pack("{s:[{s:s, s:s}], s:{s:s, s:s, s:o}}", "content", "type", "text",
		                "text", text.ptr, "structuredContent", "skill", name, "commit", hex,
		                "findings", findings_json(&audit));
		ss_buf_release(&text);
	}
	goto out;
fail:
	if (!out)
		out = refusal(err.message, NULL);
out:
	set_release(&set);
	ss_merge_result_release(&merge);
	ss_audit_report_release(&audit);
	ss_buf_release(&msg);
	return out;
}

json_t *ss_mcp__update(ss_mcp *m, json_t *args, ss_error *err)
{
	ss_buf said = SS_BUF_INIT;
	json_t *out;

	if ((out = check_args(args)))
		return out;
	if (m->hooks.lock && m->hooks.lock(m->hooks.payload, err) < 0) {
		out = refusal(err->message, NULL);
		ss_error_clear(err);
		return out;
	}
	out = update_locked(m, args, &said);
	if (m->hooks.unlock)
		m->hooks.unlock(m->hooks.payload);
	ss_buf_release(&said);
	return out;
}
