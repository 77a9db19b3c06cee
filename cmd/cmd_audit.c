/*
 * cmd_audit.c: `skillsync audit [--json | --sarif] [<skill>...]`: checks the skills of the working
 * tree (all, or those named) against the audit's rules (core/skill/audit.h, docs/AUDIT.md). In
 * a clone, the skills are the clone's top-level directories; elsewhere, the current directory's
 * subdirectories that hold a SKILL.md. Text output: one line per finding,
 * `<skill>/<path>:<line>: <level> <rule>: <message>: <excerpt>`, then a summary; --json: one
 * document (docs/JSON.md); --sarif: a SARIF 2.1.0 log. Exit 1 when a finding is high.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/json_out.h"
#include "core/git/repo.h"
#include "core/skill/audit.h"
#include "core/skill/skill.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* Where SARIF's tool.driver.informationUri points: the rules' documentation. The project has
 * no public home yet: a reserved name, as the package's contact (cmake/install.cmake). */
#define AUDIT_INFO_URI "https://skillsync.invalid/docs/AUDIT.md"

typedef enum { OUT_TEXT, OUT_JSON, OUT_SARIF } out_format;

typedef struct skill_list {
	char **names;
	size_t n, alloc;
} skill_list;

static void list_add(skill_list *l, const char *name, size_t len)
{
	ss_xgrow((void **)&l->names, sizeof(*l->names), l->n + 1, &l->alloc);
	l->names[l->n++] = ss_xstrndup(name, len);
}

static void list_release(skill_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
}

/* Whether root/name is a directory (not a link) holding a SKILL.md. */
static bool is_skill(const char *root, const char *name)
{
	ss_buf p = SS_BUF_INIT;
	struct stat st;
	bool yes;

	ss_fs_join(&p, root, name);
	yes = ss_fs_is_dir(p.ptr);
	ss_buf_puts(&p, "/" SS_SKILL_MD);
	yes = yes && lstat(p.ptr, &st) == 0;
	ss_buf_release(&p);
	return yes;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every skill of root, sorted: its subdirectories with a SKILL.md, hidden ones left out. */
static int all_skills(ss_ctx *ctx, const char *root, skill_list *out)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return ss_error_set(&ctx->err, SS_ERROR, "cannot read '%s'", root);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && is_skill(root, de->d_name))
			list_add(out, de->d_name, strlen(de->d_name));
	closedir(d);
	if (out->n)
		qsort(out->names, out->n, sizeof(*out->names), cmp_str);
	return 0;
}

/* The skills named: each a skill of root ("pdf" or "pdf/"), else one line. */
static int named_skills(ss_ctx *ctx, const char *root, char **names, size_t n, skill_list *out)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = cli_path_len(names[i]);
		char *name = ss_xstrndup(names[i], len);
		bool ok = len && name[0] != '.' && !strchr(name, '/') && is_skill(root, name);
		ss_buf safe = SS_BUF_INIT;

		if (!ok) {
			ss_error_set(&ctx->err, SS_ENOTFOUND, "no skill '%s' in %s",
			             cli_safe(&safe, names[i]),
			             ctx->repo ? "the working tree" : "the current directory");
			ss_buf_release(&safe);
			free(name);
			return -1;
		}
		list_add(out, name, len);
		free(name);
	}
	return 0;
}

void cli_audit_print_finding(const ss_audit_finding *f)
{
	ss_buf a = SS_BUF_INIT, b = SS_BUF_INIT;

	printf("%s/", cli_safe(&a, f->skill));
	fputs(cli_safe(&a, f->path), stdout);
	if (f->line)
		printf(":%zu", f->line);
	printf(": %s %s: %s", ss_audit_level_name(f->level), f->rule, cli_safe(&b, f->message));
	if (*f->excerpt)
		printf(": %s", f->excerpt);
	putchar('\n');
	ss_buf_release(&a);
	ss_buf_release(&b);
}

void cli_audit_json_finding(cli_json *w, const ss_audit_finding *f)
{
	cli_json_object(w, NULL);
	cli_json_str(w, "skill", f->skill);
	cli_json_str(w, "path", f->path);
	cli_json_int(w, "line", f->line);
	cli_json_str(w, "rule", f->rule);
	cli_json_str(w, "level", ss_audit_level_name(f->level));
	cli_json_str(w, "message", f->message);
	cli_json_str(w, "excerpt", f->excerpt);
	cli_json_end(w);
}

