/*
 * cmd_link.c: `skillsync link` and `skillsync unlink`: the clone's skills in agents' skills
 * folders (core/agent/agent.h: which folders; core/agent/link.h: the links and their records), and
 * what `status` and `pull` do with them (cli_link_status, cli_link_pull). docs/AGENTS.md.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/agent/agent.h"
#include "core/agent/link.h"
#include "core/git/repo.h"
#include "core/util/fs.h"
#include "core/util/lock.h"
#include "core/util/mem.h"
#include "sync/setting.h"

#define NOT_MADE "it exists and skillsync did not make it"
#define NOT_OURS "it is no longer what skillsync made there"

typedef struct link_opts {
	const char **agents;
	size_t nagents, alloc;
	bool global, copy, auto_link, json;
	const char *project;
} link_opts;

/* The usage error naming the agents of the table (core/agent/agent.c). */
static int unknown_agent(ss_ctx *ctx, const char *name)
{
	ss_buf known = SS_BUF_INIT, safe = SS_BUF_INIT;
	int ret;

	for (size_t i = 0; i < ss_agent_count(); i++)
		ss_buf_printf(&known, "%s%s", i ? ", " : "", ss_agent_at(i)->name);
	ret = cli_usage_error(ctx, "unknown agent '%s' (one of: %s)", cli_safe(&safe, name),
	                      known.ptr);
	ss_buf_release(&known);
	ss_buf_release(&safe);
	return ret;
}

static int parse(ss_ctx *ctx, int argc, char **argv, link_opts *o, bool unlink)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if (!strcmp(a, "--agent") || !strcmp(a, "--project")) {
			if (i + 1 >= argc)
				return cli_usage_error(ctx, "'%s' needs a value", a);
			v = argv[++i];
		} else if (!strncmp(a, "--agent=", 8)) {
			v = a + 8;
			a = "--agent";
		} else if (!strncmp(a, "--project=", 10)) {
			v = a + 10;
			a = "--project";
		}
		if (v && !strcmp(a, "--agent") && !unlink) {
			if (!ss_agent_find(v))
				return unknown_agent(ctx, v);
			ss_xgrow((void **)&o->agents, sizeof(*o->agents), o->nagents + 1,
			         &o->alloc);
			o->agents[o->nagents++] = v;
		} else if (v && !strcmp(a, "--project") && !unlink) {
			o->project = v;
		} else if (!strcmp(a, "--global") && !unlink) {
			o->global = true;
		} else if (!strcmp(a, "--copy") && !unlink) {
			o->copy = true;
		} else if (!strcmp(a, "--auto") && !unlink) {
			o->auto_link = true;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (a[0] == '-') {
			return cli_usage_error(ctx, "unknown option '%s'", a);
		} else {
			return cli_usage_error(ctx, "unexpected argument '%s'", a);
		}
	}
	return 0;
}

/* Strings, each a copy: what link and unlink did with each path, for the report and --json. */
typedef struct link_list {
	char **v;
	size_t n, alloc;
} link_list;

static void list_add(link_list *l, const char *s)
{
	ss_xgrow((void **)&l->v, sizeof(*l->v), l->n + 1, &l->alloc);
	l->v[l->n++] = ss_xstrdup(s);
}

