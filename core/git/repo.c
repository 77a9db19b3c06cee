#include "core/git/repo.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/* A copy of path without trailing slashes (but "/" stays "/"). */
static char *strip_slash(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return ss_xstrndup(path, n);
}

/*
 * Files inside skills are kept byte for byte and all of them count, so the .gitattributes and
 * .gitignore files a skill (or the clone) holds are ordinary files with no effect on git:
 * - attributes: $GIT_DIR/info/attributes comes before every .gitattributes, and this one
 *   turns off for every path what changes bytes on the way in or out (end-of-line conversion,
 *   $Id$ expansion, filter drivers) and puts back the defaults for diffs and merges;
 * - ignores: libgit2's in-memory rules come before every .gitignore (and core.excludesFile),
 *   and "!*" un-ignores every path; only .git itself stays ignored.
 */
#define ATTRIBUTES                                                                                 \
	"# written by skillsync: files in a clone are kept byte for byte, whatever a\n"            \
	"# .gitattributes says (see docs/VALIDATION.md)\n"                                         \
	"* -text -ident -filter !eol !crlf !diff !merge !working-tree-encoding\n"
#define IGNORE_RULES "!*\n.git\n"

int ss_repo__ignore_rules(git_repository *git, ss_error *err)
{
	int rc = git_ignore_add_rule(git, IGNORE_RULES);

	return rc < 0 ? ss_git__error(err, rc, "cannot set the ignore rules") : 0;
}

static int neutralise_git_files(ss_repo *repo, bool write_attributes, ss_error *err)
{
	ss_error ignored;
	ss_buf path = SS_BUF_INIT, old = SS_BUF_INIT;
	int ret = 0;

	if (!write_attributes)
		goto ignores;
	ss_fs_join(&path, repo->gitdir, "info");
	if (ss_fs_mkdir_p(path.ptr, 0755, err) < 0) {
		ret = -1;
		goto out;
	}
	ss_buf_puts(&path, "/attributes");
	if (ss_fs_read_file(&old, path.ptr, 4096, &ignored) < 0 || strcmp(old.ptr, ATTRIBUTES))
		ret = ss_fs_write_atomic(path.ptr, ATTRIBUTES, strlen(ATTRIBUTES), 0644, err);
	if (ret < 0)
		goto out;
ignores:
	ret = ss_repo__ignore_rules(repo->git, err);
out:
	ss_buf_release(&path);
	ss_buf_release(&old);
	return ret;
}

/*
 * Fills the paths of repo->git, creates the state directory only for a new clone (init) and
 * neutralises git's special files; the attributes file is written in a new clone or in an
 * existing one (its state database exists): opening a repository that is not a clone writes
 * nothing into it.
 */
static int finish(ss_repo *repo, bool init, ss_error *err)
{
	const char *workdir = git_repository_workdir(repo->git);
	ss_buf state = SS_BUF_INIT, db = SS_BUF_INIT;
	struct stat st;
	bool clone;

	if (!workdir)
		return ss_error_set(err, SS_EINVALID, "'%s' is a bare repository",
		                    git_repository_path(repo->git));
	repo->workdir = strip_slash(workdir);
	repo->gitdir = strip_slash(git_repository_path(repo->git));
	ss_fs_join(&state, repo->gitdir, "skillsync");
	repo->statedir = ss_buf_detach(&state, NULL);
	ss_fs_join(&db, repo->statedir, "state.db");
	clone = init || lstat(db.ptr, &st) == 0;
	ss_buf_release(&db);
	if ((init && ss_fs_mkdir_p(repo->statedir, 0700, err) < 0) ||
	    neutralise_git_files(repo, clone, err) < 0)
		return ss_error_prefix(err, "cannot prepare the clone's state");
	return 0;
}

/* The most pack bytes libgit2 keeps mapped at once (see libgit2_init), in windows of half
 * that. What goes through them is mostly an object here and there (a fetch's check that each
 * entry of the top tree exists reads one header per skill, across all the packs), so each read
 * maps a window of its own and larger windows only kept more of the packs resident: with 8 MB
 * in 4 MB windows, 7 MB of a 3x30,000 clone's peak; 2 MB take the peak from 66 to 60 MB for the
 * same CPU, and `status` of that clone the same CPU too (its trees read in the pack's order). */