static void print_text(const ss_audit_report *r, size_t nskills)
{
	size_t counts[4] = {0, 0, 0, 0};

	for (size_t i = 0; i < r->n; i++) {
		counts[r->findings[i].level]++;
		cli_audit_print_finding(&r->findings[i]);
	}
	printf("%zu skill%s audited: %zu finding%s (%zu high, %zu medium, %zu low, %zu info)\n",
	       nskills, nskills == 1 ? "" : "s", r->n, r->n == 1 ? "" : "s", counts[SS_AUDIT_HIGH],
	       counts[SS_AUDIT_MEDIUM], counts[SS_AUDIT_LOW], counts[SS_AUDIT_INFO]);
}

static void print_json(const ss_audit_report *r, const skill_list *skills)
{
	size_t counts[4] = {0, 0, 0, 0};
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_array(&w, "skills");
	for (size_t i = 0; i < skills->n; i++)
		cli_json_str(&w, NULL, skills->names[i]);
	cli_json_end(&w);
	cli_json_array(&w, "findings");
	for (size_t i = 0; i < r->n; i++) {
		counts[r->findings[i].level]++;
		cli_audit_json_finding(&w, &r->findings[i]);
	}
	cli_json_end(&w);
	cli_json_object(&w, "counts");
	cli_json_int(&w, "high", counts[SS_AUDIT_HIGH]);
	cli_json_int(&w, "medium", counts[SS_AUDIT_MEDIUM]);
	cli_json_int(&w, "low", counts[SS_AUDIT_LOW]);
	cli_json_int(&w, "info", counts[SS_AUDIT_INFO]);
	cli_json_finish(&w);
}

/* SARIF's level for ours: high is an error, medium a warning, low and info notes. */
static const char *sarif_level(ss_audit_level l)
{
	return l == SS_AUDIT_HIGH ? "error" : l == SS_AUDIT_MEDIUM ? "warning" : "note";
}

/* "<skill>/<path>" as a relative URI reference: bytes other than unreserved ones and '/' as %XX. */
static void json_uri(cli_json *w, const char *key, const char *skill, const char *path)
{
	ss_buf u = SS_BUF_INIT;
	const char *parts[] = {skill, "/", path};

	for (size_t k = 0; k < 3; k++)
		for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
				ss_buf_putc(&u, (char)*p);
			else
				ss_buf_printf(&u, "%%%02X", *p);
	cli_json_str(w, key, u.ptr);
	ss_buf_release(&u);
}

/* {"level": <level>} under "properties": our own level beside SARIF's. */
static void json_properties(cli_json *w, ss_audit_level level)
{
	cli_json_object(w, "properties");
	cli_json_str(w, "level", ss_audit_level_name(level));
	cli_json_end(w);
}