static void list_release(link_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void json_list(cli_json *w, const char *key, const link_list *l)
{
	cli_json_array(w, key);
	for (size_t i = 0; i < l->n; i++)
		cli_json_str(w, NULL, l->v[i]);
	cli_json_end(w);
}

typedef struct link_report {
	link_list made, kept; /* made: linked or copied (link), removed (unlink); kept: there */
	link_list left, why;  /* skipped (link) or left (unlink): the paths, and why */
} link_report;

static void report_release(link_report *r)
{
	list_release(&r->made);
	list_release(&r->kept);
	list_release(&r->left);
	list_release(&r->why);
}

/* r's paths skipped or left as [{path, reason}]. */
static void json_left(cli_json *w, const char *key, const link_report *r)
{
	cli_json_array(w, key);
	for (size_t i = 0; i < r->left.n; i++) {
		cli_json_object(w, NULL);
		cli_json_str(w, "path", r->left.v[i]);
		cli_json_str(w, "reason", r->why.v[i]);
		cli_json_end(w);
	}
	cli_json_end(w);
}

/* "warning: <what> '<path>': <why>" on stderr, and the path and why in r. */
static void warn_path(link_report *r, const char *what, const char *path, const char *why)
{
	ss_buf b = SS_BUF_INIT;

	fprintf(stderr, "warning: %s '%s': %s\n", what, cli_safe(&b, path), why);
	ss_buf_release(&b);
	if (!r)
		return;
	list_add(&r->left, path);
	list_add(&r->why, why);
}

/* Links every skill into dir; r counts (and names) what it made and what was there. */
static int link_folder(ss_link_set *l, const char *workdir, char **skills, size_t nskills,
                       const char *dir, bool copy, link_report *r, ss_error *err)
{
	ss_buf path = SS_BUF_INIT, source = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < nskills && ret == 0; i++) {
		ss_link *rec;

		ss_buf_clear(&path);
		ss_buf_clear(&source);
		ss_fs_join(&path, dir, skills[i]);
		ss_fs_join(&source, workdir, skills[i]);
		rec = ss_link_set_find(l, path.ptr);
		if (rec && ss_link_check(rec) == SS_LINK_OK) {
			/* a copy takes the clone's version, with edits not pulled yet */
			if (rec->copy && (ret = ss_link_refresh(rec, err)) < 0)
				break;
			list_add(&r->kept, skills[i]);
			continue;
		}
		if (rec && ss_link_check(rec) == SS_LINK_ELSEWHERE) {
			warn_path(r, "skipped", path.ptr, NOT_OURS);
			continue;
		}
		ret = ss_link_make(source.ptr, path.ptr, copy, err);
		if (ret < 0 && err->code == SS_EEXISTS) {
			warn_path(r, "skipped", path.ptr, NOT_MADE);
			ret = 0;
			continue;
		}
		if (ret < 0)
			break;
		if (rec) {
			rec->copy = copy;
		} else {
			ss_link_set_add(l, skills[i], source.ptr, path.ptr, copy);
		}
		list_add(&r->made, skills[i]);
	}
	ss_buf_release(&path);
	ss_buf_release(&source);
	return ret;
}

/* Whether dir is in the folders done ("\n"-separated); adds it when not. */
static bool folder_done(ss_buf *done, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *p = done->ptr; *p;) {
		const char *nl = strchr(p, '\n');

		if ((size_t)(nl - p) == n && !strncmp(p, dir, n))
			return true;
		p = nl + 1;
	}
	ss_buf_printf(done, "%s\n", dir);
	return false;
}

/* The folder of the link at path (path up to its last "/"), into out. */
static void folder_of(ss_buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	ss_buf_clear(out);
	ss_buf_put(out, path, slash ? (size_t)(slash - path) : strlen(path));
}

/* The clone's working tree as an absolute, resolved path (free()). */
static char *workdir_of(ss_ctx *ctx)
{
	char *w = realpath(ss_repo_workdir(ctx->repo), NULL);

	if (!w)
		ss_error_set(&ctx->err, SS_ERROR, "cannot resolve '%s': %s",
		             ss_repo_workdir(ctx->repo), strerror(errno));
	return w;
}

/* Whether name is one of list's comma-separated names. */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* The agents of the link.agents setting (sync/setting.h) into *out, each one known; *out
 * NULL when it is not set: then the agents table's defaults (core/agent/agent.c). */
static int default_agents(ss_ctx *ctx, char **out)
{
	ss_setting_origin from;
	ss_buf one = SS_BUF_INIT;
	int ret = 0;

	if (ss_setting_get(ctx->state, "link.agents", out, &from, &ctx->err) < 0)
		return -1;
	if (from == SS_SETTING_DEFAULT) {
		free(*out);
		*out = NULL;
	}
	for (const char *p = *out; p && ret == 0; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		ss_buf_clear(&one);
		ss_buf_put(&one, p, strcspn(p, ","));
		if (!ss_agent_find(one.ptr))
			ret =
			    ss_error_set(&ctx->err, SS_EINVALID,
			                 "unknown agent '%s' in the link.agents setting", one.ptr);
	}
	ss_buf_release(&one);
	return ret;
}

