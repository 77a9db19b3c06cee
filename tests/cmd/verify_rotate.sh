#!/usr/bin/env bash
# needs: pds
# build: plain
# Key rotation (docs/SECURITY.md, "Keys rotate"): a member's #atproto key rotates through the
# harness's /_test/rotate-key (docs/PDS-HARNESS.md). The identity cache (table identities)
# answers for an hour without a request; a commit its kept key does not verify makes one read
# of the DID document, and the new key verifies it: no tampering said. A head still signed by
# the previous key (rotated, nothing written since) is said to be so, in one line naming the
# member, not as tampering, and its versions wait for the current key (the last good stay).
# A PDS the cache keeps that stops answering is looked up again once.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_accounts "$work" "" auth m2
auth_did=$(ss_field auth did) m2_did=$(ss_field m2 did) m2_handle=$(ss_field m2 handle)
# edit <who> <name> <line>: <who> writes the skill <name> ending with <line>.
edit() {
	rm -rf "$work/src" && mkdir -p "$work/src"
	(cd "$work/src" && ss_skill "$2" "$3")
	SS_FILL_TOKEN=$(ss_field "$1" accessJwt) "$fill" --pds "$pds" --did "$(ss_field "$1" did)" \
		--put "$work/src/$2" >/dev/null
}
# rotate <did> [plcOnly]: a new signing key for <did>; prints it.
rotate() {
	python3 - "$SS_PDS_INFO" "$1" "${2:-}" <<'PY'
import base64, json, sys, urllib.request
info, did, plc_only = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] == "plcOnly"
auth = base64.b64encode(f"admin:{info['adminPassword']}".encode()).decode()
req = urllib.request.Request(info["pds"] + "/_test/rotate-key", method="POST",
                             data=json.dumps({"did": did, "plcOnly": plc_only}).encode(),
                             headers={"Content-Type": "application/json",
                                      "Authorization": "Basic " + auth})
print(json.load(urllib.request.urlopen(req))["key"])
PY
}
db() { echo "$work/$1/.git/skillsync/state.db"; }
# ident <clone> <column>: what the clone's identity cache keeps for m2.
ident() { ss_sql "$(db "$1")" "SELECT $2 FROM identities WHERE did = '$m2_did'"; }
# age <clone>: the cache's entries were read an hour ago (the lifetime is over).
age() {
	python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE identities SET resolved_at = resolved_at - 3600"); db.commit()' "$(db "$1")"
}
requests() { ss_json "$work/stdout" requests; }
# quiet_run: the last run said nothing on stderr (no member refused, no warning).
quiet_run() {
	[ ! -s "$work/stderr" ] || fail "the run said: $(cat "$work/stderr")"
}

edit auth base "by auth"
edit m2 tool "first"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" c --member "$m2_handle"
cd "$work/c"
k1=$(ident c key)
case "$k1" in did:key:z*) ;; *) fail "no key kept for m2 after the clone: '$k1'" ;; esac
[ -n "$(ident c pds)" ] && [ "$(ident c resolved_at)" -gt 0 ] || fail "the cache keeps no PDS or time"

# Within the lifetime a no-change pull reads no DID document: the two heads only.
ss_run 0 "$SKILLSYNC" pull --json
[ "$(requests)" = 2 ] || fail "a no-change pull made $(requests) requests"

# 1. Rotation, then m2 writes: the kept key fails, one read of the DID document, the new key
# verifies; the change is taken and nothing is said. One change costs its 3 requests + 1.
k2=$(rotate "$m2_did")
edit m2 tool "after the rotation"
ss_run 0 "$SKILLSYNC" pull --json
quiet_run
grep -qx "after the rotation" tool/SKILL.md || fail "the change signed by the new key was not taken"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["fetch"]["skips"] == [], v' \
	"$work/stdout" || fail "--json: $(cat "$work/stdout")"
[ "$(requests)" = 4 ] || fail "the re-read key: $(requests) requests, not 3 + 1"
[ "$(ident c key)" = "$k2" ] && [ "$(ident c prev_key)" = "$k1" ] ||
	fail "the cache keeps $(ident c key) (previous $(ident c prev_key)), not $k2 ($k1)"

