#!/usr/bin/env bash
# needs: pds
# Each space writer's set hash (LtHash) is kept in the state (space_writers) and the ops of a
# pull are folded into it and checked against the writer's signed commit (MAC, hash and the
# author's signature, its key kept in the identity cache and read again once when it fails): a
# clean change is read as "ops" (fetch.reads in --json); a compacted log (compact knob), a bad set hash
# (corruptHash knob) or a record served under its old CID with another value (tamper knob) is
# caught and the writer is read whole instead ("car": getRepo, checked against the signed
# commit), with the reason in --json. A whole repo that fails that check is refused with one
# line naming the writer, and its last good versions stay.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" spv auth m1 m2
sp_login auth m1 m2
cd "$tmp"
uri=$(sp_space auth verify m1 m2)
sp_put auth "$uri" base 2026-01-01T00:00:00Z "by auth"
# kept <clone> <name>: the revision of <name>'s set hash kept in the clone's state, or "none".
kept() {
	local r
	r=$(ss_sql "$tmp/$1/.git/skillsync/state.db" \
		"SELECT rev FROM space_writers WHERE did = '$(did "$2")'")
	echo "${r:-none}"
}
# read_of <name>: how the last pull --json read <name>: "<path> <verified> <fallback>", or
# "unread".
read_of() {
	python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["fetch"]["reads"] if x["did"]==sys.argv[2]]; print(*[(x["path"], x["verified"], x["fallback"]) for x in r][0]) if r else print("unread")' "$tmp/stdout" "$(did "$1")"
}
# is_read <name> <pattern>: read_of <name> matches the shell pattern.
is_read() {
	local r
	r=$(read_of "$1")
	# shellcheck disable=SC2254
	case "$r" in $2) ;; *) fail "$1 read as '$r', not '$2'" ;; esac
}
# refused <name> <words>: the last run's stderr has one line naming <name>, saying <words>.
refused() {
	[ "$(grep -c "$(handle "$1")" "$tmp/stderr")" = 1 ] || fail "not one line naming $1: $(cat "$tmp/stderr")"
	grep "$(handle "$1")" "$tmp/stderr" | grep -q "$2" || fail "the line does not say '$2': $(cat "$tmp/stderr")"
}
# m1_edit <line>: m1 changes its skill 'tool' and pushes.
m1_edit() {
	(cd "$tmp/c1" && printf '\n%s\n' "$1" >>tool/SKILL.md &&
		"$SKILLSYNC" commit -m "$1" >/dev/null && "$SKILLSYNC" push >/dev/null) ||
		fail "m1's push of '$1'"
}

ss_run 0 "$SKILLSYNC" clone "$uri" c1 --as "$(handle m1)"
ss_run 0 "$SKILLSYNC" clone "$uri" c2 --as "$(handle m2)"
[ "$(kept c2 auth)" != none ] || fail "the clone kept no set hash for the authority"
cd "$tmp/c1"
ss_skill tool "first"
ss_run 0 "$SKILLSYNC" commit -m "tool"
ss_run 0 "$SKILLSYNC" push
cd "$tmp/c2"
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "car True None"
[ "$(kept c2 m1)" != none ] || fail "no set hash kept for m1 after its first listing"
is_read auth unread

# A clean change: the ops check out against the signed commit.
m1_edit second
before=$(kept c2 m1)
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "ops True None"
[ "$(sp_line . tool)" = second ] || fail "the edit did not travel"
[ "$(kept c2 m1)" != "$before" ] && [ "$(kept c2 m1)" != none ] || fail "the kept set hash did not move"

# The commit's signature is checked with m1's #atproto key, kept in the identity cache: with a
# wrong key kept (the authority's) the signature fails, the key is fetched again once from
# m1's DID document, and the change still checks out on its ops.
key() { ss_sql "$tmp/c2/.git/skillsync/state.db" "SELECT key FROM identities WHERE did = '$(did "$1")'"; }
m1key=$(key m1)
case "$m1key" in did:key:z*) ;; *) fail "no author key kept for m1: '$m1key'" ;; esac
[ "$(key auth)" != "$m1key" ] || fail "the authority's key is m1's"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE identities SET key = ? WHERE did = ?", (sys.argv[2], sys.argv[3])); db.commit()' \
	"$tmp/c2/.git/skillsync/state.db" "$(key auth)" "$(did m1)"
m1_edit third
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "ops True None"
[ "$(key m1)" = "$m1key" ] || fail "the author key was not fetched again: $(key m1)"
[ "$(sp_line . tool)" = third ] || fail "the edit after a key change did not travel"

