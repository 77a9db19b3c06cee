/* status.c: `skillsync status`: whether the working tree is clean (issue 5
 * extends it). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/worktree.h"

static const char *kind_name(ss_status_kind k)
{
	switch (k) {
	case SS_STATUS_NEW:
		return "new";
	case SS_STATUS_MODIFIED:
		return "modified";
	case SS_STATUS_DELETED:
		return "deleted";
	default:
		return "";
	}
}

static void print_side(const ss_status *s, bool staged)
{
	bool header = false;

	for (size_t i = 0; i < s->count; i++) {
		const ss_status_entry *e = &s->entries[i];
		ss_status_kind k = staged ? e->staged : e->unstaged;

		if (!k)
			continue;
		if (!header) {
			printf("%s\n", staged ? "Changes staged for commit:"
			                      : "Changes not staged for commit:");
			header = true;
		}
		printf("  %-9s %s%s%s\n", kind_name(k), e->name, e->outside ? "" : "/",
		       e->outside ? "  (outside skills: never pushed)" : "");
	}
	if (header)
		putchar('\n');
}

int cmd_status(ss_ctx *ctx, int argc, char **argv)
{
	ss_status s;

	if (argc > 1)
		return cmd_usage_error(ctx, "unknown argument '%s'", argv[1]);
	memset(&s, 0, sizeof(s));
	if (ss_worktree_status(ctx->repo, &s, &ctx->err) < 0)
		return cmd_fail(&ctx->err);
	printf("On branch main\n");
	if (s.merging)
		printf("A merge waits to be concluded with 'skillsync commit'.\n");
	if (!s.count) {
		printf("nothing to commit, working tree clean\n");
	} else {
		putchar('\n');
		print_side(&s, true);
		print_side(&s, false);
	}
	ss_status_release(&s);
	return SS_EXIT_OK;
}
