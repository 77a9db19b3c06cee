/* outgoing_fill.c: renames, notes and record texts of the outgoing writes (core/diff/outgoing.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/diff/outgoing_priv.h"
#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/validate.h"
#include "core/state/state_journal.h"
#include "core/util/mem.h"

/* ---- renames ---- */

typedef struct fileset {
	char **paths;
	ss_oid *oids;
	size_t n, alloc;
	char *skill_md; /* SKILL.md without its name line */
} fileset;

/* SKILL.md without the frontmatter line that names the skill (a rename changes it). */
static char *without_name_line(const char *data, size_t len)
{
	ss_buf b = SS_BUF_INIT;
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (!(n >= 5 && !memcmp(p, "name:", 5)))
			ss_buf_put(&b, p, n);
		p += n;
	}
	return ss_buf_detach(&b, NULL);
}

static int collect_file(const ss_tree_file *f, void *payload)
{
	fileset *fs = payload;

	if (!strcmp(f->path, SS_OUTGOING_SKILL_MD)) {
		free(fs->skill_md);
		fs->skill_md = without_name_line(f->data, f->len);
		return 0;
	}
	if (fs->n == fs->alloc) {
		size_t a = fs->alloc;
		ss_xgrow((void **)&fs->paths, sizeof(*fs->paths), fs->n + 1, &fs->alloc);
		ss_xgrow((void **)&fs->oids, sizeof(*fs->oids), fs->n + 1, &a);
	}
	fs->paths[fs->n] = ss_xstrdup(f->path);
	fs->oids[fs->n] = f->oid;
	fs->n++;
	return 0;
}

static void fileset_release(fileset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->paths[i]);
	free(fs->paths);
	free(fs->oids);
	free(fs->skill_md);
	memset(fs, 0, sizeof(*fs));
}

/* At least half of the files (SKILL.md counted, without its name line) are the same. */
static bool similar(const fileset *a, const fileset *b)
{
	size_t same = 0, total = (a->n > b->n ? a->n : b->n) + 1;

	if (a->skill_md && b->skill_md && !strcmp(a->skill_md, b->skill_md))
		same++;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (!strcmp(a->paths[i], b->paths[j]) &&
			    ss_oid_equal(&a->oids[i], &b->oids[j])) {
				same++;
				break;
			}
	return 2 * same >= total;
}

static int read_fileset(ss_outgoing *o, const ss_oid *sub, fileset *fs, ss_error *err)
{
	return ss_tree_each_file(o->repo, sub, collect_file, fs, err) < 0 ? -1 : 0;
}

int ss_outgoing__find_renames(ss_outgoing *o, ss_error *err)
{
	bool *used = ss_xcalloc(o->nchanges + 1, sizeof(*used));
	bool *read = ss_xcalloc(o->nchanges + 1, sizeof(*read));
	fileset *gones = ss_xcalloc(o->nchanges + 1, sizeof(*gones)); /* each read once */
	int ret = -1;

	for (size_t i = 0; i < o->nchanges; i++) {
		ss_plan_change *added = &o->changes[i];
		fileset fa = {0};

		if (added->in_view || !added->in_head)
			continue;
		if (read_fileset(o, &o->subtrees[i].new, &fa, err) < 0)
			goto out;
		for (size_t j = 0; j < o->nchanges && !added->renamed_from; j++) {
			const ss_plan_change *gone = &o->changes[j];

			if (used[j] || !gone->in_view || gone->in_head)
				continue;
			if (!read[j] && read_fileset(o, &o->subtrees[j].old, &gones[j], err) < 0) {
				fileset_release(&fa);
				goto out;
			}
			read[j] = true;
			if (similar(&gones[j], &fa)) {
				added->renamed_from = ss_xstrdup(gone->name);
				used[j] = true;
			}
		}
		fileset_release(&fa);
	}
	ret = 0;
out:
	for (size_t j = 0; j < o->nchanges; j++)
		fileset_release(&gones[j]);
	free(gones);
	free(read);
	free(used);
	return ret;
}

/* ---- notes ---- */

static const ss_plan_change *change_of(const ss_outgoing *o, const char *name)
{
	for (size_t i = 0; i < o->nchanges; i++)
		if (!strcmp(o->changes[i].name, name))
			return &o->changes[i];
	return NULL;
}

