/*
 * mcp.c: the MCP server's messages (core/agent/mcp.h): JSON-RPC 2.0 one line at a time,
 * initialize, the Skills Extension's methods, resources, prompts, the tool, subscriptions, and
 * the notices that follow a change of main.
 */
#include <stdlib.h>
#include <string.h>

#include "core/agent/mcp_priv.h"
#include "core/git/tree.h"
#include "core/skill/skill.h"
#include "core/util/base64.h"
#include "core/util/mem.h"

#define EXTENSION "io.modelcontextprotocol/skills"
/* Skills a page of skills/list or resources/list holds. */
#define PAGE 1000

enum {
	RPC_PARSE = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_NO_METHOD = -32601,
	RPC_INVALID_PARAMS = -32602,
};

/* The protocol versions answered as asked; any other gets the first. */
static const char *const protocols[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/* A JSON-RPC error to answer with: code and message. */
typedef struct rpc_error {
	int code;
	char message[256];
} rpc_error;

static int fail_rpc(rpc_error *e, int code, const char *what, const char *subject)
{
	e->code = code;
	snprintf(e->message, sizeof(e->message), "%s%s%s%s", what, subject ? " '" : "",
	         subject ? subject : "", subject ? "'" : "");
	return 1;
}

static void emit(ss_buf *out, json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT);

	if (s) {
		ss_buf_puts(out, s);
		ss_buf_putc(out, '\n');
	}
	free(s);
	json_decref(msg);
}

static void emit_error(ss_buf *out, json_t *id, const rpc_error *e)
{
	emit(out,
	     json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
	               "error", "code", e->code, "message", e->message));
}

static void notify(ss_buf *out, const char *method, json_t *params)
{
	json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);

	if (params)
		json_object_set_new(msg, "params", params);
	emit(out, msg);
}

void ss_mcp_too_long(ss_buf *out)
{
	rpc_error e;

	fail_rpc(&e, RPC_PARSE, "parse error: the line is longer than 8 MiB", NULL);
	emit_error(out, NULL, &e);
}

int ss_mcp_new(ss_mcp **out, ss_repo *repo, const char *version, const ss_mcp_hooks *hooks,
               ss_error *err)
{
	ss_mcp *m = ss_xcalloc(1, sizeof(*m));

	(void)err;
	m->repo = repo;
	m->version = ss_xstrdup(version);
	if (hooks)
		m->hooks = *hooks;
	*out = m;
	return 0;
}

void ss_mcp_free(ss_mcp *m)
{
	if (!m)
		return;
	ss_mcp__view_release(&m->view);
	for (size_t i = 0; i < m->nsubs; i++)
		free(m->subs[i]);
	free(m->subs);
	free(m->version);
	free(m);
}

/* ---- keeping the view current ---- */

/* Whether the file at uri has the same bytes in both views (or is in neither). */
static bool same_file(const ss_mcp__view *a, const ss_mcp__view *b, const char *uri)
{
	char *name, *path;
	const ss_mcp__skill *sa, *sb;
	const ss_mcp__file *fa = NULL, *fb = NULL;

	if (ss_mcp__uri_parse(uri, &name, &path) < 0)
		return true;
	sa = ss_mcp__view_find(a, name);
	sb = ss_mcp__view_find(b, name);
	if (sa)
		fa = ss_mcp__skill_file(sa, path);
	if (sb)
		fb = ss_mcp__skill_file(sb, path);
	free(name);
	free(path);
	return (!fa && !fb) || (fa && fb && !strcmp(fa->digest, fb->digest));
}

static bool same_skills(const ss_mcp__view *a, const ss_mcp__view *b, bool prompts)
{
	size_t i = 0, j = 0;

	for (;; i++, j++) {
		while (i < a->n && a->skills[i].prompt_only != prompts)
			i++;
		while (j < b->n && b->skills[j].prompt_only != prompts)
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (strcmp(a->skills[i].name, b->skills[j].name) ||
		    !ss_oid_equal(&a->skills[i].tree, &b->skills[j].tree))
			return false;
	}
}

