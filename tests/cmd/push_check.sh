#!/usr/bin/env bash
# needs: pds
# push checks every skill it would send before it sends anything, and says every problem at
# once: with invalid skills committed by plain git beside valid ones, `status` and
# `push --dry-run` name each refused skill and each of its problems (text and --json), `push`
# names them all in one run (exit 1) and sends nothing, not even the valid skills beside them
# (a push sends HEAD whole); once they are fixed, one push sends everything. Then the
# frontmatter the reference validator accepts and skillsync used to refuse: allowed-tools as a
# list, metadata values that are not strings, committed, pushed and cloned back as lists.
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture # ./space: the clone; me signed in

ss_skill good-one "One."
ss_skill good-two "Two."
mkdir -p no-desc wrong-name linked
printf -- '---\nname: no-desc\n---\n# N\n' >no-desc/SKILL.md
printf -- '---\nname: other-name\ndescription: Named wrong.\n---\n# W\n' >wrong-name/SKILL.md
printf -- '---\nname: linked\ndescription: ""\n---\n# L\n' >linked/SKILL.md
ln -s /etc/passwd linked/passwd
git add -A && git commit -qm "skills, two valid, three not"

problems=(
	"no-desc/SKILL.md: description: missing"
	"wrong-name/SKILL.md: name: 'other-name' does not match the directory name 'wrong-name'"
	"linked/passwd: is a symbolic link: only regular files can be pushed"
	"linked/SKILL.md: description: must not be empty"
)
has_all() { # <file> <prefix>: every problem, each on a line of its own
	for p in "${problems[@]}"; do
		grep -qxF "$2$p" "$1" || fail "'$2$p' missing: $(cat "$1")"
	done
}
records() { ss_records "$me_did" | python3 -c 'import json,sys; print(" ".join(sorted(r["uri"].rsplit("/",1)[1] for r in json.load(sys.stdin)["records"])))'; }

# status: what push would refuse, every problem (it reports, it does not fail)
ss_run 0 "$SKILLSYNC" status
grep -qx "Push would refuse 3 skills, and send nothing until they are fixed:" "$work/stdout" ||
	fail "status: $(cat "$work/stdout")"
has_all "$work/stdout" "  "
ss_run 0 "$SKILLSYNC" status --json
python3 - "$work/stdout" <<'PY' || fail "status --json: $(cat "$work/stdout")"
import json, sys
s = json.load(open(sys.argv[1]))
ref = {r["name"]: r["problems"] for r in s["refused"]}
assert sorted(ref) == ["linked", "no-desc", "wrong-name"], ref
assert len(ref["linked"]) == 2, ref
assert {w["name"] for w in s["toPush"]} >= {"good-one", "good-two", "no-desc"}, s["toPush"]
PY

# push --dry-run: the same checks, every problem, exit 1; the valid skills are still listed
ss_run 1 "$SKILLSYNC" push --dry-run
has_all "$work/stderr" "error: "
tail -1 "$work/stderr" | grep -qx "skillsync: 3 skills cannot be pushed: nothing would be sent; fix them, then commit and push again" ||
	fail "dry-run's last line: $(cat "$work/stderr")"
grep -qx "would create good-one" "$work/stdout" || fail "dry-run: $(cat "$work/stdout")"
! grep -q "would create no-desc" "$work/stdout" || fail "dry-run promises a refused skill"
ss_run 1 "$SKILLSYNC" push --dry-run --json
python3 - "$work/stdout" <<'PY' || fail "push --dry-run --json: $(cat "$work/stdout")"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["dryRun"] is True and p["sent"] == 0
assert sorted(r["name"] for r in p["refused"]) == ["linked", "no-desc", "wrong-name"], p
PY

# push: every problem in one run, nothing sent (not even the valid skills)
ss_run 1 "$SKILLSYNC" push
has_all "$work/stderr" "error: "
[ "$(grep -c '^error: ' "$work/stderr")" = 4 ] || fail "push: $(cat "$work/stderr")"
tail -1 "$work/stderr" | grep -qx "skillsync: 3 skills cannot be pushed: nothing was sent; fix them, then commit and push again" ||
	fail "push's last line: $(cat "$work/stderr")"
[ -z "$(records)" ] || fail "a refused push sent records: $(records)"

# fixed in one round: one push sends everything
printf -- '---\nname: no-desc\ndescription: Now described.\n---\n# N\n' >no-desc/SKILL.md
sed -i 's/^name: other-name/name: wrong-name/' wrong-name/SKILL.md
rm linked/passwd
printf -- '---\nname: linked\ndescription: Linked.\n---\n# L\n' >linked/SKILL.md
git add -A && git commit -qm "fix them"
ss_run 0 "$SKILLSYNC" status
! grep -q "Push would refuse" "$work/stdout" || fail "status after the fix: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" push --dry-run
ss_run 0 "$SKILLSYNC" push
[ "$(records)" = "good-one good-two linked no-desc wrong-name" ] || fail "pushed: $(records)"

# allowed-tools as a YAML list (Claude Code's form) and metadata values that are not strings:
# the reference validator accepts them, so commit does (with warnings for metadata), the record
# carries them as JSON as written, and another clone gets the list back as a list
mkdir -p tools
printf -- '---\nname: tools\ndescription: Lists its tools.\nallowed-tools:\n  - Read\n  - Bash(git status:*)\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n# T\n' >tools/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "tools" tools
grep -qxF "warning: tools/SKILL.md: metadata: value of 'tags' should be a string, not list (kept as written)" "$work/stderr" ||
	fail "commit's warnings: $(cat "$work/stderr" "$work/stdout")"
ss_run 0 "$SKILLSYNC" push
ss_records "$me_did" | python3 -c '
import json, sys
r = [r["value"] for r in json.load(sys.stdin)["records"] if r["uri"].endswith("/tools")][0]
fm = r["frontmatter"]
assert fm["allowed-tools"] == ["Read", "Bash(git status:*)"], fm
assert fm["metadata"] == {"version": 2, "tags": ["a", "b"]}, fm
' || fail "the record's frontmatter"
cd "$work" && "$SKILLSYNC" clone "$(ss_json "$work/auth.json" handle)" again >/dev/null 2>&1 || fail "second clone"
# the frontmatter as another clone writes it: as written, or in block YAML (each item on a line)
sed -n '/^allowed-tools:$/,/^[a-z]/p' again/tools/SKILL.md | grep -qx '  - Bash(git status:\*)' ||
	fail "the list in another clone: $(cat again/tools/SKILL.md)"
grep -qx '  tags: \[a, b\]' again/tools/SKILL.md || sed -n '/^  tags:$/,$p' again/tools/SKILL.md | grep -qx '    - b' ||
	fail "metadata's list in another clone: $(cat again/tools/SKILL.md)"
