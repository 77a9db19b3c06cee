/*
 * fill.c: writes skill records straight into one account's repo on a PDS, for the demo, the
 * end-to-end tests and the benchmarks (not part of skillsync itself).
 *
 * Usage:
 *   ss-fill --pds <url> --did <did> [--updated-at <datetime>] [--put] <skill-dir>...
 *   ss-fill --pds <url> --did <did> --generate <n> [--prefix <p>] [--size <bytes>] [--real]
 *   ss-fill --print [--updated-at <datetime>] <skill-dir>
 *
 * The access token comes from $SS_FILL_TOKEN (never from argv). Records are encoded by
 * core/skill/record.c, the same code `push` uses, and sent with applyWrites in batches of 200
 * creates (--put: one putRecord each, which also replaces an existing record). --print writes
 * the record JSON of one directory to stdout and touches no network.
 *
 * --generate makes records of ~--size bytes of instructions and one small file; with --real,
 * records shaped like real skills instead (docs/BENCHMARKS.md says where the numbers come
 * from): a description of ~150 characters, 2.6-3.5 KB of Markdown instructions and 0-3 files
 * of 200 B-2 KB (scripts/run.sh executable, references/notes.md, templates/report.md), and
 * in 32 records of 35 a frontmatter object (a license, metadata), drawn from a generator
 * seeded by the record's name, so that every fill of a name is the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/skilldir.h"
#include "core/skill/value.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "core/util/time.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"
#include "sync/setting.h"

#define COLLECTION "garden.engram.skill"

typedef struct fill {
	const char *pds, *did, *updated_at, *prefix;
	bool put, print, real;
	long generate, size;
	ss_http *http;
	ss_xrpc *x;
	struct item {
		char *name, *body;
	} * items;
	size_t n, alloc;
	ss_error err;
} fill;

static int die(const char *what, const ss_error *err)
{
	fprintf(stderr, "ss-fill: %s%s%s\n", what, err ? ": " : "", err ? err->message : "");
	return 1;
}

static void add(fill *f, const char *name, char *body)
{
	ss_xgrow((void **)&f->items, sizeof(*f->items), f->n + 1, &f->alloc);
	f->items[f->n].name = ss_xstrdup(name);
	f->items[f->n++].body = body;
}

static int encode(fill *f, const ss_skill *s, char **out)
{
	ss_buf now = SS_BUF_INIT, json = SS_BUF_INIT;
	const char *when = f->updated_at;
	int rc;

	if (!when) {
		ss_time_format(ss_time_now(), &now);
		when = now.ptr;
	}
	rc = ss_record_encode(s, when, when, "written by ss-fill", &json, &f->err);
	ss_buf_release(&now);
	if (rc < 0) {
		ss_buf_release(&json);
		return rc;
	}
	*out = ss_buf_detach(&json, NULL);
	return 0;
}

static int read_skill(fill *f, const char *dir, ss_skill **out)
{
	ss_report *rep = ss_report_new();
	int rc = ss_skilldir_read(dir, out, rep, &f->err);

	if (rc == SS_EINVALID)
		ss_report_to_error(rep, &f->err);
	ss_report_free(rep);
	return rc;
}

/* A small deterministic generator (xorshift64*), seeded from the record's name. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static long between(uint64_t *x, long lo, long hi)
{
	return lo + (long)(next(x) % (uint64_t)(hi - lo + 1));
}

static const char *const words[] = {
    "the",     "input",   "output", "check",   "file",     "report",  "table",  "value",
    "review",  "commit",  "branch", "test",    "error",    "message", "format", "section",
    "summary", "request", "change", "release", "document", "result",  "source", "step",
    "careful", "first",   "then",   "every",   "each",     "only",    "clear",  "short",
};

/* Appends words until buf holds about len more bytes. */
static void prose(ss_buf *buf, uint64_t *x, size_t len)
{
	size_t end = buf->len + len;

	while (buf->len < end) {
		ss_buf_puts(buf, words[next(x) % (sizeof(words) / sizeof(*words))]);
		ss_buf_puts(buf, next(x) % 9 ? " " : ". ");
	}
}

