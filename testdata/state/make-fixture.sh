#!/usr/bin/env bash
# Usage: testdata/state/make-fixture.sh <skillsync> <out.tar.gz>
# Makes the fixture tests/cmd/state_upgrade.sh opens: a clone in use, made by the skillsync
# binary given (a build of the release whose state the fixture keeps; ss-fill must sit next to
# it), against a throwaway reference PDS (tests/pds/start). The clone of the authority's
# basic skills (testdata/skills/valid/basic), one skill of mine pushed ("mine-pushed"), one
# committed and not pushed ("local-draft"), a README on main. The tarball holds the clone's
# directory "space" (the git repository with .git/skillsync/state.db), nothing else: no
# session, no password. The accounts' DIDs, handles and PDS URL in the state belong to the
# throwaway PDS; the test points them at its own.
#
# testdata/state/fabd418.tar.gz was made with the build of commit fabd418 (state schema
# version 2):
#   git archive fabd418 | tar -x -C /tmp/rel && cmake -S /tmp/rel -B /tmp/rel/build &&
#   cmake --build /tmp/rel/build --target skillsync ss-fill &&
#   testdata/state/make-fixture.sh /tmp/rel/build/skillsync testdata/state/fabd418.tar.gz
set -euo pipefail
[ $# = 2 ] || {
	echo "usage: $0 <skillsync> <out.tar.gz>" >&2
	exit 2
}
SKILLSYNC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
SS_SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
SS_TESTDATA=$SS_SOURCE_DIR/testdata
export SKILLSYNC SS_SOURCE_DIR SS_TESTDATA
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

work=$(mktemp -d)
trap '"$SS_SOURCE_DIR/tests/pds/stop" "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$SS_SOURCE_DIR/tests/pds/start" "$work/pds" >/dev/null
export SS_PDS_INFO=$work/pds/pds.json SKILLSYNC_CONFIG_HOME=$work/config
export GIT_AUTHOR_DATE=2026-11-30T12:00:00Z GIT_COMMITTER_DATE=2026-11-30T12:00:00Z
ss_git_identity
ss_pds_env
cd "$work"
ss_push_fixture
echo "my skills" >README.md
ss_skill mine-pushed "Pushed by the old release."
"$SKILLSYNC" commit -m "Add mine-pushed and a README" >/dev/null
"$SKILLSYNC" push >/dev/null
ss_skill local-draft "Committed, not pushed."
"$SKILLSYNC" commit -m "Add local-draft" >/dev/null
"$SKILLSYNC" status | grep -q "push would send: create local-draft" || fail "the fixture's status"
rm -f .git/skillsync/lock
tar -C "$work" -czf "$out" space
echo "wrote $out"