/* Reads main again when it moved; with notices, says what changed (after initialization). */
static int sync_view(ss_mcp *m, ss_buf *out, ss_error *err)
{
	ss_mcp__view next;
	bool current, first = !m->loaded;

	if (m->loaded) {
		if (ss_mcp__view_current(m->repo, &m->view, &current, err) < 0)
			return -1;
		if (current)
			return 0;
	}
	if (ss_mcp__view_load(m->repo, &m->view, &next, err) < 0)
		return -1;
	m->loaded = true;
	if (out && m->initialized && !first) {
		if (!same_skills(&m->view, &next, false) || !same_skills(&m->view, &next, true))
			notify(out, "notifications/resources/list_changed", NULL);
		if (!same_skills(&m->view, &next, true))
			notify(out, "notifications/prompts/list_changed", NULL);
		for (size_t i = 0; i < m->nsubs; i++)
			if (!same_file(&m->view, &next, m->subs[i]))
				notify(out, "notifications/resources/updated",
				       json_pack("{s:s}", "uri", m->subs[i]));
	}
	ss_mcp__view_release(&m->view);
	m->view = next;
	return 0;
}

int ss_mcp_poll(ss_mcp *m, ss_buf *out, ss_error *err)
{
	return m->initialized ? sync_view(m, out, err) : 0;
}

/* ---- the methods ---- */

typedef int (*method_fn)(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err);

static int m_initialize(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	const char *version = protocols[0];

	(void)e;
	(void)err;
	for (size_t i = 0; asked && i < sizeof(protocols) / sizeof(*protocols); i++)
		if (!strcmp(asked, protocols[i]))
			version = protocols[i];
	*result = json_pack(
	    "{s:s, s:{s:{s:b, s:b}, s:{s:b}, s:{}, s:{s:{s:b}}}, s:{s:s, s:s}, s:s}",
	    "protocolVersion", version, "capabilities", "resources", "subscribe", 1, "listChanged",
	    1, "prompts", "listChanged", 1, "tools", "extensions", EXTENSION, "directoryRead", 1,
	    "serverInfo", "name", "skillsync", "version", m->version, "instructions",
	    "The skills of this clone's main branch, served as skill:// resources "
	    "(skills/list). Call update_skill with a note to record what you learned.");
	m->initialized = true;
	return 0;
}

static int m_ping(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	(void)m;
	(void)params;
	(void)e;
	(void)err;
	*result = json_object();
	return 0;
}

/* The first skill at or after the cursor (a skill name; absent: the first). */
static int page_start(const ss_mcp__view *v, json_t *params, size_t *start, rpc_error *e)
{
	json_t *cursor = json_object_get(params, "cursor");
	const char *c;

	*start = 0;
	if (!cursor || json_is_null(cursor))
		return 0;
	if (!(c = json_string_value(cursor)))
		return fail_rpc(e, RPC_INVALID_PARAMS, "the cursor is not a string", NULL);
	while (*start < v->n && strcmp(v->skills[*start].name, c) < 0)
		(*start)++;
	return 0;
}

static void page_end(const ss_mcp__view *v, size_t end, json_t *result)
{
	if (end < v->n)
		json_object_set_new(result, "nextCursor", json_string(v->skills[end].name));
}

static int m_skills_list(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	json_t *skills = json_array();
	size_t i, taken = 0;

	(void)err;
	if (page_start(&m->view, params, &i, e)) {
		json_decref(skills);
		return 1;
	}
	for (; i < m->view.n && taken < PAGE; i++, taken++)
		if (!m->view.skills[i].prompt_only)
			json_array_append_new(skills, ss_mcp__skill_entry(&m->view.skills[i]));
	*result = json_pack("{s:o}", "skills", skills);
	page_end(&m->view, i, *result);
	return 0;
}

/* The skill and path a params.uri names, or an invalid-params error. */
static int uri_param(ss_mcp *m, json_t *params, const ss_mcp__skill **skill, char **path,
                     rpc_error *e)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	char *name = NULL;

	*path = NULL;
	if (!uri)
		return fail_rpc(e, RPC_INVALID_PARAMS, "params.uri is missing", NULL);
	if (ss_mcp__uri_parse(uri, &name, path) < 0)
		return fail_rpc(e, RPC_INVALID_PARAMS, "not a resource of this server:", uri);
	*skill = ss_mcp__view_find(&m->view, name);
	free(name);
	if (!*skill) {
		free(*path);
		*path = NULL;
		return fail_rpc(e, RPC_INVALID_PARAMS, "no such skill:", uri);
	}
	return 0;
}

