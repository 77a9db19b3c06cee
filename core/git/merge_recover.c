/* merge_recover.c: finishing or undoing a merge killed midway (the order is in merge.c). */
#include "core/git/merge.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/git/commit.h"
#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/merge_priv.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"

/* Parses "old <hex>\n<kind> <hex>\n". */
static int parse_journal(const char *text, ss_oid *old, char kind[16], ss_oid *target)
{
	ss_error ignored;
	char a[SS_OID_HEXSZ + 1], b[SS_OID_HEXSZ + 1];
	size_t klen;
	const char *p;

	if (strncmp(text, "old ", 4) != 0 || strlen(text) < 4 + SS_OID_HEXSZ + 1)
		return -1;
	memcpy(a, text + 4, SS_OID_HEXSZ);
	a[SS_OID_HEXSZ] = '\0';
	p = text + 4 + SS_OID_HEXSZ;
	if (*p++ != '\n')
		return -1;
	klen = strcspn(p, " ");
	if (klen == 0 || klen >= 16 || strlen(p + klen) < 1 + SS_OID_HEXSZ)
		return -1;
	memcpy(kind, p, klen);
	kind[klen] = '\0';
	memcpy(b, p + klen + 1, SS_OID_HEXSZ);
	b[SS_OID_HEXSZ] = '\0';
	if (ss_oid_parse(old, a, &ignored) < 0 || ss_oid_parse(target, b, &ignored) < 0)
		return -1;
	return 0;
}

static bool index_has_conflicts(ss_repo *repo)
{
	git_index *index = NULL;
	bool yes = false;

	if (git_repository_index(&index, repo->git) == 0 && git_index_read(index, 1) == 0)
		yes = git_index_has_conflicts(index);
	git_index_free(index);
	return yes;
}

bool ss_merge_interrupted(ss_repo *repo)
{
	ss_buf path = SS_BUF_INIT;
	bool yes;

	ss_merge__journal_path(&path, repo);
	yes = access(path.ptr, F_OK) == 0;
	ss_buf_release(&path);
	return yes;
}

/*
 * Finishes (to_target) or undoes the move from old to target when every path it touches may
 * be written; else SS_EEXISTS with one line naming the path that needs the person. A move
 * that libgit2 fails to finish is undone instead, so that the next run starts again.
 */
/* Whether m may be written: 0, or SS_EEXISTS with the one line that names the path. */
static int check_move(ss_repo *repo, const ss_merge_move *m, ss_error *err)
{
	ss_error why;

	memset(&why, 0, sizeof(why));
	if (ss_merge_move__check(repo, m, &why) == 0)
		return 0;
	return ss_error_set(err, SS_EEXISTS,
	                    "cannot finish the interrupted pull: %s; move it aside or restore it, "
	                    "then run skillsync again",
	                    why.message);
}

/* The move the journal names; a conflicting merge's with its cut rule (merge_priv.h). */
static int journal_move(ss_merge_move *m, ss_repo *repo, const char *journal, const ss_oid *old,
                        const ss_oid *target, bool conflicting, ss_error *err)
{
	struct stat st;
	int ret = ss_merge_move__init(m, repo, old, target, conflicting, err);

	if (ret == 0 && conflicting && stat(journal, &st) == 0) {
		m->cut_rule = true;
		m->cut_since = ss_platform_mtime(&st);
	}
	return ret;
}

static int redo(ss_repo *repo, const char *journal, const ss_oid *old, const ss_oid *target,
                bool conflicting, ss_error *err)
{
	ss_merge_move m;
	ss_error why;
	int ret;

	memset(&why, 0, sizeof(why));
	if ((ret = journal_move(&m, repo, journal, old, target, conflicting, err)) < 0)
		return ret;
	ss_merge_move__clean(repo, &m);
	if ((ret = check_move(repo, &m, err)) < 0) {
		/* the person's: nothing written, the journal stays */
	} else if (conflicting || ss_merge_move__write(repo, &m, true, &why) < 0) {
		ret = ss_merge_move__write(repo, &m, false, err);
		if (ret == 0 && conflicting)
			git_repository_state_cleanup(repo->git);
	} else {
		ret = ss_commit_update_ref(repo, "HEAD", target, old,
		                           "merge: finish an interrupted pull", err);
	}
	ss_merge_move__release(&m);
	return ret;
}

/* What the journal asks for: none (no journal), finish a move (a fast-forward or clean
 * merge), redo a conflicting merge that wrote no index yet, or only drop the journal. */
typedef enum recover_step { STEP_NONE, STEP_FINISH, STEP_CONFLICT, STEP_DROP } recover_step;

