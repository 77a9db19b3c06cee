/* program.c: which files of a skill are programs the agent may run (core/skill/program.h). */
#include "core/skill/program.h"

#include <string.h>
#include <strings.h>

/* The suffixes of scripts an agent runs through an interpreter or the shell. */
static const char *const suffixes[] = {".sh",  ".bash", ".zsh", ".fish", ".ksh", ".py",
                                       ".pyw", ".js",   ".mjs", ".cjs",  ".ts",  ".mts",
                                       ".cts", ".rb",   ".pl",  ".php",  ".ps1", ".psm1",
                                       ".bat", ".cmd",  ".lua", ".r",    ".tcl", ".vbs"};

/* The top-level directories whose every file counts as a program. */
static const char *const dirs[] = {"scripts", "bin", "tools"};

static bool has_shebang(const char *bytes, size_t len)
{
	if (len >= 3 && !memcmp(bytes, "\xef\xbb\xbf", 3)) {
		bytes += 3;
		len -= 3;
	}
	return len >= 2 && !memcmp(bytes, "#!", 2);
}

static bool has_suffix(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (!strcasecmp(dot, suffixes[i]))
			return true;
	return false;
}

static bool in_program_dir(const char *path)
{
	const char *slash = strchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	for (size_t i = 0; n && i < sizeof(dirs) / sizeof(*dirs); i++)
		if (strlen(dirs[i]) == n && !strncasecmp(path, dirs[i], n))
			return true;
	return false;
}

bool ss_program_is(const char *path, const char *bytes, size_t len, bool executable)
{
	return executable || in_program_dir(path) || has_suffix(path) || has_shebang(bytes, len);
}