/* Markdown of about len bytes: headings, paragraphs, lists, a code block. */
static void markdown(ss_buf *buf, uint64_t *x, const char *title, size_t len)
{
	size_t end = buf->len + len;

	ss_buf_printf(buf, "# %s\n\n", title);
	for (int section = 1; buf->len < end; section++) {
		ss_buf_printf(buf, "## Part %d\n\n", section);
		prose(buf, x, (size_t)between(x, 150, 400));
		ss_buf_puts(buf, "\n\n");
		for (long i = between(x, 2, 5); i > 0; i--) {
			ss_buf_puts(buf, "- ");
			prose(buf, x, (size_t)between(x, 30, 90));
			ss_buf_puts(buf, "\n");
		}
		if (next(x) % 3 == 0) {
			ss_buf_puts(buf, "\n```sh\n");
			ss_buf_printf(buf, "tool --check %s --step %d\n", title, section);
			ss_buf_puts(buf, "```\n");
		}
		ss_buf_puts(buf, "\n");
	}
	/* Cut to the size asked, after the last whole word. */
	while (buf->len > end - 1 && buf->len > 0)
		ss_buf_truncate(buf, buf->len - 1);
	while (buf->len > 0 && buf->ptr[buf->len - 1] != ' ' && buf->ptr[buf->len - 1] != '\n')
		ss_buf_truncate(buf, buf->len - 1);
	ss_buf_puts(buf, "\n");
}

static void add_file(ss_skill *s, uint64_t *x, const char *path, bool exec)
{
	ss_buf text = SS_BUF_INIT;
	size_t len = (size_t)between(x, 200, 2048);

	if (exec) {
		ss_buf_puts(&text, "#!/bin/sh\nset -eu\n");
		while (text.len < len) {
			ss_buf_puts(&text, "echo \"");
			prose(&text, x, 40);
			ss_buf_puts(&text, "\"\n");
		}
	} else {
		markdown(&text, x, path, len);
	}
	ss_skill_add_file(s, path, text.ptr, text.len, exec);
	ss_buf_release(&text);
}

/* A record shaped like a real skill (see the comment at the top). */
static void real_skill(ss_skill *s, const char *name)
{
	static const char *const paths[] = {"scripts/run.sh", "references/notes.md",
	                                    "templates/report.md"};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	ss_buf text = SS_BUF_INIT;
	long files;

	for (const char *p = name; *p; p++)
		x = (x ^ (unsigned char)*p) * 0x100000001b3ULL;
	next(&x);
	ss_buf_puts(&text, "Use when ");
	prose(&text, &x, (size_t)between(&x, 120, 160));
	ss_skill_set_description(s, text.ptr);
	ss_buf_clear(&text);
	markdown(&text, &x, name, (size_t)between(&x, 2600, 3500));
	ss_skill_set_instructions(s, text.ptr, text.len);
	files = between(&x, 0, 3);
	for (long i = 0; i < 3 && files > 0; i++)
		if (next(&x) % 3 < 2 || 3 - i <= files) {
			add_file(s, &x, paths[i], i == 0);
			files--;
		}
	ss_buf_release(&text);
}

/*
 * The frontmatter of a real skill: the keys beyond name and description of the SKILL.md files
 * in three public collections (surveyed for issue 11): of 35, 15 a license alone, 10 metadata
 * with a short description, 4 a license and metadata with an author and a version, 3 that
 * metadata alone, 3 nothing. Drawn from a generator of its own, so that the rest of the record
 * is what it was before frontmatter was added.
 */
static void real_frontmatter(ss_skill *s, const char *name)
{
	static const char *const authors[] = {"vercel", "anthropic", "openai", "acme-labs"};
	uint64_t x = 0x2545f4914f6cdd1dULL;
	ss_value *meta = NULL;
	ss_buf text = SS_BUF_INIT;
	long pick;

	for (const char *p = name; *p; p++)
		x = (x ^ (unsigned char)*p) * 0x100000001b3ULL;
	next(&x);
	pick = between(&x, 0, 34);
	if (pick < 15)
		ss_value_map_append(s->frontmatter, "license",
		                    ss_value_new_string("Complete terms in LICENSE.txt", 29));
	else if (pick >= 25 && pick < 29)
		ss_value_map_append(s->frontmatter, "license", ss_value_new_string("MIT", 3));
	if (pick >= 15 && pick < 32)
		meta = ss_value_new_map();
	if (pick >= 15 && pick < 25) {
		prose(&text, &x, (size_t)between(&x, 30, 60));
		while (text.len && text.ptr[text.len - 1] == ' ')
			ss_buf_truncate(&text, text.len - 1);
		ss_value_map_append(meta, "short-description",
		                    ss_value_new_string(text.ptr, text.len));
	} else if (meta) {
		const char *author = authors[next(&x) % (sizeof(authors) / sizeof(*authors))];
		ss_value_map_append(meta, "author", ss_value_new_string(author, strlen(author)));
		ss_buf_printf(&text, "%ld.%ld.%ld", between(&x, 1, 3), between(&x, 0, 9),
		              between(&x, 0, 9));
		ss_value_map_append(meta, "version", ss_value_new_string(text.ptr, text.len));
	}
	if (meta)
		ss_value_map_append(s->frontmatter, "metadata", meta);
	ss_buf_release(&text);
}

