#!/usr/bin/env bash
# End to end: `skillsync validate` over testdata: messages, summary, exit codes, --json.
set -euo pipefail

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every invalid case: exactly its expected lines, then the summary; exit 1.
for casedir in "$SS_TESTDATA"/skills/invalid/*/; do
	skill=$(find "$casedir" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
	set +e
	out=$(cd "$casedir" && "$SKILLSYNC" validate -- "$skill")
	rc=$?
	set -e
	[ "$rc" = 1 ] || fail "$casedir: exit $rc, want 1"
	want=$(cat "$casedir/expected"; echo "1 skill checked: 0 valid, 1 invalid")
	[ "$out" = "$want" ] || fail "$casedir: got
$out
want
$want"
done

# Every valid case: exit 0, only the expected warnings.
for casedir in "$SS_TESTDATA"/skills/valid/*/; do
	skill=$(find "$casedir" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
	out=$(cd "$casedir" && "$SKILLSYNC" validate "$skill") || fail "$casedir: not valid"
	want=$( ([ -f "$casedir/expected" ] && cat "$casedir/expected"); echo "1 skill checked: 1 valid, 0 invalid")
	[ "$out" = "$want" ] || fail "$casedir: got
$out
want
$want"
done

# A directory of skills, a SKILL.md path, the current directory, and full paths in messages.
out=$("$SKILLSYNC" validate "$SS_TESTDATA/demo/authority" "$SS_TESTDATA/demo/member1" \
	"$SS_TESTDATA/demo/member2")
[ "$out" = "10 skills checked: 10 valid, 0 invalid" ] || fail "demo: $out"
out=$("$SKILLSYNC" validate "$SS_TESTDATA/demo/authority/pdf-forms/SKILL.md")
[ "$out" = "1 skill checked: 1 valid, 0 invalid" ] || fail "SKILL.md path: $out"
out=$(cd "$SS_TESTDATA/demo/member2" && "$SKILLSYNC" validate)
[ "$out" = "3 skills checked: 3 valid, 0 invalid" ] || fail "default path: $out"

cp -r "$SS_TESTDATA/demo/member1" "$tmp/skills"
cp -r "$SS_TESTDATA/skills/invalid/name-mismatch/pdf" "$tmp/skills/pdf"
mkdir "$tmp/skills/not-a-skill" "$tmp/skills/.hidden"
echo x >"$tmp/skills/not-a-skill/notes.txt"
set +e
out=$("$SKILLSYNC" validate "$tmp/skills")
rc=$?
set -e
[ "$rc" = 1 ] || fail "mixed: exit $rc"
want="error: $tmp/skills/not-a-skill: no SKILL.md (not a skill directory)
error: $tmp/skills/pdf/SKILL.md: name: 'pdf-forms' does not match the directory name 'pdf'
5 skills checked: 3 valid, 2 invalid"
[ "$out" = "$want" ] || fail "mixed: got
$out
want
$want"

# --json: one object per skill per line, each parses, fields as documented.
set +e
"$SKILLSYNC" validate --json "$tmp/skills" >"$tmp/out.jsonl"
rc=$?
set -e
[ "$rc" = 1 ] || fail "--json: exit $rc"
python3 - "$tmp/out.jsonl" "$tmp/skills" <<'PY' || fail "--json output"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert len(rows) == 5, rows
by = {r["name"]: r for r in rows}
assert by["csv-report"]["valid"] is True and by["csv-report"]["errors"] == []
pdf = by["pdf"]
assert pdf["valid"] is False and pdf["path"] == sys.argv[2] + "/pdf", pdf
assert pdf["errors"] == [{"file": sys.argv[2] + "/pdf/SKILL.md", "field": "name",
    "message": "'pdf-forms' does not match the directory name 'pdf'"}], pdf
assert by["not-a-skill"]["valid"] is False
PY
out=$(cd "$SS_TESTDATA/skills/valid/lenient-description" && "$SKILLSYNC" validate --json lenient-desc)
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["valid"] and len(r["warnings"]) == 1 and r["warnings"][0]["field"] is None, r' "$out" ||
	fail "--json warnings: $out"

# --json, byte for byte (cmd/json_out.c): a quote, a backslash, control characters and a byte
# that is not UTF-8 escaped, in values and inside a message; commas between members and none
# after the last; an empty array; one line per skill.
odd=$(printf 'q"b\\c\t\001\377x')
mkdir -p "$tmp/odd/$odd" "$tmp/odd/ok"
printf -- '---\nname: other\ndescription: A skill.\n---\nbody\n' >"$tmp/odd/$odd/SKILL.md"
printf -- '---\nname: ok\ndescription: A skill.\n---\nbody\n' >"$tmp/odd/ok/SKILL.md"
set +e
out=$(cd "$tmp/odd" && "$SKILLSYNC" validate --json "$odd" ok)
set -e
want=$(cat <<'EOF'
{"path":"q\"b\\c\t\u0001\ufffdx","name":"q\"b\\c\t\u0001\ufffdx","valid":false,"errors":[{"file":"q\"b\\c\t\u0001\ufffdx/SKILL.md","field":"name","message":"'other' does not match the directory name 'q\"b\\c\t\u0001\ufffdx'"}],"warnings":[]}
{"path":"ok","name":"ok","valid":true,"errors":[],"warnings":[]}
EOF
)
[ "$out" = "$want" ] || fail "--json bytes: got
$out
want
$want"

# Bad options and paths.
set +e
"$SKILLSYNC" validate --bogus >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 129 ] || fail "--bogus: exit $rc"
grep -q "unknown option '--bogus'" "$tmp/err" || fail "--bogus: $(cat "$tmp/err")"
set +e
"$SKILLSYNC" validate "$tmp/missing" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "missing path: exit $rc"
grep -q "^skillsync: cannot read '$tmp/missing': No such file or directory" "$tmp/err" ||
	fail "missing path: $(cat "$tmp/err")"
"$SKILLSYNC" validate --help | grep -q '^usage: skillsync validate' || fail "--help"
echo "validate: ok"
