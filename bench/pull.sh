#!/usr/bin/env bash
# bench/pull.sh: what a scheduled pull costs. Starts a real PDS on loopback, fills a space of
# MEMBERS members x SKILLS skills (default 10 x 300), clones it read-only, then times:
#   1. a pull when nothing changed (the goal: one small request per member, nothing written);
#   2. a pull when 1 skill of the MEMBERS x SKILLS changed (the goal: work follows the change).
# Prints a Markdown table (wall time, HTTP requests, what was written). Usage:
#   bench/pull.sh [--members N] [--skills M] [--runs R] [--against BINARY]
# --against: the no-change pulls alternate between the build and BINARY (e.g. an older build)
# on the same clone, so that both are measured against the same PDS and the same files.
# Needs a build in build/ (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release is fairer).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
members=10 skills=300 runs=5 against=""
while [ $# -gt 0 ]; do
	case $1 in
	--members) members=$2; shift 2 ;;
	--skills) skills=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--against) against=$2; shift 2 ;;
	*) echo "usage: bench/pull.sh [--members N] [--skills M] [--runs R] [--against BINARY]" >&2; exit 129 ;;
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
for i in $(seq 0 $((members - 1))); do
	tests/pds/account "$info" "bench$i" >"$work/m$i.json"
	fill "$work/m$i.json" $((i * skills))
	[ "$i" -gt 0 ] && args+=(--member "$(json "$work/m$i.json" handle)")
done
cd "$work"
"$skillsync" clone "$(json "$work/m0.json" handle)" space "${args[@]}" >/dev/null 2>&1
cd space

# timed <label> [binary]: runs `skillsync pull --json`, prints one table row.
timed() {
	local bin=${2:-$skillsync} t0 t1 state0 state1 head0 head1 req written
	state0=$(sha256sum .git/skillsync/state.db | cut -d' ' -f1)
	head0=$(git rev-parse refs/remotes/space/main)
	t0=$(date +%s%N)
	"$bin" pull --json >"$work/out.json"
	t1=$(date +%s%N)
	state1=$(sha256sum .git/skillsync/state.db | cut -d' ' -f1)
	head1=$(git rev-parse refs/remotes/space/main)
	req=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$work/out.json")
	written=""
	[ "$state0" != "$state1" ] && written="state"
	[ "$head0" != "$head1" ] && written="${written:+$written, }tracking commit"
	printf '| %s | %d ms | %s | %s |\n' "$1" $(((t1 - t0) / 1000000)) "$req" "${written:-nothing}"
}

echo "| pull ($members members x $skills skills) | wall time | requests | written |"
echo "|---|---|---|---|"
for r in $(seq 1 "$runs"); do
	# With --against, who goes first alternates from run to run.
	[ -z "$against" ] || [ $((r % 2)) = 1 ] || timed "no change, run $r, $(basename "$against")" "$against"
	timed "no change, run $r"
	[ -z "$against" ] || [ $((r % 2)) = 0 ] || timed "no change, run $r, $(basename "$against")" "$against"
done
for r in $(seq 1 "$runs"); do
	python3 - "$pds" "$work/m$((members / 2)).json" "$r" <<'PY'
import datetime, json, sys, urllib.request
pds, acct, r = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
rkey = "bench-changed"
rec = {"$type": "garden.engram.skill", "name": rkey, "description": "changed skill",
       "instructions": "version %s\n" % r, "createdAt": now, "updatedAt": now, "note": "round " + r}
req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.putRecord", method="POST",
    data=json.dumps({"repo": acct["did"], "collection": "garden.engram.skill", "rkey": rkey,
                     "record": rec}).encode(),
    headers={"Content-Type": "application/json", "Authorization": "Bearer " + acct["accessJwt"]})
urllib.request.urlopen(req).read()
PY
	timed "1 skill changed, run $r"
done
