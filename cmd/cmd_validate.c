/*
 * cmd_validate.c: `skillsync validate [--json] [<path>...]`: checks skills against the Agent Skills
 * rules and the lexicon's limits (core/skill/validate.h). A path is a skill directory, a SKILL.md,
 * or a directory of skills (each subdirectory not starting with '.'). Human output: one line per
 * problem ("error: " or "warning: " then the file, the field, the message), then a summary;
 * --json: one JSON object per skill per line (JSON Lines), no summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dirent.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

typedef struct vstate {
	bool json;
	size_t checked, valid;
	bool failed; /* a path could not be read at all */
} vstate;

/* The prefix that turns a report's "<name>/<file>" into a path as the person gave it. */
static void label_prefix(const char *skilldir, ss_buf *out)
{
	const char *slash;

	ss_buf_clear(out);
	ss_buf_put(out, skilldir, cli_path_len(skilldir));
	slash = strrchr(out->ptr, '/');
	if (!slash || !strcmp(slash + 1, ".") || !strcmp(slash + 1, "..")) {
		/* "pdf", ".", "a/..": the report's "<name>/" says enough */
		ss_buf_clear(out);
		return;
	}
	ss_buf_truncate(out, (size_t)(slash - out->ptr) + 1);
}

static void print_json_item(cli_json *w, const ss_report_item *it, const char *prefix)
{
	ss_buf file = SS_BUF_INIT;

	ss_buf_printf(&file, "%s%s", prefix, it->file);
	cli_json_object(w, NULL);
	cli_json_str(w, "file", file.ptr);
	cli_json_str(w, "field", it->field);
	cli_json_str(w, "message", it->message);
	cli_json_end(w);
	ss_buf_release(&file);
}

static void print_json(const char *skilldir, const char *name, bool valid, const ss_report *r,
                       const char *prefix)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_str(&w, "path", skilldir);
	cli_json_str(&w, "name", name);
	cli_json_bool(&w, "valid", valid);
	for (int sev = SS_SEV_ERROR; sev <= SS_SEV_WARNING; sev++) {
		cli_json_array(&w, sev == SS_SEV_ERROR ? "errors" : "warnings");
		for (size_t i = 0; i < ss_report_count(r); i++) {
			const ss_report_item *it = ss_report_at(r, i);
			if ((int)it->severity == sev)
				print_json_item(&w, it, prefix);
		}
		cli_json_end(&w);
	}
	cli_json_finish(&w);
}

static void print_human(const ss_report *r, const char *prefix)
{
	ss_buf line = SS_BUF_INIT;

	for (size_t i = 0; i < ss_report_count(r); i++) {
		const ss_report_item *it = ss_report_at(r, i);
		ss_buf_clear(&line);
		ss_report_format(it, &line);
		printf("%s: %s%s\n", it->severity == SS_SEV_ERROR ? "error" : "warning", prefix,
		       line.ptr);
	}
	ss_buf_release(&line);
}

/* The last component of path (trailing slashes ignored), for --json's "name". */
static void base_name(const char *path, ss_buf *out)
{
	char *real = realpath(path, NULL);
	const char *src = real ? real : path, *slash = strrchr(src, '/');

	ss_buf_clear(out);
	ss_buf_puts(out, slash && slash[1] ? slash + 1 : src);
	free(real);
}

static void check_skill(vstate *st, const char *skilldir, const char *missing_md)
{
	ss_report *r = ss_report_new();
	ss_skill *skill = NULL;
	ss_buf prefix = SS_BUF_INIT, name = SS_BUF_INIT;
	ss_error err;
	int ret;

	ss_error_clear(&err);
	base_name(skilldir, &name);
	if (missing_md)
		ss_report_error(r, missing_md, NULL, "no SKILL.md (not a skill directory)");
	ret = missing_md ? ss_error_set(&err, SS_EINVALID, "no SKILL.md")
	                 : ss_skilldir_read(skilldir, &skill, r, &err);
	if (ret < 0 && err.code != SS_EINVALID)
		ss_report_error(r, name.ptr, NULL, "%s", err.message);
	label_prefix(skilldir, &prefix);
	if (missing_md)
		ss_buf_clear(&prefix);
	st->checked++;
	st->valid += ret == 0;
	if (st->json)
		print_json(skilldir, name.ptr, ret == 0, r, prefix.ptr);
	else
		print_human(r, prefix.ptr);
	ss_skill_free(skill);
	ss_report_free(r);
	ss_buf_release(&prefix);
	ss_buf_release(&name);
}

