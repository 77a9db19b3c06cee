#!/usr/bin/env bash
# needs: pds
# prompt: the <available_skills> block of a clone (docs/AGENTS.md): a description holding
# < & " ' escaped, a folded description's final newline and the space around it trimmed (as
# the reference implementation's to-prompt strips it), a disable-model-invocation skill left
# out, absolute SKILL.md paths that exist, and --json naming the same skills.
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture # ./space: the clone, with testdata's basic skills from the authority

mkdir -p tricky manual folded
printf -- '---\nname: tricky\ndescription: "Use for <b> & \\"quotes\\" '"'"'here'"'"'\\e[31m"\n---\n# Tricky\n' \
	>tricky/SKILL.md
printf -- '---\nname: manual\ndescription: Only by name.\ndisable-model-invocation: true\n---\n# M\n' \
	>manual/SKILL.md
printf -- '---\nname: folded\ndescription: >\n  Fills PDF forms\n  when asked.\n\n---\n# F\n' >folded/SKILL.md

ss_run 0 "$SKILLSYNC" prompt
out=$work/stdout
cp "$out" "$work/prompt.xml"
head -1 "$out" | grep -qx '<available_skills>' || fail "no opening tag: $(cat "$out")"
tail -1 "$out" | grep -qx '</available_skills>' || fail "no closing tag: $(cat "$out")"
grep -qF '<description>Use for &lt;b&gt; &amp; &quot;quotes&quot; &apos;here&apos;\x1b[31m</description>' "$out" ||
	fail "description not escaped: $(cat "$out")"
grep -qx '    <description>Fills PDF forms when asked.</description>' "$out" ||
	fail "folded description not trimmed: $(cat "$out")"
! grep -q '<name>manual</name>' "$out" || fail "a disable-model-invocation skill is offered"
grep -q '<name>pdf-forms</name>' "$out" || fail "pdf-forms missing: $(cat "$out")"
# The whole block is well-formed XML; every location is an absolute SKILL.md that exists.
python3 - "$work/prompt.xml" <<'PY' || fail "prompt output is not what an agent can read"
import os, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "available_skills"
for s in root:
    loc = s.findtext("location")
    assert os.path.isabs(loc) and loc.endswith("/SKILL.md") and os.path.isfile(loc), loc
    assert os.path.basename(os.path.dirname(loc)) == s.findtext("name"), loc
print(" ".join(sorted(s.findtext("name") for s in root)), file=open(sys.argv[1] + ".names", "w"))
PY

ss_run 0 "$SKILLSYNC" prompt --json
python3 - "$work/stdout" "$work/prompt.xml.names" <<'PY' || fail "--json differs: $(cat "$work/stdout")"
import json, sys
skills = json.load(open(sys.argv[1]))
names = " ".join(sorted(s["name"] for s in skills))
assert names == open(sys.argv[2]).read().strip(), names
t = [s for s in skills if s["name"] == "tricky"][0]
assert t["description"] == "Use for <b> & \"quotes\" 'here'\x1b[31m", t
f = [s for s in skills if s["name"] == "folded"][0]
assert f["description"] == "Fills PDF forms when asked.", f
PY

ss_run 129 "$SKILLSYNC" prompt --bogus
cd "$work" && ss_run 1 "$SKILLSYNC" prompt
