#!/usr/bin/env bash
# needs: pds
# Files a record's text cannot hold travel as blobs (docs/RECORD-FORMAT.md), over public repos:
# a skill with binaries (one executable), more than 32 files and a file over 200,000 bytes is
# pushed by one account and cloned byte for byte, executable bits included, by another; its
# record is valid under the lexicon, files[] keeps the 32 text files that fit. A no-change pull
# reads no blob; a change sends and reads only the changed blob, a move neither. A blob that
# does not hash to its CID, or that the PDS no longer has (said by the fault proxy, then really
# deleted from the PDS's blob store), is refused with one line naming the skill and the file,
# the last good version stays, and the next pull takes the new one. A push killed after
# its uploads loses nothing. The limits left are refused at commit with what to do. Last, the
# cost of a clone and a no-change pull of skills with blobs against the same skills without.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
check=$SS_SOURCE_DIR/tests/cmd/lexicon_check.py
lexicon=$SS_TESTDATA/lexicons/garden.engram.skill.json

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/blobs.sh"

ss_proxy_workdir
ss_accounts . "" auth me reader
for who in auth me reader; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done
as() {
	local who=$1
	shift
	SKILLSYNC_CONFIG_HOME=$work/config-$who "$SKILLSYNC" "$@"
}
for who in me reader; do
	SKILLSYNC_PASSWORD=$(ss_json "$who.json" password) as "$who" login "$(ss_json "$who.json" handle)" >/dev/null
done

record() { curl -sf "$pds/xrpc/com.atproto.repo.getRecord?repo=$me_did&collection=garden.engram.skill&rkey=$1"; }

as me clone "$auth_handle" space-me >/dev/null 2>&1 || fail "me: clone"
cd space-me
ss_kit kit 1
ss_run 0 as me commit -m "kit"
ss_run 0 as me push --dry-run
grep -qx "would create kit (11 files as blobs)" "$work/stdout" || fail "push --dry-run: $(cat "$work/stdout")"
ss_run 0 as me status
grep -q "push would send: create kit (11 files as blobs)$" "$work/stdout" || fail "status: $(cat "$work/stdout")"
ss_run 0 as me status --json
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["toPush"]; assert t == [{"op": "create", "name": "kit", "blobs": 11}], t' "$work/stdout" ||
	fail "status --json: $(cat "$work/stdout")"
ss_fault_clear
ss_run 0 as me push
[ "$(ss_requests /xrpc/com.atproto.repo.uploadBlob)" = 11 ] || fail "uploads: $(ss_requests /xrpc/com.atproto.repo.uploadBlob), not 11"

# The record: files[] holds the 32 text files that fit, blobFiles the other 11 by CID.
record kit >"$work/rec.json"
python3 - "$work/rec.json" "$work/values.json" <<'PY' || fail "record: $(head -c 600 "$work/rec.json")"
import base64, hashlib, json, sys
v = json.load(open(sys.argv[1]))["value"]
files = [f["path"] for f in v["files"]]
blobs = {b["path"]: b for b in v["blobFiles"]}
assert files == [f"refs/f{i:02d}.md" for i in range(32)], files
assert sorted(blobs) == ["bin/tool", "fonts/a.ttf"] + [f"refs/f{i:02d}.md" for i in range(32, 40)] + ["schema.xsd"], sorted(blobs)
assert blobs["bin/tool"].get("executable") is True and "executable" not in blobs["fonts/a.ttf"]
data = open("kit/fonts/a.ttf", "rb").read()
cid = "b" + base64.b32encode(bytes([1, 0x55, 0x12, 0x20]) + hashlib.sha256(data).digest()).decode().lower().rstrip("=")
ref = blobs["fonts/a.ttf"]["blob"]
assert ref["$type"] == "blob" and ref["ref"]["$link"] == cid and ref["size"] == len(data), ref
json.dump([v], open(sys.argv[2], "w"))
PY
python3 "$check" "$lexicon" "$work/values.json" || fail "lexicon check"

