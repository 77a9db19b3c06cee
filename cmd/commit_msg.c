/*
 * commit_msg.c: where `skillsync commit` gets its message: -m, -F, a waiting merge's message,
 * or an editor ($GIT_EDITOR, $VISUAL, $EDITOR, else vi) when a terminal is attached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/git/merge.h"
#include "core/git/repo.h"
#include "core/util/fs.h"
#include "core/util/secret.h"

/* A commit message read from a file or stdin is at most this long. */
#define MESSAGE_MAX (1024 * 1024)

static int read_stdin(ss_buf *out, ss_error *err)
{
	char chunk[4096];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		if (out->len + n > MESSAGE_MAX)
			return ss_error_set(err, SS_ETOOBIG,
			                    "commit message on stdin is over %d bytes",
			                    MESSAGE_MAX);
		ss_buf_put(out, chunk, n);
	}
	if (ferror(stdin))
		return ss_error_set(err, SS_ERROR, "cannot read the commit message from stdin");
	return 0;
}

/* Drops '#' lines (strip_comments), trailing spaces and leading/trailing blank lines. */
static void clean(ss_buf *msg, bool strip_comments)
{
	ss_buf out = SS_BUF_INIT;
	const char *p = msg->ptr, *end = msg->ptr + msg->len;
	size_t blank = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (!(strip_comments && p[0] == '#')) {
			if (!n) {
				blank++;
			} else {
				if (out.len)
					ss_buf_puts(&out, blank ? "\n\n" : "\n");
				blank = 0;
				ss_buf_put(&out, p, n);
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (out.len)
		ss_buf_putc(&out, '\n');
	ss_buf_clear(msg);
	ss_buf_put(msg, out.ptr, out.len);
	ss_buf_release(&out);
}

static const char *editor_name(void)
{
	const char *vars[] = {"GIT_EDITOR", "VISUAL", "EDITOR"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return "vi";
}

/* Runs the editor on path as git does: through the shell, the path as "$1"; its environment
 * is ours without skillsync's secrets. */
static int run_editor(const char *editor, const char *path, ss_error *err)
{
	ss_buf script = SS_BUF_INIT;
	char **env = ss_secret_child_env();
	int status = 0;
	pid_t pid;

	ss_buf_printf(&script, "%s \"$@\"", editor);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ss_buf_release(&script);
		free(env);
		return ss_error_set(err, SS_ERROR, "cannot start the editor '%s'", editor);
	}
	if (pid == 0) {
		execle("/bin/sh", "sh", "-c", script.ptr, editor, path, (char *)NULL, env);
		_exit(127);
	}
	ss_buf_release(&script);
	free(env);
	while (waitpid(pid, &status, 0) < 0)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ss_error_set(err, SS_EINVALID,
		                    "there was a problem with the editor '%s': nothing committed",
		                    editor);
	return 0;
}

static int from_editor(ss_repo *repo, const char *summary, ss_buf *out, ss_error *err)
{
	ss_buf path = SS_BUF_INIT, text = SS_BUF_INIT;
	int ret = -1;

	ss_fs_join(&path, ss_repo_gitdir(repo), "COMMIT_EDITMSG");
	if (ss_merge_message(repo, &text, err) < 0)
		ss_buf_clear(&text);
	ss_buf_printf(&text,
	              "\n# Write the message for your changes. Lines starting with '#' are\n"
	              "# left out; an empty message aborts the commit.\n#\n%s",
	              summary);
	if (ss_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, err) < 0 ||
	    run_editor(editor_name(), path.ptr, err) < 0 ||
	    ss_fs_read_file(out, path.ptr, MESSAGE_MAX, err) < 0)
		goto out;
	clean(out, true);
	ret = 0;
out:
	ss_buf_release(&path);
	ss_buf_release(&text);
	return ret;
}

int cli_commit_message(ss_ctx *ctx, const cli_commit_msg_opts *o, ss_buf *out)
{
	ss_buf_clear(out);
	if (o->nmessages) {
		for (size_t i = 0; i < o->nmessages; i++) {
			if (i)
				ss_buf_puts(out, "\n\n");
			ss_buf_puts(out, o->messages[i]);
		}
		clean(out, false);
	} else if (o->file) {
		int rc = !strcmp(o->file, "-")
		             ? read_stdin(out, &ctx->err)
		             : ss_fs_read_file(out, o->file, MESSAGE_MAX, &ctx->err);
		if (rc < 0)
			return rc;
		clean(out, false);
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		if (from_editor(ctx->repo, o->summary, out, &ctx->err) < 0)
			return -1;
	} else if (ss_merge_in_progress(ctx->repo)) {
		/* concluding a merge without a terminal (a script, cron): its own message */
		if (ss_merge_message(ctx->repo, out, &ctx->err) < 0)
			return -1;
		clean(out, true);
	} else {
		return ss_error_set(
		    &ctx->err, SS_EINVALID,
		    "no commit message: give one with -m <message> or -F <file> (no "
		    "terminal to open an editor on)");
	}
	if (!out->len)
		return ss_error_set(&ctx->err, SS_EINVALID,
		                    "aborting the commit: the message is empty");
	return 0;
}
