#include "gitrepo.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "support.h"

/* git with no configuration of the machine's or the user's, and a fixed author */
#define GIT_ENV                                                                                    \
	"GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t "          \
	"GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t"

int ss_test_git(const char *dir, ss_buf *out, const char *args)
{
	ss_buf cmd = SS_BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *p;
	int status;

	ss_buf_printf(&cmd, GIT_ENV " git -C '%s' %s", dir, args);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		if (out)
			ss_buf_put(out, chunk, n);
	status = pclose(p);
	ss_buf_release(&cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ss_test_sh(const char *dir, const char *script)
{
	ss_buf cmd = SS_BUF_INIT;
	int status;

	ss_buf_printf(&cmd, "cd '%s' && export " GIT_ENV " && (%s)", dir, script);
	status = system(cmd.ptr);
	ss_buf_release(&cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char *ss_test_read(const char *dir, const char *rel)
{
	ss_error ignored;
	ss_buf path = SS_BUF_INIT, data = SS_BUF_INIT;

	ss_fs_join(&path, dir, rel);
	assert_int_equal(ss_fs_read_file(&data, path.ptr, 0, &ignored), 0);
	ss_buf_release(&path);
	return ss_buf_detach(&data, NULL);
}

int ss_test_exists(const char *dir, const char *rel)
{
	ss_buf path = SS_BUF_INIT;
	struct stat st;
	int ok;

	ss_fs_join(&path, dir, rel);
	ok = lstat(path.ptr, &st) == 0;
	ss_buf_release(&path);
	return ok;
}

ss_repo *ss_test_repo_new(char **dir)
{
	ss_repo *repo = NULL;
	ss_error err;

	*dir = ss_test_tmpdir();
	if (ss_repo_init(&repo, *dir, &err) < 0)
		fail_msg("%s", err.message);
	return repo;
}

ss_oid ss_test_tree(ss_repo *repo, const char *const *pairs)
{
	ss_tree_builder *b;
	ss_error err;
	ss_oid oid;

	ss_tree_builder_new(&b, repo);
	for (size_t i = 0; pairs[i]; i += 2) {
		size_t n = strlen(pairs[i]);
		bool exec = n && pairs[i][n - 1] == '*';
		char *path = ss_xstrndup(pairs[i], exec ? n - 1 : n);
		if (ss_tree_builder_add(b, path, pairs[i + 1], strlen(pairs[i + 1]), exec, &err) <
		    0)
			fail_msg("%s", err.message);
		free(path);
	}
	if (ss_tree_builder_write(b, &oid, &err) < 0)
		fail_msg("%s", err.message);
	ss_tree_builder_free(b);
	return oid;
}

ss_oid ss_test_commit(ss_repo *repo, const char *ref, const ss_oid *tree, const ss_oid *parent,
                      const char *message)
{
	ss_commit_opts opts = {0};
	ss_error err;
	ss_oid oid;

	opts.ref = ref;
	opts.author_name = "tester";
	opts.author_email = "tester@example.com";
	if (ss_commit_create(repo, &opts, tree, parent, parent ? 1 : 0, message, &oid, &err) < 0)
		fail_msg("%s", err.message);
	return oid;
}
