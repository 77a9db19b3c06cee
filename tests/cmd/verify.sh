#!/usr/bin/env bash
# needs: pds
# Verified, incremental sync of public repos (docs/CLONE.md, docs/SECURITY.md), against the
# real PDS through the fault proxy: a pull after 1 and 10 changes among a few hundred records
# asks getRepo?since (requests and bytes from --json, far below a full listing), deletes, a
# member that rewrote its repo, a `since` the server refuses (full listing, said in --json);
# tampering on the way (a record's value changed with its CID kept, a CID changed, a commit
# signed by another key, a replayed older commit) each refused with one line naming the member
# (and the record), nothing written, and the next untampered pull converges.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_proxy_workdir
export SKILLSYNC_CONFIG_HOME=$work/config
ss_accounts . "" auth m2
for who in auth m2; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done
token() { ss_json "$work/$1.json" accessJwt; }
# gen <who> <n> <prefix>: n new generated skills.
gen() { SS_FILL_TOKEN=$(token "$1") "$fill" --pds "$pds" --did "$(ss_json "$work/$1.json" did)" \
	--generate "$2" --prefix "$3" >/dev/null; }
# edit <who> <name> <line>: the skill <name> (a copy of testdata's pdf-forms) written again with
# <line> appended.
edit() {
	rm -rf "$work/src" && mkdir -p "$work/src/$2"
	printf -- '---\nname: %s\ndescription: Skill %s.\n---\n# %s\n\n%s\n' "$2" "$2" "$2" "$3" \
		>"$work/src/$2/SKILL.md"
	SS_FILL_TOKEN=$(token "$1") "$fill" --pds "$pds" --did "$(ss_json "$work/$1.json" did)" \
		--put "$work/src/$2" >/dev/null
}
del() {
	ss_curl_auth "$(token "$1")" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$(ss_json "$work/$1.json" did)\",\"collection\":\"garden.engram.skill\",\"rkey\":\"$2\"}" \
		"$pds/xrpc/com.atproto.repo.deleteRecord" >/dev/null || fail "deleteRecord $2 as $1"
}
# pull_json: a pull --json into $work/pull.json (exit 0); field <key> of its fetch part.
pull_json() { ss_run 0 "$SKILLSYNC" pull --json && cp "$work/stdout" "$work/pull.json"; }
fetch_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fetch"][sys.argv[2]])' "$work/pull.json" "$1"; }
listings() { python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["fetch"]["listings"]; print(l["full"], l["incremental"], l["fallback"])' "$work/pull.json"; }
top() { ss_json "$work/pull.json" "$1"; }
# read_of <did>: how the pull read that member: "<path> <verified> <fallback>" from fetch.reads.
read_of() { python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["fetch"]["reads"] if x["did"]==sys.argv[2]]; print(*[(x["path"], x["verified"], x["fallback"]) for x in r][0]) if r else print("unread")' "$work/pull.json" "$1"; }

gen auth 300 g
gen m2 3 m
edit auth mine "first"
# hold <prefix> [<ms>]: requests to paths starting with <prefix> held <ms> on their way (none:
# no more); held_at_once: the most of them in flight together since.
hold() { curl -sf "$proxy/_fault/hold?prefix=$1&ms=${2:-0}" >/dev/null; }
held_at_once() { curl -sf "$proxy/_fault/count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["held_at_once"])'; }
# The names given to clone are resolved at once, not one after the other: with each handle's
# resolution held 300 ms on its way, two were in flight together. And each member's DID
# document is read once: the key the sync checks commits with comes from the resolution's.
ss_fault_clear
hold /xrpc/com.atproto.identity.resolveHandle 300
ss_run 0 "$SKILLSYNC" clone "$auth_handle" c --member "$m2_handle"
held=$(held_at_once)
hold ""
[ "$held" -ge 2 ] || fail "the members' handles were resolved one after the other ($held at once)"
docs=$(curl -sf "$proxy/_fault/count" | python3 -c 'import json,sys; l=json.load(sys.stdin)["log"]; print(*sorted(l.count("GET /" + d) for d in sys.argv[1:]))' "$auth_did" "$m2_did")
[ "$docs" = "1 1" ] || fail "the members' DID documents were not read once each in the clone: $docs"
cd c
[ -f g-00007/SKILL.md ] && [ -f m-00001/SKILL.md ] && grep -qx first mine/SKILL.md || fail "the clone is incomplete"
[ -s "$(git rev-parse --git-dir)/skillsync/verified/${auth_did//:/_}.car" ] || fail "no node cache after the clone"

# 1 change among 301: getLatestCommit x2 + getRepo?since, bytes in proportion.
edit auth mine "second"
pull_json
grep -qx second mine/SKILL.md || fail "the change did not arrive"
[ "$(listings)" = "0 1 0" ] || fail "not one incremental listing: $(listings)"
[ "$(read_of "$auth_did")" = "since True None" ] || fail "the change was not read since the last revision: $(read_of "$auth_did")"
req=$(top requests) bytes=$(top bytes)
echo "1 change among 304: $req requests, $bytes bytes"
((req <= 3)) || fail "$req requests for one change"
((bytes < 20000)) || fail "$bytes bytes for one change"

# 10 new skills and 3 deletes.
gen auth 10 ten
del auth g-00001
del auth g-00002
del m2 m-00000
pull_json
[ -f ten-00009/SKILL.md ] || fail "the 10 new skills did not arrive"
[ ! -e g-00001 ] && [ ! -e g-00002 ] && [ ! -e m-00000 ] || fail "a deleted skill stayed"
[ "$(fetch_field added)" = 10 ] && [ "$(fetch_field removed)" = 3 ] || fail "not 10 added, 3 removed: $(cat "$work/pull.json")"
[ "$(listings)" = "0 2 0" ] || fail "not two incremental listings: $(listings)"
req=$(top requests) bytes=$(top bytes)
echo "10 new and 3 deleted among 304: $req requests, $bytes bytes"
((req <= 4)) || fail "$req requests for 10 changes"

# A member rewrites its repo: every record deleted, others written.
for k in m-00001 m-00002; do del m2 "$k"; done
gen m2 5 re
pull_json
[ ! -e m-00001 ] && [ ! -e m-00002 ] && [ -f re-00004/SKILL.md ] || fail "the rewritten repo did not converge"

# A `since` the server refuses: a full, verified read (the whole repo: it holds only skills),
# said in --json with the reason.
edit auth mine "third"
ss_fault 400 3 # the third request: getRepo?since (after 2 heads)
pull_json
ss_fault_clear
grep -qx third mine/SKILL.md || fail "the change did not arrive after the fallback"
[ "$(listings)" = "1 0 1" ] || fail "the refused since did not fall back: $(listings)"
case "$(read_of "$auth_did")" in "repo True "?*) ;; *) fail "the fallback gives no reason: $(read_of "$auth_did")" ;; esac

