#!/usr/bin/env bash
# bench/pull.sh: what a scheduled pull costs. Starts a real PDS on loopback, fills a space of
# MEMBERS members x SKILLS skills (default 10 x 300), clones it read-only, then times:
#   1. a pull when nothing changed (the goal: one small request per member, nothing written);
#   2. a pull when skills of one member changed, for each count of --changes (default 1; the
#      goal: work follows the change).
# Prints a Markdown table (wall time, HTTP requests, what was written), one row per run, then
# one row per case: "median (min-max)". Usage:
#   bench/pull.sh [--members N] [--skills M] [--runs R] [--against BINARY] [--real]
#                 [--changes "1 100"] [--local K]
# --real: the records of bench/clone.sh --real (ss-fill --real; members after the second write
# the second's names), e.g. --members 3 --skills 3000 --real for issue 11's space. The changed
# member is the middle one (with 3 members: the second, whose names the third shares).
# --local K: before each pull of a change, commit K skills of the first member locally (main
# then holds local commits, so the pull merges rather than fast-forwards).
# --against: the no-change pulls alternate between the build and BINARY (e.g. an older build)
# on the same clone, so that both are measured against the same PDS and the same files.
# Needs a build in build/ (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release is fairer).
# SS_BENCH_PERF=<file>: each pull runs under `perf record --call-graph dwarf`, into <file>.<n>
# (the times then include perf's cost: for profiles, not figures).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
members=10 skills=300 runs=5 against="" real="" changes="1" locals=0
while [ $# -gt 0 ]; do
	case $1 in
	--members) members=$2; shift 2 ;;
	--skills) skills=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--against) against=$2; shift 2 ;;
	--real) real=1; shift ;;
	--changes) changes=$2; shift 2 ;;
	--local) locals=$2; shift 2 ;;
	*) echo "usage: bench/pull.sh [--members N] [--skills M] [--runs R] [--against BINARY] [--real] [--changes \"1 100\"] [--local K]" >&2; exit 129 ;;
	esac