# Another account clones it byte for byte.
cd "$work"
ss_run 0 as reader clone "$auth_handle" space-reader --member "$me_handle"
ss_same space-me/kit space-reader/kit
[ "$(stat -c %a space-reader/kit/bin/tool)" = 755 ] || fail "bin/tool is not executable"

# A pull with no change reads no blob.
cd space-reader
ss_fault_clear
ss_run 0 as reader pull
[ "$(ss_requests /xrpc/com.atproto.sync.getBlob)" = 0 ] || fail "a no-change pull read blobs"

# travel <message> <uploads> <reads>: me commits what changed in its kit and pushes, the reader
# pulls: that many blobs went up, and down; the reader's kit is me's, byte for byte.
travel() {
	cd "$work/space-me"
	ss_run 0 as me commit -m "$1"
	ss_fault_clear
	ss_run 0 as me push
	[ "$(ss_requests /xrpc/com.atproto.repo.uploadBlob)" = "$2" ] ||
		fail "$1: $(ss_requests /xrpc/com.atproto.repo.uploadBlob) uploads, not $2"
	cd "$work/space-reader"
	ss_fault_clear
	ss_pull_accept as reader
	[ "$(ss_requests /xrpc/com.atproto.sync.getBlob)" = "$3" ] ||
		fail "$1: $(ss_requests /xrpc/com.atproto.sync.getBlob) blobs read, not $3"
	ss_same "$work/space-me/kit" kit
}


# One binary changed: one upload, one blob read.
printf 'new tail' >>"$work/space-me/kit/fonts/a.ttf"
travel "font" 1 1
[ "$held" = 1 ] || fail "another member's changed font was not held for review"
# A binary moved within the skill: its CID is known on both sides, nothing goes up or down.
mkdir "$work/space-me/kit/assets"
mv "$work/space-me/kit/fonts/a.ttf" "$work/space-me/kit/assets/a.ttf"
rmdir "$work/space-me/kit/fonts"
travel "move the font" 0 0
mkdir "$work/space-me/kit/fonts"
mv "$work/space-me/kit/assets/a.ttf" "$work/space-me/kit/fonts/a.ttf"
rmdir "$work/space-me/kit/assets"
travel "font back" 0 0

cd "$work/space-me"
printf 'x' >>kit/fonts/a.ttf
ss_run 0 as me commit -m "font again"
ss_run 0 as me push
cd "$work/space-reader"
curl -sf "$proxy/_fault/tamper?kind=blob&did=$me_did" >/dev/null
ss_refused fonts/a.ttf "its blob does not hash to the CID the record names" "$work/space-me" as reader

cd "$work/space-me"
printf 'y' >>kit/bin/tool
ss_run 0 as me commit -m "tool"
ss_run 0 as me push
cd "$work/space-reader"
curl -sf "$proxy/_fault/tamper?kind=blob-gone&did=$me_did" >/dev/null
ss_refused bin/tool "its blob .* could not be read: com.atproto.sync.getBlob: BlobNotFound" "$work/space-me" as reader

# A blob the PDS really lost (gone from its blob store on disk): refused the same way, the last
# good version kept; a new version of the file heals it.
cd "$work/space-me"
printf 'w' >>kit/fonts/a.ttf
ss_run 0 as me commit -m "font lost"
ss_run 0 as me push
cid=$(record kit | python3 -c 'import json,sys; print([b for b in json.load(sys.stdin)["value"]["blobFiles"] if b["path"] == "fonts/a.ttf"][0]["blob"]["ref"]["$link"])')
rm "$(dirname "$SS_PDS_INFO")/data/blobs/$me_did/$cid" || fail "no blob $cid in the PDS's blob store"
cd "$work/space-reader"
cp -r kit "$work/good"
rc=0
as reader pull >"$work/out" 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "a lost blob: pull exited $rc: $(cat "$work/out")"
grep -q "kit/fonts/a.ttf: its blob $cid could not be read: com.atproto.sync.getBlob: " "$work/out" ||
	fail "a lost blob: $(cat "$work/out")"
