#!/usr/bin/env bash
# needs: pds
# needs: test-hooks
# Members on a hostile PDS (tests/support/hostile_pds.py on loopback, which also fronts the
# PLC so that did:plc:hostile<mode> points at it): bad records skipped one by one with their
# reasons while the rest syncs, ~60 MB junk pages read in bounded memory (peak RSS measured),
# a broken update keeping the last good version, a listing whose cursors go round, a member
# that cannot be reached (its last known versions kept, the rest synced, exit 4), a member
# whose DID no longer resolves removed by its DID, and a DID document whose PDS URL hides a
# remote host behind userinfo.
set -euo pipefail

tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT
# The fake PDS holds no signed repo: the listing reader is tested with verification off
# (docs/SECURITY.md); tests/cmd/verify.sh tests verification.
export SKILLSYNC_TEST_NO_VERIFY=1

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
has() { grep -qF -- "$2" "$1" || fail "no '$2' in $1: $(cat "$1")"; }

ss_pds_env
ss_accounts "$tmp" h auth
export HOME="$tmp/home"
fill=$(dirname "$SKILLSYNC")/ss-fill
auth=$(ss_json "$tmp/auth.json" handle)
put_auth() { # put_auth <skill-dir>...: the authority's records
	SS_FILL_TOKEN=$(ss_json "$tmp/auth.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$tmp/auth.json" did)" --put "$@" >/dev/null
}
put_auth "$SS_TESTDATA"/skills/valid/basic/*/

portfile=$tmp/hostile-port
python3 "$SS_SOURCE_DIR/tests/support/hostile_pds.py" "$portfile" "$plc" &
server=$!
for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.1; done
[ -s "$portfile" ] || fail "the hostile server did not start"
export SKILLSYNC_PLC_URL="http://127.0.0.1:$(cat "$portfile")/plc"

# Bad records of one member and eight ~60 MB junk pages: the clone succeeds, every bad record
# is named with its member and reason, and the rest is there. Peak memory stays bounded (as
# JSON trees the eight pages took ~2.7 GB each).
cd "$tmp"
junk=()
for i in 1 2 3 4 5 6 7 8; do junk+=(--member "did:plc:hostilejunkpage-$i"); done
ss_run 0 /usr/bin/time -f "maxrss %M" "$SKILLSYNC" clone "$auth" space \
	--member did:plc:hostilebadrecs --member did:plc:hostileflaky --member did:plc:hostileflip \
	"${junk[@]}"
rss=$(sed -n 's/^maxrss //p' "$tmp/stderr")
echo "clone with 8 junk pages of ~60 MB: peak RSS ${rss} KB"
[ "$rss" -lt $((1024 * 1024)) ] || fail "peak RSS ${rss} KB over 1 GiB"
for bad in "'big-int' of 'did:plc:hostilebadrecs': big-int: record is not valid JSON" \
	"'deep-one' of 'did:plc:hostilebadrecs': deep-one: record is not valid JSON" \
	"'dup-key' of 'did:plc:hostilebadrecs': dup-key: record gives the key \"name\" twice" \
	"'two-values' of 'did:plc:hostilebadrecs': the record's entry holds two values"; do
	has "$tmp/stderr" "warning: skipped $bad"
done
cd space
for skill in good-one good-two junk-after-0 junk-after-2 flaky-skill flip-skill; do
	[ -f "$skill/SKILL.md" ] || fail "$skill not cloned"
done
for skill in big-int deep-one dup-key two-values; do
	[ ! -e "$skill" ] || fail "$skill cloned"
done
flip_before=$(cat flip-skill/SKILL.md)

# A broken update of a valid record: the last good version stays, with a warning.
touch "$portfile.flip"
ss_run 0 "$SKILLSYNC" pull
has "$tmp/stderr" "warning: skipped 'flip-skill' of 'did:plc:hostileflip': flip-skill: record gives the key \"instructions\" twice"
has "$tmp/stderr" "(its last good version is kept)"
[ "$(cat flip-skill/SKILL.md)" = "$flip_before" ] || fail "flip-skill changed by a broken update"

# A member that cannot be reached: named, its skills kept, the others synced, exit 4 (as
# `git fetch --all` fails when one remote is down, after fetching the others).
touch "$portfile.down"
put_auth "$SS_TESTDATA"/skills/valid/nested-files/*/
new=$(basename "$(ls -d "$SS_TESTDATA"/skills/valid/nested-files/*/ | head -1)")
ss_run 4 "$SKILLSYNC" pull
has "$tmp/stderr" "warning: cannot read the head of 'did:plc:hostileflaky'"
has "$tmp/stderr" "its last known versions are kept"
[ -f flaky-skill/SKILL.md ] || fail "the unreachable member's skill left the view"
[ -f "$new/SKILL.md" ] || fail "the authority's new skill '$new' did not sync"
rm "$portfile.down"
ss_run 0 "$SKILLSYNC" pull

# A listing whose cursors go round (a, b, a, ...): stopped at once, named, the rest synced.
ss_run 0 "$SKILLSYNC" members add did:plc:hostilealternate
ss_run 4 timeout 60 "$SKILLSYNC" pull
has "$tmp/stderr" "cannot list the skills of 'did:plc:hostilealternate'"
has "$tmp/stderr" "a cursor it had sent before"

# A member whose DID no longer resolves is removed by its DID, without the network.
touch "$portfile.gone"
ss_run 0 "$SKILLSYNC" members remove did:plc:hostilealternate
ss_run 0 "$SKILLSYNC" members
! grep -q hostilealternate "$tmp/stdout" || fail "the removed member is still listed"
rm "$portfile.gone"

# A PDS URL with userinfo (http://localhost:1@evil.invalid reaches evil.invalid): refused.
ss_run 1 "$SKILLSYNC" members add did:plc:hostileuserinfo
has "$tmp/stderr" "user name or password"
echo "hostile server: ok"
