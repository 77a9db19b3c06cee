/*
 * mcp.h: the clone's skills served to agents over the Model Context Protocol (docs/AGENTS.md,
 * "MCP"): JSON-RPC 2.0, one message a line, with the Skills Extension
 * (io.modelcontextprotocol/skills): every file of a skill a resource `skill://<name>/<path>`,
 * skills/list and skills/get, resources/list, resources/read, resources/directory/read,
 * subscriptions, the skills that load only when a person asks for them as prompts, and the
 * tool update_skill, which commits what an agent learned on main with its note.
 *
 * Rules that hold:
 * - What is served is main's tree, committed skills that pass validation and nothing else:
 *   never the working tree (a half-finished edit), never a version held for review or a
 *   pinned skill's newer one (those are not in main). A digest names one version.
 * - Everything is read from git's objects, so no URI reaches a file outside its skill: a URI is
 *   percent-decoded once, then its name and path must pass the validator's rules
 *   (ss_validate_name, ss_validate_path), and only regular files of the skill's tree are read.
 * - A request never makes the server print: answers and notifications are appended to a
 *   buffer, one line each, for the caller to write. Bad input (not JSON, not JSON-RPC, an
 *   unknown method, bad params, a line over SS_MCP_LINE_MAX) is a JSON-RPC error, never a
 *   failure of the server.
 * - update_skill writes nothing until the new version passes validation; it then takes the
 *   clone's lock through the hooks, commits on main (a fast-forward that never overwrites an
 *   uncommitted change) and releases it.
 */
#ifndef SS_MCP_H
#define SS_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* The longest request line taken; a longer one is answered with a parse error. */
#define SS_MCP_LINE_MAX (8u << 20)

/* What update_skill needs from the command around the server. */
typedef struct ss_mcp_hooks {
	/* Takes the clone's lock before the commit: 0, or -1 with err set. */
	int (*lock)(void *payload, ss_error *err);
	/* After the commit, still locked: brings what follows a commit up to date (agent
	 * folders, a push when configured); appends a sentence for the tool's result to said.
	 * 0, or -1 with err set (the commit stays). */
	int (*committed)(void *payload, ss_buf *said, ss_error *err);
	void (*unlock)(void *payload);
	void *payload;
} ss_mcp_hooks;

typedef struct ss_mcp ss_mcp;

/* A server over the open repository (borrowed; it outlives the server); version is what
 * initialize's serverInfo says. */
int ss_mcp_new(ss_mcp **out, ss_repo *repo, const char *version, const ss_mcp_hooks *hooks,
               ss_error *err);
void ss_mcp_free(ss_mcp *m);

/*
 * Handles one request or notification line (len bytes, no newline needed) and appends the
 * answer, and the notifications that follow it, to out, each one line ending in '\n'. 0, or
 * -1 with err set when the repository cannot be read (the caller reports it and stops).
 */
int ss_mcp_handle(ss_mcp *m, const char *line, size_t len, ss_buf *out, ss_error *err);

/* Appends the parse error a line over SS_MCP_LINE_MAX gets. */
void ss_mcp_too_long(ss_buf *out);

/*
 * Whether main moved since the view was last read (a pull, an accept, a commit in another
 * process): if so, reads it again and appends notifications/resources/list_changed (and
 * prompts/list_changed, and resources/updated for each subscribed URI whose file changed or
 * went). Nothing before initialization. 0, or -1 with err set.
 */
int ss_mcp_poll(ss_mcp *m, ss_buf *out, ss_error *err);

#endif
