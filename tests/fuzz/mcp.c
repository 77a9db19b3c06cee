/* The MCP server's requests (core/agent/mcp.h): any line, over a repository whose main holds one
 * skill, gets at most one answer line, every line written is JSON, and update_skill (which would
 * write) is never reached with a valid update; a skill:// URI the parser accepts names a valid
 * skill and a path without an empty, "." or ".." component. */
#include "tests/fuzz/fuzz.h"

#include <jansson.h>
#include <unistd.h>

#include "core/agent/mcp.h"
#include "core/agent/mcp_priv.h"
#include "core/git/commit.h"
#include "core/git/tree.h"
#include "core/skill/validate.h"
#include "core/util/fs.h"

static ss_repo *repo;
static ss_mcp *server;
static char dir[] = "/tmp/ss-fuzz-mcp-XXXXXX";

static const char skill_md[] = "---\nname: tool\ndescription: A tool.\n---\nRun scripts/run.sh.\n";

/* Refuses every update: the fuzzer must not fill its repository with commits. */
static int no_lock(void *payload, ss_error *err)
{
	(void)payload;
	return ss_error_set(err, SS_ELOCKED, "the fuzzer writes nothing");
}

/* The repository goes when the fuzzer ends. */
static void cleanup(void)
{
	ss_error err;

	ss_mcp_free(server);
	ss_repo_free(repo);
	ss_fs_remove_tree(dir, &err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ss_mcp_hooks hooks = {no_lock, NULL, NULL, NULL};
	ss_tree_builder *b;
	ss_tree_top *top;
	ss_commit_opts o = {"HEAD", NULL, "fuzz", "fuzz@localhost", 1};
	ss_oid sub, tree, commit;
	ss_error err;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir) || ss_repo_init(&repo, dir, &err) < 0 ||
	    ss_tree_builder_new(&b, repo) < 0 ||
	    ss_tree_builder_add(b, "SKILL.md", skill_md, sizeof(skill_md) - 1, false, &err) < 0 ||
	    ss_tree_builder_add(b, "scripts/run.sh", "#!/bin/sh\n", 10, true, &err) < 0 ||
	    ss_tree_builder_write(b, &sub, &err) < 0 ||
	    ss_tree_top_new(&top, repo, NULL, false, &err) < 0 ||
	    ss_tree_top_set(top, "tool", &sub, SS_MODE_TREE, &err) < 0 ||
	    ss_tree_top_write(top, &tree, &err) < 0 ||
	    ss_commit_create(repo, &o, &tree, NULL, 0, "fuzz", &commit, &err) < 0 ||
	    ss_mcp_new(&server, repo, "fuzz", &hooks, &err) < 0)
		abort();
	ss_tree_builder_free(b);
	ss_tree_top_free(top);
	atexit(cleanup);
	return 0;
}

static void check_uri(const uint8_t *data, size_t size)
{
	char *uri = fuzz_cstr(data, size), *name, *path;

	if (ss_mcp__uri_parse(uri, &name, &path) == 0) {
		fuzz_check(!ss_validate_name(name), "an invalid name passed");
		fuzz_check(!*path || !strcmp(path, "SKILL.md") ||
		               !ss_validate_path(path, strlen(path)),
		           "an invalid path passed");
		free(name);
		free(path);
	}
	free(uri);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_buf out = SS_BUF_INIT;
	ss_error err;
	size_t answers = 0;

	check_uri(data, size);
	if (ss_mcp_handle(server, (const char *)data, size, &out, &err) < 0)
		abort(); /* the repository is fine: only a bug makes this fail */
	for (char *line = out.ptr, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		json_t *msg = json_loadb(line, (size_t)(nl - line), 0, NULL);

		fuzz_check(msg != NULL, "a line written is not JSON");
		answers += json_object_get(msg, "id") != NULL;
		json_decref(msg);
	}
	fuzz_check(answers <= 1, "one request got two answers");
	ss_buf_release(&out);
	return 0;
}
