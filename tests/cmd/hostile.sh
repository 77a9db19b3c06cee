#!/usr/bin/env bash
# needs: pds
# build: plain
# The hostile corpus (testdata/hostile/): records a member writes straight to the PDS
# (records/<key>.json, putRecord without validation) and what the PDS itself would refuse to
# store, served by the fault proxy instead (served/<key>.json, raw bytes, plus a record over
# the PDS's 1,000,000-byte body limit made here). All at once beside 3,000 valid records of
# another member (and every record alone with SS_HOSTILE_EACH=1):
# clone succeeds (the member's repo read whole, then listed), skips each with one line naming
# the member and the record, writes nothing outside the clone, and keeps every valid skill;
# peak RSS stays under a loose bound.
# Then hostile SKILL.md files made locally (YAML bombs, deep nesting, huge keys and values):
# `validate` and `commit` refuse each with a message in bounded time and memory.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill
hostile=$SS_TESTDATA/hostile
# Loose bounds (the measured figures are in docs/RELIABILITY.md).
max_rss_kb=${SS_HOSTILE_MAX_RSS_KB:-400000}
max_seconds=${SS_HOSTILE_MAX_SECONDS:-20}

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_proxy_workdir
export SKILLSYNC_CONFIG_HOME=$work/config

ss_accounts . "" auth m1 m2 me
for who in auth m1 m2 me; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done
token() { ss_json "$work/$1.json" accessJwt; }

