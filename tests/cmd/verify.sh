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

gen auth 300 g
gen m2 3 m
edit auth mine "first"
ss_run 0 "$SKILLSYNC" clone "$auth_handle" c --member "$m2_handle"
cd c
[ -f g-00007/SKILL.md ] && [ -f m-00001/SKILL.md ] && grep -qx first mine/SKILL.md || fail "the clone is incomplete"
[ -s "$(git rev-parse --git-dir)/skillsync/verified/${auth_did//:/_}.car" ] || fail "no node cache after the clone"

# 1 change among 301: getLatestCommit x2 + getRepo?since, bytes in proportion.
edit auth mine "second"
pull_json
grep -qx second mine/SKILL.md || fail "the change did not arrive"
[ "$(listings)" = "0 1 0" ] || fail "not one incremental listing: $(listings)"
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

# A `since` the server refuses: a full, verified listing, said in --json.
edit auth mine "third"
ss_fault 400 3 # the third request: getRepo?since (after 2 heads)
pull_json
ss_fault_clear
grep -qx third mine/SKILL.md || fail "the change did not arrive after the fallback"
[ "$(listings)" = "1 0 1" ] || fail "the refused since did not fall back: $(listings)"

echo "verify: ok"
