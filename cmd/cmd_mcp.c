/*
 * cmd_mcp.c: `skillsync mcp [-C <clone>]`: the clone's skills served to an agent over MCP
 * (core/agent/mcp.h; docs/AGENTS.md, "MCP"): requests on stdin, answers and notifications on
 * stdout, one JSON message a line, diagnostics on stderr. Main is watched twice a second, so
 * that a pull, an accept or a commit in another process reaches the agent as a notification.
 * update_skill takes the clone's lock only while it commits (and pushes, with mcp.push).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/agent/mcp.h"
#include "core/util/lock.h"
#include "sync/push.h"
#include "sync/setting.h"
#include "sync/net/http.h"
#include "sync/transport/space.h"

/* How often main is looked at while no request comes, in milliseconds. */
#define WATCH_MS 500

typedef struct server {
	ss_ctx *ctx;
	ss_lock *lock;
} server;

static int hook_lock(void *payload, ss_error *err)
{
	server *s = payload;

	if (cli_lock_clone(s->ctx, NULL, &s->lock, NULL) < 0) {
		*err = s->ctx->err;
		ss_error_clear(&s->ctx->err);
		return -1;
	}
	return 0;
}

static void hook_unlock(void *payload)
{
	server *s = payload;

	ss_lock_free(s->lock);
	s->lock = NULL;
}

/* The push that mcp.push asks for, under the lock update_skill holds. */
static int push(ss_ctx *ctx, ss_buf *said, ss_error *err)
{
	ss_http *http = NULL;
	ss_space *sp = NULL;
	ss_push_opts opts;
	ss_push_result r;
	int ret = -1;

	memset(&opts, 0, sizeof(opts));
	memset(&r, 0, sizeof(r));
	if (ss_setting_http_new(&http, ctx->state, err) < 0 ||
	    ss_space_open(&sp, http, ctx->state, true, err) < 0)
		goto out;
	if (ss_push_run(ctx->repo, ctx->state, sp, &opts, &r, err) < 0) {
		if (err->code == SS_ECONFLICT)
			ss_error_set(
			    err, SS_ECONFLICT,
			    "not pushed: the space moved since the last fetch: pull first");
		goto out;
	}
	ss_buf_printf(said, "pushed: %zu record write%s", r.sent, r.sent == 1 ? "" : "s");
	ret = 0;
out:
	ss_push_result_release(&r);
	ss_space_free(sp);
	ss_http_free(http);
	return ret;
}

static int hook_committed(void *payload, ss_buf *said, ss_error *err)
{
	server *s = payload;
	bool on = false;

	if (cli_link_pull(s->ctx, true, false) < 0 ||
	    ss_setting_is(s->ctx->state, "mcp.push", "true", &on, err) < 0) {
		if (s->ctx->err.code) {
			*err = s->ctx->err;
			ss_error_clear(&s->ctx->err);
		}
		return -1;
	}
	return on ? push(s->ctx, said, err) : 0;
}

