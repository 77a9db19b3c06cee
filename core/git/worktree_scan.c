/*
 * worktree_scan.c: the working directory against the index and HEAD (see ss_worktree__scan):
 * the walkers (worktree_walk.c) set going and joined, HEAD against the index, the untracked
 * paths the ignore rules keep, the refreshed stat data written back, the directory cache saved.
 */
#include "core/git/worktree_priv.h"

#include <dirent.h> /* DT_* */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/git/git_priv.h"
#include "core/gitfmt/oid.h"
#include "core/util/buf.h"
#include "core/util/mem.h"

#define WORKERS 2

void ss_worktree__items_add(ss_worktree__items *items, const char *path, unsigned flags)
{
	ss_xgrow((void **)&items->v, sizeof(*items->v), items->n + 1, &items->alloc);
	items->v[items->n].path = ss_xstrdup(path);
	items->v[items->n].flags = flags;
	items->n++;
}

void ss_worktree__items_release(ss_worktree__items *items)
{
	for (size_t i = 0; i < items->n; i++)
		free(items->v[i].path);
	free(items->v);
	memset(items, 0, sizeof(*items));
}

/* Whether the index and the configuration are what the walk knows (ss_worktree__scan); *cache:
 * whether the directory cache is on. */
static bool walkable(git_repository *git, const ss_index_file *ix, bool *cache)
{
	static const struct {
		const char *key;
		int want;
	} bools[] = {{"core.filemode", 1},
	             {"core.ignorecase", 0},
	             {"core.symlinks", 1},
	             {"core.trustctime", 1},
	             {"core.precomposeunicode", 0}};
	git_config *cfg = NULL;
	const char *s;
	bool ok = true;
	int v;

	if (git_repository_config_snapshot(&cfg, git) < 0)
		return false;
	/* the directory cache: git's core.untrackedCache false turns it off */
	*cache = git_config_get_bool(&v, cfg, "core.untrackedcache") < 0 || v;
	for (size_t i = 0; ok && i < sizeof(bools) / sizeof(bools[0]); i++) {
		if (git_config_get_bool(&v, cfg, bools[i].key) == 0)
			ok = !v == !bools[i].want;
	}
	if (ok && git_config_get_string(&s, cfg, "core.checkstat") == 0)
		ok = false;
	git_config_free(cfg);
	for (size_t i = 0; ok && i < ix->count; i++) {
		const ss_index_entry *e = &ix->entries[i];
		ok = !(e->flags_extended &
		       (GIT_INDEX_ENTRY_INTENT_TO_ADD | GIT_INDEX_ENTRY_SKIP_WORKTREE)) &&
		     (e->mode == GIT_FILEMODE_BLOB || e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
		      e->mode == GIT_FILEMODE_LINK);
	}
	return ok;
}

static void add_name(char ***names, size_t *n, size_t *alloc, const char *s, size_t len)
{
	ss_xgrow((void **)names, sizeof(**names), *n + 1, alloc);
	(*names)[(*n)++] = ss_xstrndup(s, len);
}

/* The top-level names whose tree (or file) differs between HEAD and the index (ix, sorted by
 * cmp_name), into *names; the walkers' tree ids are w's defer. */
static int staged_names(const ss_worktree__walker *w, const ss_worktree__dname *ix, size_t nix,
                        git_tree *head, char ***names, size_t *count)
{
	size_t n = 0, alloc = 0, nhead = head ? git_tree_entrycount(head) : 0;
	ss_buf key = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < nix && ret == 0; i++) {
		const ss_index_entry *first = &w->e[ix[i].lo];
		const ss_worktree__job *walked;
		const git_tree_entry *te;
		bool differs = true;
		git_oid id;

		ss_buf_clear(&key);
		ss_buf_put(&key, ix[i].s, ix[i].len);
		te = head ? git_tree_entry_byname(head, key.ptr) : NULL;
		if (!te || (git_tree_entry_type(te) == GIT_OBJECT_TREE) != ix[i].dir)
			differs = true;
		else if (!ix[i].dir)
			differs = memcmp(first->id.id, git_tree_entry_id(te)->id, SS_OID_RAWSZ) ||
			          first->mode != (uint32_t)git_tree_entry_filemode(te);
		else if ((walked = bsearch(&ix[i], w->defer, w->ndefer, sizeof(*w->defer),
		                           ss_worktree__name_cmp)) &&
		         walked->have_tree)
			differs = !git_oid_equal(&walked->tree, git_tree_entry_id(te));
		else if (ss_worktree__tree_id(w->e, ix[i].lo, ix[i].hi, ix[i].len + 1, &id) < 0)
			ret = -1;
		else
			differs = !git_oid_equal(&id, git_tree_entry_id(te));
		if (differs)
			add_name(names, &n, &alloc, ix[i].s, ix[i].len);
	}
	/* HEAD's names the index no longer has */
	for (size_t j = 0; j < nhead && ret == 0; j++) {
		const char *s = git_tree_entry_name(git_tree_entry_byindex(head, j));
		ss_worktree__dname k = {.s = s, .len = strlen(s)};
		if (!bsearch(&k, ix, nix, sizeof(*ix), ss_worktree__name_cmp))
			add_name(names, &n, &alloc, k.s, k.len);
	}
	ss_buf_release(&key);
	*count = n;
	return ret;
}