static int read_step(ss_repo *repo, ss_buf *path, ss_oid *old, ss_oid *target, recover_step *step,
                     ss_error *err)
{
	ss_buf text = SS_BUF_INIT;
	ss_oid head;
	char kind[16];
	int ret;

	*step = STEP_NONE;
	ss_merge__journal_path(path, repo);
	ret = ss_fs_read_file(&text, path->ptr, 4096, err);
	if (ret < 0 && err->code == SS_ENOTFOUND) {
		ret = 0;
		goto out;
	}
	if (ret < 0)
		goto out;
	if (parse_journal(text.ptr, old, kind, target) < 0 ||
	    (strcmp(kind, "new") != 0 && strcmp(kind, "conflict") != 0)) {
		ret = ss_error_set(err, SS_ERROR, "cannot read the merge journal '%s'", path->ptr);
		goto out;
	}
	ret = ss_commit_read_ref(repo, "HEAD", &head, err);
	if (ret < 0 && err->code == SS_ENOTFOUND)
		ss_oid_clear(&head);
	else if (ret < 0)
		goto out;
	ret = 0;
	if (!ss_oid_equal(&head, old) &&
	    !(strcmp(kind, "new") == 0 && ss_oid_equal(&head, target))) {
		ret = ss_error_set(err, SS_ERROR,
		                   "an interrupted merge left '%s' but HEAD moved since; check "
		                   "'git status', then remove that file",
		                   path->ptr);
		goto out;
	}
	if (strcmp(kind, "new") == 0 && ss_oid_equal(&head, old))
		*step = STEP_FINISH;
	else if (strcmp(kind, "conflict") == 0 && !index_has_conflicts(repo))
		*step = STEP_CONFLICT;
	else
		*step = STEP_DROP;
out:
	ss_buf_release(&text);
	return ret;
}

int ss_merge_recover_check(ss_repo *repo, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	ss_merge_move m;
	ss_oid old, target;
	recover_step step;
	int ret = read_step(repo, &path, &old, &target, &step, err);

	if (ret == 0 && (step == STEP_FINISH || step == STEP_CONFLICT) &&
	    (ret = journal_move(&m, repo, path.ptr, &old, &target, step == STEP_CONFLICT, err)) ==
	        0) {
		ret = check_move(repo, &m, err);
		ss_merge_move__release(&m);
	}
	ss_buf_release(&path);
	return ret;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds to list the paths of m that hold what it may write, and the temporary files it left. */
static void own_paths(ss_repo *repo, const ss_merge_move *m, char **list, size_t *n)
{
	ss_buf tmp = SS_BUF_INIT, full = SS_BUF_INIT;
	struct stat st;
	ss_error ignored;

	for (size_t i = 0; i < m->paths.count; i++) {
		const char *path = m->paths.strings[i];

		if (ss_merge_move__check_path(repo, m, path, &ignored) == 0)
			list[(*n)++] = ss_xstrdup(path);
		ss_merge_move__temp_name(&tmp, m, path);
		ss_buf_clear(&full);
		ss_fs_join(&full, repo->workdir, tmp.ptr);
		if (lstat(full.ptr, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			list[(*n)++] = ss_xstrdup(tmp.ptr);
	}
	ss_buf_release(&tmp);
	ss_buf_release(&full);
}

int ss_merge_interrupted_paths(ss_repo *repo, char ***out, size_t *count, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	ss_merge_move m;
	ss_oid old, target;
	recover_step step;
	char **list = NULL;
	size_t n = 0, keep = 0;
	int ret = read_step(repo, &path, &old, &target, &step, err);

	*out = NULL;
	*count = 0;
	if (ret < 0 || (step != STEP_FINISH && step != STEP_CONFLICT))
		goto out;
	ret = journal_move(&m, repo, path.ptr, &old, &target, step == STEP_CONFLICT, err);
	if (ret < 0)
		goto out;
	list = ss_xcalloc(2 * m.paths.count + 1, sizeof(char *));
	own_paths(repo, &m, list, &n);
	ss_merge_move__release(&m);
	if (n)
		qsort(list, n, sizeof(char *), cmp_path);
	for (size_t i = 0; i < n; i++) {
		if (keep && !strcmp(list[keep - 1], list[i]))
			free(list[i]);
		else
			list[keep++] = list[i];
	}
	*out = list;
	*count = keep;
	list = NULL;
out:
	free(list);
	ss_buf_release(&path);
	return ret;
}

void ss_merge_paths_free(char **paths, size_t count)
{
	for (size_t i = 0; paths && i < count; i++)
		free(paths[i]);
	free(paths);
}

int ss_merge_recover(ss_repo *repo, bool *recovered, ss_error *err)
{
	ss_buf path = SS_BUF_INIT;
	ss_oid old, target;
	recover_step step;
	int ret;

	if (recovered)
		*recovered = false;
	ret = read_step(repo, &path, &old, &target, &step, err);
	if (ret < 0 || step == STEP_NONE)
		goto out;
	if (step == STEP_FINISH) {
		ret = redo(repo, path.ptr, &old, &target, false, err);
	} else if (step == STEP_CONFLICT) {
		/* the index was not written yet; git_merge held its lock from its start (under the
		 * clone's lock, so that lock file is the killed run's) */
		ss_buf lock = SS_BUF_INIT;

		ss_fs_join(&lock, repo->gitdir, "index.lock");
		unlink(lock.ptr);
		ss_buf_release(&lock);
		ret = redo(repo, path.ptr, &old, &target, true, err);
	}
	if (ret < 0)
		goto out;
	unlink(path.ptr);
	if (recovered)
		*recovered = true;
out:
	ss_buf_release(&path);
	return ret;
}
