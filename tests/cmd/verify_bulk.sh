#!/usr/bin/env bash
# needs: pds
# build: plain
# Incremental pull at scale (docs/CLONE.md, "Verification and incremental pull"): a member of
# 3,000 skills writes 1,000 new ones and deletes 10; the pull reads getRepo?since (one request
# for that member, bytes in proportion to the change, far below a full listing), verifies it,
# and lands exactly those changes.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_accounts "$work" bulk auth
auth_did=$(ss_field auth did)
gen() { SS_FILL_TOKEN=$(ss_field auth accessJwt) "$fill" --pds "$pds" --did "$auth_did" \
	--generate "$1" --prefix "$2" >/dev/null; }
gen 3000 g
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" c
cd c
[ "$(find . -mindepth 1 -maxdepth 1 -name 'g-*' | wc -l)" = 3000 ] || fail "the clone is incomplete"

gen 1000 k
for i in 00010 00020 00030 00040 00050 00060 00070 00080 00090 00100; do
	ss_curl_auth "$(ss_field auth accessJwt)" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$auth_did\",\"collection\":\"garden.engram.skill\",\"rkey\":\"g-$i\"}" \
		"$pds/xrpc/com.atproto.repo.deleteRecord" >/dev/null || fail "deleteRecord g-$i"
done
ss_run 0 "$SKILLSYNC" pull --json
python3 - "$work/stdout" <<'PY' || fail "the pull of 1,010 changes: $(cat "$work/stdout")"
import json, sys
r = json.load(open(sys.argv[1]))
f = r["fetch"]
print(f"1,000 new and 10 deleted among 3,000: {r['requests']} requests, {r['bytes']} bytes")
assert f["listings"] == {"full": 0, "incremental": 1, "fallback": 0}, f["listings"]
assert f["added"] == 1000 and f["removed"] == 10, f
assert r["requests"] <= 3, r["requests"]
PY
[ "$(find . -mindepth 1 -maxdepth 1 -name 'k-*' | wc -l)" = 1000 ] && [ ! -e g-00010 ] || fail "the changes did not land"
ss_run 0 "$SKILLSYNC" verify
echo "verify_bulk: ok"