/* HEAD against the index for the top-level names of one group (ss_git__pathspec_split), the
 * index holding only their entries. */
static int scan_staged_group(git_repository *git, const ss_index_file *ix, git_tree *head,
                             const char *const *names, size_t n, ss_worktree__items *out,
                             ss_error *err)
{
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	int rc;

	if (ss_worktree__index_subset(ix, names, n, true, &index, err) < 0)
		return -1;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INCLUDE_TYPECHANGE;
	opts.pathspec.strings = (char **)(uintptr_t)names;
	opts.pathspec.count = n;
	rc = git_diff_tree_to_index(&diff, git, head, index, &opts);
	git_index_free(index);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot compare HEAD with the index");
	for (size_t i = 0, nd = git_diff_num_deltas(diff); i < nd; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		unsigned f = d->status == GIT_DELTA_ADDED        ? GIT_STATUS_INDEX_NEW
		             : d->status == GIT_DELTA_DELETED    ? GIT_STATUS_INDEX_DELETED
		             : d->status == GIT_DELTA_TYPECHANGE ? GIT_STATUS_INDEX_TYPECHANGE
		                                                 : GIT_STATUS_INDEX_MODIFIED;
		ss_worktree__items_add(out, d->new_file.path ? d->new_file.path : d->old_file.path,
		                       f);
	}
	git_diff_free(diff);
	return 0;
}

/* HEAD against the index for the top-level names that differ (names): the names that are the
 * start of no other in one diff, each other name in one of its own. */
static int scan_staged(git_repository *git, const ss_index_file *ix, git_tree *head,
                       const char *const *names, size_t n, ss_worktree__items *out, ss_error *err)
{
	const char **order = ss_xcalloc(n ? n : 1, sizeof(*order));
	size_t first = 0;
	int ret = 0;

	ss_git__pathspec_split(names, n, order, &first);
	if (first)
		ret = scan_staged_group(git, ix, head, order, first, out, err);
	for (size_t i = first; ret == 0 && i < n; i++)
		ret = scan_staged_group(git, ix, head, order + i, 1, out, err);
	free(order);
	return ret;
}

/* The untracked paths the walkers found, but those the ignore rules leave out; a directory's
 * files listed one by one (a directory holding a repository of its own as "dir/", as git). */
static int add_untracked(git_repository *git, int top, const char *path, ss_worktree__items *out,
                         ss_error *err)
{
	size_t len = strlen(path);
	int ignored = 0, rc, fd, ret = 0;
	ss_buf pool = SS_BUF_INIT, sub = SS_BUF_INIT;
	ss_worktree__dname *names = NULL;
	size_t n = 0;

	if ((rc = git_ignore_path_is_ignored(&ignored, git, path)) < 0)
		return ss_git__error(err, rc, "cannot read the ignore rules for '%s'", path);
	if (ignored)
		return 0;
	if (path[len - 1] != '/') {
		ss_worktree__items_add(out, path, GIT_STATUS_WT_NEW);
		return 0;
	}
	fd = openat(top, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0
		                       : ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path,
		                                      strerror(errno));
	struct stat st;
	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ss_worktree__items_add(out, path, GIT_STATUS_WT_NEW);
		close(fd);
		return 0;
	}
	rc = ss_worktree__read_names(fd, &names, &n, &pool);
	close(fd);
	if (rc < 0)
		return ss_error_set(err, SS_ERROR, "cannot read '%s': %s", path, strerror(-rc));
	for (size_t i = 0; i < n && ret == 0; i++) {
		unsigned char type = names[i].type;
		ss_buf_clear(&sub);
		ss_buf_printf(&sub, "%s%s", path, names[i].s);
		if (type == DT_UNKNOWN && fstatat(top, sub.ptr, &st, AT_SYMLINK_NOFOLLOW) == 0)
			type = ss_worktree__dtype(&st);
		if (type == DT_DIR)
			ss_buf_putc(&sub, '/');
		if (type == DT_DIR || type == DT_REG || type == DT_LNK)
			ret = add_untracked(git, top, sub.ptr, out, err);
	}
	free(names);
	ss_buf_release(&pool);
	ss_buf_release(&sub);
	return ret;
}