/* SARIF's tool object: skillsync and every rule, in the order ruleIndex counts. */
static void sarif_tool(cli_json *w)
{
	cli_json_object(w, "tool");
	cli_json_object(w, "driver");
	cli_json_str(w, "name", "skillsync");
	cli_json_str(w, "version", SS_VERSION);
	cli_json_str(w, "informationUri", AUDIT_INFO_URI);
	cli_json_array(w, "rules");
	for (size_t i = 0; i < ss_audit_rule_count(); i++) {
		const ss_audit_rule_info *ri = ss_audit_rule_at(i);

		cli_json_object(w, NULL);
		cli_json_str(w, "id", ri->id);
		cli_json_object(w, "shortDescription");
		cli_json_str(w, "text", ri->message);
		cli_json_end(w);
		cli_json_object(w, "defaultConfiguration");
		cli_json_str(w, "level", sarif_level(ri->level));
		cli_json_end(w);
		json_properties(w, ri->level);
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_end(w);
	cli_json_end(w);
}

static void sarif_result(cli_json *w, const ss_audit_finding *f)
{
	size_t index = 0, nrules = ss_audit_rule_count();
	ss_buf text = SS_BUF_INIT;

	while (index < nrules && strcmp(ss_audit_rule_at(index)->id, f->rule))
		index++;
	ss_buf_puts(&text, f->message);
	if (*f->excerpt)
		ss_buf_printf(&text, ": %s", f->excerpt);
	cli_json_object(w, NULL);
	cli_json_str(w, "ruleId", f->rule);
	if (index < nrules)
		cli_json_int(w, "ruleIndex", index);
	cli_json_str(w, "level", sarif_level(f->level));
	cli_json_object(w, "message");
	cli_json_str(w, "text", text.ptr);
	cli_json_end(w);
	cli_json_array(w, "locations");
	cli_json_object(w, NULL);
	cli_json_object(w, "physicalLocation");
	cli_json_object(w, "artifactLocation");
	json_uri(w, "uri", f->skill, f->path);
	cli_json_end(w);
	if (f->line) {
		cli_json_object(w, "region");
		cli_json_int(w, "startLine", f->line);
		cli_json_end(w);
	}
	cli_json_end(w);
	cli_json_end(w);
	cli_json_end(w);
	json_properties(w, f->level);
	cli_json_end(w);
	ss_buf_release(&text);
}

static void print_sarif(const ss_audit_report *r)
{
	cli_json w;

	cli_json_init(&w, stdout);
	cli_json_object(&w, NULL);
	cli_json_str(&w, "$schema",
	             "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/"
	             "Schemata/sarif-schema-2.1.0.json");
	cli_json_str(&w, "version", "2.1.0");
	cli_json_array(&w, "runs");
	cli_json_object(&w, NULL);
	sarif_tool(&w);
	cli_json_str(&w, "columnKind", "utf16CodeUnits");
	cli_json_array(&w, "results");
	for (size_t i = 0; i < r->n; i++)
		sarif_result(&w, &r->findings[i]);
	cli_json_finish(&w);
}

static int cmd_audit(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_audit_def = {
    "audit", cmd_audit, "check skills for hidden text, risky scripts and agent takeover",
    "usage: skillsync audit [--json | --sarif] [<skill>...]\n"
    "\n"
    "Checks the skills of the working tree (all of them, or the ones named) against the\n"
    "audit's rules: hidden or misleading text (Unicode tag characters, bidirectional\n"
    "controls, invisible characters, look-alike names), scripts that download and run,\n"
    "decode and run, reach for credentials, write outside the skill or turn off TLS checks,\n"
    "instructions that tell the agent to ignore its instructions, hide what it does or run\n"
    "without asking, allowed-tools that grant unrestricted shell, and every program a skill\n"
    "carries. Each finding: the file and line, its level (high, medium, low, info), the\n"
    "rule, what and why, and the offending text with hidden characters escaped. In a clone\n"
    "the skills are its top-level directories; elsewhere, the current directory's.\n"
    "\n"
    "    --json     print the findings as one JSON document\n"
    "    --sarif    print them as a SARIF 2.1.0 log (paths relative to the clone's top)\n"
    "\n"
    "Exit status: 1 when a finding is high (or a skill named is not there), else 0.\n"};

static int cmd_audit(ss_ctx *ctx, int argc, char **argv)
{
	out_format format = OUT_TEXT;
	char **names = ss_xcalloc((size_t)argc + 1, sizeof(*names));
	size_t nnames = 0;
	bool dashdash = false;
	skill_list skills = {NULL, 0, 0};
	ss_audit_report r;
	ss_buf dir = SS_BUF_INIT;
	const char *root = ".";
	int ret = SS_EXIT_ERROR;

	ss_audit_report_init(&r);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!dashdash && !strcmp(a, "--")) {
			dashdash = true;
		} else if (!dashdash && (!strcmp(a, "--json") || !strcmp(a, "--sarif"))) {
			out_format want = a[2] == 'j' ? OUT_JSON : OUT_SARIF;
			if (format != OUT_TEXT && format != want) {
				free(names);
				return cli_usage_error(ctx,
				                       "--json and --sarif cannot be combined");
			}
			format = want;
		} else if (!dashdash && a[0] == '-' && a[1]) {
			free(names);
			return cli_usage_error(ctx, "unknown option '%s'", a);
		} else {
			names[nnames++] = argv[i];
		}
	}
	if (ss_audit_ready(&ctx->err) < 0)
		goto fail;
	if (cli_open_clone(ctx) == 0)
		root = ss_repo_workdir(ctx->repo);
	else if (ctx->err.code != SS_ENOTFOUND)
		goto fail; /* a clone that cannot be opened; outside one, the current directory */
	if ((nnames ? named_skills(ctx, root, names, nnames, &skills)
	            : all_skills(ctx, root, &skills)) < 0)
		goto fail;
	for (size_t i = 0; i < skills.n; i++) {
		ss_buf_clear(&dir);
		ss_fs_join(&dir, root, skills.names[i]);
		if (ss_audit_dir(&r, skills.names[i], dir.ptr, &ctx->err) < 0)
			goto fail;
	}
	if (format == OUT_JSON)
		print_json(&r, &skills);
	else if (format == OUT_SARIF)
		print_sarif(&r);
	else
		print_text(&r, skills.n);
	ret = r.n && ss_audit_worst(&r) == SS_AUDIT_HIGH ? SS_EXIT_ERROR : SS_EXIT_OK;
	goto out;
fail:
	ret = cli_fail(&ctx->err);
out:
	ss_audit_report_release(&r);
	list_release(&skills);
	ss_buf_release(&dir);
	free(names);
	return ret;
}
