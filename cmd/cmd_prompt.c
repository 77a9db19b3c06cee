/*
 * cmd_prompt.c: `skillsync prompt [--json]`: the <available_skills> block for an agent without
 * native skill support (docs/AGENTS.md): each skill of the clone's working tree with its name,
 * description and the absolute path of its SKILL.md, leaving out the skills whose frontmatter
 * says `disable-model-invocation: true` (loaded only when a person asks for them by name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/agent/link.h"
#include "core/git/repo.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/skillmd.h"
#include "core/skill/value.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

/* A SKILL.md is small; a bigger one is not a skill worth offering. */
#define PROMPT_MAX_SKILLMD (1024 * 1024)

typedef struct prompt_skill {
	char *name, *description;
	ss_buf location;
} prompt_skill;

/* The frontmatter string at key without the space around it (as the reference
 * implementation's to-prompt strips it: a folded block's final newline goes), or "" when it is
 * absent or not a string. A new string. */
static char *fm_string(const ss_value *fm, const char *key)
{
	const ss_value *v = ss_value_map_get(fm, key);
	const char *s;
	size_t len, start, end;

	if (!v || ss_value_type_of(v) != SS_VALUE_STRING)
		return ss_xstrdup("");
	s = ss_value_string(v, &len);
	ss_utf8_trim(s, len, &start, &end);
	return ss_xmemdup(s + start, end - start);
}

/* Reads <workdir>/<dir>/SKILL.md into *out; 1 when it is offered, 0 when left out (it cannot
 * be parsed, or it asks to be loaded only by name), -1 with err set when it cannot be read. */
static int read_skill(const char *workdir, const char *dir, prompt_skill *out, ss_error *err)
{
	ss_buf md = SS_BUF_INIT, label = SS_BUF_INIT;
	ss_report *report = ss_report_new();
	ss_value *fm = NULL;
	const ss_value *dmi;
	size_t body_off = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	ss_fs_join(&out->location, workdir, dir);
	ss_buf_puts(&out->location, "/" SS_SKILL_MD);
	if (ss_fs_read_file(&md, out->location.ptr, PROMPT_MAX_SKILLMD, err) < 0) {
		ret = -1;
		goto out;
	}
	ss_buf_printf(&label, "%s/%s", dir, SS_SKILL_MD);
	if (ss_skillmd_parse(md.ptr, md.len, label.ptr, &fm, &body_off, report) < 0)
		goto out;
	dmi = ss_value_map_get(fm, SS_KEY_DISABLE_MODEL_INVOCATION);
	if (dmi && ss_value_type_of(dmi) == SS_VALUE_BOOL && ss_value_bool(dmi))
		goto out;
	out->name = fm_string(fm, "name");
	if (!*out->name) {
		free(out->name);
		out->name = ss_xstrdup(dir);
	}
	out->description = fm_string(fm, "description");
	ret = 1;
out:
	if (ret != 1)
		ss_buf_release(&out->location);
	ss_value_free(fm);
	ss_report_free(report);
	ss_buf_release(&md);
	ss_buf_release(&label);
	return ret;
}

static void prompt_skill_release(prompt_skill *p)
{
	free(p->name);
	free(p->description);
	ss_buf_release(&p->location);
}

static void put_field(ss_buf *out, const char *tag, const char *text)
{
	ss_buf_printf(out, "    <%s>", tag);
	ss_utf8_escape(out, text, strlen(text), SS_ESCAPE_XML);
	ss_buf_printf(out, "</%s>\n", tag);
}

static void print_xml(const prompt_skill *skills, size_t n)
{
	ss_buf out = SS_BUF_INIT;

	ss_buf_puts(&out, "<available_skills>\n");
	for (size_t i = 0; i < n; i++) {
		ss_buf_puts(&out, "  <skill>\n");
		put_field(&out, "name", skills[i].name);
		put_field(&out, "description", skills[i].description);
		put_field(&out, "location", skills[i].location.ptr);
		ss_buf_puts(&out, "  </skill>\n");
	}
	ss_buf_puts(&out, "</available_skills>\n");
	fwrite(out.ptr, 1, out.len, stdout);
	ss_buf_release(&out);
}

/* An array of {name, description, location}, one member a line. */
static void print_json(const prompt_skill *skills, size_t n)
{
	cli_json w;

	cli_json_init(&w, stdout);
	w.style = CLI_JSON_LINES;
	cli_json_array(&w, NULL);
	for (size_t i = 0; i < n; i++) {
		cli_json_object(&w, NULL);
		cli_json_str(&w, "name", skills[i].name);
		cli_json_str(&w, "description", skills[i].description);
		cli_json_str(&w, "location", skills[i].location.ptr);
		cli_json_end(&w);
	}
	cli_json_finish(&w);
}

static int cmd_prompt(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_prompt_def = {
    "prompt", cmd_prompt, "print the <available_skills> block for an agent's system prompt",
    "usage: skillsync prompt [--json]\n"
    "\n"
    "Prints the <available_skills> block that agents without native skill support expect\n"
    "in their system prompt: for each skill in the clone, its name, its description and the\n"
    "absolute path of its SKILL.md, XML-escaped (the name and the description without the\n"
    "space around them, as the reference implementation's to-prompt strips them). Skills\n"
    "whose SKILL.md says 'disable-model-invocation: true' are left out: they load only when\n"
    "asked for by name.\n"
    "\n"
    "    --json    print a JSON array of {name, description, location} instead\n"};

static int cmd_prompt(ss_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	char *workdir = NULL, **dirs = NULL;
	prompt_skill *skills = NULL;
	size_t ndirs = 0, n = 0, alloc = 0;
	int ret = SS_EXIT_OK;

	if ((ret = cli_json_only(ctx, argc, argv, &json)) != 0)
		return ret;
	if (cli_open_clone(ctx) < 0)
		return cli_fail(&ctx->err);
	if (!(workdir = realpath(ss_repo_workdir(ctx->repo), NULL))) {
		ss_error_set(&ctx->err, SS_ERROR, "cannot resolve '%s'",
		             ss_repo_workdir(ctx->repo));
		return cli_fail(&ctx->err);
	}
	if (ss_link_skills(workdir, &dirs, &ndirs, &ctx->err) < 0) {
		ret = cli_fail(&ctx->err);
		goto out;
	}
	for (size_t i = 0; i < ndirs; i++) {
		int r;

		ss_xgrow((void **)&skills, sizeof(*skills), n + 1, &alloc);
		if ((r = read_skill(workdir, dirs[i], &skills[n], &ctx->err)) < 0) {
			ret = cli_fail(&ctx->err);
			goto out;
		}
		n += (size_t)r;
	}
	if (json)
		print_json(skills, n);
	else
		print_xml(skills, n);
out:
	for (size_t i = 0; i < n; i++)
		prompt_skill_release(&skills[i]);
	free(skills);
	ss_link_skills_free(dirs, ndirs);
	free(workdir);
	return ret;
}
