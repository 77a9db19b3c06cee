#!/usr/bin/env bash
# needs: pds
# Every --json output parses, with the top-level fields docs/JSON.md documents: validate,
# whoami, ls, show, status, diff, log, fetch, pull, push, members, card, space create, space
# members, on one small clone; a clean status byte for byte. (SS_JSON_DUMP=<dir> keeps each
# output, for the examples.)
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
ss_sandbox

# check <name> <shape> <field>...: $work/stdout parses as <shape> (object; array: each
# element an object with the fields, at least one element; lines: one object a line) and has
# every field.
check() {
	local name=$1
	shift
	[ -z "${SS_JSON_DUMP:-}" ] || cp "$work/stdout" "$SS_JSON_DUMP/$name.json"
	python3 - "$work/stdout" "$@" <<'PY' || fail "$name --json: $(cat "$work/stdout")"
import json, sys
path, shape, fields = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(path).read()
if shape == "lines":
    items = [json.loads(l) for l in text.splitlines() if l.strip()]
else:
    doc = json.loads(text)
    items = doc if shape == "array" else [doc]
    assert isinstance(doc, list if shape == "array" else dict), f"not a JSON {shape}"
assert items, "no element"
for it in items:
    missing = [f for f in fields if f not in it]
    assert not missing, f"missing {missing} in {it}"
PY
}

ss_run 0 "$SKILLSYNC" validate --json "$SS_TESTDATA/skills/valid/basic"
check validate lines path name valid errors warnings
ss_push_fixture # ./space: me's clone of the authority's skills
# A clean clone's status, byte for byte: the writer's commas and empty arrays inside an object.
ss_run 0 "$SKILLSYNC" status --json
[ "$(cat "$work/stdout")" = '{"branch":"main","interrupted":false,"blocked":null,"pullPaths":[],"merging":false,"changes":[],"unmerged":[],"toPush":[],"unpushedCommits":[],"behind":0,"waiting":0,"pinned":[],"notices":[],"invalid":[],"refused":[]}' ] ||
	fail "status --json: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" whoami --json
check whoami array did handle pds session scope
ss_run 0 "$SKILLSYNC" ls --json
check ls array name winner shadows
ss_run 0 "$SKILLSYNC" show pdf-forms --json
check show object name winner shadows
ss_skill mine "first"
ss_run 0 "$SKILLSYNC" status --json
check status object branch interrupted merging changes unmerged toPush unpushedCommits behind notices invalid
ss_run 0 "$SKILLSYNC" diff --json
check diff array name change outside added removed changed lines files
ss_run 0 "$SKILLSYNC" commit -m "mine: a first skill"
ss_run 0 "$SKILLSYNC" push --json
check push object dryRun recovered sent requests writes notices outside
ss_run 0 "$SKILLSYNC" log --json
check log array commit kind merged date author subject message
ss_auth_change "from the authority"
ss_run 0 "$SKILLSYNC" fetch --json
check fetch object recovered fetch requests error
python3 - "$work/stdout" <<'PY' || fail "fetch --json: no fetch.reads of the member that moved: $(cat "$work/stdout")"
import json, sys
reads = json.load(open(sys.argv[1]))["fetch"]["reads"]
assert reads and all(set(r) == {"did", "path", "verified", "fallback"} for r in reads), reads
assert all(r["path"] in ("full", "since", "ops", "car") for r in reads), reads
PY
ss_run 0 "$SKILLSYNC" pull --json
check pull object recovered fetch merge requests error
ss_run 0 "$SKILLSYNC" members --json
check members array did handle role rev
ss_run 0 "$SKILLSYNC" card --json
check card object card leftOut published
ss_run 0 "$SKILLSYNC" space create demo --json
check space-create object uri readPolicy writePolicy
ss_run 0 "$SKILLSYNC" space members add "$(ss_json "$work/auth.json" did)" --space demo
ss_run 0 "$SKILLSYNC" space members --space demo --json
check space-members array did handle read write
ss_run 0 "$SKILLSYNC" link --json
check link object copy global auto folders
ss_run 0 "$SKILLSYNC" unlink --json
check unlink object removed left
echo ok
