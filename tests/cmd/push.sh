#!/usr/bin/env bash
# needs: pds
# `skillsync commit`, `diff`, `status`, `push` against the real PDS: create, update, delete,
# rename, an edit of someone else's skill, each read back from the PDS; the notes; datetimes;
# every pushed record checked against the lexicon; nothing to push sends nothing; a concurrent
# writer between fetch and push is refused with nothing written, then lands after a pull.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill
valid=$SS_TESTDATA/skills/valid
check=$SS_SOURCE_DIR/tests/cmd/lexicon_check.py
lexicon=$SS_TESTDATA/lexicons/garden.engram.skill.json

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox

ss_accounts . "" auth m1 me
for who in auth m1 me; do
	declare "${who}_did=$(ss_json "$work/$who.json" did)" "${who}_handle=$(ss_json "$work/$who.json" handle)"
done
put() {
	local who=$1 when=$2
	shift 2
	SS_FILL_TOKEN=$(ss_json "$work/$who.json" accessJwt) "$fill" --pds "$pds" --did "$(ss_json "$work/$who.json" did)" \
		--updated-at "$when" --put "$@" >/dev/null
}
sk() { for d in "$valid/$1"/*/; do echo "${d%/}"; done; }
renamed() {
	local dst=$work/src/$2
	rm -rf "$dst"
	mkdir -p "$work/src"
	cp -r "$1" "$dst"
	sed -i "s/^name: .*/name: $2/" "$dst/SKILL.md"
	echo "$dst"
}
# get <did> <rkey>: the record's value as JSON, or "missing".
get() {
	curl -s "$pds/xrpc/com.atproto.repo.getRecord?repo=$1&collection=garden.engram.skill&rkey=$2" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["value"]) if "value" in d else "missing")'
}
val() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); print(v.get(sys.argv[2], ""))' "$1" "$2"; }
rev() { curl -sf "$pds/xrpc/com.atproto.sync.getLatestCommit?did=$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])'; }
listmine() {
	curl -sf "$pds/xrpc/com.atproto.repo.listRecords?repo=$me_did&collection=garden.engram.skill&limit=100"
}
is_time() { [[ $1 =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$ ]]; }
tv() { "$SKILLSYNC" "$@" 2>&1; }

old=2026-01-01T00:00:00.000Z
put auth "$old" "$(renamed "$(sk basic)" theirs)" "$(renamed "$(sk crlf)" authonly)"
put m1 "$old" "$(renamed "$(sk non-ascii)" shared)"
put me "$old" "$(renamed "$(sk nested-files)" shared)" "$(renamed "$(sk basic)" mine)"

# The lexicon checker itself must catch a bad record.
echo '[{"name":"x","description":"d","instructions":"i","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00.000Z","files":[{"path":"a"}]}]' >bad.json
python3 "$check" "$lexicon" bad.json >bad.out 2>&1 && fail "the lexicon checker passed a bad record"
grep -q "files\[0\]: required field 'content' missing" bad.out || fail "checker: $(cat bad.out)"
grep -q "not in the form" bad.out || fail "checker datetime: $(cat bad.out)"

SKILLSYNC_PASSWORD=$(ss_json "$work/me.json" password) "$SKILLSYNC" login "$me_handle" >/dev/null
"$SKILLSYNC" clone "$auth_handle" space --member "$m1_handle" >/dev/null 2>&1 || fail "clone"
cd space

# Nothing to push: no write request (my repo's revision does not move).
r0=$(rev "$me_did")
tv push >"$work/out" || fail "push: $(cat "$work/out")"
grep -q "^everything up to date" "$work/out" || fail "nothing to push: $(cat "$work/out")"
[ "$(rev "$me_did")" = "$r0" ] || fail "an empty push wrote"

# commit refuses an invalid skill with one line per problem, and commits nothing.
mkdir bad && printf -- '---\nname: Bad_Name\n---\nx\n' >bad/SKILL.md
head=$(git rev-parse HEAD)
tv commit -m "bad" >"$work/out" && fail "commit accepted an invalid skill"
grep -q "^error: bad/SKILL.md: name: " "$work/out" || fail "no name line: $(cat "$work/out")"
grep -q "^error: bad/SKILL.md: description: missing" "$work/out" || fail "no description line: $(cat "$work/out")"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "an invalid commit moved main"
"$SKILLSYNC" status | grep -q "^bad/SKILL.md: description: missing" || fail "status does not list the invalid skill"
rm -rf bad
# no message and no terminal: one clear line
echo x >>mine/SKILL.md
tv commit </dev/null >"$work/out" && fail "commit without a message"
grep -q "no commit message" "$work/out" || fail "message: $(cat "$work/out")"
git checkout -q -- mine

# diff --stat marks each file with git's letters: A added, M modified, D deleted.
echo x >>mine/SKILL.md
echo note >mine/notes.md
rm shared/references/api/errors.md
git add -A
"$SKILLSYNC" diff --staged --stat >"$work/out" || fail "diff --stat: $(cat "$work/out")"
grep -qx "  M SKILL.md (+1 -0)" "$work/out" || fail "diff --stat modified: $(cat "$work/out")"
grep -qx "  A notes.md (+1 -0)" "$work/out" || fail "diff --stat added: $(cat "$work/out")"
grep -qx "  D references/api/errors.md (+0 -[1-9][0-9]*)" "$work/out" ||
	fail "diff --stat deleted: $(cat "$work/out")"
[ "$(grep -c '^  [ADM] ' "$work/out")" = 3 ] || fail "diff --stat: $(cat "$work/out")"
# staged changes of a skill not named refuse the commit (it commits HEAD's tree with only the
# named skills rebuilt, so they must not be left behind silently)
tv commit -m "only shared" shared >"$work/out" && fail "commit left mine's staged changes out"
grep -q "'mine' has staged changes that are not among the skills named" "$work/out" ||
	fail "refusal: $(cat "$work/out")"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "a refused commit moved main"
git reset -q --hard

# create + update + edit of someone else's + an outside file, in two commits.
mkdir -p fresh/scripts
printf -- '---\nname: fresh\ndescription: A fresh skill.\n---\n# Fresh\n\n## Step 1\nDo it.\n' >fresh/SKILL.md
printf '#!/bin/sh\necho ok\n' >fresh/scripts/run.sh && chmod +x fresh/scripts/run.sh
printf '\n## Step 9\nAdded by me.\n' >>mine/SKILL.md
echo "notes for people" >README.md
tv commit -m "Add fresh, extend mine" >"$work/out" || fail "commit: $(cat "$work/out")"
grep -q "'README.md' is outside skill directories: committed, never pushed" "$work/out" || fail "outside note: $(cat "$work/out")"
printf '\nMy tweak.\n' >>theirs/SKILL.md
tv commit -m "Tweak theirs" theirs >"$work/out" || fail "commit theirs: $(cat "$work/out")"
[ -z "$(git status --porcelain)" ] || fail "not everything committed"

# status and diff --pushed say what push will send.
"$SKILLSYNC" status >"$work/st"
grep -q "Your branch has 2 commits not yet pushed; push would send: create fresh, update mine, create theirs" "$work/st" ||
	fail "status: $(cat "$work/st")"
"$SKILLSYNC" diff --pushed --json >"$work/d.json"
python3 - "$work/d.json" "$auth_handle" <<'PY' || fail "diff --pushed --json"
import json, sys
d = {g["name"]: g for g in json.load(open(sys.argv[1]))}
assert set(d) == {"fresh", "mine", "theirs"}, d.keys()
assert d["fresh"]["op"] == "create" and d["fresh"]["added"] == 2, d["fresh"]
assert d["mine"]["op"] == "update" and d["mine"]["lines"] == {"added": 3, "removed": 0}, d["mine"]
assert d["theirs"]["op"] == "create" and "own version of %s's" % sys.argv[2] in d["theirs"]["note"], d["theirs"]
PY
"$SKILLSYNC" diff --pushed mine | grep -q "^+## Step 9" || fail "diff --pushed mine"

r0=$(rev "$me_did")
before_mine=$(get "$me_did" mine)
tv push >"$work/out" || fail "push: $(cat "$work/out")"
grep -q "pushed 3 changes in 1 request" "$work/out" || fail "push output: $(cat "$work/out")"
[ "$(rev "$me_did")" != "$r0" ] || fail "push did not write"

# Read back: fresh is created, mine updated (createdAt kept), theirs is my own version.
v=$(get "$me_did" fresh)
[ "$(val "$v" name)" = fresh ] && [ "$(val "$v" description)" = "A fresh skill." ] || fail "fresh: $v"
python3 -c 'import json,sys; v=json.loads(sys.argv[1]); f=v["files"]; assert f==[{"path":"scripts/run.sh","content":"#!/bin/sh\necho ok\n","executable":True}], f' "$v" ||
	fail "fresh files: $v"
is_time "$(val "$v" createdAt)" && [ "$(val "$v" createdAt)" = "$(val "$v" updatedAt)" ] || fail "fresh times: $v"
note=$(val "$v" note)
[[ $note == "Add fresh, extend mine"* ]] && [[ $note == *"new skill"* ]] || fail "fresh note: $note"
v=$(get "$me_did" mine)
[ "$(val "$v" createdAt)" = "$old" ] || fail "mine lost its createdAt: $v"
is_time "$(val "$v" updatedAt)" && [ "$(val "$v" updatedAt)" != "$old" ] || fail "mine updatedAt: $v"
note=$(val "$v" note)
[[ $note == "Add fresh, extend mine"* ]] && [[ $note == *"SKILL.md: "*"'Step 9' extended (+3 lines)"* ]] || fail "mine note: $note"
[[ $note != *"Tweak theirs"* ]] || fail "mine's note names a commit that did not touch it: $note"
[[ "$(val "$v" instructions)" == *"Added by me."* ]] || fail "mine not updated"
v=$(get "$me_did" theirs)
[[ "$(val "$v" instructions)" == *"My tweak."* ]] || fail "theirs: $v"
note=$(val "$v" note)
[[ $note == "Tweak theirs"* ]] && [[ $note == *"own version of $auth_handle's"* ]] || fail "theirs note: $note"
[[ "$(val "$(get "$auth_did" theirs)" instructions)" != *"My tweak."* ]] || fail "the authority's record changed"
[ "$(get "$me_did" README.md)" = missing ] || fail "README was pushed"

# After the push: clean, up to date, and nothing more to send.
"$SKILLSYNC" status >"$work/st"
grep -q "Your branch is up to date with the space." "$work/st" && grep -q "working tree clean" "$work/st" || fail "status after push: $(cat "$work/st")"
"$SKILLSYNC" ls | grep -q "^theirs  *mine" || fail "ls: theirs is not mine"
r1=$(rev "$me_did")
tv push | grep -q "everything up to date" || fail "second push"
[ "$(rev "$me_did")" = "$r1" ] || fail "a second push wrote"
# The space now holds exactly main's skills (README.md stays outside): the tracking ref simply
# names main's commit, as git push moves origin/main; no merge commit.
[ "$(git rev-parse refs/remotes/space/main)" = "$(git rev-parse HEAD)" ] || fail "tracking is not main after the push"
[ "$(git log --merges --format=%s)" = "" ] || fail "merge commits after a plain push: $(git log --merges --oneline)"

# Delete: my version of shared (m1 has one: it will apply); authonly is not mine (nothing sent).
# The same commit edits fresh: a later note of fresh must not repeat this sent commit's subject.
git rm -rq shared authonly
printf '\n## Step 2\nCheck it.\n' >>fresh/SKILL.md
"$SKILLSYNC" status >"$work/st"
grep -q "'shared': deleting your version; $m1_handle's version will apply" "$work/st" || fail "status delete: $(cat "$work/st")"
grep -q "'authonly': deleted here, but it is $auth_handle's skill" "$work/st" || fail "status not mine: $(cat "$work/st")"
tv commit -m "Drop shared and authonly" >"$work/out" || fail "commit delete: $(cat "$work/out")"
tv push >"$work/out" || fail "push delete: $(cat "$work/out")"
grep -q "'shared': deleting your version; $m1_handle's version will apply" "$work/out" || fail "push delete: $(cat "$work/out")"
grep -q "'authonly': deleted here, but it is $auth_handle's skill" "$work/out" || fail "push not mine: $(cat "$work/out")"
# authonly stays in the space's view but not on main: two lines really differ, so main merges
# the push's tracking commit, changing no file.
[ "$(git show -s --format=%P HEAD | wc -w)" = 2 ] || fail "main does not merge the push's tracking commit"
[ "$(git diff HEAD^1 HEAD --stat)" = "" ] || fail "the push's merge changed files"
git merge-base --is-ancestor refs/remotes/space/main HEAD || fail "tracking not in main"
[ ! -e authonly ] || fail "the push's merge brought authonly back"
[ "$(get "$me_did" shared)" = missing ] || fail "my shared still there"
[ "$(get "$m1_did" shared)" != missing ] || fail "m1's shared was deleted"
[ "$(get "$auth_did" authonly)" != missing ] || fail "the authority's authonly was deleted"
# As the notice said, m1's version of shared applies: the next pull brings it, then rests.
tv pull >"$work/out" || fail "pull after the delete: $(cat "$work/out")"
grep -q "added *shared ($m1_handle)" "$work/out" || fail "pull after the delete said: $(cat "$work/out")"
"$SKILLSYNC" ls | grep -q "^shared  *newest  *$m1_handle" || fail "ls after the delete: $("$SKILLSYNC" ls)"
grep -q "こんにちは" shared/SKILL.md || fail "shared is not m1's version: $(cat shared/SKILL.md)"
[ "$(git status --porcelain)" = "" ] || fail "not clean after the delete's pull: $(git status --short)"
tv pull | grep -q "already up to date" || fail "a second pull after the delete changed something"

# Rename: mine -> mine-renamed is a delete + a create whose note says where it came from.
git mv mine mine-renamed
sed -i 's/^name: mine$/name: mine-renamed/' mine-renamed/SKILL.md
tv commit -m "Rename mine" >"$work/out" || fail "commit rename: $(cat "$work/out")"
tv push >"$work/out" || fail "push rename: $(cat "$work/out")"
grep -q "create mine-renamed (renamed from mine)" "$work/out" || fail "rename output: $(cat "$work/out")"
[ "$(get "$me_did" mine)" = missing ] || fail "old name still there"
v=$(get "$me_did" mine-renamed)
[[ "$(val "$v" note)" == *"renamed from 'mine'"* ]] || fail "rename note: $v"
[[ "$(val "$v" instructions)" == *"Added by me."* ]] || fail "renamed content: $v"

# Every record of mine is valid against the lexicon.
listmine >"$work/mine.json"
python3 "$check" "$lexicon" "$work/mine.json" || fail "lexicon check"
[ "$(python3 -c 'import json,sys; print(sorted(r["value"]["name"] for r in json.load(open(sys.argv[1]))["records"]))' "$work/mine.json")" = "['fresh', 'mine-renamed', 'theirs']" ] ||
	fail "my records: $(cat "$work/mine.json")"

# A concurrent writer: another device writes to my repo after the last fetch.
"$SKILLSYNC" push >/dev/null
printf '\nLocal edit.\n' >>fresh/SKILL.md
tv commit -m "Edit fresh" >/dev/null
put me 2026-02-02T00:00:00.000Z "$(renamed "$(sk crlf)" from-elsewhere)"
r0=$(rev "$me_did")
fresh_before=$(get "$me_did" fresh)
set +e
tv push >"$work/out"
rc=$?
set -e
[ "$rc" = 3 ] || fail "concurrent writer: exit $rc: $(cat "$work/out")"
grep -q "run 'skillsync pull' first" "$work/out" || fail "message: $(cat "$work/out")"
[ "$(rev "$me_did")" = "$r0" ] && [ "$(get "$me_did" fresh)" = "$fresh_before" ] || fail "something was written"
"$SKILLSYNC" status >"$work/st"
grep -q "Your branch has 1 commit not yet pushed; push would send: update fresh" "$work/st" ||
	fail "status before the pull: $(cat "$work/st")"
tv pull >"$work/out" || fail "pull: $(cat "$work/out")"
[ -d from-elsewhere ] || fail "pull did not bring from-elsewhere"
[ "$(git show -s --format=%P HEAD | wc -w)" = 2 ] || fail "the pull did not merge: $(cat "$work/out")"
grep -q "Local edit." fresh/SKILL.md || fail "the pull lost the local edit"
r0=$(rev "$me_did")
tv push >"$work/out" || fail "push after pull: $(cat "$work/out")"
grep -q "^update fresh$" "$work/out" && grep -q "pushed 1 change in 1 request" "$work/out" ||
	fail "push after pull sent: $(cat "$work/out")"
[ "$(rev "$me_did")" != "$r0" ] || fail "the push after the pull did not write"
v=$(get "$me_did" fresh)
[[ "$(val "$v" instructions)" == *"Local edit."* ]] || fail "did not land: $v"
[[ "$(val "$v" note)" == "Edit fresh"* ]] || fail "the landed note: $(val "$v" note)"
[[ "$(val "$v" note)" != *"Drop shared"* ]] || fail "the note repeats a sent commit: $(val "$v" note)"
[ "$(val "$(get "$me_did" from-elsewhere)" updatedAt)" = 2026-02-02T00:00:00.000Z ] ||
	fail "the other device's record was rewritten"
tv push | grep -q "everything up to date" || fail "push after pull+push"
listmine >"$work/mine.json"
python3 "$check" "$lexicon" "$work/mine.json" || fail "lexicon check (end)"
echo "push: all checks passed"
