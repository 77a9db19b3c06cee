#!/usr/bin/env bash
# Push benchmark (not a test): a space of N skills (the authority's, generated), cloned as
# another account; then RUNS rounds of: K skills changed and committed (over C commits), then
# `skillsync push --dry-run` (the local work only: plan, notes, records) and `skillsync push`.
# Prints, per space, the median (min-max) of wall time, CPU (user+sys) and peak RSS of both,
# and the HTTP requests, write requests and bytes of the pushes; the same for `status` (before
# each push) and, after the rounds, for `log <a changed skill>` over the clone's history.
# Usage: bench/push.sh [--runs R] [--against BINARY] [<skills>...]   (default: 300 3000)
# SS_BENCH_CHANGED=K changes K skills a round (default 1); SS_BENCH_COMMITS=C spreads them
# over C commits (default 1: the cost of a push grows with the commits since the last one).
# --against BINARY: the rounds alternate between the build and BINARY (an older build) on the
# same clone, so both are measured on the same PDS, files and shape of change; a row each.
# SS_BENCH_PERF=<dir>: one more round of each build under `perf record --call-graph dwarf`, the
# data left in <dir>/push-<n>.data and <dir>/dry-<n>.data (n: 0 the build, 1 --against's).
# SKILLSYNC=<binary> runs another build. Needs a build in build/ (cmake --build build; a
# Release build is fairer); starts and stops its own PDS.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
runs=5 against=""
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--against) against=$2; shift 2 ;;
	--*) echo "usage: bench/push.sh [--runs R] [--against BINARY] [<skills>...]" >&2; exit 129 ;;
	*) break ;;
	esac
done
skillsync=${SKILLSYNC:-$src/build/skillsync}
fill=$(dirname "$skillsync")/ss-fill
changed=${SS_BENCH_CHANGED:-1} commits=${SS_BENCH_COMMITS:-1}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(300 3000)
builds=("$skillsync")
[ -z "$against" ] || builds+=("$against")

bench_pds
export SKILLSYNC_CONFIG_HOME=$work/config GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@example.test
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@example.test
now() { date +%s.%N; }
# measure <file> <command...>: appends "wall cpu rss_kB" of one run to file.
measure() {
	local out=$1 t0 t
	shift
	t0=$(now)
	/usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	t=$(echo "$(now) - $t0" | bc)
	read -r u s m <"$work/time"
	echo "$t $(echo "$u + $s" | bc) $m" >>"$out"
}
# summary <file>: "wall | CPU | peak RSS" as median (min-max).
summary() {
	python3 - "$1" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def col(i, scale, unit):
    v = sorted(r[i] * scale for r in rows)
    return "%.0f %s (%.0f-%.0f)" % (statistics.median(v), unit, v[0], v[-1])
print("%s | %s | %s" % (col(0, 1000, "ms"), col(1, 1000, "ms"), col(2, 1 / 1024, "MB")))
PY
}
# change <round>: changes $changed skills over $commits commits.
change() {
	local i=0 per=$(((changed + commits - 1) / commits)) c=0
	for s in $(ls | sed -n "1,${changed}p"); do
		printf '\n## Step %s\nAdded for the benchmark.\n' "$1" >>"$s/SKILL.md"
		i=$((i + 1))
		if [ $((i % per)) = 0 ] || [ "$i" = "$changed" ]; then
			c=$((c + 1))
			"$skillsync" commit -m "bench: round $1, commit $c" >/dev/null
		fi
	done
}

echo "$changed changed skills over $commits commits a round, $runs rounds a build"
echo
echo "| space | build | push --dry-run: wall | CPU | peak RSS | push: wall | CPU | peak RSS | requests | write requests | bytes sent |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	auth=$work/auth-$n.json me=$work/me-$n.json
	(umask 077 && tests/pds/account "$info" "a$n" >"$auth" && tests/pds/account "$info" "p$n" >"$me")
	SS_FILL_TOKEN=$(json "$auth" accessJwt) "$fill" --pds "$pds" --did "$(json "$auth" did)" \
		--generate "$n" --prefix "s" >/dev/null
	SKILLSYNC_PASSWORD=$(json "$me" password) "$skillsync" login "$(json "$me" handle)" >/dev/null
	cd "$work"
	"$skillsync" clone "$(json "$auth" handle)" "clone-$n" >/dev/null 2>&1
	cd "clone-$n"
	rm -f "$work"/dry-* "$work"/push-* "$work"/stats-* "$work"/status-* "$work"/log-*
	round=0
	for _ in $(seq "$runs"); do
		for b in "${!builds[@]}"; do
			round=$((round + 1))
			change "$round"
			measure "$work/status-$b" "${builds[$b]}" status
			measure "$work/dry-$b" "${builds[$b]}" push --dry-run
			SKILLSYNC_STATS=1 measure "$work/push-$b" "${builds[$b]}" push
			grep '^stats:' "$work/err" >>"$work/stats-$b"
		done
	done
	first=$(ls | sed -n 1p)
	ncommits=$(git rev-list --count HEAD)
	for _ in $(seq "$runs"); do
		for b in "${!builds[@]}"; do
			measure "$work/log-$b" "${builds[$b]}" log "$first"
		done
	done
	if [ -n "${SS_BENCH_PERF:-}" ]; then
		mkdir -p "$SS_BENCH_PERF"
		for b in "${!builds[@]}"; do
			round=$((round + 1))
			change "$round"
			perf record --call-graph dwarf -o "$SS_BENCH_PERF/dry-$b.data" "${builds[$b]}" push --dry-run \
				>/dev/null 2>&1
			perf record --call-graph dwarf -o "$SS_BENCH_PERF/push-$b.data" "${builds[$b]}" push >/dev/null 2>&1
		done
	fi
	for b in "${!builds[@]}"; do
		stats=$(tail -n 1 "$work/stats-$b")
		get() { echo "$stats" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
		printf '| %d | %s | %s | %s | %s | %s | %s B |\n' "$n" "$(basename "$(dirname "${builds[$b]}")")" \
			"$(summary "$work/dry-$b")" "$(summary "$work/push-$b")" \
			"$(echo "$stats" | sed -n 's/stats: requests=\([0-9]*\).*/\1/p')" "$(get writes)" \
			"$(get sent)"
	done
	echo
	echo "| space | build | status: wall | CPU | peak RSS | log $first over $ncommits commits: wall | CPU | peak RSS |"
	echo "|---|---|---|---|---|---|---|---|"
	for b in "${!builds[@]}"; do
		printf '| %d | %s | %s | %s |\n' "$n" "$(basename "$(dirname "${builds[$b]}")")" \
			"$(summary "$work/status-$b")" "$(summary "$work/log-$b")"
	done
	echo
	"$skillsync" logout >/dev/null 2>&1 || true
	cd "$src"
done