/*
 * The commits since the last push, walked once for all the skills written (each commit's tree
 * read once, not once per skill): which skills each changed, and which the last push sent.
 */
typedef struct history {
	bool read;
	const char **names; /* the skills written, borrowed from the plan */
	size_t n;
	size_t *index;      /* per plan write: its index in names */
	ss_commit_list log; /* the commits that changed any of names, newest first */
	bool *touched;      /* log.count x n */
	bool *sent;         /* per commit of log: sent by the last push (config "pushed") */
} history;

static void history_release(history *h)
{
	free(h->names);
	free(h->index);
	ss_commit_list_release(&h->log);
	free(h->touched);
	free(h->sent);
	memset(h, 0, sizeof(*h));
}

static int cmp_oid(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(ss_oid));
}

/*
 * Marks the commits of h->log that the last push sent: those reachable from its HEAD (config
 * "pushed") and not from the tracking commit. Nothing when no push is recorded.
 */
static int mark_sent(ss_outgoing *o, const ss_oid *from, history *h, ss_error *err)
{
	ss_commit_list pushed = {0};
	ss_oid pushed_oid, *sorted = NULL;
	char *hex = NULL;
	int ret = -1;

	h->sent = ss_xcalloc(h->log.count + 1, sizeof(*h->sent));
	if (ss_state_config_get(o->st, "pushed", &hex, err) < 0 ||
	    ss_oid_parse(&pushed_oid, hex, err) < 0) {
		ss_error_clear(err);
		ret = 0;
		goto out;
	}
	if (ss_commit_log(o->repo, from, &pushed_oid, NULL, 0, &pushed, err) < 0)
		goto out;
	sorted = ss_xcalloc(pushed.count + 1, sizeof(*sorted));
	for (size_t i = 0; i < pushed.count; i++)
		sorted[i] = pushed.items[i].oid;
	qsort(sorted, pushed.count, sizeof(*sorted), cmp_oid);
	for (size_t i = 0; i < h->log.count; i++)
		h->sent[i] = pushed.count && bsearch(&h->log.items[i].oid, sorted, pushed.count,
		                                     sizeof(*sorted), cmp_oid);
	ret = 0;
out:
	free(hex);
	free(sorted);
	ss_commit_list_release(&pushed);
	return ret;
}

static int history_read(ss_outgoing *o, history *h, ss_error *err)
{
	const ss_oid *from = ss_oid_is_zero(&o->tracking) ? NULL : &o->tracking;
	size_t count = ss_plan_count(o->plan);

	if (h->read)
		return 0;
	h->read = true;
	h->names = ss_xcalloc(count + 1, sizeof(*h->names));
	h->index = ss_xcalloc(count + 1, sizeof(*h->index));
	for (size_t i = 0; i < count; i++) {
		const ss_plan_write *w = ss_plan_get(o->plan, i);

		h->index[i] = h->n;
		if (w->op != SS_WRITE_DELETE)
			h->names[h->n++] = w->name;
	}
	if (ss_commit_log_paths(o->repo, from, &o->head, h->names, h->n, &h->log, &h->touched,
	                        err) < 0)
		return -1;
	return mark_sent(o, from, h, err);
}

/*
 * The subjects of the commits since the last push that changed plan write i's skill, oldest
 * first, leaving out merges and what the last push sent (borrowed from h).
 */
static void subjects(const history *h, size_t i, const char ***out, size_t *n)
{
	size_t j = h->index[i];

	*out = ss_xcalloc(h->log.count + 1, sizeof(**out));
	*n = 0;
	for (size_t k = h->log.count; k-- > 0;) {
		const ss_commit_info *c = &h->log.items[k];
		if (h->touched[k * h->n + j] && c->nparents <= 1 && !h->sent[k])
			(*out)[(*n)++] = c->subject;
	}
}

/*
 * The note an interrupted push made for this very write (same name, same tree), kept when the
 * write did not land (core/state/state_journal.h): the push that sends it again sends that note.
 * *found: whether there was one.
 */
static int kept_note(ss_outgoing *o, ss_outgoing_item *it, bool *found, ss_error *err)
{
	char hex[SS_OID_HEXSZ + 1];
	int rc;

	*found = false;
	ss_oid_fmt(hex, &it->tree);
	rc = ss_state_journal_kept_note(o->st, it->write->name, hex, &it->note, err);
	if (rc < 0 && err->code == SS_ENOTFOUND) {
		ss_error_clear(err);
		return 0;
	}
	*found = rc == 0;
	return rc;
}