/*
 * Writes the refreshed stat data of the walkers' files back into the index through libgit2's
 * read of it: 1 when written. Not written (0) when the file is no longer the one the walk read:
 * what was written since stands, and the next status refreshes what it still needs.
 */
static int write_refreshed(git_repository *git, const ss_index_file *ix, ss_worktree__walker *ws,
                           size_t nw, ss_error *err)
{
	size_t todo = 0;
	git_index *index = NULL;
	int rc;

	for (size_t k = 0; k < nw; k++)
		todo += ws[k].racy_clean + ws[k].nref;
	if (!todo)
		return 0;
	if ((rc = git_repository_index(&index, git)) == 0)
		rc = git_index_read(index, 0);
	if (rc < 0) {
		git_index_free(index);
		return ss_git__error(err, rc, "cannot read the index");
	}
	if (memcmp(git_index_checksum(index)->id, ix->checksum, GIT_OID_RAWSZ)) {
		git_index_free(index);
		return 0;
	}
	for (size_t k = 0; k < nw; k++) {
		for (size_t i = 0; i < ws[k].nref; i++) {
			const git_index_entry *e = git_index_get_byindex(index, ws[k].ref[i].pos);
			if (!e || strcmp(e->path, ix->entries[ws[k].ref[i].pos].path))
				continue; /* the same file read twice holds the same entries */
			git_index_entry copy = *e;
			ss_git__index_stat(&copy, &ws[k].ref[i].st);
			if ((rc = git_index_add(index, &copy)) < 0) {
				ss_git__error(err, rc, "cannot refresh '%s' in the index",
				              copy.path);
				git_index_free(index);
				return -1;
			}
		}
	}
	/* written also when it only had racily clean entries (as git's status does): once the
	 * index is newer than them, the next status trusts their stat data; the write zeroes the
	 * size of an entry still racy and changed, so that it is hashed next time. When a git
	 * command holds index.lock, the same status stands without the write */
	rc = git_index_write(index);
	git_index_free(index);
	if (rc < 0 && rc != GIT_ELOCKED)
		return ss_git__error(err, rc, "cannot write the index");
	return rc == 0;
}

/* Moves walker from's findings into out and the untracked list of to. */
static void gather(ss_worktree__walker *from, ss_worktree__walker *to, ss_worktree__items *out)
{
	for (size_t i = 0; i < from->found.n; i++) {
		ss_xgrow((void **)&out->v, sizeof(*out->v), out->n + 1, &out->alloc);
		out->v[out->n++] = from->found.v[i];
	}
	from->found.n = 0;
	if (from == to)
		return;
	for (size_t i = 0; i < from->nuntracked; i++) {
		ss_xgrow((void **)&to->untracked, sizeof(char *), to->nuntracked + 1,
		         &to->auntracked);
		to->untracked[to->nuntracked++] = from->untracked[i];
	}
	from->nuntracked = 0;
}

static void walker_release(ss_worktree__walker *w)
{
	ss_buf_release(&w->keep);
	ss_worktree__items_release(&w->found);
	ss_git__strings_free(w->untracked, w->nuntracked);
	free(w->ref);
	free(w->errpath);
	free(w->defer);
}

/* Writes the next directory cache when it differs from the one read (changed: the staged
 * names are new, or the index's checksum is). */
static int save_cache(const char *path, const ss_worktree__dircache *was, ss_worktree__walker *ws,
                      const unsigned char *index_sum, const unsigned char *head,
                      const char *const *staged, size_t nstaged, bool changed, ss_error *err)
{
	const ss_buf *parts[WORKERS];

	for (size_t k = 0; k < WORKERS; k++)
		parts[k] = &ws[k].keep;
	return ss_worktree__dircache_save(path, was, index_sum, head, staged, nstaged, parts,
	                                  WORKERS, changed, err);
}

