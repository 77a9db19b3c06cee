/* agent.c: the agents' skills folders (docs/AGENTS.md, with the source of each). */
#include "core/agent/agent.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/fs.h"

static const ss_agent agents[] = {
    {"claude", "Claude Code", ".claude/skills", ".claude/skills", SS_AGENT_HOME,
     "CLAUDE_CONFIG_DIR", true},
    {"agents", "cross-agent (.agents/skills)", ".agents/skills", ".agents/skills", SS_AGENT_HOME,
     NULL, true},
    {"codex", "OpenAI Codex", ".agents/skills", ".codex/skills", SS_AGENT_HOME, "CODEX_HOME",
     false},
    {"cursor", "Cursor", ".agents/skills", ".cursor/skills", SS_AGENT_HOME, NULL, false},
    {"copilot", "GitHub Copilot", ".agents/skills", ".copilot/skills", SS_AGENT_HOME, NULL, false},
    {"gemini", "Gemini CLI", ".agents/skills", ".gemini/skills", SS_AGENT_HOME, NULL, false},
    {"opencode", "OpenCode", ".agents/skills", "opencode/skills", SS_AGENT_XDG, NULL, false},
    {"goose", "Goose", ".goose/skills", "goose/skills", SS_AGENT_XDG, NULL, false},
    {"windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills", SS_AGENT_HOME, NULL,
     false},
    {"roo", "Roo Code", ".roo/skills", ".roo/skills", SS_AGENT_HOME, NULL, false},
    {"kiro", "Kiro CLI", ".kiro/skills", ".kiro/skills", SS_AGENT_HOME, NULL, false},
};

#define NAGENTS (sizeof(agents) / sizeof(agents[0]))

const ss_agent *ss_agent_at(size_t i)
{
	return i < NAGENTS ? &agents[i] : NULL;
}

size_t ss_agent_count(void)
{
	return NAGENTS;
}

const ss_agent *ss_agent_find(const char *name)
{
	for (size_t i = 0; i < NAGENTS; i++)
		if (!strcmp(agents[i].name, name))
			return &agents[i];
	return NULL;
}

/* $name as an absolute directory into *out: 1; 0 when unset or empty; SS_EINVALID else. */
static int env_dir(const char *name, const char **out, ss_error *err)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	if (v[0] != '/')
		return ss_error_set(err, SS_EINVALID, "$%s is '%s': want an absolute directory",
		                    name, v);
	*out = v;
	return 1;
}

static int join(ss_buf *out, const char *dir, const char *a, const char *b, ss_error *err)
{
	if (ss_fs_join(out, dir, a) < 0 ||
	    (b && (ss_buf_putc(out, '/') < 0 || ss_buf_puts(out, b) < 0)))
		return ss_error_set(err, SS_ERROR, "out of memory");
	return 0;
}

/* base and rel (both cleared first) set to dir and a, b ("a/b" when b). */
static int parts(ss_buf *base, ss_buf *rel, const char *dir, const char *a, const char *b,
                 ss_error *err)
{
	ss_buf_clear(base);
	ss_buf_clear(rel);
	if (ss_buf_puts(base, dir) < 0 || ss_buf_puts(rel, a) < 0 ||
	    (b && (ss_buf_putc(rel, '/') < 0 || ss_buf_puts(rel, b) < 0)))
		return ss_error_set(err, SS_ERROR, "out of memory");
	return 0;
}

int ss_agent_dir_parts(const ss_agent *a, bool global, const char *project, ss_buf *base,
                       ss_buf *rel, ss_error *err)
{
	const char *dir = NULL;
	int rc;

	if (!global)
		return parts(base, rel, project, a->project, NULL, err);
	if (a->env && (rc = env_dir(a->env, &dir, err)) != 0)
		return rc < 0 ? rc : parts(base, rel, dir, "skills", NULL, err);
	if (a->base == SS_AGENT_XDG && (rc = env_dir("XDG_CONFIG_HOME", &dir, err)) != 0)
		return rc < 0 ? rc : parts(base, rel, dir, a->global, NULL, err);
	if ((rc = env_dir("HOME", &dir, err)) <= 0)
		return rc < 0 ? rc
		              : ss_error_set(err, SS_EINVALID,
		                             "$HOME is not set: no global skills folder for %s",
		                             a->title);
	if (a->base == SS_AGENT_XDG)
		return parts(base, rel, dir, ".config", a->global, err);
	return parts(base, rel, dir, a->global, NULL, err);
}

int ss_agent_dir(const ss_agent *a, bool global, const char *project, ss_buf *out, ss_error *err)
{
	ss_buf base = SS_BUF_INIT, rel = SS_BUF_INIT;
	int rc;

	ss_buf_clear(out);
	rc = ss_agent_dir_parts(a, global, project, &base, &rel, err);
	if (rc == 0)
		rc = join(out, base.ptr, rel.ptr, NULL, err);
	ss_buf_release(&base);
	ss_buf_release(&rel);
	return rc;
}
