#!/usr/bin/env bash
# needs: pds
# skillsync speaks the permissioned-space protocol alpha of 2026-10-01 only. A URI in a newer
# alpha's spelling (at:space/<did>/<type>/<key>, or ats://<did>/<type>/<key>) is refused
# before any request with one line naming the protocol it belongs to and the one skillsync
# speaks. A space host answering like a newer alpha (the test host's alpha knob: listRepos
# unknown, describeServer with another spacesAlpha, listRepos answering {writers}) gets the
# same kind of line instead of a parse error; back on a 2026-10-01 host, the clone works.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" spa auth m1
sp_login auth m1
cd "$tmp"
host=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spaces"]["host"])' "$SS_PDS_INFO")
uri=$(sp_space auth alpha m1)
sp_put m1 "$uri" tool 2026-01-01T00:00:00Z "by m1"
key=${uri##*/}
speaks="skillsync speaks the 2026-10-01 alpha"

# one_line <what>: the last run's stderr says one error line ("Cloning into" and a partial
# clone's note aside)
one_line() {
	[ "$(grep -v "^Cloning into\|the partial clone stays" "$tmp/stderr" | grep -c .)" = 1 ] ||
		fail "$1: not one line: $(cat "$tmp/stderr")"
	! grep -qi "parse\|not json\|has no repos" "$tmp/stderr" || fail "$1: a parse error: $(cat "$tmp/stderr")"
}

# 1. The newer spellings of the same space: refused before any request, exit 1.
for newer in "at:space/$(did auth)/garden.engram.space/$key" "ats://$(did auth)/garden.engram.space/$key"; do
	sp_knob requests "{\"space\":\"$uri\",\"reset\":true}" >/dev/null
	ss_run 1 "$SKILLSYNC" clone "$newer" c-newer --as "$(handle m1)"
	[ "$(cat "$tmp/stderr")" = "skillsync: '$newer' is a space URI of a newer permissioned-space protocol alpha (after 2026-10-01); $speaks (at://<authority>/space/<type>/<key>)" ] ||
		fail "clone of '$newer' said: $(cat "$tmp/stderr")"
	[ ! -e c-newer ] && [ ! -e c-newer.skillsync-partial ] || fail "clone of '$newer' left a directory"
	[ "$(sp_knob requests "{\"space\":\"$uri\"}")" = "{\"space\":\"$uri\",\"counts\":{}}" ] ||
		fail "clone of '$newer' made requests"
	# the space commands say the same
	ss_run 1 "$SKILLSYNC" space members --space "$newer" --as "$(handle auth)"
	grep -q "^skillsync: '$newer' is a space URI of a newer permissioned-space protocol alpha" "$tmp/stderr" ||
		fail "space members --space '$newer' said: $(cat "$tmp/stderr")"
done

# 2. The authority's space host answers like a newer alpha (a virtual host of the test host).
name="newer-${tmp##*.}"
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":\"$host/_test/alpha/$name\"}" >/dev/null
# listRepos unknown (MethodNotImplemented), describeServer silent: the line names the method
sp_knob alpha "{\"name\":\"$name\",\"unknown\":[\"com.atproto.space.listRepos\"]}" >/dev/null
ss_run 1 "$SKILLSYNC" clone "$uri" c-unknown --as "$(handle m1)"
one_line "listRepos unknown"
grep -q "^skillsync: '$host/_test/alpha/$name' does not know com.atproto.space.listRepos (MethodNotImplemented): it speaks a newer permissioned-space protocol alpha (after 2026-10-01, which renamed methods) or none; $speaks$" "$tmp/stderr" ||
	fail "listRepos unknown: $(cat "$tmp/stderr")"
# the same, and describeServer names the alpha: the line says which
sp_knob alpha "{\"name\":\"$name\",\"unknown\":[\"com.atproto.space.listRepos\"],\"spacesAlpha\":\"2026-11-12\"}" >/dev/null
ss_run 1 "$SKILLSYNC" clone "$uri" c-described --as "$(handle m1)"
one_line "spacesAlpha 2026-11-12"
grep -q "^skillsync: the space host '$host/_test/alpha/$name' speaks the newer permissioned-space protocol alpha '2026-11-12' (its describeServer says so); $speaks$" "$tmp/stderr" ||
	fail "spacesAlpha 2026-11-12: $(cat "$tmp/stderr")"
# listRepos in a newer shape ({writers}): said so, with or without spacesAlpha
sp_knob alpha "{\"name\":\"$name\",\"shape\":\"writers\"}" >/dev/null
ss_run 1 "$SKILLSYNC" clone "$uri" c-shape --as "$(handle m1)"
one_line "newer shape"
grep -q "^skillsync: the space host '$host/_test/alpha/$name' answers com.atproto.space.listRepos in the shape of a newer permissioned-space protocol alpha (after 2026-10-01: writers, not repos); $speaks$" "$tmp/stderr" ||
	fail "newer shape: $(cat "$tmp/stderr")"
sp_knob alpha "{\"name\":\"$name\",\"shape\":\"writers\",\"spacesAlpha\":\"2026-10-29\"}" >/dev/null
ss_run 1 "$SKILLSYNC" clone "$uri" c-shape2 --as "$(handle m1)"
one_line "newer shape, spacesAlpha 2026-10-29"
grep -q "speaks the newer permissioned-space protocol alpha '2026-10-29'" "$tmp/stderr" ||
	fail "newer shape, spacesAlpha 2026-10-29: $(cat "$tmp/stderr")"
# a virtual host that speaks 2026-10-01 and says so: the clone works through it
sp_knob alpha "{\"name\":\"$name\",\"spacesAlpha\":\"2026-10-01\"}" >/dev/null
ss_run 0 "$SKILLSYNC" clone "$uri" c-same --as "$(handle m1)"
[ "$(sp_line c-same tool)" = "by m1" ] || fail "clone through a 2026-10-01 host"

# 3. An existing clone whose host moves to a newer alpha: pull says the same line.
sp_knob alpha "{\"name\":\"$name\",\"unknown\":[\"com.atproto.space.listRepos\"],\"spacesAlpha\":\"2026-11-12\"}" >/dev/null
(cd c-same && ss_run 1 "$SKILLSYNC" pull)
grep -q "speaks the newer permissioned-space protocol alpha '2026-11-12' (its describeServer says so); $speaks" "$tmp/stderr" ||
	fail "pull from a newer host: $(cat "$tmp/stderr")"

# back to the host as it is: the clone works
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":null}" >/dev/null
sp_knob alpha "{\"name\":\"$name\",\"clear\":true}" >/dev/null
ss_run 0 "$SKILLSYNC" clone "$uri" c-back --as "$(handle m1)"
[ "$(sp_line c-back tool)" = "by m1" ] || fail "clone after the host came back"
echo "ok: space alpha"
