#!/usr/bin/env bash
# Usage: tests/fuzz/run.sh <fuzz-binary> <corpus-dir> [<seed-dir>...]
# Replays every input of the directories, then fuzzes for $SS_FUZZ_SECONDS seconds (default 10)
# on one core, new inputs kept in <corpus-dir>. A crash, a sanitizer report, a leak, an input
# slower than 10 s or over 2 GB of memory fails the run, the input saved as
# <corpus-dir>/../<binary>-crash-<hash> (to become tests/fuzz/regressions/<target>/<name>).
set -euo pipefail
bin=$1
shift
seconds=${SS_FUZZ_SECONDS:-10}
target=$(basename "$bin")
out=$(dirname "$1")
mkdir -p "$1"
# Regression inputs first, each on its own: a failure names the file.
for dir in "$@"; do
	case $dir in */regressions/*) ;; *) continue ;; esac
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		"$bin" -runs=1 -rss_limit_mb=2048 -timeout=10 "$f" >/dev/null 2>&1 ||
			{ "$bin" -runs=1 "$f"; echo "fuzz: regression $f fails" >&2; exit 1; }
	done
done
exec "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$out/$target-" "$@"
