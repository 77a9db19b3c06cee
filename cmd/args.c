/* args.c: what the commands share to read their arguments. */
#include <string.h>

#include "cmd/cmd.h"

size_t cli_path_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

int cli_json_only(const ss_ctx *ctx, int argc, char **argv, bool *json)
{
	*json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			*json = true;
		else if (argv[i][0] == '-')
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		else
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
	}
	return 0;
}

int cli_color_json_option(ss_ctx *ctx, const char *arg, bool *json, int *consumed)
{
	int rc = cli_color_option(ctx, arg, consumed);

	if (rc || *consumed)
		return rc;
	if (!strcmp(arg, "--json")) {
		*json = true;
		*consumed = 1;
	}
	return 0;
}

int cli_color_json_only(ss_ctx *ctx, int argc, char **argv, bool *json)
{
	*json = false;
	for (int i = 1; i < argc; i++) {
		int used, rc;

		if ((rc = cli_color_json_option(ctx, argv[i], json, &used)) || used) {
			if (rc)
				return rc;
		} else if (argv[i][0] == '-') {
			return cli_usage_error(ctx, "unknown option '%s'", argv[i]);
		} else {
			return cli_usage_error(ctx, "unexpected argument '%s'", argv[i]);
		}
	}
	return 0;
}