/* Whether link puts the agent's folder in: named by --agent, else by link.agents (dflt), else
 * a default of the table. */
static bool chosen(const link_opts *o, const char *dflt, const ss_agent *a)
{
	bool yes = !o->nagents && (dflt ? in_list(dflt, a->name) : a->default_target);

	for (size_t j = 0; j < o->nagents; j++)
		yes = yes || !strcmp(o->agents[j], a->name);
	return yes;
}

/* Begins link --json's document in *doc, through *mem: {copy, global, auto, folders: [...]}. */
static int json_begin(cli_json *w, FILE **mem, char **doc, size_t *len, const link_opts *o,
                      bool auto_link, ss_error *err)
{
	if (!(*mem = open_memstream(doc, len)))
		return ss_error_set(err, SS_ERROR, "cannot hold the JSON output: %s",
		                    strerror(errno));
	cli_json_init(w, *mem);
	cli_json_object(w, NULL);
	cli_json_bool(w, "copy", o->copy);
	cli_json_bool(w, "global", o->global);
	cli_json_bool(w, "auto", auto_link);
	cli_json_array(w, "folders");
	return 0;
}

/* What link did in one agent's folder: {agent, dir, made, kept, skipped}. */
static void json_folder(cli_json *w, const char *agent, const char *dir, const link_report *r)
{
	cli_json_object(w, NULL);
	cli_json_str(w, "agent", agent);
	cli_json_str(w, "dir", dir);
	json_list(w, "made", &r->made);
	json_list(w, "kept", &r->kept);
	json_left(w, "skipped", r);
	cli_json_end(w);
}

static int do_link(ss_ctx *ctx, const link_opts *o)
{
	char *dflt = NULL;
	ss_link_set l;
	ss_buf dir = SS_BUF_INIT, done = SS_BUF_INIT, safe = SS_BUF_INIT;
	link_report r = {0};
	char *doc = NULL; /* --json: the document, printed once everything is saved */
	size_t doclen = 0;
	FILE *mem = NULL;
	cli_json w;
	char *workdir = NULL, *project = NULL, **skills = NULL;
	size_t nskills = 0;
	int ret = -1;

	memset(&l, 0, sizeof(l));
	if (!(workdir = workdir_of(ctx)))
		return -1;
	if (o->project) {
		project = realpath(o->project, NULL);
		if (!project) {
			ss_error_set(&ctx->err, SS_ERROR, "cannot resolve '%s': %s", o->project,
			             strerror(errno));
			goto out;
		}
	} else {
		char *tmp = ss_xstrdup(workdir);

		project = ss_xstrdup(dirname(tmp)); /* the clone's parent: the project it is in */
		free(tmp);
	}
	if ((!o->nagents && default_agents(ctx, &dflt) < 0) ||
	    ss_link_set_load(ctx->state, &l, &ctx->err) < 0 ||
	    ss_link_skills(workdir, &skills, &nskills, &ctx->err) < 0)
		goto out;
	if (o->auto_link)
		l.auto_link = true;
	if (o->json && json_begin(&w, &mem, &doc, &doclen, o, l.auto_link, &ctx->err) < 0)
		goto out;
	/* Every folder first: one that would follow a symbolic link refuses the whole run before
	 * anything is made in any folder. */
	for (size_t i = 0; i < ss_agent_count(); i++)
		if (chosen(o, dflt, ss_agent_at(i)) &&
		    ss_link_agent_folder(ss_agent_at(i), o->global, project, false, &dir,
		                         &ctx->err) < 0)
			goto out;
	for (size_t i = 0; i < ss_agent_count(); i++) {
		const ss_agent *a = ss_agent_at(i);

		if (!chosen(o, dflt, a))
			continue;
		if (ss_agent_dir(a, o->global, project, &dir, &ctx->err) < 0)
			goto out;
		/* Several agents share a folder (.agents/skills): link into it once. */
		if (folder_done(&done, dir.ptr))
			continue;
		report_release(&r);
		if (ss_link_agent_folder(a, o->global, project, true, &dir, &ctx->err) < 0 ||
		    link_folder(&l, workdir, skills, nskills, dir.ptr, o->copy, &r, &ctx->err) < 0)
			goto out;
		ss_link_set_add_target(&l, a->name, dir.ptr, o->global, o->copy);
		if (o->json) {
			json_folder(&w, a->name, dir.ptr, &r);
			continue;
		}
		printf("%s %zu skill%s into %s (%s)", o->copy ? "Copied" : "Linked", r.made.n,
		       r.made.n == 1 ? "" : "s", cli_safe(&safe, dir.ptr), a->title);
		if (r.kept.n)
			printf(", %zu already there", r.kept.n);
		printf("\n");
	}
	ret = ss_link_set_save(ctx->state, &l, &ctx->err);
	if (mem) {
		cli_json_finish(&w);
		fclose(mem);
		mem = NULL;
		if (ret == 0)
			fwrite(doc, 1, doclen, stdout);
	}
out:
	if (mem)
		fclose(mem);
	free(doc);
	report_release(&r);
	ss_link_set_release(&l);
	ss_link_skills_free(skills, nskills);
	ss_buf_release(&dir);
	ss_buf_release(&done);
	ss_buf_release(&safe);
	free(workdir);
	free(project);
	free(dflt);
	return ret;
}

