#!/usr/bin/env bash
# needs: pds
# build: plain
# The public transport's hostile corpus (testdata/hostile/, and the large records
# tests/cmd/hostile.sh makes) written into a member's repo in a permissioned space through
# the test host's rawWrite knob (no check of key, type or size): records/ as JSON values,
# served/ (what no PDS would store: invalid UTF-8, duplicate keys, huge integers...) as raw
# bytes served as the value. A clone by another member skips each with one line naming the
# member and the record, writes nothing outside the clone, and keeps every valid skill. A host
# that replays m1's older signed set once, then answers honestly, is told (one line, exit 4).
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /tmp/skillsync-hostile-escaped' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" sph auth m1 me
sp_login auth m1 me
cd "$tmp"
uri=$(sp_space auth hostile m1 me)
sp_put auth "$uri" auth-good 2026-01-01T00:00:00Z "by auth"
sp_put m1 "$uri" m1good 2026-01-01T00:00:00Z "by m1"

# Every hostile record into m1's repo, in one raw write; the keys expected, one a line.
python3 - "$SS_TESTDATA/hostile" "$uri" "$(did m1)" >"$tmp/raw.json" 3>"$tmp/keys" <<'PY'
import base64, glob, json, os, sys
hostile, space, repo = sys.argv[1:4]
T = "2026-01-01T00:00:00.000Z"
def rec(name, **kw):
    r = {"$type": "garden.engram.skill", "name": name, "description": "hostile",
         "instructions": "x", "createdAt": T, "updatedAt": T}
    r.update(kw)
    return r
writes, keys = [], []
def add(key, **w):
    writes.append(dict(collection="garden.engram.skill", rkey=key, **w))
    keys.append(key)
for f in sorted(glob.glob(hostile + "/records/*.json")):
    add(os.path.basename(f)[:-5], value=json.load(open(f)))
add("oversize-file", value=rec("oversize-file", files=[{"path": "big.txt", "content": "b" * 250000}]))
add("oversize-instructions", value=rec("oversize-instructions", instructions="i" * 250000))
add("many-files", value=rec("many-files", files=[{"path": "f%05d.md" % i, "content": "x"} for i in range(10000)]))
for f in sorted(glob.glob(hostile + "/served/*.json")):
    raw = open(f, "rb").read().rstrip(b"\n")
    add(os.path.basename(f)[:-5], raw=base64.b64encode(raw).decode())
json.dump({"space": space, "repo": repo, "writes": writes}, sys.stdout)
with os.fdopen(3, "w") as k:
    k.write("\n".join(keys) + "\n")
PY
sp_knob rawWrite "@$tmp/raw.json" >/dev/null || fail "rawWrite"

ss_run 0 "$SKILLSYNC" clone "$uri" c --as "$(handle me)"
m1h=$(handle m1)
n=0
while read -r key; do
	[ "$(grep -c "'$key'" "$tmp/stderr")" = 1 ] || fail "'$key' not named once: $(cat "$tmp/stderr")"
	grep "'$key'" "$tmp/stderr" | grep -q "$m1h" || fail "the line for '$key' does not name the member"
	[ ! -e "c/$key" ] || fail "'$key' was written"
	n=$((n + 1))
done <"$tmp/keys"
[ -f c/m1good/SKILL.md ] && [ -f c/auth-good/SKILL.md ] || fail "the valid skills are missing"
[ ! -e /tmp/skillsync-hostile-escaped ] || fail "a record wrote outside the clone"
[ -z "$(find "$tmp" -mindepth 1 -maxdepth 1 ! -name c ! -name config ! -name '*.json' ! -name keys ! -name stdout ! -name stderr)" ] ||
	fail "something was written beside the clone: $(ls "$tmp")"
# A pull after m1 writes one more (valid) record reads the ops, the hostile ones skipped again
# only if they changed: nothing more is named.
sp_put m1 "$uri" m1late 2026-01-02T00:00:00Z "late"
cd c
ss_run 0 "$SKILLSYNC" pull
[ -f m1late/SKILL.md ] || fail "the pull after the corpus did not bring m1late"

# A host that lies once, then answers honestly (docs/SECURITY.md, "A caught lie is still
# told"): m1's set is kept aside (the snapshot knob), m1 writes again and the pull takes it (its
# verified floor rises); then the host lists m1 at the kept revision and answers one
# listRepoOps with ops folding m1 back to the kept set under its genuinely signed commit (the
# rollback knob, once), honest after that. The pull refuses the ops and reads m1 in full
# (getRepo, honest): nothing rolls back, but it says so in one line naming m1 and what was
# wrong (also with --quiet; in --json's fetch.failed) and exits 4. The pull after is clean.
knob="{\"space\":\"$uri\",\"repo\":\"$(did m1)\""
sp_knob snapshot "$knob}" >/dev/null
sp_put m1 "$uri" m1late 2026-01-03T00:00:00Z "later"
ss_run 0 "$SKILLSYNC" pull --quiet
[ "$(sp_line . m1late)" = later ] || fail "m1's later write did not arrive"
sp_knob rollback "$knob,\"on\":true,\"once\":true}" >/dev/null
ss_run 4 "$SKILLSYNC" pull --quiet
[ "$(grep -c . "$tmp/stderr")" = 1 ] &&
	grep -q "^warning: '$m1h': its server sent what does not verify (.*older than the verified revision .*): refused; read again, the member synced\$" "$tmp/stderr" ||
	fail "the replay once was not told in one line naming m1: $(cat "$tmp/stderr")"
echo "  told: $(cat "$tmp/stderr")"
[ "$(sp_line . m1late)" = later ] || fail "the replayed older version came back"
ss_run 0 "$SKILLSYNC" pull
[ ! -s "$tmp/stderr" ] || fail "the honest pull after the replay said: $(cat "$tmp/stderr")"
sp_knob rollback "$knob,\"on\":true,\"once\":true}" >/dev/null
ss_run 4 "$SKILLSYNC" pull --json
python3 - "$tmp/stdout" "$(did m1)" <<'PY' || fail "pull --json does not name the replay: $(cat "$tmp/stdout")"
import json, sys
f = json.load(open(sys.argv[1]))["fetch"]
failed = [x for x in f["failed"] if x["did"] == sys.argv[2]]
assert len(failed) == 1 and "older than the verified revision" in failed[0]["reason"], f["failed"]
assert [r["path"] for r in f["reads"] if r["did"] == sys.argv[2]] == ["car"], f["reads"]
PY
grep -q "older than the verified revision" "$tmp/stderr" || fail "pull --json said nothing on stderr"
ss_run 0 "$SKILLSYNC" pull
[ ! -s "$tmp/stderr" ] && [ "$(sp_line . m1late)" = later ] || fail "the honest pull after: $(cat "$tmp/stderr")"
echo "ok: $n hostile records in a space repo skipped; a replay once told"