# 2. Rotation with no new commit: the head is still signed by the previous key (k2).
k3=$(rotate "$m2_did")
# Within the lifetime nothing is asked: the unchanged head is not read again.
ss_run 0 "$SKILLSYNC" pull --json
[ "$(requests)" = 2 ] || fail "a no-change pull after a rotation made $(requests) requests"
# An hour later, verify reads the document again: one line naming m2, signed by the previous
# key, no "does not match".
age c
ss_run 1 "$SKILLSYNC" verify
grep "$m2_handle" "$work/stdout" | grep -q "signed by the previous key of $m2_did ($k2)" ||
	fail "verify: $(cat "$work/stdout")"
grep -q "does not match" "$work/stdout" && fail "verify calls it tampering: $(cat "$work/stdout")"
[ "$(ident c key)" = "$k3" ] && [ "$(ident c prev_key)" = "$k2" ] || fail "the cache after verify"
# A new clone, knowing no previous key, finds it in the PLC's log: the same line (the clone
# stops there, as for any member it cannot read, keeping its partial state for a retry).
cd "$work"
rc=0
"$SKILLSYNC" clone "$(ss_field auth handle)" c2 --member "$m2_handle" >"$work/stdout" 2>"$work/stderr" || rc=$?
[ "$rc" != 0 ] && [ ! -e c2 ] || fail "the clone took m2's head signed by the previous key"
[ "$(grep -c "$m2_handle" "$work/stderr")" = 1 ] || fail "not one line naming m2: $(cat "$work/stderr")"
grep "$m2_handle" "$work/stderr" | grep -q "signed by the previous key of $m2_did ($k2)" ||
	fail "the clone calls it otherwise: $(cat "$work/stderr")"
# m2 writes, signed with k3: the pull takes it, the clone run again succeeds, nothing said.
edit m2 tool "signed with the current key"
cd "$work/c"
ss_run 0 "$SKILLSYNC" pull
quiet_run
grep -qx "signed with the current key" tool/SKILL.md || fail "the pull did not take m2's change"
cd "$work"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" c2 --member "$m2_handle"
grep -qx "signed with the current key" c2/tool/SKILL.md || fail "the clone again: $(ls c2)"

# The PDS the cache keeps for m2 stops answering (a move): the head request fails, m2's DID
# document is read once, and the head is asked where it names; the pull says nothing.
cd "$work/c"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE identities SET pds = ? WHERE did = ?", ("http://127.0.0.1:9", sys.argv[2])); db.commit()' "$(db c)" "$m2_did"
edit m2 tool "after the move"
ss_run 0 "$SKILLSYNC" pull --json
quiet_run
grep -qx "after the move" tool/SKILL.md || fail "the change after the move was not taken"
[ "$(ident c pds)" = "$pds" ] || fail "the cache keeps the PDS $(ident c pds), not $pds"
echo "a moved PDS: $(requests) requests"

# 3. The DID document names a new key the PDS does not sign with yet (it has not caught up):
# within the lifetime the kept key still verifies (the lifetime's trade-off); once it is over,
# a head signed by the previous key is said to be so and not taken: the last good stays.
cd "$work/c"
k4=$(rotate "$m2_did" plcOnly)
age c
edit m2 tool "signed with the previous key"
"$SKILLSYNC" pull >"$work/stdout" 2>"$work/stderr" || true
[ "$(grep -c "$m2_handle" "$work/stderr")" = 1 ] || fail "not one line naming m2: $(cat "$work/stderr")"
grep "$m2_handle" "$work/stderr" | grep -q "signed by the previous key of $m2_did ($k3)" ||
	fail "the pull calls it otherwise: $(cat "$work/stderr")"
grep -qx "after the move" tool/SKILL.md || fail "the last good version did not stay"
[ "$(ident c key)" = "$k4" ] || fail "the cache does not keep the document's key"
echo "verify_rotate: all checks passed"
