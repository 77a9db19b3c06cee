#!/usr/bin/env bash
# Fails when a C file differs from what .clang-format asks for.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r f; do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "not clang-formatted: $f"
		bad=1
	fi
done < <(git ls-files '*.c' '*.h')
[ "$bad" = 0 ] && echo "clang-format: all files formatted"
exit "$bad"
