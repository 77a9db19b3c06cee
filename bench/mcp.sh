#!/usr/bin/env bash
# bench/mcp.sh: `skillsync mcp` as an agent uses it (issue 36), against reading the same files
# from disk. Fills a local PDS with MEMBERS x SKILLS real-shaped skills (ss-fill --real),
# clones the space, then in each round:
#   - skills/list of every skill (all pages; the server's first list, which reads and hashes
#     every file of main, reported apart), against `find | sha256sum` of the clone's files;
#   - skills/get of 50 skills and resources/read of 200 files, against `cat` of one file.
# Prints "median (min-max)" per case, the ratio of the medians and the server's peak RSS.
# Usage: bench/mcp.sh [--members N] [--skills M] [--runs R] [--trees DIR]
#   (default 3 x 2000 = 6,000 skills, 5 runs). BUILD=<dir>: the build (Release is fairer).
#   --trees DIR: no fill and no PDS: DIR/ss-place is a clone kept by bench/everyday.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
members=3 skills=2000 runs=5 trees=
while [ $# -gt 0 ]; do
	case $1 in
	--members) members=$2; shift 2 ;;
	--skills) skills=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--trees) trees=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: bench/mcp.sh [--members N] [--skills M] [--runs R] [--trees DIR]" >&2; exit 129 ;;
	esac
done
bench_build
skillsync=${SKILLSYNC:-$build/skillsync}
[ -x "$skillsync" ] || { echo "bench/mcp.sh: build first (no $skillsync)" >&2; exit 1; }
if [ -n "$trees" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	clone=$trees/ss-place
else
	bench_pds
	export SKILLSYNC_CONFIG_HOME=$work/config
	bench_fill_clone "$members" "$skills" c ss-place
	clone=$work/ss-place
fi

python3 bench/mcp_client.py "$skillsync" "$clone" "$runs" "$work/rss" >"$work/mcp.json"
for i in $(seq 1 "$runs"); do
	s=$(date +%s%N)
	(cd "$clone" && find . -path ./.git -prune -o -type f -print0 | xargs -0 sha256sum >/dev/null)
	e=$(date +%s%N)
	echo "$(((e - s) / 1000))" >>"$work/find"
	f=$(cd "$clone" && find . -path ./.git -prune -o -name SKILL.md -print -quit)
	s=$(date +%s%N)
	for _ in $(seq 1 200); do cat "$clone/$f" >/dev/null; done
	e=$(date +%s%N)
	echo "$(((e - s) / 200000))" >>"$work/cat"
done
python3 - "$work/mcp.json" "$work/find" "$work/cat" "$work/rss" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
find = [int(x) / 1e6 for x in open(sys.argv[2])]  # microseconds
cat = [int(x) / 1e6 for x in open(sys.argv[3])]
rss = int(open(sys.argv[4]).read().split()[-1]) // 1024
def ms(xs):
    return "%.2f ms (%.2f-%.2f)" % (statistics.median(xs) * 1e3, min(xs) * 1e3, max(xs) * 1e3)
print(f"{r['skills']} skills, {r['files']} files; server peak RSS {rss} MB")
print(f"first skills/list (reads and hashes every file): {r['first_list'] * 1e3:.0f} ms")
print(f"skills/list, all pages:  {ms(r['list'])}   find | sha256sum: {ms(find)}"
      f"   ratio {statistics.median(r['list']) / statistics.median(find):.2f}x"
      f" (first list: {r['first_list'] / statistics.median(find):.2f}x)")
print(f"skills/get:              {ms(r['get'])}")
print(f"resources/read:          {ms(r['read'])}   cat of one file: {ms(cat)}")
PY