static int cmd_link(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_link_def = {
    "link", cmd_link, "make the clone's skills visible to agents",
    "usage: skillsync link [--agent <name>]... [--global] [--copy] [--auto] [--project <dir>]\n"
    "                      [--json]\n"
    "\n"
    "Puts one symbolic link per skill of the clone into each agent's skills folder\n"
    "(docs/AGENTS.md lists the agents and their folders): project-level by default, in the\n"
    "project the clone sits in (its parent directory), or in the user's home with --global.\n"
    "Without --agent: claude (.claude/skills) and agents (the cross-agent .agents/skills).\n"
    "A file or folder of the same name that skillsync did not make is reported and skipped,\n"
    "never replaced. A folder with a symbolic link in its path below the project or the\n"
    "home (a project's .claude that is a link) is refused, and nothing is linked anywhere.\n"
    "What it made is remembered in the clone's state: 'skillsync unlink' removes exactly\n"
    "that, 'skillsync status' says when a link is missing or points elsewhere, and\n"
    "'skillsync pull' keeps the folders current (refreshes copies, removes the links of\n"
    "skills that left the view) and names the new skills it did not link.\n"
    "\n"
    "    --agent <name>   an agent whose folder gets the links (repeat for each): claude,\n"
    "                     agents, codex, cursor and more (docs/AGENTS.md; an unknown\n"
    "                     name lists them)\n"
    "    --global         the agents' folders in your home instead of the project's\n"
    "    --copy           copy the skills instead of linking them (for agents that do not\n"
    "                     follow symbolic links); pull refreshes the copies\n"
    "    --auto           let pull link new skills too; a skill another member adds then\n"
    "                     reaches your agents with no look from you: use it only for a\n"
    "                     space whose members you trust with your agents\n"
    "    --project <dir>  the project whose folders get the links (default: the directory\n"
    "                     the clone is in)\n"
    "    --json           print what was done in each folder as JSON (docs/JSON.md)\n"};

static int do_unlink(ss_ctx *ctx, const link_opts *o);

/* link and unlink: the options, then the work under the clone's lock. */
static int run(ss_ctx *ctx, int argc, char **argv, bool unlink)
{
	link_opts o;
	ss_lock *lock = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse(ctx, argc, argv, &o, unlink);
	if (ret)
		goto out;
	if (cli_open_clone(ctx) < 0 || cli_lock_clone(ctx, NULL, &lock, NULL) < 0 ||
	    (unlink ? do_unlink(ctx, &o) : do_link(ctx, &o)) < 0)
		ret = cli_fail(&ctx->err);
	else
		ret = SS_EXIT_OK;
out:
	ss_lock_free(lock);
	free(o.agents);
	return ret;
}

static int cmd_link(ss_ctx *ctx, int argc, char **argv)
{
	return run(ctx, argc, argv, false);
}

static int do_unlink(ss_ctx *ctx, const link_opts *o)
{
	ss_link_set l;
	link_report r = {0};
	ss_buf dir = SS_BUF_INIT;
	cli_json w;
	char *why = NULL;
	int ret = -1;

	if (ss_link_set_load(ctx->state, &l, &ctx->err) < 0)
		return -1;
	for (size_t i = 0; i < l.nlinks; i++) {
		ss_link *k = &l.links[i];
		ss_link_status s;

		folder_of(&dir, k->path);
		if (!ss_link_target_safe(&l, dir.ptr, &why)) {
			warn_path(&r, "left", k->path, why);
			free(why);
			continue;
		}
		s = ss_link_check(k);
		if (s == SS_LINK_ELSEWHERE) {
			warn_path(&r, "left", k->path, NOT_OURS);
			continue;
		}
		if (s == SS_LINK_OK) {
			if (ss_link_remove(k, &ctx->err) < 0)
				goto out;
			list_add(&r.made, k->path);
		}
	}
	for (size_t i = l.nlinks; i > 0; i--)
		ss_link_set_drop(&l, i - 1);
	for (size_t i = 0; i < l.ntargets; i++) {
		free(l.targets[i].agent);
		free(l.targets[i].dir);
	}
	l.ntargets = 0;
	l.auto_link = false;
	ret = ss_link_set_save(ctx->state, &l, &ctx->err);
	if (ret == 0 && o->json) {
		cli_json_init(&w, stdout);
		cli_json_object(&w, NULL);
		json_list(&w, "removed", &r.made);
		json_left(&w, "left", &r);
		cli_json_finish(&w);
	} else if (ret == 0) {
		printf("Removed %zu link%s\n", r.made.n, r.made.n == 1 ? "" : "s");
	}
out:
	ss_link_set_release(&l);
	ss_buf_release(&dir);
	report_release(&r);
	return ret;
}

static int cmd_unlink(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_unlink_def = {
    "unlink", cmd_unlink, "remove the links 'skillsync link' made",
    "usage: skillsync unlink [--json]\n"
    "\n"
    "Removes every link and copy 'skillsync link' made, as the clone's state remembers\n"
    "them, and nothing else: one that was replaced meanwhile (by a folder of yours, a link\n"
    "elsewhere) is left and named. pull stops keeping the agents' folders current.\n"
    "\n"
    "    --json   print the paths removed and the ones left as JSON (docs/JSON.md)\n"};

static int cmd_unlink(ss_ctx *ctx, int argc, char **argv)
{
	return run(ctx, argc, argv, true);
}

void cli_link_status(ss_ctx *ctx, FILE *out)
{
	ss_link_set l;
	ss_error ignored;
	ss_buf safe = SS_BUF_INIT;
	bool header = false;

	if (ss_link_set_load(ctx->state, &l, &ignored) < 0)
		return;
	for (size_t i = 0; i < l.nlinks; i++) {
		ss_link_status s = ss_link_check(&l.links[i]);

		if (s == SS_LINK_OK)
			continue;
		if (!header)
			fprintf(out,
			        "\nAgent links ('skillsync link' makes missing ones again):\n");
		header = true;
		fprintf(out, "\t%s %s\n",
		        s == SS_LINK_MISSING ? "missing:        " : "points elsewhere:",
		        cli_safe(&safe, l.links[i].path));
	}
	ss_buf_release(&safe);
	ss_link_set_release(&l);
}

/* Whether skill is in the sorted list. */
static bool has_skill(char **skills, size_t n, const char *skill)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(skills[i], skill))
			return true;
	return false;
}