static int m_skills_get(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const ss_mcp__skill *s;
	char *path;
	int rc;

	(void)err;
	if ((rc = uri_param(m, params, &s, &path, e)))
		return rc;
	rc = strcmp(path, SS_SKILL_MD) ? fail_rpc(e, RPC_INVALID_PARAMS, "not a skill's SKILL.md:",
	                                          json_string_value(json_object_get(params, "uri")))
	                               : 0;
	free(path);
	if (!rc)
		*result = json_pack("{s:o}", "skill", ss_mcp__skill_entry(s));
	return rc;
}

/* A Resource object for a file or a directory (name: what a listing shows). */
static json_t *resource(const ss_mcp__skill *s, const char *path, const char *name,
                        const ss_mcp__file *f)
{
	char *uri = ss_mcp__uri(s->name, path);
	json_t *r = json_pack("{s:s, s:s, s:s}", "uri", uri, "name", name, "mimeType",
	                      f ? ss_mcp__mime(path, f->text) : "inode/directory");

	if (f && !strcmp(path, SS_SKILL_MD))
		json_object_set_new(r, "description", json_string(s->description));
	free(uri);
	return r;
}

static int m_resources_list(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	json_t *list = json_array();
	size_t i, taken = 0;
	ss_buf name = SS_BUF_INIT;

	(void)err;
	if (page_start(&m->view, params, &i, e)) {
		json_decref(list);
		return 1;
	}
	for (; i < m->view.n && taken < PAGE; i++, taken++) {
		const ss_mcp__skill *s = &m->view.skills[i];

		for (size_t k = 0; k < s->nfiles; k++) {
			ss_buf_clear(&name);
			ss_buf_printf(&name, "%s/%s", s->name, s->files[k].path);
			json_array_append_new(
			    list, resource(s, s->files[k].path, name.ptr, &s->files[k]));
		}
	}
	ss_buf_release(&name);
	*result = json_pack("{s:o}", "resources", list);
	page_end(&m->view, i, *result);
	return 0;
}

static int m_templates_list(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	(void)m;
	(void)params;
	(void)e;
	(void)err;
	*result = json_pack("{s:[]}", "resourceTemplates");
	return 0;
}

/* Whether path ("" the root) is a directory of s: a prefix of one of its files. */
static bool is_dir(const ss_mcp__skill *s, const char *path)
{
	size_t n = strlen(path);

	if (!n)
		return true;
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strncmp(s->files[i].path, path, n) && s->files[i].path[n] == '/')
			return true;
	return false;
}

/* One file's contents object: text, or base64 for what is not text. */
static json_t *contents(const char *uri, const ss_mcp__file *f, const ss_buf *bytes)
{
	const char *mime = ss_mcp__mime(f->path, f->text);
	ss_buf b64 = SS_BUF_INIT;
	json_t *c;

	if (f->text)
		return json_pack("{s:s, s:s, s:s%}", "uri", uri, "mimeType", mime, "text",
		                 bytes->ptr ? bytes->ptr : "", bytes->len);
	ss_base64_encode(&b64, bytes->ptr, bytes->len, SS_BASE64_STD, true);
	c = json_pack("{s:s, s:s, s:s}", "uri", uri, "mimeType", mime, "blob",
	              b64.ptr ? b64.ptr : "");
	ss_buf_release(&b64);
	return c;
}

static int m_resources_read(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	const ss_mcp__skill *s;
	const ss_mcp__file *f;
	ss_buf bytes = SS_BUF_INIT;
	char *path;
	int rc;

	if ((rc = uri_param(m, params, &s, &path, e)))
		return rc;
	if (!(f = ss_mcp__skill_file(s, path))) {
		rc = fail_rpc(e, RPC_INVALID_PARAMS,
		              is_dir(s, path) ? "a directory (resources/directory/read lists it):"
		                              : "no such resource:",
		              uri);
	} else if ((rc = ss_tree_read_file(m->repo, &s->tree, path, &bytes, err)) == 0) {
		*result = json_pack("{s:[o]}", "contents", contents(uri, f, &bytes));
	}
	free(path);
	ss_buf_release(&bytes);
	return rc;
}

