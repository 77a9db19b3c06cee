/*
 * mcp_priv.h: what the MCP server's files share (core/agent/mcp.h): the view of main's skills
 * (mcp_view.c), the requests about them (mcp.c) and update_skill (mcp_update.c).
 */
#ifndef SS_MCP_PRIV_H
#define SS_MCP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/agent/mcp.h"
#include "core/gitfmt/oid.h"

#define SS_MCP__SCHEME "skill://"
/* "sha256:" and 64 hex digits */
#define SS_MCP__DIGEST_LEN (7 + 64)

typedef struct ss_mcp__file {
	char *path; /* relative to the skill, "SKILL.md" first */
	ss_oid blob;
	bool executable;
	bool text; /* ss_utf8_text: served as text, else as base64 */
	char digest[SS_MCP__DIGEST_LEN + 1];
} ss_mcp__file;

/* One skill of main that passes validation. */
typedef struct ss_mcp__skill {
	char *name;
	ss_oid tree;
	json_t *frontmatter; /* SKILL.md's frontmatter as JSON, every key */
	char *description;
	bool prompt_only; /* disable-model-invocation: true */
	ss_mcp__file *files;
	size_t nfiles;
} ss_mcp__skill;

/* The served view: main's skills by name. */
typedef struct ss_mcp__view {
	ss_oid head;
	bool has_head;
	ss_mcp__skill *skills;
	size_t n;
} ss_mcp__view;

struct ss_mcp {
	ss_repo *repo;
	char *version; /* serverInfo's */
	ss_mcp_hooks hooks;
	ss_mcp__view view;
	bool loaded; /* view read at least once */
	bool initialized;
	char **subs; /* subscribed URIs */
	size_t nsubs, subs_alloc;
};

/* Reads main's view into *out, reusing the skills of old (may be NULL) whose tree did not
 * change; old is left as it was. */
int ss_mcp__view_load(ss_repo *repo, const ss_mcp__view *old, ss_mcp__view *out, ss_error *err);
void ss_mcp__view_release(ss_mcp__view *v);
/* Whether main's head is still the view's. */
int ss_mcp__view_current(ss_repo *repo, const ss_mcp__view *v, bool *out, ss_error *err);
const ss_mcp__skill *ss_mcp__view_find(const ss_mcp__view *v, const char *name);
const ss_mcp__file *ss_mcp__skill_file(const ss_mcp__skill *s, const char *path);

/*
 * A skill:// URI split into its skill name and the path within it ("" for the skill's root),
 * percent-decoded, each part checked by the validator's rules. 0, or -1 when the URI is not
 * one this server could serve (then *name and *path are NULL).
 */
int ss_mcp__uri_parse(const char *uri, char **name, char **path);
/* skill://<name>[/<path>] */
char *ss_mcp__uri(const char *name, const char *path);

/* The skill's entry of skills/list and skills/get: {uri, frontmatter, resources}. */
json_t *ss_mcp__skill_entry(const ss_mcp__skill *s);
/* The MIME type served for a file: by its suffix, else text/plain or octet-stream. */
const char *ss_mcp__mime(const char *path, bool text);

/* update_skill's work (mcp_update.c): its result for tools/call (isError set for a refusal),
 * or NULL with err set when the repository failed. */
json_t *ss_mcp__update(ss_mcp *m, json_t *args, ss_error *err);
/* The tool's definition for tools/list. */
json_t *ss_mcp__update_tool(void);

#endif
