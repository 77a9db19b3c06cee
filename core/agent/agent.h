/*
 * agent.h: the agents whose skills folders `skillsync link` knows, and where each folder is.
 *
 * The one table in the code (core/agent/agent.c); docs/AGENTS.md lists the same with the source of
 * each folder: keep the two in step. A folder is project-level (relative to a project's
 * top directory) or global (in the user's home, or under $XDG_CONFIG_HOME, or under an
 * agent's own environment variable such as $CODEX_HOME when set).
 */
#ifndef SS_AGENT_H
#define SS_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

typedef enum ss_agent_base {
	SS_AGENT_HOME, /* global folder relative to $HOME */
	SS_AGENT_XDG,  /* relative to $XDG_CONFIG_HOME, else $HOME/.config */
} ss_agent_base;

typedef struct ss_agent {
	const char *name;    /* what --agent takes */
	const char *title;   /* the agent's name for people */
	const char *project; /* project-level folder, relative to the project */
	const char *global;  /* global folder, relative to base (or to $env) */
	ss_agent_base base;  /* what global is relative to */
	const char *env;     /* when set and not empty: global is "$env/skills"; or NULL */
	bool default_target; /* linked when `link` names no --agent */
} ss_agent;

/* The agents, in the order docs/AGENTS.md lists them. */
const ss_agent *ss_agent_at(size_t i);
size_t ss_agent_count(void);
/* NULL when name is not an agent of the table. */
const ss_agent *ss_agent_find(const char *name);

/*
 * The agent's skills folder into out (cleared first): global, or project-level under
 * project (an absolute directory). SS_EINVALID when $HOME is unset or not absolute for a
 * global folder.
 */
int ss_agent_dir(const ss_agent *a, bool global, const char *project, ss_buf *out, ss_error *err);

/*
 * The same folder in two parts, the folder being base "/" rel: base is what the person chose
 * (project, $HOME, $XDG_CONFIG_HOME or the agent's variable), rel the folders below it that
 * come from the agent's table ("skills", ".claude/skills", ".config/goose/skills"), whose
 * every component `link` refuses to follow when it is a symbolic link (core/agent/link.h).
 */
int ss_agent_dir_parts(const ss_agent *a, bool global, const char *project, ss_buf *base,
                       ss_buf *rel, ss_error *err);

#endif
