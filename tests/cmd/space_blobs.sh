#!/usr/bin/env bash
# needs: pds
# Files a record's text cannot hold travel as blobs in a permissioned space (tests/spaces/
# host): a skill with binaries (one executable), more than 32 files and a file over 200,000
# bytes, pushed by one member (uploadBlob on its PDS, then the space write) and cloned byte for
# byte, executable bits included, by another (com.atproto.space.getBlob with the space's
# credential); a no-change pull reads no blob, a change reads only the changed one; a tampered
# blob and one the PDS no longer has are refused with one line, the last good version kept; a
# push killed after its uploads loses nothing. And what docs/SECURITY.md says of a space's
# blobs: the member's PDS serves them by CID without the space's credential, and push says so.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/blobs.sh"

ss_proxy_workdir
tmp=$work
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"
export SKILLSYNC_CONFIG_HOME=$work/config

ss_accounts "$work" sb auth m1 m2
sp_login auth m1 m2
uri=$(sp_space auth blobs m1 m2)
m1_did=$(did m1)


ss_run 0 "$SKILLSYNC" clone "$uri" c1 --as "$(handle m1)"
ss_run 0 "$SKILLSYNC" clone "$uri" c2 --as "$(handle m2)"
cd "$work/c1"
ss_kit kit 1
ss_run 0 "$SKILLSYNC" commit -m kit
ss_fault_clear
ss_run 0 "$SKILLSYNC" push
[ "$(ss_requests /xrpc/com.atproto.repo.uploadBlob)" = 11 ] || fail "uploads: $(ss_requests /xrpc/com.atproto.repo.uploadBlob)"
# push says, for a space, that the member's PDS serves these files to anyone by their CID
grep -q "11 files went up as blobs.*without the space's credential" "$work/stderr" "$work/stdout" ||
	fail "push does not say the blobs are readable: $(cat "$work/stdout" "$work/stderr")"

# The record in m1's space repo: 32 text files in files[], 11 in blobFiles.
sp_xrpc m1 GET com.atproto.space.getRecord "space=$uri&repo=$m1_did&collection=garden.engram.skill&rkey=kit" >"$work/rec.json"
python3 - "$work/rec.json" <<'PY' || fail "record: $(head -c 400 "$work/rec.json")"
import json, sys
v = json.load(open(sys.argv[1]))["value"]
assert len(v["files"]) == 32 and len(v["blobFiles"]) == 11, (len(v["files"]), len(v["blobFiles"]))
PY
cid=$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["value"]; print([b for b in v["blobFiles"] if b["path"]=="fonts/a.ttf"][0]["blob"]["ref"]["$link"])' "$work/rec.json")

# What docs/SECURITY.md says: m1's PDS serves the blob of a space record by its CID to anyone,
# no credential, no session; the space's own getBlob wants the credential.
curl -sf "$pds/xrpc/com.atproto.sync.getBlob?did=$m1_did&cid=$cid" -o "$work/leak" ||
	fail "com.atproto.sync.getBlob did not serve the space's blob (docs/SECURITY.md says it does)"
cmp -s "$work/leak" kit/fonts/a.ttf || fail "getBlob served other bytes"
code=$(curl -s -o /dev/null -w '%{http_code}' "$pds/xrpc/com.atproto.space.getBlob?space=$uri&repo=$m1_did&cid=$cid")
[ "$code" = 401 ] || [ "$code" = 400 ] || fail "the space's getBlob answered $code without a credential"

# m2 clones it byte for byte.
cd "$work"
rm -rf c2
ss_run 0 "$SKILLSYNC" clone "$uri" c2 --as "$(handle m2)"
ss_same c1/kit c2/kit
[ "$(stat -c %a c2/kit/bin/tool)" = 755 ] || fail "bin/tool is not executable"

# A no-change pull reads no blob; one binary changed is one upload and one blob read.
cd "$work/c2"
ss_fault_clear
ss_run 0 "$SKILLSYNC" pull
[ "$(ss_requests /xrpc/com.atproto.space.getBlob)" = 0 ] || fail "a no-change pull read blobs"
cd "$work/c1"
printf 'tail' >>kit/fonts/a.ttf
ss_run 0 "$SKILLSYNC" commit -m font
ss_fault_clear
ss_run 0 "$SKILLSYNC" push
[ "$(ss_requests /xrpc/com.atproto.repo.uploadBlob)" = 1 ] || fail "one change uploaded $(ss_requests /xrpc/com.atproto.repo.uploadBlob)"
cd "$work/c2"
ss_fault_clear
ss_pull_accept "$SKILLSYNC"
[ "$held" = 1 ] || fail "another member's changed font was not held for review"
[ "$(ss_requests /xrpc/com.atproto.space.getBlob)" = 1 ] || fail "one change read $(ss_requests /xrpc/com.atproto.space.getBlob) blobs"
ss_same "$work/c1/kit" kit

cd "$work/c1"
printf 'x' >>kit/fonts/a.ttf
ss_run 0 "$SKILLSYNC" commit -m "font again"
ss_run 0 "$SKILLSYNC" push
cd "$work/c2"
curl -sf "$proxy/_fault/tamper?kind=blob&did=$m1_did" >/dev/null
ss_refused fonts/a.ttf "its blob does not hash to the CID the record names" "$work/c1" "$SKILLSYNC"
cd "$work/c1"
printf 'y' >>kit/bin/tool
ss_run 0 "$SKILLSYNC" commit -m tool
ss_run 0 "$SKILLSYNC" push
cd "$work/c2"
curl -sf "$proxy/_fault/tamper?kind=blob-gone&did=$m1_did" >/dev/null
ss_refused bin/tool "its blob .* could not be read: com.atproto.space.getBlob: BlobNotFound" "$work/c1" "$SKILLSYNC"

# A push killed after its uploads, before its write: the next push completes it.
cd "$work/c1"
printf 'z' >>kit/fonts/a.ttf
head -c 4000 /dev/urandom >kit/fonts/b.otf
ss_run 0 "$SKILLSYNC" commit -m fonts
rc=0
SKILLSYNC_TEST_CRASH=after-blobs-1 "$SKILLSYNC" push >"$work/out" 2>&1 || rc=$?
[ "$rc" = 137 ] || fail "the push was not killed (exit $rc): $(cat "$work/out")"
ss_run 0 "$SKILLSYNC" push
cd "$work/c2"
ss_pull_accept "$SKILLSYNC"
ss_same "$work/c1/kit" kit
echo "space blobs: ok"