static int m_directory_read(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const ss_mcp__skill *s;
	json_t *list;
	char *path, *last = NULL;
	size_t n;
	int rc;

	(void)err;
	if ((rc = uri_param(m, params, &s, &path, e)))
		return rc;
	if (!is_dir(s, path)) {
		rc =
		    fail_rpc(e, RPC_INVALID_PARAMS,
		             "not a directory:", json_string_value(json_object_get(params, "uri")));
		free(path);
		return rc;
	}
	n = strlen(path);
	list = json_array();
	for (size_t i = 0; i < s->nfiles; i++) {
		const char *rest = s->files[i].path + (n ? n + 1 : 0), *slash;

		if (n && (strncmp(s->files[i].path, path, n) || s->files[i].path[n] != '/'))
			continue;
		if (!(slash = strchr(rest, '/'))) {
			json_array_append_new(list,
			                      resource(s, s->files[i].path, rest, &s->files[i]));
			continue;
		}
		/* a subdirectory, listed once: its files are next to each other in git's order */
		{
			char *dir =
			    ss_xstrndup(s->files[i].path, (size_t)(slash - s->files[i].path));

			if (!last || strcmp(last, dir)) {
				char *child = ss_xstrndup(rest, (size_t)(slash - rest));

				json_array_append_new(list, resource(s, dir, child, NULL));
				free(child);
				free(last);
				last = dir;
			} else {
				free(dir);
			}
		}
	}
	free(last);
	free(path);
	*result = json_pack("{s:o}", "resources", list);
	return 0;
}

/* Adds or removes uri from the subscriptions. */
static int subscribe(ss_mcp *m, json_t *params, bool on, rpc_error *e)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	char *name, *path;

	if (!uri || ss_mcp__uri_parse(uri, &name, &path) < 0)
		return fail_rpc(e, RPC_INVALID_PARAMS, "not a resource of this server:", uri);
	free(name);
	free(path);
	for (size_t i = 0; i < m->nsubs; i++)
		if (!strcmp(m->subs[i], uri)) {
			if (!on) {
				free(m->subs[i]);
				m->subs[i] = m->subs[--m->nsubs];
			}
			return 0;
		}
	if (on) {
		ss_xgrow((void **)&m->subs, sizeof(*m->subs), m->nsubs + 1, &m->subs_alloc);
		m->subs[m->nsubs++] = ss_xstrdup(uri);
	}
	return 0;
}

static int m_subscribe(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	(void)err;
	if (subscribe(m, params, true, e))
		return 1;
	*result = json_object();
	return 0;
}

static int m_unsubscribe(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	(void)err;
	if (subscribe(m, params, false, e))
		return 1;
	*result = json_object();
	return 0;
}

static int m_prompts_list(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	json_t *list = json_array();

	(void)params;
	(void)e;
	(void)err;
	for (size_t i = 0; i < m->view.n; i++)
		if (m->view.skills[i].prompt_only)
			json_array_append_new(list, json_pack("{s:s, s:s}", "name",
			                                      m->view.skills[i].name, "description",
			                                      m->view.skills[i].description));
	*result = json_pack("{s:o}", "prompts", list);
	return 0;
}

static int m_prompts_get(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	const ss_mcp__skill *s = name ? ss_mcp__view_find(&m->view, name) : NULL;
	ss_buf bytes = SS_BUF_INIT;
	char *uri;
	int rc;

	if (!s || !s->prompt_only)
		return fail_rpc(e, RPC_INVALID_PARAMS, "no such prompt:", name);
	if ((rc = ss_tree_read_file(m->repo, &s->tree, SS_SKILL_MD, &bytes, err)) < 0) {
		ss_buf_release(&bytes);
		return rc;
	}
	uri = ss_mcp__uri(s->name, SS_SKILL_MD);
	*result = json_pack("{s:s, s:[{s:s, s:{s:s, s:{s:s, s:s, s:s%}}}]}", "description",
	                    s->description, "messages", "role", "user", "content", "type",
	                    "resource", "resource", "uri", uri, "mimeType", "text/markdown", "text",
	                    bytes.ptr ? bytes.ptr : "", bytes.len);
	free(uri);
	ss_buf_release(&bytes);
	return 0;
}