int ss_worktree__scan(git_repository *git, const ss_index_file *index, git_tree *head,
                      const char *cache_path, ss_worktree__dircache *cache, bool refresh,
                      ss_worktree__items *out, ss_error *err)
{
	ss_worktree__walker ws[WORKERS];
	const char *workdir = git_repository_workdir(git);
	const ss_index_entry *e = index->entries;
	size_t ne = index->count, nix = 0;
	ss_worktree__items found = {0};
	const char *const *staged = NULL;
	char **computed = NULL;
	size_t nstaged = 0;
	unsigned char head_id[GIT_OID_RAWSZ] = {0};
	bool staged_known;
	ss_buf prefix = SS_BUF_INIT;
	struct timespec now;
	pthread_t thread;
	bool threaded = false, cache_on = false;
	ss_worktree__dname *ix = NULL;
	struct stat st;
	ss_worktree__jobs j;
	int top, rc = 0, ret = -1;

	if (!workdir || !walkable(git, index, &cache_on)) {
		ss_worktree__dircache_free(cache);
		return 1;
	}
	if (!cache_path || !cache_on) { /* git's core.untrackedCache false */
		ss_worktree__dircache_free(cache);
		cache = NULL;
	}
	if ((top = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(top, &st) < 0) {
		ret = ss_error_set(err, SS_ERROR, "cannot read '%s': %s", workdir, strerror(errno));
		if (top >= 0)
			close(top);
		ss_worktree__dircache_free(cache);
		return ret;
	}
	if (head)
		memcpy(head_id, git_tree_id(head)->id, sizeof(head_id));
	staged_known =
	    ss_worktree__dircache_staged(cache, index->checksum, head_id, &staged, &nstaged);
	clock_gettime(CLOCK_REALTIME, &now);
	memset(ws, 0, sizeof(ws));
	for (size_t k = 0; k < WORKERS; k++) {
		ws[k].need_trees = !staged_known;
		ws[k].e = e;
		ws[k].ne = ne;
		ws[k].top = top;
		ws[k].cache = cache;
		ws[k].began = now;
		ws[k].stamp = ss_platform_mtime(&index->st);
	}
	/* the top level here: its files checked, its directories left to the walkers */
	ws[0].deferring = true;
	ss_worktree__walk_dir(&ws[0], &prefix, 0, ne, &st);
	ws[0].deferring = false;
	j.dirs = ws[0].defer;
	j.count = ws[0].ndefer;
	j.next = 0;
	j.w = &ws[1];
	threaded = WORKERS > 1 && j.count > 1 &&
	           pthread_create(&thread, NULL, ss_worktree__worker_main, &j) == 0;
	/* the calling thread takes from the same counter */
	ss_worktree__run_jobs(&j, &ws[0]);
	if (threaded)
		pthread_join(thread, NULL);
	for (size_t k = 0; k < WORKERS; k++)
		if (ws[k].errnum) {
			ss_error_set(err, SS_ERROR, "cannot read '%s': %s", ws[k].errpath,
			             strerror(ws[k].errnum));
			goto out;
		}
	/* a top-level directory removed or replaced while the walk ran, after the cache said
	 * what the top holds: what else the top holds now is not known, libgit2 says */
	for (size_t k = 0; k < WORKERS; k++)
		if (ws[0].top_known && ws[k].top_missed) {
			ret = 1;
			goto out;
		}
	if (ws[0].top_known)
		ss_worktree__dircache_keep(cache, ws[0].top_slot);
	for (size_t k = 0; k < WORKERS; k++) {
		gather(&ws[k], &ws[0], &found);
		found.dirs_read += ws[k].dirs_read;
		found.files_hashed += ws[k].files_hashed;
	}
	for (size_t i = 0; i < ws[0].nuntracked; i++)
		if (add_untracked(git, top, ws[0].untracked[i], &found, err) < 0)
			goto out;
	if (!staged_known) {
		ix = ss_worktree__index_names(&ws[0], 0, ne, 0, &nix);
		if (staged_names(&ws[0], ix, nix, head, &computed, &nstaged) < 0) {
			ss_git__error(err, -1, "cannot read the index's trees");
			goto out;
		}
		staged = (const char *const *)computed;
	}
	if (scan_staged(git, index, head, staged, nstaged, &found, err) < 0 ||
	    (refresh && (rc = write_refreshed(git, index, ws, WORKERS, err)) < 0))
		goto out;
	/* a cache that cannot be written costs the next status its reads, nothing else */
	if (refresh && cache) {
		ss_error ignored;
		save_cache(cache_path, cache, ws, index->checksum, head_id, staged, nstaged,
		           !staged_known || rc == 1, &ignored);
	}
	*out = found;
	memset(&found, 0, sizeof(found));
	ret = 0;
out:
	ss_worktree__items_release(&found);
	for (size_t k = 0; k < WORKERS; k++)
		walker_release(&ws[k]);
	ss_worktree__dircache_free(cache);
	ss_git__strings_free(computed, computed ? nstaged : 0);
	free(ix);
	ss_buf_release(&prefix);
	close(top);
	return ret;
}
