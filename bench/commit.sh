#!/usr/bin/env bash
# Commit benchmark (not a test): fills a local PDS with MEMBERS x SKILLS records shaped like
# real skills (ss-fill --real; members after the second write the second's names, as
# bench/clone.sh --real), clones the space once, then in each round changes CHANGES SKILL.md
# files and commits them, once per tool, on the same clone and in the same round:
#   - `skillsync commit -m ...` (the build measured);
#   - SS_BENCH_BEFORE=<binary>: the same with another build (e.g. the build before a change);
#   - `git add -A && git commit -q -m ...`, what git costs for the same local step.
# The tools take turns in a rotating order; each commits its own CHANGES changes (a line
# appended to the same files). Prints "median (min-max)" of wall time and CPU (user+sys), and
# the median peak RSS, one row per tool.
# Usage: bench/commit.sh [--members N] [--skills M] [--changes C] [--runs R]
#   (default 3 x 3000, 1000 changes, 3 runs). Needs a build in build/ (BUILD=<dir> for another,
#   e.g. a Release build); starts and stops its own PDS (free ports). SS_BENCH_PERF=<file>: one
#   more skillsync commit at the end under `perf record --call-graph dwarf -o <file>` (and one
#   of SS_BENCH_BEFORE into <file>.before). SS_BENCH_KEEP=<dir>: the clone is moved there at
#   the end (for more experiments: commit needs no PDS).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
members=3 skills=3000 changes=1000 runs=3
while [ $# -gt 0 ]; do
	case $1 in
	--members) members=$2; shift 2 ;;
	--skills) skills=$2; shift 2 ;;
	--changes) changes=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: bench/commit.sh [--members N] [--skills M] [--changes C] [--runs R]" >&2; exit 129 ;;
	esac
done
bench_build
skillsync=${SKILLSYNC:-$build/skillsync}
[ -x "$skillsync" ] || { echo "bench/commit.sh: build first (no $skillsync)" >&2; exit 1; }

bench_pds
export SKILLSYNC_CONFIG_HOME=$work/config # nobody signed in: a read-only clone
bench_git_env
bench_fill_clone "$members" "$skills" c space
cd "$work"
cd space
ls -d */ | awk -v n="$changes" 'NR <= n { sub("/$", "/SKILL.md"); print }' >"$work/changed"
[ "$(wc -l <"$work/changed")" -eq "$changes" ] || { echo "fewer than $changes skills" >&2; exit 1; }
echo "clone: $(git ls-files | wc -l) files; changing $changes SKILL.md files per commit" >&2

tools=(ss git)
[ -z "${SS_BENCH_BEFORE:-}" ] || tools=(ss before git)
change() { while read -r f; do echo "round $1, $2" >>"$f"; done <"$work/changed"; }
# commit_with <tool> <message>
commit_with() {
	case $1 in
	ss) "$skillsync" commit -m "$2" ;;
	before) "$SS_BENCH_BEFORE" commit -m "$2" ;;
	git) git add -A && git commit -q -m "$2" ;;
	esac
}
export -f commit_with
export skillsync SS_BENCH_BEFORE
for run in $(seq 1 "$runs"); do
	n=${#tools[@]}
	for k in $(seq 0 $((n - 1))); do
		tool=${tools[$(((k + run) % n))]}
		change "$run" "$tool"
		sync
		t0=$(date +%s.%N)
		/usr/bin/time -f "%M %U %S" -o "$work/rss" bash -c 'commit_with "$@"' _ "$tool" \
			"$tool $run" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
		t1=$(date +%s.%N)
		[ -z "$(git status --porcelain | head -n 1)" ] || { echo "$tool left changes" >&2; exit 1; }
		echo "$tool $(echo "$t1 - $t0" | bc) $(tail -n 1 "$work/rss")" | tee -a "$work/rows" >&2
	done
done
# spread <values...>: "median (min-max)".
spread() {
	printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%.2f s", m; else printf "%.2f s (%.2f-%.2f)", m, v[1], v[NR] }'
}
echo "| commit of $changes SKILL.md ($members x $skills) | wall time | CPU (user+sys) | peak RSS |"
echo "|---|---|---|---|"
for tool in "${tools[@]}"; do
	# shellcheck disable=SC2046
	wall=$(spread $(awk -v t="$tool" '$1 == t {print $2}' "$work/rows"))
	cpu=$(spread $(awk -v t="$tool" '$1 == t {print $4 + $5}' "$work/rows"))
	rss=$(awk -v t="$tool" '$1 == t {print $3}' "$work/rows" | sort -n |
		awk '{v[NR] = $1} END {printf "%.0f MB", v[int((NR + 1) / 2)] / 1024}')
	case $tool in
	ss) label="skillsync commit" ;;
	before) label="skillsync commit ($(basename "$(dirname "$SS_BENCH_BEFORE")"))" ;;
	git) label="git add -A && git commit" ;;
	esac
	echo "| $label | $wall | $cpu | $rss |"
done
if [ -n "${SS_BENCH_PERF:-}" ]; then
	change perf ss
	perf record -q --call-graph dwarf -o "$SS_BENCH_PERF" "$skillsync" commit -m perf >/dev/null 2>&1
	echo "profile: $SS_BENCH_PERF" >&2
	if [ -n "${SS_BENCH_BEFORE:-}" ]; then
		change perf before
		perf record -q --call-graph dwarf -o "$SS_BENCH_PERF.before" "$SS_BENCH_BEFORE" \
			commit -m perf >/dev/null 2>&1
		echo "profile of $SS_BENCH_BEFORE: $SS_BENCH_PERF.before" >&2
	fi
fi
if [ -n "${SS_BENCH_KEEP:-}" ]; then
	mv "$work/space" "$SS_BENCH_KEEP"
	echo "clone kept in $SS_BENCH_KEEP" >&2
fi
