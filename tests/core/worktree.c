#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/git/worktree_priv.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "core/util/platform.h"
#include "support/gitrepo.h"
#include "support/support.h"

static const char *const base_files[] = {
    "alpha/SKILL.md",
    "alpha 1\nalpha 2\n",
    "alpha/scripts/run.sh*",
    "#!/bin/sh\n",
    "beta/SKILL.md",
    "beta\n",
    "gamma/SKILL.md",
    "gamma\n",
    "README.md",
    "readme\n",
    NULL,
};

/* A repository whose main holds base_files, checked out. */
static ss_repo *cloned(char **dir, ss_oid *commit)
{
	ss_repo *repo = ss_test_repo_new(dir);
	ss_oid tree = ss_test_tree(repo, base_files), zero;
	ss_error err;

	ss_oid_clear(&zero);
	*commit = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	if (ss_worktree_checkout(repo, commit, &err) < 0)
		fail_msg("%s", err.message);
	return repo;
}

static void test_worktree__checkout_writes_files_and_is_clean(void **state)
{
	char *dir, *text;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	ss_buf out = SS_BUF_INIT;
	struct stat st;

	text = ss_test_read(dir, "alpha/SKILL.md");
	assert_string_equal(text, "alpha 1\nalpha 2\n");
	free(text);
	ss_buf_printf(&out, "%s/alpha/scripts/run.sh", dir);
	assert_int_equal(stat(out.ptr, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	assert_int_equal(ss_test_git(dir, NULL, "fsck --strict 2>/dev/null"), 0);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__checkout_never_overwrites(void **state)
{
	char *dir, *text;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid tree = ss_test_tree(repo, base_files), c;
	ss_error err;

	ss_test_write(dir, "beta/SKILL.md", "mine, not committed\n");
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_EEXISTS);
	assert_non_null(strstr(err.message, "'beta/SKILL.md'"));
	text = ss_test_read(dir, "beta/SKILL.md");
	assert_string_equal(text, "mine, not committed\n");
	free(text);
	assert_false(ss_test_exists(dir, "alpha"));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);

	/* a symbolic link where a file goes, a file where a directory goes: named in path order */
	repo = ss_test_repo_new(&dir);
	ss_test_write(dir, "beta/SKILL.md", "beta\n");
	ss_test_write(dir, "gamma", "a file\n");
	ss_test_write(dir, "target", "beta\n");
	{
		ss_buf p = SS_BUF_INIT;
		ss_fs_join(&p, dir, "README.md");
		assert_int_equal(symlink("target", p.ptr), 0);
		ss_buf_release(&p);
	}
	tree = ss_test_tree(repo, base_files);
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_EEXISTS);
	assert_string_equal(err.message, "cannot check out: 'README.md', 'gamma' already exist");
	assert_false(ss_test_exists(dir, "alpha"));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__checkout_keeps_identical_files(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid tree = ss_test_tree(repo, base_files), c;
	ss_buf out = SS_BUF_INIT;
	struct stat before, after;
	ss_error err;

	ss_test_write(dir, "beta/SKILL.md", "beta\n");
	ss_fs_join(&out, dir, "beta/SKILL.md");
	assert_int_equal(lstat(out.ptr, &before), 0);
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	assert_int_equal(ss_worktree_checkout(repo, &c, &err), 0);
	assert_int_equal(lstat(out.ptr, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void progress_seen(void *payload, size_t done, size_t total)
{
	size_t *seen = payload; /* last done, calls, total */

	assert_true(done >= seen[0] && done <= total);
	seen[0] = done;
	seen[1]++;
	seen[2] = total;
}

/* The checkout's index, byte for byte, is what libgit2's git_index_write makes of the same
 * entries (added to an index of no repository: nothing of its own to check for racy files). */
static void index_bytes_as_libgit2(ss_repo *repo)
{
	char *tmp = ss_test_tmpdir();
	ss_buf path = SS_BUF_INIT, ours = SS_BUF_INIT, theirs = SS_BUF_INIT;
	git_index *read = NULL, *made = NULL;
	ss_error err;

	ss_fs_join(&path, ss_repo_gitdir(repo), "index");
	assert_int_equal(ss_fs_read_file(&ours, path.ptr, 0, &err), 0);
	assert_int_equal(git_index_open(&read, path.ptr), 0);
	ss_buf_clear(&path);
	ss_fs_join(&path, tmp, "index");
	assert_int_equal(git_index_open(&made, path.ptr), 0);
	for (size_t i = 0; i < git_index_entrycount(read); i++)
		assert_int_equal(git_index_add(made, git_index_get_byindex(read, i)), 0);
	assert_int_equal(git_index_write(made), 0);
	assert_int_equal(ss_fs_read_file(&theirs, path.ptr, 0, &err), 0);
	assert_int_equal(ours.len, theirs.len);
	assert_memory_equal(ours.ptr, theirs.ptr, ours.len);
	git_index_free(read);
	git_index_free(made);
	ss_buf_release(&path);
	ss_buf_release(&ours);
	ss_buf_release(&theirs);
	ss_test_tmpdir_free(tmp);
}

/* Nested directories, an executable, an empty file, a file at the top and enough files for
 * both threads: the index is what git expects, entry by entry, with each file's stat data. */
static void test_worktree__checkout_index_matches_git(void **state)
{
	enum { SKILLS = 70 };
	char *owned[2 * (3 * SKILLS + 3)];
	const char *pairs[2 * (3 * SKILLS + 3) + 1];
	char *dir, *text;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf out = SS_BUF_INIT, want = SS_BUF_INIT;
	git_index *index = NULL;
	size_t n = 0, seen[3] = {0, 0, 0};
	ss_oid tree, c;
	struct stat st;
	ss_error err;

	for (int i = 0; i < SKILLS; i++) {
		ss_buf_clear(&out);
		ss_buf_printf(&out, "skill-%03d/SKILL.md", i);
		owned[n++] = ss_xstrdup(out.ptr);
		ss_buf_clear(&out);
		ss_buf_printf(&out, "---\nname: skill-%03d\n---\n%0*d\n", i, i * 7, 0);
		owned[n++] = ss_xstrdup(out.ptr);
		ss_buf_clear(&out);
		ss_buf_printf(&out, "skill-%03d/references/deep/notes-%d.md", i, i);
		owned[n++] = ss_xstrdup(out.ptr);
		owned[n++] = ss_xstrdup(i % 2 ? "notes\n" : "");
		ss_buf_clear(&out);
		ss_buf_printf(&out, "skill-%03d/scripts/run.sh%s", i, i % 3 ? "" : "*");
		owned[n++] = ss_xstrdup(out.ptr);
		owned[n++] = ss_xstrdup("#!/bin/sh\necho run\n");
	}
	owned[n++] = ss_xstrdup("README.md");
	owned[n++] = ss_xstrdup("top\n");
	owned[n++] = ss_xstrdup("empty");
	owned[n++] = ss_xstrdup("");
	owned[n++] = ss_xstrdup("a/b/c/d/e/f.md*");
	owned[n++] = ss_xstrdup("deep\n");
	for (size_t i = 0; i < n; i++)
		pairs[i] = owned[i];
	pairs[n] = NULL;
	tree = ss_test_tree(repo, pairs);
	for (size_t i = 0; i < n; i++)
		free(owned[i]);
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &tree, NULL, "clone");
	assert_int_equal(ss_worktree_checkout_progress(repo, &c, progress_seen, seen, &err), 0);
	assert_int_equal(seen[0], 3 * SKILLS + 3);
	assert_int_equal(seen[2], 3 * SKILLS + 3);
	assert_true(seen[1] >= 2);

	/* the index as written, against lstat of each file */
	assert_int_equal(git_repository_index(&index, repo->git), 0);
	assert_int_equal(git_index_read(index, 1), 0);
	assert_int_equal(git_index_entrycount(index), 3 * SKILLS + 3);
	for (size_t i = 0; i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		ss_buf_clear(&out);
		ss_fs_join(&out, dir, e->path);
		assert_int_equal(lstat(out.ptr, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(e->mode, st.st_mode & S_IXUSR ? 0100755 : 0100644);
		assert_int_equal(e->file_size, st.st_size);
		assert_int_equal(e->ino, (uint32_t)st.st_ino);
		/* as libgit2 fills it (st_rdev), which libgit2's own checkout wrote before */
		assert_int_equal(e->dev, (uint32_t)st.st_rdev);
		assert_int_equal(e->uid, st.st_uid);
		assert_int_equal(e->gid, st.st_gid);
		assert_int_equal(e->mtime.seconds, st.st_mtim.tv_sec);
		assert_int_equal(e->ctime.seconds, st.st_ctim.tv_sec);
		if (git_libgit2_features() & GIT_FEATURE_NSEC) {
			assert_int_equal(e->mtime.nanoseconds, st.st_mtim.tv_nsec);
			assert_int_equal(e->ctime.nanoseconds, st.st_ctim.tv_nsec);
		}
	}
	git_index_free(index);
	index_bytes_as_libgit2(repo);

	text = ss_test_read(dir, "skill-003/scripts/run.sh");
	assert_string_equal(text, "#!/bin/sh\necho run\n");
	free(text);
	ss_buf_clear(&out);
	ss_fs_join(&out, dir, "skill-003/scripts/run.sh");
	assert_int_equal(stat(out.ptr, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	ss_buf_clear(&out);
	ss_fs_join(&out, dir, "skill-004/scripts/run.sh");
	assert_int_equal(stat(out.ptr, &st), 0);
	assert_false(st.st_mode & S_IXUSR);
	text = ss_test_read(dir, "empty");
	assert_string_equal(text, "");
	free(text);

	/* git's own view */
	ss_buf_clear(&out);
	assert_int_equal(ss_test_git(dir, NULL, "diff-files --quiet"), 0);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	assert_int_equal(ss_test_git(dir, &out, "ls-files -s | sed 's/ 0\t/ /'"), 0);
	assert_int_equal(ss_test_git(dir, &want, "ls-tree -r HEAD | sed 's/ blob / /; s/\t/ /'"),
	                 0);
	assert_int_equal(out.len > 1000, 1);
	assert_string_equal(out.ptr, want.ptr);
	ss_buf_release(&out);
	ss_buf_release(&want);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Appends a tree entry as a tree object holds it: "<mode in octal> <name>", a NUL, the id. */
static void raw_entry(ss_buf *raw, unsigned mode, const char *name, const git_oid *id)
{
	ss_buf_printf(raw, "%o %s", mode, name);
	ss_buf_put(raw, "", 1);
	ss_buf_put(raw, id->id, GIT_OID_RAWSZ);
}

/* A commit whose tree holds a.md, then sub/ holding name as entry of mode mode (raw, as a
 * hostile tree would be), pointing at a blob; sub's bytes cut short by cut bytes. */
static ss_oid odd_commit(ss_repo *repo, const char *name, unsigned mode, size_t cut)
{
	git_repository *git = repo->git;
	git_odb *odb = NULL;
	git_oid blob, sub, top;
	ss_buf raw = SS_BUF_INIT;
	ss_oid t;

	assert_int_equal(git_blob_create_from_buffer(&blob, git, "x\n", 2), 0);
	assert_int_equal(git_repository_odb(&odb, git), 0);
	raw_entry(&raw, mode, name, &blob);
	assert_int_equal(git_odb_write(&sub, odb, raw.ptr, raw.len - cut, GIT_OBJECT_TREE), 0);
	ss_buf_clear(&raw);
	raw_entry(&raw, 0100644, "a.md", &blob);
	raw_entry(&raw, 040000, "sub", &sub);
	assert_int_equal(git_odb_write(&top, odb, raw.ptr, raw.len, GIT_OBJECT_TREE), 0);
	ss_buf_release(&raw);
	git_odb_free(odb);
	ss_git__oid_out(&t, &top);
	return ss_test_commit(repo, SS_REPO_MAIN_REF, &t, NULL, "odd");
}

/* A symlink, a submodule, an unsafe name or a malformed tree anywhere: one line naming it,
 * nothing written. */
static void test_worktree__checkout_refuses_odd_entries(void **state)
{
	static const struct {
		const char *name;
		unsigned mode;
		size_t cut;
		const char *says;
	} cases[] = {
	    {"link", 0120000, 0, "'sub/link': not a file or directory (mode 120000)"},
	    {"mod", 0160000, 0, "'sub/mod': not a file or directory (mode 160000)"},
	    {".GIT", 0100644, 0, "'sub/.GIT': unsafe path component"},
	    {"..", 0100644, 0, "'sub/..': unsafe path component"},
	    {"cut", 0100644, 5, "malformed tree at 'sub/'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir;
		ss_repo *repo = ss_test_repo_new(&dir);
		ss_oid c = odd_commit(repo, cases[i].name, cases[i].mode, cases[i].cut);
		ss_error err;

		SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_EINVALID);
		if (!strstr(err.message, cases[i].says))
			fail_msg("%s: %s", cases[i].name, err.message);
		assert_false(ss_test_exists(dir, "a.md"));
		assert_false(ss_test_exists(dir, "sub"));
		assert_false(ss_test_exists(dir, ".git/index"));
		ss_repo_free(repo);
		ss_test_tmpdir_free(dir);
	}
}

/* How many of this process's mappings are of a pack index of dir's repository; -1 when the
 * system does not say (no /proc/self/maps). */
static int pack_index_maps(const char *dir)
{
	ss_buf packdir = SS_BUF_INIT;
	char line[1024], names[8][64];
	size_t nnames = 0;
	struct dirent *d;
	DIR *dh;
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	ss_fs_join(&packdir, dir, ".git/objects/pack");
	dh = opendir(packdir.ptr);
	assert_non_null(dh);
	while ((d = readdir(dh)) && nnames < 8)
		if (strstr(d->d_name, ".idx") && strlen(d->d_name) < sizeof(names[0]))
			strcpy(names[nnames++], d->d_name);
	closedir(dh);
	assert_true(nnames > 0);
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < nnames; i++)
			n += strstr(line, names[i]) != NULL;
	fclose(f);
	ss_buf_release(&packdir);
	return n;
}

/* A fetch leaves the packs' indexes mapped in libgit2 (each one it looked into, whole): the
 * checkout, which reads the packs itself, lets go of them first, and maps none once done. */
static void test_worktree__checkout_lets_go_of_pack_indexes(void **state)
{
	enum { FILES = 120 };
	char *owned[2 * FILES];
	const char *pairs[2 * FILES + 1];
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	git_tree *tree = NULL;
	git_oid id;
	ss_oid t, c;
	ss_error err;

	for (int i = 0; i < FILES; i++) {
		ss_buf b = SS_BUF_INIT;

		ss_buf_printf(&b, "skill-%03d/SKILL.md", i);
		owned[2 * i] = ss_buf_detach(&b, NULL);
		ss_buf_printf(&b, "---\nname: skill-%03d\n---\n", i);
		owned[2 * i + 1] = ss_buf_detach(&b, NULL);
	}
	for (int i = 0; i < 2 * FILES; i++)
		pairs[i] = owned[i];
	pairs[2 * FILES] = NULL;
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	t = ss_test_tree(repo, pairs);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	for (int i = 0; i < 2 * FILES; i++)
		free(owned[i]);
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &t, NULL, "clone");
	/* the tree looked up through libgit2, as the fetch's checks do */
	ss_git__oid_in(&id, &t);
	assert_int_equal(git_tree_lookup(&tree, repo->git, &id), 0);
	git_tree_free(tree);
	if (pack_index_maps(dir) < 0)
		skip();
	assert_true(pack_index_maps(dir) > 0);
	assert_int_equal(ss_worktree_checkout(repo, &c, &err), 0);
	assert_int_equal(pack_index_maps(dir), 0);
	assert_int_equal(ss_test_git(dir, NULL, "diff-files --quiet"), 0);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A tree whose entries are out of git's order (b.md before a.md) would make an index out of
 * order: refused, nothing written. */
static void test_worktree__checkout_refuses_unsorted_tree(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	git_repository *git = repo->git;
	git_odb *odb = NULL;
	git_oid blob, top;
	ss_buf raw = SS_BUF_INIT;
	ss_oid t, c;
	ss_error err;

	assert_int_equal(git_blob_create_from_buffer(&blob, git, "x\n", 2), 0);
	assert_int_equal(git_repository_odb(&odb, git), 0);
	raw_entry(&raw, 0100644, "b.md", &blob);
	raw_entry(&raw, 0100644, "a.md", &blob);
	assert_int_equal(git_odb_write(&top, odb, raw.ptr, raw.len, GIT_OBJECT_TREE), 0);
	ss_buf_release(&raw);
	git_odb_free(odb);
	ss_git__oid_out(&t, &top);
	c = ss_test_commit(repo, SS_REPO_MAIN_REF, &t, NULL, "unsorted");
	SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "out of order"));
	assert_false(ss_test_exists(dir, "a.md"));
	assert_false(ss_test_exists(dir, "b.md"));
	assert_false(ss_test_exists(dir, ".git/index"));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static const ss_status_entry *find(const ss_status *st, const char *name)
{
	for (size_t i = 0; i < st->count; i++)
		if (strcmp(st->entries[i].name, name) == 0)
			return &st->entries[i];
	return NULL;
}

static void test_worktree__status_groups_by_skill(void **state)
{
	ss_error ignored;
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	const char *gamma[] = {"gamma"};
	ss_status st = {0};
	const ss_status_entry *e;
	ss_error err;

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 0);
	ss_worktree_status_release(&st);

	ss_test_write(dir, "alpha/SKILL.md", "alpha 1\nchanged\n");
	ss_test_write(dir, "alpha/references/new.md", "new\n");
	{
		ss_buf p = SS_BUF_INIT;
		ss_fs_join(&p, dir, "beta");
		assert_int_equal(ss_fs_remove_tree(p.ptr, &ignored), 0);
		ss_buf_release(&p);
	}
	ss_test_write(dir, "gamma/SKILL.md", "gamma staged\n");
	assert_int_equal(ss_commit_stage(repo, gamma, 1, &err), 0);
	ss_test_write(dir, "delta/SKILL.md", "delta\n");
	ss_test_write(dir, "NOTES.txt", "notes\n");

	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 5);
	assert_false(st.merging);
	e = find(&st, "alpha");
	assert_non_null(e);
	assert_false(e->outside);
	assert_int_equal(e->staged, SS_STATUS_NONE);
	assert_int_equal(e->unstaged, SS_STATUS_MODIFIED);
	assert_int_equal(e->npaths, 2);
	assert_string_equal(e->paths[0], "alpha/SKILL.md");
	assert_string_equal(e->paths[1], "alpha/references/new.md");
	e = find(&st, "beta");
	assert_int_equal(e->unstaged, SS_STATUS_DELETED);
	assert_int_equal(e->staged, SS_STATUS_NONE);
	e = find(&st, "gamma");
	assert_int_equal(e->staged, SS_STATUS_MODIFIED);
	assert_int_equal(e->unstaged, SS_STATUS_NONE);
	e = find(&st, "delta");
	assert_int_equal(e->unstaged, SS_STATUS_NEW);
	e = find(&st, "NOTES.txt");
	assert_true(e->outside);
	assert_int_equal(e->unstaged, SS_STATUS_NEW);
	ss_worktree_status_release(&st);

	/* staged: a new skill and a deleted one */
	assert_int_equal(ss_commit_stage(repo, NULL, 0, &err), 0);
	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(find(&st, "delta")->staged, SS_STATUS_NEW);
	assert_int_equal(find(&st, "beta")->staged, SS_STATUS_DELETED);
	assert_int_equal(find(&st, "beta")->unstaged, SS_STATUS_NONE);
	assert_int_equal(find(&st, "alpha")->staged, SS_STATUS_MODIFIED);
	ss_worktree_status_release(&st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Sets the times of dir/rel an hour back: new stat data (mtime, ctime), the same content. */
static void backdate(const char *dir, const char *rel)
{
	ss_buf path = SS_BUF_INIT;

	ss_buf_printf(&path, "%s/%s", dir, rel);
	ss_test_backdate(path.ptr, 3600);
	ss_buf_release(&path);
}

/* The files git sees with other stat data than the index's (git diff-files does not refresh). */
static char *stat_dirty(const char *dir)
{
	ss_buf out = SS_BUF_INIT;

	assert_int_equal(ss_test_git(dir, &out, "diff-files --name-only"), 0);
	return ss_buf_detach(&out, NULL);
}

static void test_worktree__status_refresh_writes_stat_data(void **state)
{
	char *dir, *dirty;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	ss_status st;
	ss_error err;

	for (size_t i = 0; base_files[i]; i += 2) {
		char *rel = ss_xstrndup(base_files[i], strcspn(base_files[i], "*"));
		backdate(dir, rel);
		free(rel);
	}
	ss_test_write(dir, "beta/SKILL.md", "beta, edited\n");
	backdate(dir, "beta/SKILL.md");

	/* without the flag: the right status, the index left as it was */
	assert_int_equal(ss_worktree_status_flags(repo, NULL, 0, 0, &st, &err), 0);
	assert_int_equal(st.count, 1);
	assert_string_equal(st.entries[0].name, "beta");
	ss_worktree_status_release(&st);
	dirty = stat_dirty(dir);
	assert_string_equal(dirty,
	                    "README.md\nalpha/SKILL.md\nalpha/scripts/run.sh\nbeta/SKILL.md\n"
	                    "gamma/SKILL.md\n");
	free(dirty);

	/* with it: the same status, and the unchanged files' new stat data in the index, so the
	 * next status compares them without reading them; the edit is still an edit */
	assert_int_equal(ss_worktree_status_flags(repo, NULL, 0, SS_STATUS_REFRESH, &st, &err), 0);
	assert_int_equal(st.count, 1);
	assert_string_equal(st.entries[0].name, "beta");
	assert_int_equal(st.entries[0].unstaged, SS_STATUS_MODIFIED);
	assert_int_equal(st.files_hashed, 4); /* the four of the same size; the edit is longer */
	ss_worktree_status_release(&st);
	dirty = stat_dirty(dir);
	assert_string_equal(dirty, "beta/SKILL.md\n");
	free(dirty);
	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 1);
	assert_string_equal(st.entries[0].name, "beta");
	/* none of the four read again; the edit may be (a racily clean entry's size is zeroed
	 * when the index is written, as git does, so that its content decides) */
	assert_true(st.files_hashed <= 1);
	ss_worktree_status_release(&st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The status after one that recorded the directories (settled: not changed in the moment
 * before) reads only the directories that changed since, and still finds everything. */
static void test_worktree__dircache_reads_only_changed_dirs(void **state)
{
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	struct stat top;
	ss_status st;
	ss_error err;

	(void)state;
	assert_int_equal(stat(dir, &top), 0);
	/* past the cache's margin: 100 ms, or 3 s where the file system keeps whole seconds */
	usleep(ss_platform_mtime(&top).tv_nsec || ss_platform_ctime(&top).tv_nsec ? 300 * 1000
	                                                                          : 3500 * 1000);
	assert_int_equal(ss_worktree_status_flags(repo, NULL, 0, SS_STATUS_REFRESH, &st, &err), 0);
	assert_int_equal(st.count, 0);
	assert_int_equal(st.dirs_read, 5); /* the top, alpha, alpha/scripts, beta, gamma */
	ss_worktree_status_release(&st);
	/* nor a file: the first wrote the index again, newer than the racily clean entries the
	 * checkout left (written in the index's own time) */
	assert_int_equal(ss_worktree_status_flags(repo, NULL, 0, SS_STATUS_REFRESH, &st, &err), 0);
	assert_int_equal(st.count, 0);
	assert_int_equal(st.dirs_read, 0);
	assert_int_equal(st.files_hashed, 0);
	ss_worktree_status_release(&st);

	/* a new file: its directory's mtime moved, that one is read */
	ss_test_write(dir, "alpha/scripts/new.sh", "new\n");
	assert_int_equal(ss_worktree_status_flags(repo, NULL, 0, SS_STATUS_REFRESH, &st, &err), 0);
	assert_int_equal(st.dirs_read, 1);
	assert_int_equal(st.count, 1);
	assert_string_equal(st.entries[0].name, "alpha");
	assert_int_equal(st.entries[0].npaths, 1);
	assert_string_equal(st.entries[0].paths[0], "alpha/scripts/new.sh");
	ss_worktree_status_release(&st);

	/* a file the index no longer lists: its directory did not change, the index did */
	assert_int_equal(ss_test_git(dir, NULL, "rm -q --cached gamma/SKILL.md"), 0);
	assert_int_equal(ss_worktree_status(repo, &st, &err), 0);
	assert_int_equal(st.count, 2);
	assert_string_equal(st.entries[1].name, "gamma");
	assert_int_equal(st.entries[1].staged, SS_STATUS_DELETED);
	assert_int_equal(st.entries[1].unstaged, SS_STATUS_NEW);
	ss_worktree_status_release(&st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Asserts that skillsync's own walk and libgit2's status list the same, entry by entry. */
static void same_status(ss_repo *repo, const char *when)
{
	ss_status ours, theirs;
	ss_error err;

	if (ss_worktree_status_flags(repo, NULL, 0, 0, &ours, &err) < 0)
		fail_msg("%s: %s", when, err.message);
	if (ss_worktree_status_flags(repo, NULL, 0, SS_STATUS__LIBGIT2, &theirs, &err) < 0)
		fail_msg("%s: libgit2: %s", when, err.message);
	if (ours.count != theirs.count)
		fail_msg("%s: %zu entries, libgit2 %zu", when, ours.count, theirs.count);
	for (size_t i = 0; i < ours.count; i++) {
		const ss_status_entry *a = &ours.entries[i], *b = &theirs.entries[i];
		assert_string_equal(a->name, b->name);
		if (a->staged != b->staged || a->unstaged != b->unstaged || a->file != b->file ||
		    a->outside != b->outside || a->npaths != b->npaths)
			fail_msg("%s: '%s' staged %d/%d unstaged %d/%d paths %zu/%zu", when,
			         a->name, a->staged, b->staged, a->unstaged, b->unstaged, a->npaths,
			         b->npaths);
		for (size_t j = 0; j < a->npaths; j++)
			assert_string_equal(a->paths[j], b->paths[j]);
	}
	ss_worktree_status_release(&ours);
	ss_worktree_status_release(&theirs);
}

static void sh(const char *dir, const char *script)
{
	assert_int_equal(ss_test_sh(dir, script), 0);
}

static void test_worktree__status_walk_matches_libgit2(void **state)
{
	/* each case on its own, from a clean tree, then all of them at once */
	static const char *const cases[] = {
	    /* the same size, stat data older than the index: only the content tells */
	    "echo BETA > beta/SKILL.md && touch -d '1 hour ago' beta/SKILL.md",
	    "echo new > alpha/notes.md",
	    "mkdir -p delta/scripts empty/inner && echo d > delta/SKILL.md && "
	    "echo s > delta/scripts/x.sh",
	    "rm alpha/scripts/run.sh",
	    "rm -r gamma",
	    "chmod -x alpha/scripts/run.sh",
	    "rm beta/SKILL.md && ln -s ../README.md beta/SKILL.md",
	    "rm gamma/SKILL.md && mkdir gamma/SKILL.md && echo g > gamma/SKILL.md/inner",
	    "rm -r gamma && echo now-a-file > gamma",
	    "ln -s alpha epsilon",
	    "echo a >> alpha/SKILL.md && git add alpha",
	    "mkdir zeta && echo z > zeta/SKILL.md && git add zeta",
	    "git rm -q --cached README.md",
	    "git rm -q -r --cached beta",
	    "echo a >> alpha/SKILL.md && git add alpha && echo b >> alpha/SKILL.md",
	    "printf '*.log\\nbuild/\\n' > .gitignore && echo l > alpha/x.log && "
	    "mkdir -p alpha/build && echo b > alpha/build/out",
	    "mkdir -p nested/.git && echo n > nested/file",
	    "echo top > TOP.md && echo changed > README.md",
	    "touch alpha/SKILL.md",
	};
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	ss_buf all = SS_BUF_INIT;

	(void)state;
	same_status(repo, "clean");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sh(dir, cases[i]);
		same_status(repo, cases[i]);
		sh(dir, "git reset -q --hard && git clean -qfdx");
		ss_buf_printf(&all, "(%s) 2>/dev/null; ", cases[i]);
	}
	sh(dir, all.ptr);
	same_status(repo, "all at once");
	ss_buf_release(&all);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Asserts that ss_index_file_read reads the index of repo as libgit2 does, entry by entry. */
static void same_index(ss_repo *repo, const char *when)
{
	ss_buf path = SS_BUF_INIT;
	ss_index_file ours;
	git_index *theirs = NULL;

	ss_fs_join(&path, ss_repo_gitdir(repo), "index");
	if (ss_index_file_read(path.ptr, &ours) != 0)
		fail_msg("%s: the index was left to libgit2", when);
	assert_int_equal(git_index_open(&theirs, path.ptr), 0);
	assert_int_equal(ours.count, git_index_entrycount(theirs));
	assert_memory_equal(ours.checksum, git_index_checksum(theirs)->id, GIT_OID_RAWSZ);
	for (size_t i = 0; i < ours.count; i++) {
		const ss_index_entry *a = &ours.entries[i];
		const git_index_entry *b = git_index_get_byindex(theirs, i);
		assert_string_equal(a->path, b->path);
		if (a->mode != b->mode || memcmp(a->id.id, b->id.id, GIT_OID_RAWSZ) ||
		    a->file_size != b->file_size || a->mtime.seconds != b->mtime.seconds ||
		    a->mtime.nanoseconds != b->mtime.nanoseconds ||
		    a->ctime.seconds != b->ctime.seconds ||
		    a->ctime.nanoseconds != b->ctime.nanoseconds || a->ino != b->ino ||
		    a->dev != b->dev || a->uid != b->uid || a->gid != b->gid ||
		    a->flags_extended != b->flags_extended)
			fail_msg("%s: '%s' read otherwise than libgit2 reads it", when, a->path);
	}
	git_index_free(theirs);
	ss_index_file_release(&ours);
	ss_buf_release(&path);
}

static void test_worktree__index_file_reads_what_libgit2_reads(void **state)
{
	/* as git writes it: versions 2, 3 (extended flags) and 4 (each path without the prefix it
	 * shares with the one before) */
	static const char *const forms[][2] = {
	    {"as the checkout wrote it", "true"},
	    {"an intent-to-add entry (version 3)",
	     "echo n > beta/new.md && git add -N beta/new.md"},
	    {"version 4", "git update-index --index-version 4"},
	    {"version 4, more paths",
	     /* enough paths that the pool they are made whole in moves as it grows */
	     "mkdir -p alpha/references/deep && for n in $(seq 1 300); do "
	     "echo $n > alpha/references/deep/note-$n.md; done && git add -A alpha && "
	     "test \"$(od -An -tu1 -j7 -N1 .git/index)\" -eq 4"},
	    {"version 2 again", "git update-index --index-version 2"},
	};
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		sh(dir, forms[i][1]);
		same_index(repo, forms[i][0]);
		/* and the walk over it lists what libgit2's status lists, with a change or two */
		sh(dir, "echo more >> alpha/SKILL.md && echo u > beta/untracked.md");
		same_status(repo, forms[i][0]);
		sh(dir, "git checkout -q -- alpha/SKILL.md && rm -f beta/untracked.md");
	}
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__index_file_leaves_the_rest_to_libgit2(void **state)
{
	static const char *const forms[][2] = {
	    /* a split index holds its entries in another file */
	    {"a split index", "git update-index --split-index"},
	    {"a conflict", "id=$(git rev-parse HEAD:beta/SKILL.md) && "
	                   "printf '100644 %s 1\\tbeta/SKILL.md\\n100644 %s 2\\tbeta/SKILL.md\\n' "
	                   "$id $id | git update-index --index-info"},
	    /* a byte changed inside an entry: the checksum no longer matches */
	    {"a damaged file", "printf 'X' | dd of=.git/index bs=1 seek=100 conv=notrunc "
	                       "2>/dev/null"},
	    {"a cut file", "head -c 80 .git/index > .git/cut && mv .git/cut .git/index"},
	};
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	ss_buf path = SS_BUF_INIT;
	ss_index_file ix;
	ss_status st;
	ss_error err;

	(void)state;
	ss_fs_join(&path, ss_repo_gitdir(repo), "index");
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		sh(dir, forms[i][1]);
		if (ss_index_file_read(path.ptr, &ix) != 1)
			fail_msg("%s: read, not left to libgit2", forms[i][0]);
		assert_int_equal(ix.count, 0);
		/* what status then says is libgit2's: the same status, or its error (libgit2 1.5
		 * reads no split index either) */
		if (i == 1)
			same_status(repo, forms[i][0]);
		else
			assert_int_equal(ss_worktree_status(repo, &st, &err), -1);
		sh(dir, "rm -f .git/index .git/sharedindex.* && git reset -q");
	}
	/* no index yet: an empty one */
	sh(dir, "rm .git/index");
	assert_int_equal(ss_index_file_read(path.ptr, &ix), 0);
	assert_int_equal(ix.count, 0);
	ss_index_file_release(&ix);
	ss_buf_release(&path);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The paths set apart are left out of the entries (whose kinds then come from the other
 * paths alone) and listed in st.apart, sorted. */
static void test_worktree__status_sets_paths_apart(void **state)
{
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	const char *skip[] = {"alpha/references/new.md", "beta/SKILL.md", "zeta/none.md"};
	ss_status st = {0};
	const ss_status_entry *e;
	ss_error err;

	(void)state;
	ss_test_write(dir, "alpha/SKILL.md", "alpha 1\nchanged\n");
	ss_test_write(dir, "alpha/references/new.md", "new\n");
	ss_test_write(dir, "beta/SKILL.md", "beta changed\n");
	assert_int_equal(ss_worktree_status_apart(repo, skip, 3, &st, &err), 0);
	assert_int_equal(st.count, 1);
	e = find(&st, "alpha");
	assert_non_null(e);
	assert_int_equal(e->unstaged, SS_STATUS_MODIFIED);
	assert_int_equal(e->npaths, 1);
	assert_string_equal(e->paths[0], "alpha/SKILL.md");
	assert_null(find(&st, "beta"));
	assert_int_equal(st.napart, 2);
	assert_string_equal(st.apart[0], "alpha/references/new.md");
	assert_string_equal(st.apart[1], "beta/SKILL.md");
	ss_worktree_status_release(&st);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__diff_text_and_stat(void **state)
{
	char *dir;
	ss_oid c, tree;
	ss_repo *repo = cloned(&dir, &c);
	const char *alpha[] = {"alpha"};
	ss_buf out = SS_BUF_INIT;
	ss_changes ch = {0};
	ss_error err;

	ss_test_write(dir, "alpha/SKILL.md", "alpha 1\nalpha two\nalpha 3\n");
	ss_test_write(dir, "beta/SKILL.md", "beta changed\n");
	assert_int_equal(ss_commit_tree(repo, &c, &tree, &err), 0);
	assert_int_equal(
	    ss_worktree_diff(repo, SS_DIFF_TREE_WORKDIR, &tree, NULL, alpha, 1, &out, &err), 0);
	assert_non_null(strstr(out.ptr, "--- a/alpha/SKILL.md\n+++ b/alpha/SKILL.md\n"));
	assert_non_null(strstr(out.ptr, "\n-alpha 2\n+alpha two\n+alpha 3\n"));
	assert_null(strstr(out.ptr, "beta"));
	assert_int_equal(ss_worktree_diff_stat(repo, SS_DIFF_INDEX_WORKDIR, NULL, NULL, NULL, 0,
	                                       &ch, NULL, &err),
	                 0);
	assert_int_equal(ch.count, 2);
	assert_string_equal(ch.items[0].path, "alpha/SKILL.md");
	assert_int_equal(ch.items[0].added_lines, 2);
	assert_int_equal(ch.items[0].removed_lines, 1);
	ss_tree_changes_release(&ch);
	/* nothing staged yet */
	ss_buf_clear(&out);
	assert_int_equal(
	    ss_worktree_diff(repo, SS_DIFF_TREE_INDEX, &tree, NULL, NULL, 0, &out, &err), 0);
	assert_string_equal(out.ptr, "");
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The diff and its changes of names, as ss_worktree_diff_stat gives them for kind. */
static void diff_of(ss_repo *repo, ss_diff_kind kind, const char *const *names, size_t n,
                    ss_buf *text)
{
	ss_changes ch = {0};
	ss_buf patch = SS_BUF_INIT;
	ss_error err;

	if (ss_worktree_diff_stat(repo, kind, NULL, NULL, names, n, &ch, &patch, &err) < 0)
		fail_msg("diff: %s", err.message);
	ss_buf_clear(text);
	for (size_t i = 0; i < ch.count; i++)
		ss_buf_printf(text, "%d %s +%zu -%zu %d\n", (int)ch.items[i].kind, ch.items[i].path,
		              ch.items[i].added_lines, ch.items[i].removed_lines,
		              (int)ch.items[i].binary);
	ss_buf_put(text, patch.ptr, patch.len);
	ss_tree_changes_release(&ch);
	ss_buf_release(&patch);
}

static void test_worktree__diff_rooted_at_each_name_is_the_same(void **state)
{
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	/* in git's order "a-b" comes before "alpha" ('-' before '/'), "alpha" before "alpha0" */
	const char *names[] = {"alpha", "a-b", "beta", "gamma", "alpha0"};
	/* a file of the index now a directory: its deletion is seen from the top only */
	const char *typechange[] = {"alpha", "README.md"};
	ss_buf rooted = SS_BUF_INIT, whole = SS_BUF_INIT;

	(void)state;
	sh(dir, "echo more >> alpha/SKILL.md && chmod -x alpha/scripts/run.sh && "
	        "mkdir -p alpha/references/deep && echo n > alpha/references/deep/new.md && "
	        "printf 'bin\\000ary' > alpha/blob.bin && ln -s SKILL.md alpha/link.md && "
	        "mkdir a-b alpha0 && echo ab > a-b/SKILL.md && echo z > alpha0/SKILL.md && "
	        "echo BETA > beta/SKILL.md && rm gamma/SKILL.md && echo g > gamma/other.md");
	/* taken literally, at most ROOTED_MAX directories: one diff rooted at each */
	diff_of(repo, SS_DIFF_INDEX_WORKDIR | SS_DIFF_LITERAL, names, 5, &rooted);
	/* as pathspecs: one diff from the clone's top */
	diff_of(repo, SS_DIFF_INDEX_WORKDIR, names, 5, &whole);
	assert_string_equal(rooted.ptr, whole.ptr);
	assert_non_null(strstr(rooted.ptr, "diff --git a/alpha/SKILL.md b/alpha/SKILL.md"));
	assert_non_null(strstr(rooted.ptr, "old mode 100755"));
	assert_true(strstr(rooted.ptr, "a/a-b/SKILL.md") < strstr(rooted.ptr, "a/alpha/SKILL.md"));
	sh(dir, "rm README.md && mkdir README.md && echo r > README.md/x");
	diff_of(repo, SS_DIFF_INDEX_WORKDIR | SS_DIFF_LITERAL, typechange, 2, &rooted);
	diff_of(repo, SS_DIFF_INDEX_WORKDIR, typechange, 2, &whole);
	assert_string_equal(rooted.ptr, whole.ptr);
	assert_non_null(strstr(rooted.ptr, "deleted file mode 100644"));
	ss_buf_release(&rooted);
	ss_buf_release(&whole);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_worktree__diff_literal_paths(void **state)
{
	char *dir;
	ss_oid c;
	ss_repo *repo = cloned(&dir, &c);
	/* as `diff` passes the names a status found changed: wildcard characters mean
	 * themselves, a name covers everything below it, a deleted or new name is still seen */
	const char *names[] = {"a[b]", "a*", "gamma", "new"};
	ss_changes ch = {0};
	ss_buf path = SS_BUF_INIT;
	ss_error err;

	ss_test_write(dir, "a[b]/SKILL.md", "bracket\n");
	ss_test_write(dir, "a*/SKILL.md", "star\n");
	ss_test_write(dir, "ab/SKILL.md", "not named\n");
	ss_test_write(dir, "new/references/deep/notes.md", "notes\n");
	ss_test_write(dir, "beta/SKILL.md", "not named either\n");
	ss_buf_printf(&path, "%s/gamma/SKILL.md", dir);
	assert_int_equal(unlink(path.ptr), 0);
	assert_int_equal(ss_worktree_diff_stat(repo, SS_DIFF_INDEX_WORKDIR | SS_DIFF_LITERAL, NULL,
	                                       NULL, names, 4, &ch, NULL, &err),
	                 0);
	assert_int_equal(ch.count, 4);
	assert_string_equal(ch.items[0].path, "a*/SKILL.md");
	assert_string_equal(ch.items[1].path, "a[b]/SKILL.md");
	assert_string_equal(ch.items[2].path, "gamma/SKILL.md");
	assert_string_equal(ch.items[3].path, "new/references/deep/notes.md");
	ss_tree_changes_release(&ch);
	ss_buf_release(&path);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_worktree_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worktree__checkout_writes_files_and_is_clean),
	    cmocka_unit_test(test_worktree__checkout_never_overwrites),
	    cmocka_unit_test(test_worktree__checkout_keeps_identical_files),
	    cmocka_unit_test(test_worktree__checkout_index_matches_git),
	    cmocka_unit_test(test_worktree__checkout_refuses_odd_entries),
	    cmocka_unit_test(test_worktree__checkout_refuses_unsorted_tree),
	    cmocka_unit_test(test_worktree__checkout_lets_go_of_pack_indexes),
	    cmocka_unit_test(test_worktree__status_groups_by_skill),
	    cmocka_unit_test(test_worktree__status_sets_paths_apart),
	    cmocka_unit_test(test_worktree__status_refresh_writes_stat_data),
	    cmocka_unit_test(test_worktree__status_walk_matches_libgit2),
	    cmocka_unit_test(test_worktree__index_file_reads_what_libgit2_reads),
	    cmocka_unit_test(test_worktree__index_file_leaves_the_rest_to_libgit2),
	    cmocka_unit_test(test_worktree__dircache_reads_only_changed_dirs),
	    cmocka_unit_test(test_worktree__diff_text_and_stat),
	    cmocka_unit_test(test_worktree__diff_literal_paths),
	    cmocka_unit_test(test_worktree__diff_rooted_at_each_name_is_the_same),
	};
	return cmocka_run_group_tests_name("core/worktree", tests, NULL, NULL);
}