/* Writes all of out on stdout; false when stdout is gone (the agent left). */
static bool flush(ss_buf *out)
{
	size_t done = 0;

	while (done < out->len) {
		ssize_t n = write(STDOUT_FILENO, out->ptr + done, out->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	ss_buf_clear(out);
	return true;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The lines of the input: one request each, the longest SS_MCP_LINE_MAX. */
typedef struct reader {
	ss_buf line;
	bool too_long; /* the current line passed the limit: skipped up to its newline */
} reader;

/* Hands each complete line of chunk to the server. 0, or -1 with err set. */
static int take(ss_mcp *m, reader *r, const char *chunk, size_t n, ss_buf *out, ss_error *err)
{
	while (n) {
		const char *nl = memchr(chunk, '\n', n);
		size_t part = nl ? (size_t)(nl - chunk) : n;

		if (!r->too_long && r->line.len + part > SS_MCP_LINE_MAX) {
			r->too_long = true;
			ss_buf_clear(&r->line);
		}
		if (!r->too_long)
			ss_buf_put(&r->line, chunk, part);
		if (!nl)
			return 0;
		if (r->too_long)
			ss_mcp_too_long(out);
		else if (r->line.len && ss_mcp_handle(m, r->line.ptr, r->line.len, out, err) < 0)
			return -1;
		ss_buf_clear(&r->line);
		r->too_long = false;
		chunk += part + 1;
		n -= part + 1;
	}
	return 0;
}

/* Serves until stdin closes: 0, or -1 with err set. */
static int serve(ss_mcp *m, ss_error *err)
{
	struct pollfd p = {STDIN_FILENO, POLLIN, 0};
	reader r = {SS_BUF_INIT, false};
	ss_buf out = SS_BUF_INIT;
	char chunk[65536];
	long long watched = now_ms();
	int ret = -1;

	for (;;) {
		int rc = poll(&p, 1, WATCH_MS);
		ssize_t n = 0;

		if (rc < 0 && errno != EINTR) {
			ss_error_set(err, SS_ERROR, "cannot read the requests: %s",
			             strerror(errno));
			break;
		}
		if (rc > 0 && (n = read(STDIN_FILENO, chunk, sizeof(chunk))) < 0 &&
		    errno != EINTR) {
			ss_error_set(err, SS_ERROR, "cannot read the requests: %s",
			             strerror(errno));
			break;
		}
		if (rc > 0 && n == 0) { /* stdin closed: a last line without its newline counts */
			ret = r.line.len && !r.too_long
			          ? ss_mcp_handle(m, r.line.ptr, r.line.len, &out, err)
			          : 0;
			flush(&out);
			break;
		}
		if (n > 0 && take(m, &r, chunk, (size_t)n, &out, err) < 0)
			break;
		if (now_ms() - watched >= WATCH_MS) {
			watched = now_ms();
			if (ss_mcp_poll(m, &out, err) < 0)
				break;
		}
		if (!flush(&out)) {
			ret = 0; /* the agent went away */
			break;
		}
	}
	ss_buf_release(&r.line);
	ss_buf_release(&out);
	return ret;
}

static int cmd_mcp(ss_ctx *ctx, int argc, char **argv);

const ss_command cmd_mcp_def = {
    "mcp", cmd_mcp, "serve the skills to agents over MCP",
    "usage: skillsync mcp [-C <clone>]\n"
    "\n"
    "Serves the skills of the clone's main branch to an agent over the Model Context\n"
    "Protocol on stdin and stdout (JSON-RPC, one message a line), with MCP's Skills\n"
    "Extension: each file of a skill is a resource skill://<name>/<path>, skills/list gives\n"
    "every skill with its frontmatter and the SHA-256 digest of each file, and a skill that\n"
    "says disable-model-invocation is offered as a prompt instead. Only committed versions\n"
    "are served: never an uncommitted edit, never a change held for review. A pull, an\n"
    "accept or a commit made meanwhile reaches the agent as a notification. The tool\n"
    "update_skill lets the agent write what it learned, with a note: the new version is\n"
    "validated and audited like a commit, committed on main, and pushed too when the\n"
    "setting mcp.push is true. Add it to an agent as the command 'skillsync mcp -C <clone>'\n"
    "(docs/AGENTS.md). It stops when stdin closes.\n"
    "\n"
    "    -C <clone>   serve this clone instead of the one around the current directory\n"};

static int cmd_mcp(ss_ctx *ctx, int argc, char **argv)
{
	server s = {ctx, NULL};
	ss_mcp_hooks hooks = {hook_lock, hook_committed, hook_unlock, &s};
	ss_mcp *m = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-C") && i + 1 < argc) {
			if (chdir(argv[++i]) < 0) {
				ss_error_set(&ctx->err, SS_ENOTFOUND, "cannot use '%s': %s",
				             argv[i], strerror(errno));
				return cli_fail(&ctx->err);
			}
		} else if (argv[i][0] == '-') {
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else {
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
		}
	}
	signal(SIGPIPE, SIG_IGN); /* a closed stdout is an agent that left, not a crash */
	if (cli_open_clone(ctx) < 0 ||
	    ss_mcp_new(&m, ctx->repo, SS_VERSION, &hooks, &ctx->err) < 0 || serve(m, &ctx->err) < 0)
		ret = cli_fail(&ctx->err);
	else
		ret = SS_EXIT_OK;
	ss_lock_free(s.lock);
	ss_mcp_free(m);
	return ret;
}