/* The note of plan write wi (it), unless kept from an interrupted push. */
static int build_note(ss_outgoing *o, history *h, size_t wi, ss_outgoing_item *it,
                      const ss_plan_change *c, ss_error *err)
{
	const ss_plan_write *w = it->write;
	ss_changes files = {0};
	ss_note_file *nf = NULL;
	ss_buf *texts = NULL, note = SS_BUF_INIT;
	ss_note_input in;
	const char **subj = NULL;
	const ss_oid *old = ss_oid_is_zero(&it->old_tree) ? NULL : &it->old_tree;
	bool kept = false;
	int ret = -1;

	memset(&in, 0, sizeof(in));
	if (kept_note(o, it, &kept, err) < 0)
		return -1;
	if (kept)
		return 0;
	if (ss_tree_diff_files(o->repo, old, &it->tree, &files, err) < 0)
		goto out;
	nf = ss_xcalloc(files.count + 1, sizeof(*nf));
	texts = ss_xcalloc(2 * files.count + 1, sizeof(*texts));
	for (size_t i = 0; i < files.count; i++) {
		const ss_change *f = &files.items[i];

		nf[i].path = f->path;
		nf[i].kind = f->kind == SS_CHANGE_ADDED     ? SS_NOTE_FILE_ADDED
		             : f->kind == SS_CHANGE_REMOVED ? SS_NOTE_FILE_REMOVED
		                                            : SS_NOTE_FILE_CHANGED;
		nf[i].old_exec = f->old_mode == SS_MODE_EXEC;
		nf[i].new_exec = f->new_mode == SS_MODE_EXEC;
		if (nf[i].kind != SS_NOTE_FILE_CHANGED || f->binary)
			continue;
		ss_buf_init(&texts[2 * i]);
		ss_buf_init(&texts[2 * i + 1]);
		if (ss_tree_read_file(o->repo, old, f->path, &texts[2 * i], err) < 0 ||
		    ss_tree_read_file(o->repo, &it->tree, f->path, &texts[2 * i + 1], err) < 0)
			goto out;
		nf[i].old_text = texts[2 * i].ptr;
		nf[i].old_len = texts[2 * i].len;
		nf[i].new_text = texts[2 * i + 1].ptr;
		nf[i].new_len = texts[2 * i + 1].len;
	}
	if (history_read(o, h, err) < 0)
		goto out;
	subjects(h, wi, &subj, &in.nsubjects);
	in.subjects = subj;
	in.files = nf;
	in.nfiles = files.count;
	in.created = !old;
	in.renamed_from = w->renamed_from;
	in.based_on = w->based_on;
	(void)c;
	ss_note_build(&note, &in);
	it->note = ss_buf_detach(&note, NULL);
	ret = 0;
out:
	for (size_t i = 0; texts && i < 2 * files.count; i++)
		ss_buf_release(&texts[i]);
	free(texts);
	free(nf);
	free(subj);
	ss_tree_changes_release(&files);
	return ret;
}

/* ---- records ---- */

typedef struct feed {
	ss_skill_reader *reader;
	ss_report *report;
	const char *name;
} feed;

static int feed_file(const ss_tree_file *f, void *payload)
{
	feed *fd = payload;
	ss_buf label = SS_BUF_INIT;

	if (f->mode == SS_MODE_FILE || f->mode == SS_MODE_EXEC) {
		ss_skill_reader_add(fd->reader, f->path, f->data, f->len, f->executable);
		return 0;
	}
	ss_skill_label(&label, fd->name, f->path);
	ss_report_error(fd->report, label.ptr, NULL, "%s",
	                f->mode == SS_MODE_LINK
	                    ? "is a symbolic link: only regular files can be "
	                      "pushed"
	                    : "is a submodule: only regular files can be pushed");
	ss_skill_reader_skip(fd->reader, f->path);
	ss_buf_release(&label);
	return 0;
}

/* Lists the skill of write w as refused, with report (taken). */
static void refuse(ss_outgoing *o, const ss_plan_write *w, ss_report *report)
{
	o->refused = ss_xrealloc(o->refused, (o->nrefused + 1) * sizeof(*o->refused));
	o->refused[o->nrefused].name = w->name;
	o->refused[o->nrefused++].report = report;
}

