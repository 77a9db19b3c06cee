#!/usr/bin/env bash
# needs: pds
# push, fetch and pull on a permissioned space (tests/spaces/ host): pushes land in my space
# repo with applyWrites; a no-change pull costs the credential and the listRepos page only
# (counted from --json); a change is read with listRepoOps for that writer only (also among
# 3,000 records); an edit, a
# merge conflict and a delete travel; a concurrent writer (my second clone) makes the push
# refuse with "pull first" and write nothing, and after the pull it goes through; a member the
# authority removes stops counting and is told so; a kept space host that moved is found again
# and kept; the space host down fails fetch naming it while push works; a deleted space is
# said so.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" sps auth m1 m2
sp_login auth m1 m2
cd "$tmp"
uri=$(sp_space auth sync m1 m2)
sp_put auth "$uri" base 2026-01-01T00:00:00Z "by auth"
jf() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v[sys.argv[2]])' "$tmp/stdout" "$1"; }
# rec_cid <name> <skill>: the CID of <name>'s record in the space, or "none".
rec_cid() {
	sp_xrpc "$1" GET com.atproto.space.getRecord \
		"space=$uri&repo=$(did "$1")&collection=garden.engram.skill&rkey=$2" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["cid"])' 2>/dev/null || echo none
}

ss_run 0 "$SKILLSYNC" clone "$uri" c1 --as "$(handle m1)"
ss_run 0 "$SKILLSYNC" clone "$uri" c2 --as "$(handle m2)"

# m1 pushes two new skills; m2 pulls them.
cd "$tmp/c1"
ss_skill tool "first"
ss_skill gone "to be deleted"
ss_run 0 "$SKILLSYNC" commit -m "two skills"
ss_run 0 "$SKILLSYNC" push
[ "$(rec_cid m1 tool)" != none ] || fail "push did not write 'tool' into m1's space repo"
ss_run 0 "$SKILLSYNC" status
cd "$tmp/c2"
ss_run 0 "$SKILLSYNC" pull --json
[ "$(sp_line . tool)" = first ] || fail "m2 did not get m1's push"
[ -d gone ] || fail "m2 did not get 'gone'"

# A no-change pull: the credential (delegation token + exchange) and one listRepos page.
ss_run 0 "$SKILLSYNC" pull --json
[ "$(jf requests)" = 3 ] || fail "a no-change pull sent $(jf requests) requests, not 3: $(cat "$tmp/stdout")"

# An edit and a delete by m1 travel; m2's pull reads m1's ops only (3 + one listRepoOps).
cd "$tmp/c1"
printf '\nsecond\n' >>tool/SKILL.md
rm -r gone
ss_run 0 "$SKILLSYNC" commit -m "edit tool, drop gone"
ss_run 0 "$SKILLSYNC" push
[ "$(rec_cid m1 gone)" = none ] || fail "the delete did not land"
cd "$tmp/c2"
ss_run 0 "$SKILLSYNC" pull --json
[ "$(jf requests)" = 4 ] || fail "a pull of one writer's change sent $(jf requests) requests, not 4"
[ "$(sp_line . tool)" = second ] || fail "the edit did not travel"
[ ! -e gone ] || fail "the delete did not travel"

# A conflict: m2 edits tool (its own version), m1 edits the same line; m2's pull conflicts,
# m2 resolves and pushes; m2's version is then m2's, m1 keeps its own.
sed -i 's/^second$/m2 says/' tool/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "m2 edits tool"
cd "$tmp/c1"
sed -i 's/^second$/m1 says/' tool/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "m1 edits tool"
ss_run 0 "$SKILLSYNC" push
cd "$tmp/c2"
ss_run 2 "$SKILLSYNC" pull
grep -q '^<<<<<<<' tool/SKILL.md || fail "no conflict markers"
sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d; s/^m1 says$//' tool/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "resolved"
ss_run 0 "$SKILLSYNC" push
[ "$(rec_cid m2 tool)" != none ] || fail "m2's resolved version did not land"
cd "$tmp/c1"
ss_run 0 "$SKILLSYNC" pull
[ "$(sp_line . tool)" = "m1 says" ] || fail "m1 lost its own version of tool"

# A concurrent writer: m1's second clone changes tool after c1's last fetch.
cd "$tmp"
ss_run 0 "$SKILLSYNC" clone "$uri" c1b --as "$(handle m1)"
cd c1b
sed -i 's/^description: .*/description: Tool, from the other device./' tool/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "other device"
ss_run 0 "$SKILLSYNC" push
before=$(rec_cid m1 tool)
cd "$tmp/c1"
printf '\nthird\n' >>tool/SKILL.md
ss_skill fresh "new"
ss_run 0 "$SKILLSYNC" commit -m "stale edit"
ss_run 3 "$SKILLSYNC" push
grep -q "pull" "$tmp/stderr" || fail "no 'pull first': $(cat "$tmp/stderr")"
[ "$(rec_cid m1 tool)" = "$before" ] || fail "the refused push changed tool"
[ "$(rec_cid m1 fresh)" = none ] || fail "the refused push wrote 'fresh'"
ss_run 0 "$SKILLSYNC" pull
grep -q "other device" tool/SKILL.md || fail "the pull did not merge the other device's edit"
ss_run 0 "$SKILLSYNC" push
[ "$(rec_cid m1 fresh)" != none ] || fail "the push after the pull did not land"
grep -q third tool/SKILL.md || fail "the local edit was lost"

