#!/usr/bin/env bash
# The main job, end to end on this machine: installs what is missing, builds, starts a real
# PDS on loopback (tests/pds/), fills a demo space from testdata/demo/ (an authority and two
# members whose skills overlap by name) by writing records straight to the PDS, clones the
# space as member1, and shows `skillsync ls` and `skillsync show`. Everything it creates lives
# in a temporary directory that is removed at the end (pass --keep to keep the clone), and
# the PDS is stopped. Your own skillsync sessions are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
keep=false
[ "${1:-}" = --keep ] && keep=true

scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build -j "$jobs" >/dev/null
skillsync=$src/build/skillsync
fill=$src/build/ss-fill

work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-demo.XXXXXX")
cleanup() {
	"$src/tests/pds/stop" "$work/pds" >/dev/null 2>&1 || true
	if $keep; then
		echo "== the clone stays in $work/space (the PDS is stopped)"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
echo "== starting a local PDS"
tests/pds/start "$work/pds" >/dev/null
info=$work/pds/pds.json
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
pds=$(json "$info" pds)
export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
export SKILLSYNC_CONFIG_HOME=$work/config

umask 077
for who in authority member1 member2; do
	tests/pds/account "$info" "$who" >"$work/$who.json"
	echo "== $(json "$work/$who.json" handle) writes: $(ls testdata/demo/$who | tr '\n' ' ')"
	SS_FILL_TOKEN=$(json "$work/$who.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(json "$work/$who.json" did)" testdata/demo/$who/*/
	sleep 1 # distinct updatedAt instants, so "newest" has a clear meaning in the demo
done
authority=$(json "$work/authority.json" handle)
member1=$(json "$work/member1.json" handle)
member2=$(json "$work/member2.json" handle)

echo "== skillsync login $member1"
SKILLSYNC_PASSWORD=$(json "$work/member1.json" password) "$skillsync" login "$member1"
cd "$work"
echo "== skillsync clone $authority space --member $member2   (signed in as $member1: you are in the space)"
"$skillsync" clone "$authority" space --member "$member2"
cd space
echo "== skillsync ls"
"$skillsync" ls
echo "== skillsync show csv-report"
"$skillsync" show csv-report
echo "== git log --oneline; git status --short"
git log --oneline
git status --short
"$skillsync" status