static bool has_skill_md(const char *dir)
{
	ss_buf p = SS_BUF_INIT;
	struct stat st;
	bool yes;

	ss_fs_join(&p, dir, SS_SKILL_MD);
	yes = lstat(p.ptr, &st) == 0;
	ss_buf_release(&p);
	return yes;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool empty = true;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			empty = false;
	if (d)
		closedir(d);
	return empty;
}

/* Checks each subdirectory of dir (sorted; hidden ones skipped). */
static void check_skills_dir(vstate *st, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **subs = NULL;
	size_t n = 0, alloc = 0;
	ss_buf path = SS_BUF_INIT;

	if (!d) {
		fprintf(stderr, "skillsync: cannot read '%s': %s\n", dir, strerror(errno));
		st->failed = true;
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ss_buf_clear(&path);
		ss_fs_join(&path, dir, de->d_name);
		if (!ss_fs_is_dir(path.ptr))
			continue;
		ss_xgrow((void **)&subs, sizeof(*subs), n + 1, &alloc);
		subs[n++] = ss_xstrdup(path.ptr);
	}
	closedir(d);
	if (!n && !is_empty_dir(dir)) {
		/* files but no subdirectory: a skill directory that lacks its SKILL.md */
		check_skill(st, dir, NULL);
		ss_buf_release(&path);
		return;
	}
	if (n)
		qsort(subs, n, sizeof(*subs), cmp_str);
	for (size_t i = 0; i < n; i++) {
		check_skill(st, subs[i], has_skill_md(subs[i]) ? NULL : subs[i]);
		free(subs[i]);
	}
	free(subs);
	ss_buf_release(&path);
}

static void check_path(vstate *st, const char *path)
{
	struct stat sb;
	const char *slash;

	if (stat(path, &sb) < 0) {
		fprintf(stderr, "skillsync: cannot read '%s': %s\n", path, strerror(errno));
		st->failed = true;
		return;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (has_skill_md(path))
			check_skill(st, path, NULL);
		else
			check_skills_dir(st, path);
		return;
	}
	slash = strrchr(path, '/');
	if (strcmp(slash ? slash + 1 : path, SS_SKILL_MD)) {
		fprintf(stderr, "skillsync: '%s' is not a skill directory or a SKILL.md\n", path);
		st->failed = true;
	} else if (!slash) {
		check_skill(st, ".", NULL);
	} else {
		char *dir = ss_xstrndup(path, (size_t)(slash - path));
		check_skill(st, slash == path ? "/" : dir, NULL);
		free(dir);
	}
}

static int cmd_validate(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_validate_def = {
    "validate", cmd_validate, "check skills against the format and the lexicon",
    "usage: skillsync validate [--json] [<path>...]\n"
    "\n"
    "Checks skill directories against the Agent Skills frontmatter rules and the\n"
    "garden.engram.skill lexicon's limits. A path is a skill directory, a SKILL.md, or a\n"
    "directory of skills (default: the skills in the current directory).\n"
    "\n"
    "    --json    print one JSON object per skill per line, with its errors and warnings\n"
    "\n"
    "Exit status: 0 when every skill is valid (warnings allowed), 1 when any is not.\n"};

static int cmd_validate(ss_ctx *ctx, int argc, char **argv)
{
	vstate st = {false, 0, 0, false};
	const char **paths = ss_xcalloc((size_t)argc + 1, sizeof(*paths));
	size_t npaths = 0;
	bool dashdash = false;

	for (int i = 1; i < argc; i++) {
		if (!dashdash && !strcmp(argv[i], "--")) {
			dashdash = true;
		} else if (!dashdash && !strcmp(argv[i], "--json")) {
			st.json = true;
		} else if (!dashdash && argv[i][0] == '-' && argv[i][1]) {
			free((void *)paths);
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else {
			paths[npaths++] = argv[i];
		}
	}
	if (!npaths)
		paths[npaths++] = ".";
	for (size_t i = 0; i < npaths; i++)
		check_path(&st, paths[i]);
	free((void *)paths);
	if (!st.json)
		printf("%zu skill%s checked: %zu valid, %zu invalid\n", st.checked,
		       st.checked == 1 ? "" : "s", st.valid, st.checked - st.valid);
	return st.failed || st.valid < st.checked ? SS_EXIT_ERROR : SS_EXIT_OK;
}