# A push brings my node cache to the commit it made: after it, my repo moves again (another
# client writes) and my next pull lists it incrementally, in 2 requests (getLatestCommit +
# getRepo?since), not in full (docs/CLONE.md, "The node cache").
cd "$work"
as_m2() { SKILLSYNC_CONFIG_HOME=$work/config-m2 "$SKILLSYNC" "$@"; }
SKILLSYNC_PASSWORD=$(ss_json m2.json password) as_m2 login "$m2_handle" >/dev/null
as_m2 clone "$m2_handle" mine >/dev/null 2>&1 || fail "clone as m2"
cd mine
ss_skill pushed "first"
as_m2 commit -m "a skill" pushed >/dev/null || fail "commit as m2"
SKILLSYNC_STATS=1 as_m2 push >"$work/out" 2>&1 || fail "push as m2: $(cat "$work/out")"
stats=$(grep '^stats:' "$work/out")
echo "push and its cache refresh: $stats"
# the writes' request, then one getRepo?since for the cache
[[ $stats == "stats: requests=2 writes=1 "* ]] || fail "not 1 write request and 1 getRepo: $stats"
edit m2 elsewhere "written by another client"
as_m2 pull --json >"$work/pull.json" 2>"$work/err" || fail "pull as m2: $(cat "$work/err")"
[ -f elsewhere/SKILL.md ] || fail "the other client's skill did not arrive"
[ "$(listings)" = "0 1 0" ] || fail "my repo was not listed incrementally after my push: $(listings)"
[ "$(top requests)" = 2 ] || fail "$(top requests) requests for my repo's one change, not 2"
cd "$work/c"

