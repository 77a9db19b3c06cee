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