SS_FILL_TOKEN=$(token auth) "$fill" --pds "$pds" --did "$auth_did" \
	--put "$SS_TESTDATA"/skills/valid/basic/*/ >/dev/null
mkdir -p src/m1good
printf -- '---\nname: m1good\ndescription: The valid skill beside the hostile ones.\n---\nok\n' \
	>src/m1good/SKILL.md
SS_FILL_TOKEN=$(token m1) "$fill" --pds "$pds" --did "$m1_did" --put src/m1good >/dev/null
SKILLSYNC_PASSWORD=$(ss_json me.json password) "$SKILLSYNC" login "$me_handle" >/dev/null
touch out err usage served.jsonl

# Records made here rather than kept in testdata/ (their size).
gen=$work/gen
mkdir -p "$gen/records" "$gen/served"
python3 - "$gen" <<'PY'
import json, sys
gen = sys.argv[1]
T = "2026-01-01T00:00:00.000Z"
def rec(name, **kw):
    r = {"$type": "garden.engram.skill", "name": name, "description": "hostile",
         "instructions": "x", "createdAt": T, "updatedAt": T}
    r.update(kw)
    return r
out = {
    "oversize-file": rec("oversize-file", files=[{"path": "big.txt", "content": "b" * 250000}]),
    "oversize-instructions": rec("oversize-instructions", instructions="i" * 250000),
    "many-files": rec("many-files", files=[{"path": "f%05d.md" % i, "content": "x"}
                                           for i in range(10000)]),
}
for k, v in out.items():
    json.dump(v, open(f"{gen}/records/{k}.json", "w"))
# Over the PDS's 1,000,000-byte body limit: only a proxy can serve it.
json.dump(rec("over-one-megabyte", files=[{"path": "f%d.txt" % i, "content": "m" * 190000}
                                          for i in range(6)]),
          open(f"{gen}/served/over-one-megabyte.json", "w"))
PY

# raw <who> <key> <file>: the record written straight to the PDS, no validation.
cat >raw.py <<'PY'
import json, os, sys, urllib.request
pds, did, rkey, path = sys.argv[1:5]
method = "deleteRecord" if path == "-" else "putRecord"
body = {"repo": did, "collection": "garden.engram.skill", "rkey": rkey}
if method == "putRecord":
    body.update(record=json.load(open(path)), validate=False)
req = urllib.request.Request(pds + "/xrpc/com.atproto.repo." + method,
                             data=json.dumps(body).encode(),
                             headers={"content-type": "application/json",
                                      "authorization": "Bearer " + os.environ["SS_TOKEN"]})
urllib.request.urlopen(req, timeout=60).read()
PY
raw() { SS_TOKEN=$(token "$1") python3 raw.py "$pds" "$(ss_json "$work/$1.json" did)" "$2" "$3"; }
# entry <did> <key> <value-file>: one listRecords entry for the proxy, the value's bytes as
# they are (key uri-without-slash: a uri with no '/', so no key).
entry() {
	python3 - "$@" <<'PY'
import hashlib, sys
did, key, path = sys.argv[1:4]
uri = key if key == "uri-without-slash" else f"at://{did}/garden.engram.skill/{key}"
value = open(path, "rb").read().rstrip(b"\n")
cid = "bafyreihostile" + hashlib.sha256(key.encode()).hexdigest()[:20]
sys.stdout.buffer.write(b'{"uri":"%s","cid":"%s","value":%s}\n' % (uri.encode(), cid.encode(), value))
PY
}

# outside: everything in $work but the clone and the inputs, and the absolute path a record
# names: what a clone must never create.
outside() {
	find "$work" -mindepth 1 -maxdepth 1 ! -name c ! -name 'c.skillsync-partial' -printf '%f\n' | sort
	[ ! -e /tmp/skillsync-hostile-escaped ] || echo /tmp/skillsync-hostile-escaped
}

tried=0
# check <key> <label>: clone, then the case's verdict.
check() {
	local key=$1 problem="" before n
	rm -rf c c.skillsync-partial
	before=$(outside)
	"$SKILLSYNC" clone "$auth_handle" c --member "$m1_handle" >out 2>err || problem="clone failed: $(tail -n 2 err)"
	n=$(grep -c "'$key'" err || true)
	[ -n "$problem" ] || [ "$n" = 1 ] || problem="$n lines name '$key': $(cat err)"
	[ -n "$problem" ] || grep "'$key'" err | grep -q "$m1_handle" || problem="the line does not name the member: $(cat err)"
	[ -n "$problem" ] || [ ! -e "c/$key" ] || problem="'$key' was written"
	[ -n "$problem" ] || { [ -f c/m1good/SKILL.md ] && [ -f c/pdf-forms/SKILL.md ]; } ||
		problem="the valid skills are missing"
	[ "$(outside)" = "$before" ] || fail "'$key' wrote outside the clone: $(diff <(echo "$before") <(outside))"
	[ -z "$problem" ] || fail "$key: $problem"
	tried=$((tried + 1))
}

# alone: whether every key is tried alone too (SS_HOSTILE_EACH=1; all of them are tried at once
# below, with the same checks).
alone() { [ "${SS_HOSTILE_EACH:-0}" = 1 ]; }

# One at a time: written to the PDS, cloned, removed.
for f in "$hostile"/records/*.json "$gen"/records/*.json; do
	key=$(basename "$f" .json)
	alone || continue
	raw m1 "$key" "$f"
	check "$key"
	raw m1 "$key" -
done
# other_collection putRecord|deleteRecord: a record of another collection in m1's repo, or
# none. With one, m1's skills are listed (listRecords), not read whole (getRepo): the proxy
# serves its entries on a listing's page.
other_collection() {
	local record=""
	[ "$1" = deleteRecord ] || record=',"record":{"text":"not a skill"}'
	ss_curl_auth "$(token m1)" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$m1_did\",\"collection\":\"garden.engram.test\",\"rkey\":\"listed\"$record}" \
		"$pds/xrpc/com.atproto.repo.$1" >/dev/null || fail "$1 of another collection"
}
# One at a time: served by the proxy on m1's first page.
! alone || other_collection putRecord
printf '{"name":"uri-without-slash","description":"d","instructions":"x","createdAt":"%s","updatedAt":"%s"}\n' \
	2026-01-01T00:00:00.000Z 2026-01-01T00:00:00.000Z >"$gen/served/uri-without-slash.json"
for f in "$hostile"/served/*.json "$gen"/served/*.json; do
	key=$(basename "$f" .json)
	alone || continue
	entry "$m1_did" "$key" "$f" >served.jsonl
	ss_fault_serve "$m1_did" "$work/served.jsonl"
	check "$key"
	ss_fault_serve "$m1_did"
done
! alone || other_collection deleteRecord

# All at once, beside 3,000 valid records of m2: each skipped once, the rest synced, memory
# bounded.
SS_FILL_TOKEN=$(token m2) "$fill" --pds "$pds" --did "$m2_did" --generate 3000 --prefix gen \
	>/dev/null
expected=()
: >served.jsonl
for f in "$hostile"/records/*.json "$gen"/records/*.json; do
	key=$(basename "$f" .json)
	raw m1 "$key" "$f"
	expected+=("$key")
done
# clone_all <how>: a clone of the three members: each expected key skipped once naming m1, the
# rest synced, nothing written outside, memory bounded.
clone_all() {
	rm -rf c
	before=$(outside)
	/usr/bin/time -f '%M %e' -o usage "$SKILLSYNC" clone "$auth_handle" c --member "$m1_handle" \
		--member "$m2_handle" >out 2>err || { cat err; fail "the clone of everything ($1) failed"; }
	for key in "${expected[@]}"; do
		[ "$(grep -c "'$key'" err)" = 1 ] || fail "$1: '$key' not named once: $(cat err)"
		grep "'$key'" err | grep -q "'$m1_handle'" || fail "$1: the line for '$key' does not name the member"
		[ ! -e "c/$key" ] || fail "$1: '$key' was written"
	done
	[ "$(outside)" = "$before" ] || fail "the clone of everything ($1) wrote outside it"
	[ "$(find c -mindepth 1 -maxdepth 1 -name 'gen*' | wc -l)" = 3000 ] || fail "$1: not every generated skill is there"
	[ -f c/m1good/SKILL.md ] || fail "$1: m1good is missing"
	read -r rss secs < <(tail -n 1 usage)
	echo "all at once, $1: ${#expected[@]} hostile records skipped beside 3002 valid skills, peak RSS ${rss} KB, ${secs} s"
	((rss < max_rss_kb)) || fail "$1: peak RSS ${rss} KB over ${max_rss_kb} KB"
}
# m1's repo holds only skills: it is read whole (getRepo), each record from its block.
clone_all "whole repo"
# m1's repo also holds a record of another collection: its skills are listed, and the proxy
# serves the entries no PDS would store on its first page.
other_collection putRecord
for f in "$hostile"/served/*.json "$gen"/served/*.json; do
	key=$(basename "$f" .json)
	entry "$m1_did" "$key" "$f" >>served.jsonl
	expected+=("$key")
done
ss_fault_serve "$m1_did" "$work/served.jsonl"
clone_all "listed"
ss_fault_serve "$m1_did"

# Hostile SKILL.md files made locally: refused by validate and by commit, each in bounded time
# and memory.
cd c
python3 - <<'PY'
import os
def skill(name, text):
    os.makedirs(name, exist_ok=True)
    with open(f"{name}/SKILL.md", "w") as f:
        f.write(text)
head = "---\nname: %s\ndescription: d\n"
# A billion laughs: aliases nine deep.
bomb = head % "yaml-bomb" + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for i in range(ord("b"), ord("j") + 1):
    p = chr(i - 1)
    bomb += "%s: &%s [%s]\n" % (chr(i), chr(i), ",".join(["*" + p] * 9))
skill("yaml-bomb", bomb + "---\nbody\n")
# Under the size cap, so that the YAML reader itself meets them:
skill("deep-flow", head % "deep-flow" + "x: " + "[" * 100000 + "]" * 100000 + "\n---\nbody\n")
skill("deep-block", head % "deep-block" + "".join("  " * i + "k%d:\n" % i for i in range(300)) + "---\nbody\n")
skill("huge-key", head % "huge-key" + "k" * 250000 + ": v\n---\nbody\n")
skill("many-keys", head % "many-keys" + "".join("k%d: v\n" % i for i in range(25000)) + "k1: again\n---\nbody\n")
skill("many-anchors", head % "many-anchors" + "".join("a%d: &x%d v\n" % (i, i) for i in range(15000)) + "b: *x1\n---\nbody\n")
# Over it: refused before parsing.
skill("huge-value", head % "huge-value" + "v: " + "x" * 20000000 + "\n---\nbody\n")
skill("long-line", head % "long-line" + "---\n" + "y" * 30000000 + "\n")
PY
for s in yaml-bomb deep-flow deep-block huge-key many-keys many-anchors huge-value \
	long-line; do
	rc=0
	/usr/bin/time -f '%M %e' -o usage "$SKILLSYNC" validate "$s" >vout 2>&1 || rc=$?
	read -r rss secs < <(tail -n 1 usage)
	[ "$rc" = 1 ] || fail "validate $s: exit $rc: $(head -c 300 vout)"
	grep -q "^error: $s/SKILL.md: " vout || fail "validate $s: no line naming the file: $(head -c 300 vout)"
	((rss < max_rss_kb)) || fail "validate $s: peak RSS ${rss} KB"
	awk -v s="$secs" -v m="$max_seconds" 'BEGIN { exit !(s < m) }' || fail "validate $s: ${secs} s"
	rc=0
	/usr/bin/time -f '%M %e' -o usage "$SKILLSYNC" commit -m "hostile" "$s" >vout 2>&1 || rc=$?
	read -r rss2 secs2 < <(tail -n 1 usage)
	[ "$rc" = 1 ] || fail "commit $s: exit $rc"
	((rss2 < max_rss_kb)) || fail "commit $s: peak RSS ${rss2} KB"
	echo "local $s: refused by validate (${rss} KB, ${secs} s) and commit (${rss2} KB, ${secs2} s): $(grep -m1 "^error: $s/SKILL.md" vout | cut -c1-110)"
done
[ -z "$(git status --porcelain --untracked-files=no)" ] && [ "$(git log --format=%s -1)" != hostile ] ||
	fail "commit wrote something"

echo "hostile corpus: ${#expected[@]} records refused all at once; $tried refused alone"
