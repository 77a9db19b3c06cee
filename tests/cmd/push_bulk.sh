#!/usr/bin/env bash
# needs: pds
# Large pushes against the real PDS: 450 changed skills (split by 200 writes: 3 requests), and
# skills whose bodies sum past 1,000,000 bytes (split by size). Each is read back in full.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
check=$SS_SOURCE_DIR/tests/cmd/lexicon_check.py
lexicon=$SS_TESTDATA/lexicons/garden.engram.skill.json

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture

# all my records into $work/mine.json ({"records": [...]}, every page).
mine() { ss_records "$me_did" >"$work/mine.json"; }

# 450 new skills, then the same 450 changed: 3 requests each (200 + 200 + 50).
python3 - <<'PY'
import os
for i in range(450):
    n = f"bulk-{i:03d}"
    os.makedirs(n)
    with open(f"{n}/SKILL.md", "w") as f:
        f.write(f"---\nname: {n}\ndescription: Bulk skill {i}.\n---\n# {n}\n\nFirst version.\n")
PY
"$SKILLSYNC" commit -m "450 skills" >/dev/null || fail "commit 450"
"$SKILLSYNC" push >"$work/out" 2>&1 || fail "push 450: $(cat "$work/out")"
grep -q "pushed 450 changes in 3 requests" "$work/out" || fail "450 creates: $(tail -1 "$work/out")"
sed -i 's/^First version\.$/Second version./' bulk-*/SKILL.md
"$SKILLSYNC" commit -m "450 skills changed" >/dev/null || fail "commit 450 changed"
"$SKILLSYNC" push >"$work/out" 2>&1 || fail "push 450 updates: $(cat "$work/out")"
grep -q "pushed 450 changes in 3 requests" "$work/out" || fail "450 updates: $(tail -1 "$work/out")"
mine
python3 - "$work/mine.json" <<'PY' || fail "450 read back"
import json, sys
recs = {r["value"]["name"]: r["value"] for r in json.load(open(sys.argv[1]))["records"]}
assert len(recs) == 450, len(recs)
for name, v in recs.items():
    assert v["instructions"].endswith("Second version.\n"), (name, v["instructions"])
    assert v["createdAt"] != v["updatedAt"], (name, v)
    assert v["note"].startswith("450 skills changed"), v["note"]
PY
"$SKILLSYNC" status | grep -q "up to date with the space" || fail "status after 450"

# Bodies summing past 1,000,000 bytes: 12 skills of ~150,000 bytes each (1.8 MB) go in
# several requests, none over the PDS's limit (it would answer 413).
python3 - <<'PY'
import os
for i in range(12):
    n = f"big-{i:02d}"
    os.makedirs(n)
    line = f"Line of big skill {i}: " + "x" * 70 + "\n"
    body = line * (150000 // len(line))
    with open(f"{n}/SKILL.md", "w") as f:
        f.write(f"---\nname: {n}\ndescription: A big skill.\n---\n{body}")
PY
total=$(cat big-*/SKILL.md | wc -c)
[ "$total" -gt 1000000 ] || fail "the big skills are only $total bytes"
"$SKILLSYNC" commit -m "big skills" >/dev/null || fail "commit big"
"$SKILLSYNC" push >"$work/out" 2>&1 || fail "push big: $(cat "$work/out")"
requests=$(sed -n 's/^pushed 12 changes in \([0-9]*\) requests$/\1/p' "$work/out")
[ -n "$requests" ] && [ "$requests" -ge 2 ] || fail "big push: $(tail -1 "$work/out")"
mine
python3 - "$work/mine.json" <<'PY' || fail "big read back"
import json, os, sys
recs = {r["value"]["name"]: r["value"] for r in json.load(open(sys.argv[1]))["records"]}
for i in range(12):
    n = f"big-{i:02d}"
    body = open(f"{n}/SKILL.md").read().split("---\n", 2)[2]
    assert recs[n]["instructions"] == body, n
PY
python3 "$check" "$lexicon" "$work/mine.json" || fail "lexicon check"
echo "push_bulk: all checks passed ($requests requests for $total bytes)"