# m1's key rotates (the harness's /_test/rotate-key: the space host signs with the new one): the
# kept key fails on the next commit, the DID document is read once, the new key verifies, the
# change checks out on its ops; the key it replaces is kept as the previous one.
newkey=$(python3 - "$SS_PDS_INFO" "$(did m1)" <<'PY'
import base64, json, sys, urllib.request
info, did = json.load(open(sys.argv[1])), sys.argv[2]
auth = base64.b64encode(f"admin:{info['adminPassword']}".encode()).decode()
req = urllib.request.Request(info["pds"] + "/_test/rotate-key", method="POST",
                             data=json.dumps({"did": did}).encode(),
                             headers={"Content-Type": "application/json",
                                      "Authorization": "Basic " + auth})
print(json.load(urllib.request.urlopen(req))["key"])
PY
)
m1_edit rotated
ss_run 0 "$SKILLSYNC" pull --json
[ ! -s "$tmp/stderr" ] || fail "the pull after a rotation said: $(cat "$tmp/stderr")"
is_read m1 "ops True None"
[ "$(sp_line . tool)" = rotated ] || fail "the edit signed by the rotated key did not travel"
[ "$(key m1)" = "$newkey" ] && [ "$(ss_sql "$tmp/c2/.git/skillsync/state.db" \
	"SELECT prev_key FROM identities WHERE did = '$(did m1)'")" = "$m1key" ] ||
	fail "the cache keeps $(key m1), not the rotated $newkey (previous $m1key)"

# The PDS c2's identity cache keeps for m1 stops answering (a move): the read fails, m1's DID
# document is read once, and the ops are asked where it names; the pull says nothing.
pds=$(ss_sql "$tmp/c2/.git/skillsync/state.db" "SELECT pds FROM identities WHERE did = '$(did m1)'")
[ -n "$pds" ] || fail "no PDS kept for m1"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE identities SET pds = ? WHERE did = ?", ("http://127.0.0.1:9", sys.argv[2])); db.commit()' \
	"$tmp/c2/.git/skillsync/state.db" "$(did m1)"
m1_edit moved
ss_run 0 "$SKILLSYNC" pull --json
[ ! -s "$tmp/stderr" ] || fail "the pull after a move said: $(cat "$tmp/stderr")"
is_read m1 "ops True None"
[ "$(sp_line . tool)" = moved ] || fail "the edit after a move did not travel"
[ "$(ss_sql "$tmp/c2/.git/skillsync/state.db" "SELECT pds FROM identities WHERE did = '$(did m1)'")" = "$pds" ] ||
	fail "the cache does not keep m1's PDS $pds again"

# A compacted log: the ops no longer start at the kept revision; m1 is read whole.
m1_edit third-b
sp_knob compact "{\"space\":\"$uri\",\"repo\":\"$(did m1)\"}" >/dev/null
m1_edit fourth
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "car True *compacted*"
[ "$(sp_line . tool)" = fourth ] || fail "the full read after a compacted log did not converge"
[ "$(kept c2 m1)" != none ] || fail "the full read kept no set hash"

# A bad set hash: caught on the ops, and the whole repo does not give it either: refused, the
# last good version stays, nothing kept; once the host is right again, the pull converges.
m1_edit fifth
sp_knob corruptHash "{\"space\":\"$uri\",\"repo\":\"$(did m1)\"}" >/dev/null
ss_run 4 "$SKILLSYNC" pull --json
is_read m1 "car False *set hash*"
refused m1 "set hash of its signed commit"
[ "$(sp_line . tool)" = fourth ] || fail "a version under a bad set hash was taken"
[ "$(kept c2 m1)" = none ] || fail "a set hash the host got wrong was kept"
sp_knob corruptHash "{\"space\":\"$uri\",\"repo\":\"$(did m1)\",\"clear\":true}" >/dev/null
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "car True *no set hash is kept*"
[ "$(sp_line . tool)" = fifth ] || fail "the pull after a bad set hash did not converge"

# A tampered record (value changed, CID kept, in every read): the ops catch it and the whole
# repo is read, whose block does not hash to its CID either: refused in one line naming the
# record, the last good version stays, and the kept set hash stays where it was (a refused
# fold never moves it); m1's next write converges, folding the ops since that position.
m1_edit sixth
sp_knob tamper "{\"space\":\"$uri\",\"repo\":\"$(did m1)\",\"collection\":\"garden.engram.skill\",\"rkey\":\"tool\"}" >/dev/null
ss_run 4 "$SKILLSYNC" pull --json
is_read m1 "car False *'tool'*CID*"
refused m1 "not synced"
# the line names the record whose block it is, as the index names it, and its CID
refused m1 "the block of the record 'tool' (garden.engram.skill) does not hash to its CID bafyrei[a-z2-7]*"
grep -rq tampered . && fail "a tampered value reached the working tree"
[ "$(sp_line . tool)" = fifth ] || fail "the last good version did not stay"
m1_edit seventh
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "ops True None"
[ "$(sp_line . tool)" = seventh ] || fail "the pull after a tampered record did not converge"

# A repo that also holds another collection's records: its ops fold into the set hash, and its
# whole read checks out over every collection (a clone keeps m1's set hash only when it did);
# only skills become records.
sp_knob rawWrite "{\"space\":\"$uri\",\"repo\":\"$(did m1)\",\"writes\":[{\"collection\":\"garden.engram.memory\",\"rkey\":\"note1\",\"value\":{\"\$type\":\"garden.engram.memory\",\"text\":\"not a skill\"}}]}" >/dev/null
ss_run 0 "$SKILLSYNC" pull --json
is_read m1 "ops True None"
cd "$tmp"
ss_run 0 "$SKILLSYNC" clone "$uri" c3 --as "$(handle m2)"
[ "$(kept c3 m1)" != none ] || fail "the whole read of a repo with another collection did not check out"
[ "$(sp_line c3 tool)" = seventh ] && [ ! -e c3/note1 ] || fail "the clone of a repo with another collection"