done
skillsync=${SKILLSYNC:-$src/build/skillsync}
[ -x "$skillsync" ] || { echo "bench/pull.sh: build first (no $skillsync)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
cleanup() {
	"$src"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
tests/pds/start "$work/pds" >/dev/null
info=$work/pds/pds.json
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
pds=$(json "$info" pds)
export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
export SKILLSYNC_CONFIG_HOME=$work/config # nobody signed in: a read-only clone
umask 077

# fill <account.json> <first index>: SKILLS records written with applyWrites, 200 a request.
fill() {
	python3 - "$pds" "$1" "$skills" "$2" <<'PY'
import datetime, json, sys, urllib.request
pds, acct, n, first = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
def rec(i):
    name = "skill-%05d" % (first + i)
    body = "".join("Step %d of %s: do the thing carefully.\n" % (k, name) for k in range(30))
    return {"$type": "garden.engram.skill", "name": name, "description": "benchmark skill " + name,
            "instructions": body, "files": [{"path": "scripts/run.sh", "content": "echo %s\n" % name,
            "executable": True}], "createdAt": now, "updatedAt": now, "note": "bench fill"}
for start in range(0, n, 200):
    writes = [{"$type": "com.atproto.repo.applyWrites#create", "collection": "garden.engram.skill",
               "rkey": "skill-%05d" % (first + i), "value": rec(i)} for i in range(start, min(n, start + 200))]
    req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.applyWrites", method="POST",
        data=json.dumps({"repo": acct["did"], "writes": writes}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + acct["accessJwt"]})
    urllib.request.urlopen(req).read()
PY
}

echo "filling $members members x $skills skills..." >&2
args=()
# name <member index> <k>: the k-th record name of the member.
name() {
	if [ -n "$real" ]; then
		local p=$(($1 + 1))
		[ "$p" -le 2 ] || p=2
		printf 'm%d-%05d' "$p" "$2"
	else
		printf 'skill-%05d' $(($1 * skills + $2))
	fi
}
for i in $(seq 0 $((members - 1))); do
	tests/pds/account "$info" "bench$i" >"$work/m$i.json"
	if [ -n "$real" ]; then
		p=$((i + 1))
		[ "$p" -le 2 ] || p=2
		SS_FILL_TOKEN=$(json "$work/m$i.json" accessJwt) "$(dirname "$skillsync")/ss-fill" \
			--pds "$pds" --did "$(json "$work/m$i.json" did)" --generate "$skills" \
			--prefix "m$p" --real
	else
		fill "$work/m$i.json" $((i * skills))
	fi
	[ "$i" -gt 0 ] && args+=(--member "$(json "$work/m$i.json" handle)")
done
cd "$work"
t0=$(date +%s%N)
"$skillsync" clone "$(json "$work/m0.json" handle)" space "${args[@]}" >/dev/null 2>&1
echo "clone: $((($(date +%s%N) - t0) / 1000000)) ms" >&2
cd space

# timed <label> [binary]: runs `skillsync pull --json`, prints one table row.
timed() {
	local bin=${2:-$skillsync} t0 t1 state0 state1 head0 head1 req written
	state0=$(sha256sum .git/skillsync/state.db | cut -d' ' -f1)
	head0=$(git rev-parse refs/remotes/space/main)
	t0=$(date +%s%N)
	if [ -n "${SS_BENCH_PERF:-}" ]; then # a profile of each pull: <file>.<n>
		perf_n=$((${perf_n:-0} + 1))
		perf record -q --call-graph dwarf -F 4000 -o "$SS_BENCH_PERF.$perf_n" \
			"$bin" pull --json >"$work/out.json" 2>/dev/null
	else
		"$bin" pull --json >"$work/out.json"
	fi
	t1=$(date +%s%N)
	state1=$(sha256sum .git/skillsync/state.db | cut -d' ' -f1)
	head1=$(git rev-parse refs/remotes/space/main)
	req=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$work/out.json")
	written=""
	[ "$state0" != "$state1" ] && written="state"
	[ "$head0" != "$head1" ] && written="${written:+$written, }tracking commit"
	printf '| %s | %d ms | %s | %s |\n' "$1" $(((t1 - t0) / 1000000)) "$req" "${written:-nothing}"
	echo "$1|$(((t1 - t0) / 1000000))|$req|${written:-nothing}" >>"$work/rows"
}
# summary <label regexp> <case>: one row, "median (min-max)" of the runs whose label matches.
summary() {
	grep -E "^$1\|" "$work/rows" | LC_ALL=C sort -t'|' -k2,2n | awk -F'|' -v c="$2" '
		{ t[NR] = $2; req = $3; w = $4 }
		END { if (!NR) exit; m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "| %s | %d ms (%d-%d) | %s | %s |\n", c, m, t[1], t[NR], req, w }'
}

echo "| pull ($members members x $skills skills) | wall time | requests | written |"
echo "|---|---|---|---|"
for r in $(seq 1 "$runs"); do
	# With --against, who goes first alternates from run to run.
	[ -z "$against" ] || [ $((r % 2)) = 1 ] || timed "no change, run $r, $(basename "$against")" "$against"
	timed "no change, run $r"
	[ -z "$against" ] || [ $((r % 2)) = 0 ] || timed "no change, run $r, $(basename "$against")" "$against"
done
changed=$((members / 2))
for n in $changes; do
	for r in $(seq 1 "$runs"); do
		for k in $(seq 0 $((n - 1))); do name "$changed" "$k"; echo; done >"$work/names"
		python3 - "$pds" "$work/m$changed.json" "$r" "$work/names" <<'PY'
import datetime, json, sys, urllib.request
pds, acct, r = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
names = open(sys.argv[4]).read().split()
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
def rec(rkey):
    return {"$type": "garden.engram.skill", "name": rkey, "description": "changed skill",
            "instructions": "# %s\n\nversion %s\n" % (rkey, r), "createdAt": now,
            "updatedAt": now, "note": "round " + r}
for start in range(0, len(names), 200):
    writes = [{"$type": "com.atproto.repo.applyWrites#update", "collection": "garden.engram.skill",
               "rkey": k, "value": rec(k)} for k in names[start:start + 200]]
    req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.applyWrites", method="POST",
        data=json.dumps({"repo": acct["did"], "writes": writes}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + acct["accessJwt"]})
    urllib.request.urlopen(req).read()
PY
		if [ "$locals" -gt 0 ]; then
			for k in $(seq 0 $((locals - 1))); do echo "local $n $r" >>"$(name 0 "$k")/SKILL.md"; done
			GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@example.test GIT_COMMITTER_NAME=Bench \
				GIT_COMMITTER_EMAIL=b@example.test "$skillsync" commit -m "local $n $r" >/dev/null
		fi
		timed "$n skills changed, run $r"
	done
done
echo
echo "| pull ($members members x $skills skills) | wall time | requests | written |"
echo "|---|---|---|---|"
summary "no change, run [0-9]+" "no change"
[ -z "$against" ] || summary "no change, run [0-9]+, .*" "no change, $(basename "$against")"
for n in $changes; do summary "$n skills changed, run [0-9]+" "$n skills changed"; done
