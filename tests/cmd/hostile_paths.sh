#!/usr/bin/env bash
# needs: pds
# Records whose paths libgit2 refuses or that other systems read differently, written straight
# to the PDS: names Windows or macOS read as .git (git~1, .git., ".git ", .g<U+200C>it), a
# 300-byte component, 200 components, two files differing only in case, a description of only
# white space, a license that would make SKILL.md too big for the reader. Clone and pull skip
# exactly those, one line each, and sync the rest.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SKILLSYNC_CONFIG_HOME=$work/config
ss_pds_env

ss_accounts . "" auth m1 me
for who in auth m1 me; do
	declare "${who}_handle=$(ss_json "$who.json" handle)" "${who}_did=$(ss_json "$who.json" did)"
done
SS_FILL_TOKEN=$(ss_json auth.json accessJwt) "$fill" --pds "$pds" --did "$(ss_json auth.json did)" \
	--put "$SS_TESTDATA"/skills/valid/basic/*/ >/dev/null

# rec <rkey> <files JSON> [<description>] [<license bytes>]: a record value, on stdout.
rec() {
	python3 - "$@" <<'PY'
import json, sys
rkey, files = sys.argv[1], json.loads(sys.argv[2])
desc = sys.argv[3] if len(sys.argv) > 3 else "d"
t = "2026-01-01T00:00:00.000Z"
value = {"$type": "garden.engram.skill", "name": rkey, "description": desc,
         "instructions": "x\n", "files": files, "createdAt": t, "updatedAt": t}
if len(sys.argv) > 4:
    value["frontmatter"] = {"license": "l" * int(sys.argv[4])}
print(json.dumps(value))
PY
}
# raw <rkey> <files JSON> [...]: m1's record rkey, written with putRecord without any check.
raw() {
	rec "$@" | python3 -c '
import json, os, sys, urllib.error, urllib.request
pds, did, rkey = sys.argv[1:4]
body = {"repo": did, "collection": "garden.engram.skill", "rkey": rkey,
        "record": json.load(sys.stdin), "validate": False}
req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.putRecord",
                             data=json.dumps(body).encode(),
                             headers={"content-type": "application/json",
                                      "authorization": "Bearer " + os.environ["SS_TOKEN"]})
try:
    urllib.request.urlopen(req, timeout=60).read()
except urllib.error.HTTPError as e:
    sys.exit(f"{e}: {e.read()[:300]}")' "$pds" "$m1_did" "$1" ||
		fail "putRecord $1"
}
export SS_TOKEN
SS_TOKEN=$(ss_json m1.json accessJwt)
file() { printf '[{"path":"%s","content":"x"}]' "$1"; }

raw fine "$(file notes.md)"
raw broken-later "$(file notes.md)"
raw ntfs-short "$(file git~1/config)"
raw ntfs-short-upper "$(file GIT~1/hooks/post-checkout)"
raw trailing-dot "$(file .git./config)"
raw trailing-space "$(file '.git /config')"
raw hfs-ignored "$(file '.g\u200cit/config')"
raw long-component "$(file "$(head -c 300 /dev/zero | tr '\0' c)/x")"
raw deep "$(file "$(printf 'd/%.0s' $(seq 199))f")"
raw case-clash '[{"path":"A.md","content":"x"},{"path":"a.md","content":"y"}]'
raw blank-description "$(file notes.md)" "   "
raw big-license "[]" d 600000
hostile="ntfs-short ntfs-short-upper trailing-dot trailing-space hfs-ignored long-component deep case-clash blank-description big-license"

# expect_skip <file> <rkey> <reason>: exactly one line for rkey, naming m1 and the reason.
expect_skip() {
	[ "$(grep -c "^warning: skipped '$2' of '$m1_handle': .*$3" "$1")" = 1 ] ||
		{ cat "$1"; fail "no one skip line for '$2' ($3)"; }
}
alias_msg="reads as '.git'"

SKILLSYNC_PASSWORD=$(ss_json me.json password) "$SKILLSYNC" login "$me_handle" >/dev/null
"$SKILLSYNC" clone "$auth_handle" space --member "$m1_handle" >out 2>err ||
	{ cat out err; fail "clone failed"; }
grep -q "(10 invalid records skipped)" out || { cat out err; fail "summary: $(cat out)"; }
[ "$(grep -c '^warning: skipped' err)" = 10 ] || { cat err; fail "expected 10 skip lines"; }
expect_skip err ntfs-short "$alias_msg"
expect_skip err ntfs-short-upper "$alias_msg"
expect_skip err trailing-dot "$alias_msg"
expect_skip err trailing-space "$alias_msg"
expect_skip err hfs-ignored "$alias_msg"
expect_skip err long-component "component longer than 255 bytes"
expect_skip err deep "more than 32 components"
expect_skip err case-clash "differs from 'A.md' only in case"
expect_skip err blank-description "description: must not be only white space"
expect_skip err big-license "SKILL.md: larger than 265536 bytes"

cd space
for name in $hostile; do
	[ ! -e "$name" ] || fail "hostile '$name' was checked out"
done
[ -f fine/notes.md ] && [ -f broken-later/notes.md ] || fail "the valid records were not synced"
[ -z "$(git status --porcelain)" ] || { git status; fail "git status not clean"; }
"$SKILLSYNC" status | grep -q "working tree clean" || fail "skillsync status not clean"

# pull: a new hostile record, and a valid one broken by an update, are skipped with one line
# each; a new valid one syncs.
raw another-alias "$(file 'x/GIT~1/config')"
raw newer "$(file notes.md)"
raw broken-later "$(file 'git~1 . /config')"
"$SKILLSYNC" pull >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err"; fail "pull failed"; }
expect_skip "$work/err" another-alias "$alias_msg"
expect_skip "$work/err" broken-later "$alias_msg"
[ "$(grep -c '^warning: skipped' "$work/err")" = 2 ] || { cat "$work/err"; fail "expected 2 skip lines on pull"; }
[ -f newer/notes.md ] || fail "the new valid record was not pulled"
[ ! -e another-alias ] || fail "another-alias was checked out"
[ -z "$(git status --porcelain)" ] || { git status; fail "git status not clean after pull"; }
echo "ok: hostile paths skipped on clone and pull, one line each"