static void generate(fill *f)
{
	for (long i = 0; i < f->generate; i++) {
		ss_skill *s = ss_skill_new();
		ss_buf name = SS_BUF_INIT, text = SS_BUF_INIT;
		char *body;

		ss_buf_printf(&name, "%s-%05ld", f->prefix, i);
		ss_skill_set_name(s, name.ptr);
		if (f->real) {
			real_skill(s, name.ptr);
			real_frontmatter(s, name.ptr);
		} else {
			ss_skill_set_description(
			    s, "A generated skill for benchmarks: use it to measure.");
			ss_buf_printf(&text, "# %s\n\n", name.ptr);
			while (text.len < (size_t)f->size)
				ss_buf_puts(&text,
				            "Step: read the input, check it, write the output.\n");
			ss_skill_set_instructions(s, text.ptr, text.len);
			ss_skill_add_file(s, "references/notes.md", "Notes.\n", 7, false);
		}
		ss_skill_sort_files(s);
		if (encode(f, s, &body) == 0)
			add(f, name.ptr, body);
		ss_skill_free(s);
		ss_buf_release(&name);
		ss_buf_release(&text);
	}
}

static int send(fill *f)
{
	const char *token = getenv("SS_FILL_TOKEN");

	if (!token || !*token)
		return die("set SS_FILL_TOKEN to the account's access token", NULL);
	if (ss_setting_http_new(&f->http, NULL, &f->err) < 0 ||
	    ss_xrpc_new(&f->x, f->http, f->pds, &f->err) < 0)
		return die("cannot reach the PDS", &f->err);
	ss_xrpc_set_token(f->x, token);
	if (f->put) {
		for (size_t i = 0; i < f->n; i++) {
			ss_xrpc_put p = {
			    f->did, COLLECTION, f->items[i].name, f->items[i].body, NULL,
			    false,  NULL};
			ss_xrpc_record rec;

			memset(&rec, 0, sizeof(rec));
			if (ss_xrpc_put_record(f->x, &p, &rec, NULL, &f->err) < 0)
				return die(f->items[i].name, &f->err);
			ss_xrpc_record_release(&rec);
		}
	} else if (f->n) {
		ss_xrpc_write *w = ss_xcalloc(f->n, sizeof(*w));
		ss_xrpc_apply_result res;
		int rc;

		memset(&res, 0, sizeof(res));
		for (size_t i = 0; i < f->n; i++) {
			w[i].op = SS_XRPC_CREATE;
			w[i].collection = COLLECTION;
			w[i].rkey = f->items[i].name;
			w[i].value_json = f->items[i].body;
		}
		rc = ss_xrpc_apply_writes(f->x, f->did, w, f->n, NULL, &res, &f->err);
		ss_xrpc_apply_result_release(&res);
		free(w);
		if (rc < 0)
			return die("applyWrites", &f->err);
	}
	return 0;
}

int main(int argc, char **argv)
{
	fill f;
	int i, ret = 1;

	memset(&f, 0, sizeof(f));
	f.prefix = "skill";
	f.size = 1000;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--put") || !strcmp(a, "--print") || !strcmp(a, "--real")) {
			*(a[3] == 'u' ? &f.put : a[3] == 'r' ? &f.print : &f.real) = true;
			continue;
		}
		if (!v)
			return die("an option needs a value", NULL);
		i++;
		if (!strcmp(a, "--pds"))
			f.pds = v;
		else if (!strcmp(a, "--did"))
			f.did = v;
		else if (!strcmp(a, "--updated-at"))
			f.updated_at = v;
		else if (!strcmp(a, "--prefix"))
			f.prefix = v;
		else if (!strcmp(a, "--generate"))
			f.generate = strtol(v, NULL, 10);
		else if (!strcmp(a, "--size"))
			f.size = strtol(v, NULL, 10);
		else
			return die("unknown option (see the comment at the top of bench/fill.c)",
			           NULL);
	}
	for (; i < argc; i++) {
		ss_skill *s = NULL;
		char *body;

		if (read_skill(&f, argv[i], &s) < 0 || encode(&f, s, &body) < 0) {
			ss_skill_free(s);
			ret = die(argv[i], &f.err);
			goto out;
		}
		add(&f, s->name, body);
		ss_skill_free(s);
	}
	generate(&f);
	if (f.print) {
		for (size_t k = 0; k < f.n; k++)
			printf("%s\n", f.items[k].body);
		ret = 0;
		goto out;
	}
	if (!f.pds || !f.did) {
		ret = die("--pds and --did are needed", NULL);
		goto out;
	}
	ret = send(&f);
out:
	for (size_t k = 0; k < f.n; k++) {
		free(f.items[k].name);
		free(f.items[k].body);
	}
	free(f.items);
	ss_xrpc_free(f.x);
	ss_http_free(f.http);
	return ret;
}
