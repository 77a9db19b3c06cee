#!/usr/bin/env bash
# The main job, end to end on this machine: installs what is missing, builds, starts a real
# PDS on loopback (tests/pds/), fills a demo space from testdata/demo/ (an authority and two
# members whose skills overlap by name) by writing records straight to the PDS, clones the
# space as member1, and shows `skillsync ls` and `skillsync show`. Everything it creates lives
# in a temporary directory that is removed at the end (pass --keep to keep the clone), and
# the PDS is stopped. Your own skillsync sessions are not touched.
# With --space, the same people share a permissioned space instead (the test space host in
# the PDS process, tests/spaces/): the authority creates it and adds the two members, each
# clones it, copies its skills in, commits and pushes; member1 then pulls and looks.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
keep=false
space=false
for arg; do
	case $arg in
	--keep) keep=true ;;
	--space) space=true ;;
	*)
		echo "usage: scripts/demo.sh [--keep] [--space]" >&2
		exit 129
		;;
	esac
done

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
		echo "== the clone stays in $work (the PDS is stopped)"
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
if $space; then
	for who in authority member1 member2; do
		tests/pds/account "$info" "$who" >"$work/$who.json"
		SKILLSYNC_PASSWORD=$(json "$work/$who.json" password) "$skillsync" login \
			"$(json "$work/$who.json" handle)" >/dev/null
	done
	authority=$(json "$work/authority.json" handle)
	echo "== skillsync space create demo --as $authority"
	uri=$("$skillsync" space create demo --as "$authority" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["uri"])')
	echo "$uri"
	for who in member1 member2; do
		echo "== skillsync space members add $(json "$work/$who.json" handle)"
		"$skillsync" space members add "$(json "$work/$who.json" handle)" --space "$uri" --as "$authority"
	done
	cd "$work"
	for who in authority member1 member2; do
		me=$(json "$work/$who.json" handle)
		echo "== $me: clone, add $(ls "$src/testdata/demo/$who" | tr '\n' ' ')and push"
		"$skillsync" clone "$uri" "$who" --as "$me" 2>/dev/null
		cp -r "$src/testdata/demo/$who"/* "$who/"
		(cd "$who" && "$skillsync" commit -m "$who's skills" >/dev/null && "$skillsync" push)
		sleep 1 # distinct updatedAt instants, so "newest" has a clear meaning in the demo
	done
	cd member1
	echo "== member1: skillsync pull"
	"$skillsync" pull
	echo "== skillsync ls"
	"$skillsync" ls
	echo "== skillsync show csv-report"
	"$skillsync" show csv-report
	echo "== skillsync members"
	"$skillsync" members
	echo "== git log --oneline"
	git log --oneline
	exit 0
fi
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