/* Whether pull may write in the folder dir (folder_safe); when not, says so once a run (refused
 * lists the folders named). */
static bool pull_may_write(const ss_link_set *l, const char *dir, ss_buf *refused)
{
	ss_buf a = SS_BUF_INIT, b = SS_BUF_INIT;
	char *why = NULL;

	if (ss_link_target_safe(l, dir, &why))
		return true;
	if (!folder_done(refused, dir))
		fprintf(stderr, "warning: not keeping '%s' current: %s\n", cli_safe(&a, dir),
		        cli_safe(&b, why));
	free(why);
	ss_buf_release(&a);
	ss_buf_release(&b);
	return false;
}

int cli_link_pull(ss_ctx *ctx, bool changed, bool say_new)
{
	ss_link_set l;
	ss_buf path = SS_BUF_INIT, source = SS_BUF_INIT, fresh = SS_BUF_INIT, safe = SS_BUF_INIT;
	ss_buf dir = SS_BUF_INIT, refused = SS_BUF_INIT, waits = SS_BUF_INIT;
	cli_gate_marks gate;
	char *workdir = NULL, **skills = NULL;
	size_t nskills = 0;
	int ret = -1;

	memset(&gate, 0, sizeof(gate));
	if (ss_link_set_load(ctx->state, &l, &ctx->err) < 0)
		return -1;
	if (!l.nlinks && !l.ntargets) {
		ret = 0;
		goto out;
	}
	if (!(workdir = workdir_of(ctx)) || cli_gate_marks_load(ctx, &gate) < 0 ||
	    ss_link_skills(workdir, &skills, &nskills, &ctx->err) < 0)
		goto out;
	for (size_t i = l.nlinks; i > 0; i--) {
		ss_link *k = &l.links[i - 1];
		ss_link_status s;
		bool gone = !has_skill(skills, nskills, k->skill);

		folder_of(&dir, k->path);
		if (!pull_may_write(&l, dir.ptr, &refused))
			continue; /* left as it is, and remembered, until the folder is one again */
		s = ss_link_check(k);
		if (gone) {
			if (s == SS_LINK_OK && ss_link_remove(k, &ctx->err) < 0)
				goto out;
			if (s == SS_LINK_OK)
				fprintf(stderr, "unlinked '%s': it left the view\n",
				        cli_safe(&safe, k->path));
			ss_link_set_drop(&l, i - 1);
		} else if (changed && k->copy && s == SS_LINK_OK &&
		           ss_link_refresh(k, &ctx->err) < 0) {
			goto out;
		}
	}
	/* A new skill: one with no link in any folder (one skipped in a folder for a name
	 * taken there is not new: it is not named again at every pull). */
	for (size_t s = 0; s < nskills; s++) {
		bool known = false;

		for (size_t i = 0; i < l.nlinks && !known; i++)
			known = !strcmp(l.links[i].skill, skills[s]);
		if (known || !l.ntargets)
			continue;
		/* A name with a hold is never linked by pull: whatever is in the working tree under
		 * it (a held new skill never is, docs/GIT-MODEL.md), the person decides first. */
		if (cli_gate_held(&gate, skills[s])) {
			ss_buf_printf(&waits, "%s%s", waits.len ? ", " : "", skills[s]);
			continue;
		}
		if (!l.auto_link) {
			ss_buf_printf(&fresh, "%s%s", fresh.len ? ", " : "", skills[s]);
			continue;
		}
		ss_buf_clear(&source);
		ss_fs_join(&source, workdir, skills[s]);
		for (size_t t = 0; t < l.ntargets; t++) {
			if (!pull_may_write(&l, l.targets[t].dir, &refused))
				continue;
			ss_buf_clear(&path);
			ss_fs_join(&path, l.targets[t].dir, skills[s]);
			if (ss_link_make(source.ptr, path.ptr, l.targets[t].copy, &ctx->err) < 0) {
				if (ctx->err.code != SS_EEXISTS)
					goto out;
				warn_path(NULL, "skipped", path.ptr, NOT_MADE);
				continue;
			}
			ss_link_set_add(&l, skills[s], source.ptr, path.ptr, l.targets[t].copy);
			fprintf(stderr, "linked new skill '%s'\n", cli_safe(&safe, path.ptr));
		}
	}
	if (fresh.len && say_new)
		fprintf(stderr, "new skills not linked: %s ('skillsync link' links them)\n",
		        cli_safe(&safe, fresh.ptr));
	if (waits.len && say_new)
		fprintf(stderr, "not linked: %s (a change waits for review: 'skillsync review')\n",
		        cli_safe(&safe, waits.ptr));
	ret = ss_link_set_save(ctx->state, &l, &ctx->err);
out:
	cli_gate_marks_release(&gate);
	ss_buf_release(&waits);
	ss_link_set_release(&l);
	ss_link_skills_free(skills, nskills);
	ss_buf_release(&path);
	ss_buf_release(&source);
	ss_buf_release(&fresh);
	ss_buf_release(&safe);
	ss_buf_release(&dir);
	ss_buf_release(&refused);
	free(workdir);
	return ret;
}