#define SS_REPO_MAPPED_LIMIT (2u * 1024 * 1024)

/*
 * libgit2's global state: started at the first repository the process opens and kept until it
 * exits. Starting it costs ~8 ms (libgit2 reads and parses the system's CA certificates, for
 * transports skillsync never uses), which a reference per open repository paid again each time
 * the count fell to zero: a clone paid it twice (its repository, then the merge of its packs).
 * It also bounds the pack windows libgit2 keeps mapped (its default: 8 GB): mapped pack bytes
 * count in the process's memory, and without a bound a clone kept every pack it wrote and read
 * mapped, so its peak RSS grew with the space's bytes (3x30,000: over 100 MB of it) instead of
 * staying flat. And the size of one window (its default: 1 GB), which the bound does not cap:
 * once packs are merged into one (core/git/repo_pack.c), a window over the whole pack made `status`
 * in a 3x30,000 clone peak at 347 MB instead of 244 MB. And no SHA-1 of every object read
 * (libgit2's strict hash verification, on by default): git does not rehash what it reads
 * either (fsck does), and a clone's checkout spent a tenth of its time rehashing the blobs it
 * had just written.
 */
static pthread_once_t libgit2_once = PTHREAD_ONCE_INIT;

static void libgit2_stop(void)
{
	git_libgit2_shutdown();
}

static void libgit2_start(void)
{
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)SS_REPO_MAPPED_LIMIT);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)SS_REPO_MAPPED_LIMIT / 2);
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	atexit(libgit2_stop);
}

static void libgit2_init(void)
{
	pthread_once(&libgit2_once, libgit2_start);
}

int ss_repo_init(ss_repo **out, const char *path, ss_error *err)
{
	git_repository_init_options opts;
	git_repository *probe = NULL;
	ss_repo *repo = ss_xcalloc(1, sizeof(*repo));
	int rc, ret = -1;

	libgit2_init();
	git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	if (git_repository_open_ext(&probe, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
		git_repository_free(probe);
		ret = ss_error_set(err, SS_EEXISTS, "'%s' is already a git repository", path);
		goto out;
	}
	opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
	opts.initial_head = "main";
	rc = git_repository_init_ext(&repo->git, path, &opts);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot create a repository in '%s'", path);
		goto out;
	}
	if (finish(repo, true, err) < 0)
		goto out;
	*out = repo;
	repo = NULL;
	ret = 0;
out:
	ss_repo_free(repo);
	return ret;
}

int ss_repo_open(ss_repo **out, const char *path, ss_error *err)
{
	ss_repo *repo = ss_xcalloc(1, sizeof(*repo));
	int rc, ret = -1;

	libgit2_init();
	rc = git_repository_open_ext(&repo->git, path, 0, NULL);
	if (rc == GIT_ENOTFOUND) {
		ret = ss_error_set(err, SS_ENOTFOUND,
		                   "not a skillsync clone (or any parent up to /): '%s'", path);
		goto out;
	}
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot open the repository at '%s'", path);
		goto out;
	}
	if (finish(repo, false, err) < 0)
		goto out;
	*out = repo;
	repo = NULL;
	ret = 0;
out:
	ss_repo_free(repo);
	return ret;
}

void ss_repo_free(ss_repo *repo)
{
	if (!repo)
		return;
	if (repo->git)
		ss_repo_batch_abort(repo);
	git_repository_free(repo->git);
	ss_index_kept_free(repo->index);
	free(repo->workdir);
	free(repo->gitdir);
	free(repo->statedir);
	free(repo);
}

const char *ss_repo_workdir(const ss_repo *repo)
{
	return repo->workdir;
}

const char *ss_repo_gitdir(const ss_repo *repo)
{
	return repo->gitdir;
}

const char *ss_repo_statedir(const ss_repo *repo)
{
	return repo->statedir;
}