# Tampered on the way.
tamper() { curl -sf -G "$proxy/_fault/tamper" --data-urlencode "kind=$1" \
	--data-urlencode "did=${2:-}" --data-urlencode "rkey=${3:-}" >/dev/null || fail "tamper $1"; }
# refused <dir> <words> [<rkey>]: the run's stderr has one line naming auth and saying <words>
# (and naming <rkey>).
refused() {
	local lines
	lines=$(grep -c "$auth_handle" "$work/err" || true)
	[ "$lines" = 1 ] || fail "not one line naming the member: $(cat "$work/err")"
	grep "$auth_handle" "$work/err" | grep -q "$2" || fail "the line does not say '$2': $(cat "$work/err")"
	[ -z "${3:-}" ] || grep "$auth_handle" "$work/err" | grep -q "'$3'" || fail "the line does not name '$3': $(cat "$work/err")"
	echo "refused: $(grep "$auth_handle" "$work/err")"
}
pull_err() { "$SKILLSYNC" pull >"$work/out" 2>"$work/err" || true; }

# Through getRepo?since: a commit signed by another key, two MST nodes swapped, an older
# commit replayed. Each: one line, nothing written, the next untampered pull converges.
tamper record "$auth_did"
edit auth mine "before the replay"
pull_json
edit auth mine "after the replay"
tamper replay "$auth_did"
pull_err
refused . "older than the verified revision"
grep -qx "before the replay" mine/SKILL.md || fail "the replayed pull wrote something"
tamper ""
pull_json
grep -qx "after the replay" mine/SKILL.md || fail "no convergence after the replay"
for kind in sig swap; do
	edit auth mine "tampered $kind"
	tamper "$kind" "$auth_did"
	pull_err
	case $kind in
	sig) refused . "signature does not match the #atproto key" ;;
	swap) refused . "CAR" ;;
	esac
	! grep -q "tampered $kind" mine/SKILL.md || fail "the $kind-tampered version was written"
	[ "$(git status --porcelain)" = "" ] || fail "the $kind-tampered pull changed the work tree"
	tamper ""
	pull_json
	grep -qx "tampered $kind" mine/SKILL.md || fail "no convergence after $kind"
done
# A record's block changed with its CID kept, in getRepo?since and in the getBlocks that asks for
# it again: that record alone is refused, named, with what was wrong with its block (exit 4: the
# server's data did not verify), another change of the same pull syncs, and the next untampered
# pull takes it.
edit auth mine "tampered block"
edit auth g-00007 "beside the tampered block"
tamper block "$auth_did" mine
rc=0
"$SKILLSYNC" pull >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 4 ] || fail "the pull with a tampered block exited $rc: $(cat "$work/err")"
refused . "the block the PDS sent for it does not hash to the record's CID" mine
! grep -q "tampered block" mine/SKILL.md || fail "the block-tampered version was written"
grep -qx "beside the tampered block" g-00007/SKILL.md || fail "the change beside the tampered block did not sync"
tamper ""
pull_json
grep -qx "tampered block" mine/SKILL.md || fail "no convergence after the tampered block"
# The block changed in getRepo?since only: the getBlocks that asks for it again gets the signed
# one, which is taken; the wrong answer is still told, one line naming the member and the
# record, and the pull exits 4 (docs/SECURITY.md, "A caught lie is still told").
edit auth mine "block once"
tamper block-since "$auth_did" mine
rc=0
"$SKILLSYNC" pull --quiet >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 4 ] || fail "the pull with a block wrong once exited $rc: $(cat "$work/err")"
refused . "getRepo sent for the record 'mine' does not hash to its CID .*read again, the member synced"
grep -qx "block once" mine/SKILL.md || fail "the signed block getBlocks served was not taken"
tamper ""
pull_json

# Through the whole repo (a fresh clone: the repo holds only skills, so it is read with one
# getRepo): a record's block changed with its CID kept is refused alone, not written, the rest
# syncs and the next pull takes it; a commit signed by another key fails the clone, one line.
cd "$work"
rm -rf c2
tamper block "$auth_did" g-00005
"$SKILLSYNC" clone "$auth_handle" c2 --member "$m2_handle" >"$work/out" 2>"$work/err" ||
	fail "the clone with a block tampered failed: $(cat "$work/err")"