static int m_tools_list(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	(void)m;
	(void)params;
	(void)e;
	(void)err;
	*result = json_pack("{s:[o]}", "tools", ss_mcp__update_tool());
	return 0;
}

static int m_tools_call(ss_mcp *m, json_t *params, json_t **result, rpc_error *e, ss_error *err)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments");

	if (!name || strcmp(name, "update_skill"))
		return fail_rpc(e, RPC_INVALID_PARAMS, "no such tool:", name);
	if (!json_is_object(args))
		return fail_rpc(e, RPC_INVALID_PARAMS, "update_skill takes an object of arguments",
		                NULL);
	return (*result = ss_mcp__update(m, args, err)) ? 0 : -1;
}

static const struct method {
	const char *name;
	method_fn fn;
	bool view; /* reads the view: bring it up to date first */
} methods[] = {
    {"initialize", m_initialize, false},
    {"ping", m_ping, false},
    {"skills/list", m_skills_list, true},
    {"skills/get", m_skills_get, true},
    {"resources/list", m_resources_list, true},
    {"resources/templates/list", m_templates_list, false},
    {"resources/read", m_resources_read, true},
    {"resources/directory/read", m_directory_read, true},
    {"resources/subscribe", m_subscribe, false},
    {"resources/unsubscribe", m_unsubscribe, false},
    {"prompts/list", m_prompts_list, true},
    {"prompts/get", m_prompts_get, true},
    {"tools/list", m_tools_list, false},
    {"tools/call", m_tools_call, true},
};

static const struct method *find_method(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++)
		if (!strcmp(methods[i].name, name))
			return &methods[i];
	return NULL;
}

/* Runs a request whose id is id (NULL: a notification, never answered). */
static int run(ss_mcp *m, const char *method, json_t *params, json_t *id, ss_buf *out,
               ss_error *err)
{
	const struct method *x = find_method(method);
	json_t *result = NULL;
	rpc_error e = {0, ""};
	int rc;

	if (!id)
		return 0; /* notifications/initialized, cancelled, ...: nothing to answer */
	if (!x) {
		fail_rpc(&e, RPC_NO_METHOD, "method not found:", method);
		emit_error(out, id, &e);
		return 0;
	}
	if (params && !json_is_object(params)) {
		fail_rpc(&e, RPC_INVALID_PARAMS, "params is not an object", NULL);
		emit_error(out, id, &e);
		return 0;
	}
	if (x->view && sync_view(m, out, err) < 0)
		return -1;
	if ((rc = x->fn(m, params, &result, &e, err)) < 0)
		return -1;
	if (rc)
		emit_error(out, id, &e);
	else
		emit(out,
		     json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
	return 0;
}

int ss_mcp_handle(ss_mcp *m, const char *line, size_t len, ss_buf *out, ss_error *err)
{
	json_error_t je;
	json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je), *id;
	const char *method;
	rpc_error e = {0, ""};
	int ret = 0;

	if (!req) {
		fail_rpc(&e, RPC_PARSE, "parse error:", je.text);
		emit_error(out, NULL, &e);
		return 0;
	}
	id = json_object_get(req, "id");
	method = json_string_value(json_object_get(req, "method"));
	if (id && !json_is_string(id) && !json_is_integer(id))
		id = NULL;
	if (!json_is_object(req) || !json_is_string(json_object_get(req, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(req, "jsonrpc")), "2.0")) {
		fail_rpc(&e, RPC_INVALID_REQUEST, "not a JSON-RPC 2.0 message", NULL);
		emit_error(out, id, &e);
	} else if (method) {
		ret = run(m, method, json_object_get(req, "params"), id, out, err);
	} else if (!json_object_get(req, "result") && !json_object_get(req, "error")) {
		fail_rpc(&e, RPC_INVALID_REQUEST, "a request without a method", NULL);
		emit_error(out, id, &e);
	} /* else an answer to a request of ours: there are none */
	json_decref(req);
	return ret;
}