/* How many files of skill travel as blobs (ss_record_split). */
static size_t blob_count(const ss_skill *skill)
{
	bool *blob = ss_xcalloc(skill->nfiles + 1, sizeof(*blob));
	size_t n = 0;

	ss_record_split(skill, blob);
	for (size_t i = 0; i < skill->nfiles; i++)
		n += blob[i];
	free(blob);
	return n;
}

/*
 * Reads the item's skill from HEAD through the rules of `validate` and, with
 * SS_OUTGOING_RECORDS, encodes its record. A skill that breaks a rule is refused (refuse),
 * not an error; -1 only when the tree cannot be read.
 */
static int check_record(ss_outgoing *o, ss_outgoing_item *it, unsigned flags, ss_error *err)
{
	const ss_plan_write *w = it->write;
	ss_report *report = ss_report_new();
	ss_skill *skill = NULL;
	ss_buf rec = SS_BUF_INIT;
	feed fd = {ss_skill_reader_new(w->name, report), report, w->name};
	int ret = -1;

	if (ss_tree_each_file(o->repo, &it->tree, feed_file, &fd, err) < 0) {
		ss_skill_reader_free(fd.reader);
		goto out;
	}
	ret = 0;
	if (ss_skill_reader_finish(fd.reader, &skill) < 0 || ss_report_errors(report))
		goto out;
	it->blobs = blob_count(skill);
	if (!(flags & SS_OUTGOING_RECORDS))
		goto out;
	if ((ret = ss_record_encode(skill, w->created_at, w->updated_at, it->note, &rec, err)) < 0)
		goto out;
	if (rec.len > SS_MAX_RECORD)
		ss_report_error(report, w->name, NULL,
		                "too large to push: its record is %zu bytes, over the limit of %d",
		                rec.len, SS_MAX_RECORD);
	it->record_len = rec.len;
	it->record = ss_buf_detach(&rec, NULL);
out:
	if (ret == 0 && ss_report_errors(report)) {
		refuse(o, w, report);
		report = NULL;
	}
	ss_buf_release(&rec);
	ss_skill_free(skill);
	ss_report_free(report);
	return ret;
}

/*
 * The subtree of name on one side (old: the tracking tree, else HEAD's): the one the top-level
 * diff gave its change, without reading the root tree again, else a lookup.
 */
static int subtree(ss_outgoing *o, const char *name, bool old, ss_oid *out, ss_error *err)
{
	const ss_plan_change *c = change_of(o, name);
	unsigned mode;

	if (c && (old ? c->in_view : c->in_head)) {
		const ss_outgoing_subtrees *t = &o->subtrees[c - o->changes];

		*out = old ? t->old : t->new;
		return 0;
	}
	return ss_tree_lookup(o->repo, old ? &o->tracking_tree : &o->head_tree, name, out, &mode,
	                      err);
}

int ss_outgoing__fill(ss_outgoing *o, unsigned flags, ss_error *err)
{
	size_t n = ss_plan_count(o->plan);
	history h;
	int ret = -1;

	memset(&h, 0, sizeof(h));
	if (flags & SS_OUTGOING_RECORDS)
		flags |= SS_OUTGOING_NOTES | SS_OUTGOING_CHECK;
	o->items = ss_xcalloc(n + 1, sizeof(*o->items));
	o->nitems = n;
	for (size_t i = 0; i < n; i++) {
		ss_outgoing_item *it = &o->items[i];
		const ss_plan_write *w = ss_plan_get(o->plan, i);
		const ss_plan_change *c = change_of(o, w->name);
		const char *old_name = w->renamed_from ? w->renamed_from : w->name;

		it->write = w;
		if (c && (c->in_view || w->renamed_from) &&
		    subtree(o, old_name, true, &it->old_tree, err) < 0)
			goto out;
		if (w->op == SS_WRITE_DELETE)
			continue;
		if (subtree(o, w->name, false, &it->tree, err) < 0)
			goto out;
		if ((flags & SS_OUTGOING_NOTES) && build_note(o, &h, i, it, c, err) < 0) {
			ret = ss_error_prefix(err, "skill '%s'", w->name);
			goto out;
		}
		if ((flags & SS_OUTGOING_CHECK) && check_record(o, it, flags, err) < 0)
			goto out;
	}
	ret = 0;
out:
	history_release(&h);
	return ret;
}