ss_same "$work/good" kit
rm -rf "$work/good"
cd "$work/space-me"
printf 'v' >>kit/fonts/a.ttf
ss_run 0 as me commit -m "font again, after the loss"
ss_run 0 as me push
cd "$work/space-reader"
ss_pull_accept as reader
ss_same "$work/space-me/kit" kit

# A push killed after its uploads, before its write: the next push completes it.
cd "$work/space-me"
printf 'z' >>kit/fonts/a.ttf
head -c 4000 /dev/urandom >kit/fonts/b.otf
ss_run 0 as me commit -m "fonts"
rc=0
SKILLSYNC_TEST_CRASH=after-blobs-1 as me push >"$work/out" 2>&1 || rc=$?
[ "$rc" = 137 ] || fail "the push was not killed (exit $rc): $(cat "$work/out")"
ss_run 0 as me push
ss_run 0 as me status
grep -q "up to date\|nothing to push" "$work/stdout" || fail "status after the rerun: $(cat "$work/stdout")"
cd "$work/space-reader"
ss_pull_accept as reader
ss_same "$work/space-me/kit" kit

# The limits left, at commit, one line each saying what to do.
cd "$work/space-me"
mkdir -p huge && printf -- '---\nname: huge\ndescription: Too big.\n---\nx\n' >huge/SKILL.md
head -c 5242881 /dev/zero >huge/data.bin
rc=0
as me commit -m huge >"$work/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "commit of a 5 MiB + 1 file exited $rc"
grep -q "^error: huge/data.bin: larger than 5242880 bytes (5242881), the most a PDS takes for one file: move it out of the skill" "$work/out" ||
	fail "huge: $(cat "$work/out")"
rm huge/data.bin && ln -s ../kit/schema.xsd huge/link.xsd
rc=0
as me commit -m link >"$work/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "commit of a symbolic link exited $rc"
grep -q "huge/link.xsd: symbolic link (a skill holds only regular files: put a copy of the file it points to in its place)" "$work/out" ||
	fail "link: $(cat "$work/out")"
rm -rf huge

# The cost: 10 skills with blobs (two binaries of 30 KB, 40 text files) against the same 10
# without their blob files (the 32 text files that fit), cloned then pulled with no change.
cost() {
	local who=$1 with=$2 t0 t1 t2
	ss_accounts "$work" "cost$with" "$who"
	SKILLSYNC_PASSWORD=$(ss_json "$work/$who.json" password) as "$who" login "$(ss_json "$work/$who.json" handle)" >/dev/null
	as "$who" clone "$auth_handle" "$work/cost-$who" >/dev/null 2>&1 || fail "cost: clone"
	cd "$work/cost-$who"
	for i in $(seq 10); do
		ss_kit "k$i" "$i"
		[ "$with" = 1 ] || rm -rf "k$i/bin" "k$i/fonts" "k$i/schema.xsd" "k$i"/refs/f3[2-9].md
	done
	ss_run 0 as "$who" commit -m cost
	ss_run 0 as "$who" push
	cd "$work"
	# straight to the PDS, not through the proxy
	t0=$(date +%s%N)
	SKILLSYNC_STATS=1 SKILLSYNC_PLC_URL=$plc SKILLSYNC_HANDLE_RESOLVER=$pds ss_run 0 as reader clone \
		"$auth_handle" "cost-read-$who" --member "$(ss_json "$work/$who.json" handle)"
	t1=$(date +%s%N)
	stats=$(grep "^stats:" "$work/stderr" || true)
	(cd "cost-read-$who" && SKILLSYNC_PLC_URL=$plc SKILLSYNC_HANDLE_RESOLVER=$pds ss_run 0 as reader pull --json)
	t2=$(date +%s%N)
	echo "cost: $([ "$with" = 1 ] && echo with || echo without) blobs: clone $(((t1 - t0) / 1000000)) ms ($stats), no-change pull $(((t2 - t1) / 1000000)) ms ($(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["requests"], "requests,", v["bytes"], "bytes")' "$work/stdout"))"
}
cost cw 1
cost co 0
echo "blobs: ok"