refused . "the block the PDS sent for it does not hash to the record's CID" g-00005
[ ! -e c2/g-00005 ] && [ -f c2/g-00006/SKILL.md ] || fail "block: the tampered record was written or the rest was not"
tamper ""
(cd c2 && ss_run 0 "$SKILLSYNC" pull --json && cp "$work/stdout" "$work/pull.json")
[ -f c2/g-00005/SKILL.md ] || fail "no convergence after block"
[ "$(read_of "$auth_did")" = "repo True None" ] || fail "the pull after a refused record was not a whole read: $(read_of "$auth_did")"
rm -rf c2
tamper whole-sig "$auth_did"
"$SKILLSYNC" clone "$auth_handle" c2 --member "$m2_handle" >"$work/out" 2>"$work/err" &&
	fail "a clone took a commit signed by another key"
refused . "signature does not match the #atproto key"
[ ! -e c2 ] || fail "the refused clone left a directory"
tamper ""

# Through a listing (a fresh clone; the repo now also holds a record of another collection, so
# its skills are listed): a record's value changed with its CID kept, a CID changed: that
# record alone is refused and not written, the rest syncs, the next pull takes it.
ss_curl_auth "$(token auth)" -fsS -X POST -H 'Content-Type: application/json' \
	--data-binary "{\"repo\":\"$auth_did\",\"collection\":\"garden.engram.test\",\"record\":{\"text\":\"not a skill\"}}" \
	"$pds/xrpc/com.atproto.repo.createRecord" >/dev/null || fail "createRecord of another collection"
for kind in value cid; do
	rm -rf c2
	tamper "$kind" "$auth_did" g-00005
	"$SKILLSYNC" clone "$auth_handle" c2 --member "$m2_handle" >"$work/out" 2>"$work/err" ||
		fail "the clone with a $kind tampered failed: $(cat "$work/err")"
	refused . "not the signed version" g-00005
	[ ! -e c2/g-00005 ] && [ -f c2/g-00006/SKILL.md ] || fail "$kind: the tampered record was written or the rest was not"
	tamper ""
	(cd c2 && ss_run 0 "$SKILLSYNC" pull)
	[ -f c2/g-00005/SKILL.md ] || fail "no convergence after $kind"
done

# Once the kept keys are over the hour old, a pull reads the DID documents of the members it
# checks all at once, not one member after the other.
cd "$work/c"
python3 - "$(git rev-parse --git-dir)/skillsync/state.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE identities SET resolved_at = 0")
db.commit()
PY
edit auth mine "stale keys"
edit m2 m-keys "stale keys"
hold /did: 300
ss_run 0 "$SKILLSYNC" pull
held=$(held_at_once)
hold ""
grep -qx "stale keys" mine/SKILL.md && [ -f m-keys/SKILL.md ] || fail "the pull with stale keys is incomplete"
[ "$held" -ge 2 ] || fail "the members' DID documents were read one after the other ($held at once)"

# `skillsync verify`: every version checked again against the signed commits, offline from the
# node cache (the proxy, the only way to the PDS and the PLC, is stopped); a version the state
# holds that the signed tree does not name fails, with a line naming it, exit 1.
ss_proxy_stop
ss_run 0 "$SKILLSYNC" verify
grep -q "^ok   '$auth_handle': [0-9]* versions, signed by $auth_did at rev " "$work/stdout" ||
	fail "no signed-by line for the authority: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" show mine
grep -q "^    signed by $auth_did at rev [a-z2-7]\{13\}$" "$work/stdout" || fail "show does not say who signed: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" verify --json
python3 - "$work/stdout" <<'PY' || fail "verify --json: $(cat "$work/stdout")"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["ok"] is True and v["problems"] == [], v
assert all(m["rev"] and m["error"] is None for m in v["members"]), v
assert sum(m["versions"] for m in v["members"]) > 300, v
PY
python3 - "$(git rev-parse --git-dir)/skillsync/state.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE records SET cid = 'bafyreiaaaa' WHERE rkey = 'g-00007'")
db.commit()
PY
ss_run 1 "$SKILLSYNC" verify
grep -q "^FAIL 'g-00007' of '$auth_handle': " "$work/stdout" || fail "the changed version was not named: $(cat "$work/stdout")"

echo "verify: ok"