# space_host [<url>]: the space host this clone's identity cache keeps for the authority (sets
# it when given).
space_host() {
	python3 - .git/skillsync/state.db "$(did auth)" "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
if len(sys.argv) > 3:
    db.execute("UPDATE identities SET space_host = ? WHERE did = ?", (sys.argv[3], sys.argv[2]))
    db.commit()
else:
    print(db.execute("SELECT space_host FROM identities WHERE did = ?", (sys.argv[2],)).fetchone()[0])
PY
}
# The space host the clone kept moved: the DID document is asked again and the pull works.
dead=http://127.0.0.1:9
space_host "$dead"
ss_run 0 "$SKILLSYNC" pull
[ "$(space_host)" = "$pds" ] ||
	fail "the space host found again was not kept"
# The space host down while my PDS is up: fetch names the host and changes nothing; push works.
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":\"$dead\"}" >/dev/null
space_host "$dead"
sp_put m2 "$uri" late 2026-01-01T00:00:00Z "by m2"
head_before=$(git rev-parse HEAD)
ss_run 4 "$SKILLSYNC" pull
grep -q "127.0.0.1:9" "$tmp/stderr" || fail "the failed host is not named: $(cat "$tmp/stderr")"
[ "$(git rev-parse HEAD)" = "$head_before" ] && [ ! -e late ] && [ -d tool ] || fail "a failed pull changed the clone"
ss_skill offline "pushed while the host is down"
ss_run 0 "$SKILLSYNC" commit -m "offline"
ss_run 0 "$SKILLSYNC" push
[ "$(rec_cid m1 offline)" != none ] || fail "push did not work with the space host down"
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":null}" >/dev/null
ss_run 0 "$SKILLSYNC" pull
[ -d late ] || fail "the pull after the host came back did not bring m2's skill"

# The authority removes m2: its versions stop counting at the next pull (m2 wrote "only-m2").
sp_put m2 "$uri" only-m2 2026-01-01T00:00:00Z "by m2"
ss_run 0 "$SKILLSYNC" pull
[ -d only-m2 ] || fail "m2's skill did not arrive"
"$SKILLSYNC" space members remove "$(handle m2)" --space "$uri" --as "$(handle auth)" >/dev/null ||
	fail "members remove"
ss_run 0 "$SKILLSYNC" pull
[ ! -e only-m2 ] || fail "a removed member's skill still counts"
ss_run 0 "$SKILLSYNC" members --json
grep -q "$(did m2)" "$tmp/stdout" && fail "members still lists the removed member"
# The removed member is told so at its next pull.
cd "$tmp/c2"
ss_run 5 "$SKILLSYNC" pull
grep -q "not a member of this space" "$tmp/stderr" || fail "removed member: $(cat "$tmp/stderr")"
cd "$tmp/c1"
# 3,000 records of the authority arrive; then one change among them costs one listRepoOps.
python3 - "$uri" "$(did auth)" >"$tmp/bulk.json" <<'PY'
import json, sys
space, repo = sys.argv[1:3]
T = "2026-01-01T00:00:00.000Z"
writes = [{"collection": "garden.engram.skill", "rkey": "bulk-%04d" % i,
           "value": {"$type": "garden.engram.skill", "name": "bulk-%04d" % i,
                     "description": "Bulk skill %d." % i, "instructions": "# bulk\n\nline %d\n" % i,
                     "createdAt": T, "updatedAt": T}} for i in range(3000)]
json.dump({"space": space, "repo": repo, "writes": writes}, sys.stdout)
PY
sp_knob rawWrite "@$tmp/bulk.json" >/dev/null
ss_run 0 "$SKILLSYNC" pull --json
[ -f bulk-2999/SKILL.md ] || fail "the 3,000 records did not arrive"
sp_put auth "$uri" bulk-1234 2026-02-01T00:00:00Z "changed"
ss_run 0 "$SKILLSYNC" pull --json
[ "$(jf requests)" = 4 ] || fail "one change among 3,000 records cost $(jf requests) requests, not 4: $(cat "$tmp/stdout")"
[ "$(sp_line . bulk-1234)" = changed ] || fail "the change did not arrive"

# The authority deletes the space: a pull says so and leaves the clone as it was.
sp_xrpc auth POST com.atproto.simplespace.deleteSpace "{\"space\":\"$uri\"}" >/dev/null || fail "deleteSpace"
cd "$tmp/c1"
head_before=$(git rev-parse HEAD)
ss_run 1 "$SKILLSYNC" pull
grep -q "deleted by its authority" "$tmp/stderr" || fail "deleted space: $(cat "$tmp/stderr")"
[ "$(git rev-parse HEAD)" = "$head_before" ] && [ -d tool ] || fail "a pull of a deleted space changed the clone"
echo "ok: space push and pull"
