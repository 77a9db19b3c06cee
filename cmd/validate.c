/* validate.c: `skillsync validate` (placeholder until the skill model lands; see issue 2). */
#include "cmd/cmd.h"

int cmd_validate(ss_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error(ctx, "not implemented yet");
}
