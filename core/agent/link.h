/*
 * link.h: what `skillsync link` made in agents' skills folders (docs/AGENTS.md): the records
 * kept in the clone's state, and the file operations on one link.
 *
 * A link is a symbolic link <folder>/<skill> -> <clone>/<skill>, or (copy) a directory
 * holding a copy of the skill and a marker file SS_LINK_MARKER naming the skill's directory.
 * Rules: nothing that exists is ever replaced (ss_link_make fails with SS_EEXISTS); a link is
 * removed or refreshed only while it is still exactly what skillsync made (ss_link_check
 * says SS_LINK_OK): a symbolic link to the same source, or a directory with the marker
 * naming it. The records live in the state's config table under the key "links" (one line
 * per target folder and per link, tab-separated; paths holding a tab or a newline are
 * refused) and "link_auto"; no table of their own.
 */
#ifndef SS_LINK_H
#define SS_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/error.h"

struct ss_state;

#define SS_LINK_MARKER ".skillsync-copy"

typedef struct ss_link {
	char *skill;  /* the skill's directory name */
	char *source; /* the skill's directory in the clone (absolute) */
	char *path;   /* the link or copy (absolute) */
	bool copy;
} ss_link;

/* A folder `link` was asked to keep current. */
typedef struct ss_link_target {
	char *agent;
	char *dir; /* absolute */
	bool global;
	bool copy;
} ss_link_target;

typedef struct ss_link_set {
	ss_link *links;
	size_t nlinks, links_alloc;
	ss_link_target *targets;
	size_t ntargets, targets_alloc;
	bool auto_link; /* `link --auto`: pull links new skills too */
} ss_link_set;

/* Reads the records (none: an empty set). Release with ss_link_set_release. */
int ss_link_set_load(struct ss_state *st, ss_link_set *out, ss_error *err);
/* Writes them back (SS_EINVALID for a path with a tab or a newline). */
int ss_link_set_save(struct ss_state *st, const ss_link_set *l, ss_error *err);
void ss_link_set_release(ss_link_set *l);

void ss_link_set_add(ss_link_set *l, const char *skill, const char *source, const char *path,
                     bool copy);
/* Forgets link i (the last one moves into its place). */
void ss_link_set_drop(ss_link_set *l, size_t i);
/* The record of the link at path, or NULL. */
ss_link *ss_link_set_find(ss_link_set *l, const char *path);
/* Adds the target folder, or updates its agent and mode when dir is known. */
void ss_link_set_add_target(ss_link_set *l, const char *agent, const char *dir, bool global,
                            bool copy);

typedef enum ss_link_status {
	SS_LINK_OK,        /* what skillsync made */
	SS_LINK_MISSING,   /* nothing at its path */
	SS_LINK_ELSEWHERE, /* something else there: another link, a folder of someone else's */
} ss_link_status;

ss_link_status ss_link_check(const ss_link *l);

/*
 * The folder base "/" rel (core/agent/agent.h: ss_agent_dir_parts), walked from base one component
 * of rel at a time, each opened with O_NOFOLLOW: SS_EINVALID ("'<base>/<part>' is a symbolic
 * link") when one is a symbolic link, so that nothing is linked or copied to wherever a link
 * a project ships points. base itself is followed: the person chose it. With create, missing
 * components are made (0755); without, a missing one ends the walk with 0 (nothing below it
 * can be a link yet).
 */
int ss_link_folder(const char *base, const char *rel, bool create, ss_error *err);

/* Makes the link (or copy) of source at path; SS_EEXISTS, with nothing touched, when path
 * exists (even as a dangling link). */
int ss_link_make(const char *source, const char *path, bool copy, ss_error *err);
/* Removes the link or copy; only call it when ss_link_check says SS_LINK_OK. */
int ss_link_remove(const ss_link *l, ss_error *err);
/* Replaces a copy by a fresh one of its source (a new copy beside it, then renamed over). */
int ss_link_refresh(const ss_link *l, ss_error *err);

/* The skill directories of the working tree workdir (top-level directories holding a
 * SKILL.md, core/skill/skilldir.h's rule), sorted; *names is an array of *n strings to free. */
int ss_link_skills(const char *workdir, char ***names, size_t *n, ss_error *err);
void ss_link_skills_free(char **names, size_t n);

/*
 * Where link may write (core/agent/link_safe.c). ss_link_agent_folder: the agent's folder
 * (global, or in project) into dir, walked from the base the person chose with no symbolic link
 * followed below it (ss_link_folder; made when create): SS_EINVALID "refusing to link: '<path>'
 * is a symbolic link" when one is. ss_link_target_safe: whether the remembered folder dir (a
 * target of l) can still be written to: none of the components its agent's table puts below
 * the base is a symbolic link now; when one is, false with why in *why (free()).
 */
struct ss_agent;
struct ss_buf;
int ss_link_agent_folder(const struct ss_agent *a, bool global, const char *project, bool create,
                         struct ss_buf *dir, ss_error *err);
bool ss_link_target_safe(const ss_link_set *l, const char *dir, char **why);

#endif
