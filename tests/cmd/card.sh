#!/usr/bin/env bash
# needs: pds
# `skillsync card` against the real PDS: the card built from a clone's view (mine first, a long
# non-ASCII description cut on a grapheme boundary, tags and examples from metadata), its
# settings kept in the clone, published and read back valid by the lexicon (test-side
# checker), a card changed elsewhere refused without --force (createdAt kept), more than 50
# skills (the others named), another account's hostile card shown escaped and an invalid one
# refused, the A2A card checked against the A2A schema, and a permissioned space's clone.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
check=$SS_SOURCE_DIR/tests/cmd/lexicon_check.py
lexicon=$SS_TESTDATA/lexicons/site.filae.agent.card.json
schema=$SS_TESTDATA/a2a/agent-card.schema.json
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture # accounts auth (pdf-forms) and me; cwd: me's clone
top=$work
auth_did=$(ss_json "$top/auth.json" did)
auth_handle=$(ss_json "$top/auth.json" handle)
me_handle=$(ss_json "$top/me.json" handle)
esc=$(printf '\033')

# py <code> <args>: a small Python check; fails the script with its message.
py() {
	local code=$1
	shift
	python3 -c "$code" "$@" || fail "check failed: $code"
}
# card_of <did>: the record value of <did>'s card, as JSON.
card_of() {
	curl -fsS "$pds/xrpc/com.atproto.repo.getRecord?repo=$1&collection=site.filae.agent.card&rkey=self" |
		python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["value"]))'
}
# put_card <who> <json file>: a card written straight to the PDS, bypassing every check.
put_card() {
	python3 - "$(ss_json "$top/$1.json" did)" "$2" <<'PY' >"$top/body.json"
import json, sys
print(json.dumps({"repo": sys.argv[1], "collection": "site.filae.agent.card", "rkey": "self",
                  "record": json.load(open(sys.argv[2])), "validate": False}))
PY
	ss_curl_auth "$(ss_json "$top/$1.json" accessJwt)" -fsS -o /dev/null -X POST \
		-H 'content-type: application/json' --data-binary "@$top/body.json" \
		"$pds/xrpc/com.atproto.repo.putRecord" || fail "putRecord card as $1"
}

# A skill of mine: a 600-byte description of e + combining acute, a ZWJ family and CJK; tags
# and examples in metadata.
desc=$(python3 -c 'print("Fills forms " + "e\u0301" * 150 + "\U0001F468\u200d\U0001F469" * 5 + "\u6f22" * 20)')
mkdir mine-forms
cat >mine-forms/SKILL.md <<EOF2
---
name: mine-forms
description: "$desc"
metadata:
  tags: "pdf, forms, ,paperwork"
  examples: "Fill in the tax form\nSign the lease\n"
---
# Mine
EOF2
ss_run 0 "$SKILLSYNC" commit -m "mine"
ss_run 0 "$SKILLSYNC" push

# The card from the clone: both skills, mine first; the settings kept.
# The agent's name: CJK, a combining mark, a ZWJ emoji (26 graphemes, 41 bytes).
name=$(python3 -c 'print("Forms agent \u6f22\u5b57 e\u0301 \U0001F468\u200d\U0001F469 1234567")')
ss_run 1 "$SKILLSYNC" card --show "$auth_handle"
grep -q "has published no agent card" "$top/stderr" || fail "no card: $(cat "$top/stderr")"
ss_run 0 "$SKILLSYNC" card --name "$name" --url https://agent.example/ --json
cp "$top/stdout" "$top/card1.json"
py '
import json, sys
d = json.load(open(sys.argv[1]))
c, desc = d["card"], sys.argv[2]
assert [s["id"] for s in c["skills"]] == ["mine-forms", "pdf-forms"], c["skills"]
s = c["skills"][0]
got = s["description"]
assert len(got.encode()) <= 500 and got.endswith("\u2026"), got
prefix = got[:-1]
assert desc.startswith(prefix) and not prefix.endswith("e") and not prefix.endswith("\u200d"), prefix
assert s["tags"] == ["pdf", "forms", "paperwork"], s["tags"]
assert s["examples"] == ["Fill in the tax form", "Sign the lease"], s["examples"]
assert c["name"] == sys.argv[3] and c["url"] == "https://agent.example/", c
assert c["capabilities"]["protocols"] == ["atproto"] and c["capabilities"]["statefulness"] == "persistent"
assert d["leftOut"] == [] and d["published"] is None
' "$top/card1.json" "$desc" "$name"
echo "[$(py 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["card"]))' "$top/card1.json")]" >"$top/built.json"
python3 "$check" "$lexicon" "$top/built.json" >/dev/null 2>&1 || fail "built card invalid: $(python3 "$check" "$lexicon" "$top/built.json")"
ss_run 0 "$SKILLSYNC" card --mine --json
py 'import json,sys; d=json.load(open(sys.argv[1])); assert [s["id"] for s in d["card"]["skills"]] == ["mine-forms"]; assert d["card"]["name"] == sys.argv[2], "settings not kept"' "$top/stdout" "$name"
# A name over 50 graphemes (but under 100 bytes) is refused, and not kept.
ss_run 1 "$SKILLSYNC" card --name "$(printf 'a%.0s' {1..51})"
grep -q "graphemes" "$top/stderr" || fail "long name: $(cat "$top/stderr")"
ss_run 0 "$SKILLSYNC" card
# (text output escapes U+200D, an invisible format control, by core/util/utf8.h's rule)
zwj=$(printf '\342\200\215')
grep -qF "name:         ${name/$zwj/'\xe2\x80\x8d'}" "$top/stdout" || fail "text: $(cat "$top/stdout")"

# Published, read back, valid by the lexicon.
ss_run 0 "$SKILLSYNC" card --publish
grep -q "^published the card with 2 skills: at://$me_did/site.filae.agent.card/self" "$top/stdout" || fail "publish: $(cat "$top/stdout")"
echo "[$(card_of "$me_did")]" >"$top/pub.json"
python3 "$check" "$lexicon" "$top/pub.json" >"$top/check.out" 2>&1 || fail "published card invalid: $(cat "$top/check.out")"
created=$(py 'import json,sys; print(json.load(open(sys.argv[1]))[0]["createdAt"])' "$top/pub.json")
# Again: it replaces its own card, createdAt kept.
ss_run 0 "$SKILLSYNC" card --publish --description "Fills forms."
[ "$(card_of "$me_did" | py 'import json,sys; v=json.load(sys.stdin); print(v["createdAt"], v["description"])')" = "$created Fills forms." ] ||
	fail "republish: $(card_of "$me_did")"

# Someone changes the card elsewhere: refused without --force, nothing written.
card_of "$me_did" | py 'import json,sys; v=json.load(sys.stdin); v["name"]="Changed elsewhere"; v["createdAt"]="2020-01-01T00:00:00.000Z"; print(json.dumps(v))' >"$top/changed.json"
put_card me "$top/changed.json"
ss_run 3 "$SKILLSYNC" card --publish
grep -q -- "--force" "$top/stderr" || fail "conflict message: $(cat "$top/stderr")"
card_of "$me_did" | grep -q "Changed elsewhere" || fail "the refused publish wrote"
ss_run 0 "$SKILLSYNC" card --publish --force
card_of "$me_did" | py 'import json,sys; v=json.load(sys.stdin); assert v["name"] == sys.argv[1], v; assert v["createdAt"] == "2020-01-01T00:00:00.000Z", v' "$name"

# card.auto: push publishes the card again when what it says changed, and only then; the
# card's own write leaves the clone knowing my repo's head, so the next push needs no pull
# (the change made elsewhere above does: pulled first).
ss_run 0 "$SKILLSYNC" pull
ss_run 0 "$SKILLSYNC" card --publish --auto --mine
ss_run 0 "$SKILLSYNC" push --dry-run
mkdir auto-new
printf -- '---\nname: auto-new\ndescription: Added after the card.\n---\nbody\n' >auto-new/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "auto-new"
ss_run 0 "$SKILLSYNC" push
grep -q "^card: published again with 2 skills (card.auto): at://$me_did/site.filae.agent.card/self" "$top/stderr" ||
	fail "card.auto after a new skill: $(cat "$top/stderr")"
card_of "$me_did" | py 'import json,sys; v=json.load(sys.stdin); assert [s["id"] for s in v["skills"]] == ["auto-new", "mine-forms"], v["skills"]'
echo "more body" >>auto-new/SKILL.md
ss_run 0 "$SKILLSYNC" commit -m "auto-new: body only"
ss_run 0 "$SKILLSYNC" push
! grep -q "^card:" "$top/stderr" || fail "card.auto republished an unchanged card: $(cat "$top/stderr")"
ss_run 0 "$SKILLSYNC" card --no-auto
rm -r auto-new
ss_run 0 "$SKILLSYNC" commit -m "auto-new gone"
ss_run 0 "$SKILLSYNC" push
! grep -q "^card:" "$top/stderr" || fail "card --no-auto still publishes: $(cat "$top/stderr")"
card_of "$me_did" | grep -q '"auto-new"' || fail "the card changed after --no-auto"

# More than 50 skills: 50 in the card, the others named on stderr and in --json.
mkdir -p "$top/many"
for i in $(seq -w 1 52); do
	mkdir -p "$top/many/extra-$i"
	printf -- '---\nname: extra-%s\ndescription: Extra %s.\n---\nbody\n' "$i" "$i" >"$top/many/extra-$i/SKILL.md"
done
SS_FILL_TOKEN=$(ss_json "$top/auth.json" accessJwt) "$fill" --pds "$pds" --did "$auth_did" "$top"/many/*/ >/dev/null
ss_run 0 "$SKILLSYNC" pull
ss_run 0 "$SKILLSYNC" card --json
py '
import json, sys
d = json.load(open(sys.argv[1]))
ids = [s["id"] for s in d["card"]["skills"]]
assert len(ids) == 50 and ids[0] == "mine-forms", ids
assert [x["name"] for x in d["leftOut"]] == ["extra-50", "extra-51", "extra-52", "pdf-forms"], d["leftOut"]
assert all(x["reason"] == "the card holds at most 50 skills" for x in d["leftOut"])
' "$top/stdout"
grep -q "left out of the card: 'pdf-forms': the card holds at most 50 skills" "$top/stderr" || fail "left out: $(cat "$top/stderr")"

# Another account's hostile card, shown escaped; an invalid one refused with its problems.
python3 - >"$top/hostile.json" <<'PY'
import json
print(json.dumps({"$type": "site.filae.agent.card", "name": "Evil\u001b]0;pwned\u0007",
                  "description": "line\n\u001b[2Jforged\u009b31m", "version": "1",
                  "createdAt": "2026-01-01T00:00:00.000Z",
                  "skills": [{"id": "x\u001b[31m", "name": "x", "description": "\u202eevil"}]}))
PY
put_card auth "$top/hostile.json"
ss_run 0 "$SKILLSYNC" card --show "$auth_handle"
! grep -q "$esc" "$top/stdout" || fail "--show printed a raw escape: $(cat -v "$top/stdout")"
! grep -q "^forged" "$top/stdout" || fail "--show printed a forged line"
grep -q 'Evil\\x1b\]0;pwned\\x07' "$top/stdout" || fail "--show: $(cat -v "$top/stdout")"
ss_run 0 "$SKILLSYNC" card --show "$auth_did" --json
! grep -q "$esc" "$top/stdout" || fail "--show --json printed a raw escape"
py 'import json,sys; v=json.load(open(sys.argv[1])); assert v["name"] == "Evil\u001b]0;pwned\u0007", v' "$top/stdout"
python3 -c 'import json; print(json.dumps({"$type": "site.filae.agent.card", "name": "a" * 51, "description": "d", "version": "1", "createdAt": "2026-01-01T00:00:00.000Z"}))' >"$top/invalid.json"
put_card auth "$top/invalid.json"
ss_run 1 "$SKILLSYNC" card --show "$auth_handle"
grep -q "name: longer than 50 graphemes (51)" "$top/stderr" || fail "invalid card: $(cat "$top/stderr")"
[ ! -s "$top/stdout" ] || fail "an invalid card was printed"
ss_run 129 "$SKILLSYNC" card --show "$me_handle" --publish

# The A2A card: checked field by field against the A2A schema; --out writes it atomically.
cat >"$top/a2a_check.py" <<'PY'
import json, sys
schema, card = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
defs = schema["$defs"]
types = {"object": dict, "array": list, "string": str, "boolean": bool}
problems = []
def check(s, v, where):
    if "$ref" in s:
        return check(defs[s["$ref"].split("/")[-1]], v, where)
    if not isinstance(v, types[s["type"]]):
        return problems.append(f"{where}: not {s['type']}")
    if s["type"] == "object":
        for r in s.get("required", []):
            if r not in v:
                problems.append(f"{where}: '{r}' missing")
        for k, x in v.items():
            if k in s.get("properties", {}):
                check(s["properties"][k], x, f"{where}.{k}")
            elif s.get("additionalProperties") is False:
                problems.append(f"{where}: '{k}' is not an A2A field")
    if s["type"] == "array":
        if len(v) < s.get("minItems", 0):
            problems.append(f"{where}: fewer than {s['minItems']} items")
        for i, x in enumerate(v):
            check(s["items"], x, f"{where}[{i}]")
check(schema, card, "card")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
# The checker itself catches a card missing a field and a field A2A does not define.
echo '{"name":"x","url":"https://old.example/"}' >"$top/bad-a2a.json"
python3 "$top/a2a_check.py" "$schema" "$top/bad-a2a.json" >"$top/bad.out" && fail "the A2A checker passed a bad card"
grep -q "'skills' missing" "$top/bad.out" && grep -q "'url' is not an A2A field" "$top/bad.out" || fail "A2A checker: $(cat "$top/bad.out")"
ss_run 0 "$SKILLSYNC" card --a2a
cp "$top/stdout" "$top/a2a.json"
python3 "$top/a2a_check.py" "$schema" "$top/a2a.json" >"$top/a2a.out" || fail "A2A card: $(cat "$top/a2a.out")"
py '
import json, sys
card = json.load(open(sys.argv[1]))
assert card["supportedInterfaces"][0]["url"] == "https://agent.example/"
assert card["supportedInterfaces"][0]["protocolVersion"] == "1.0"
assert card["name"] == sys.argv[2] and card["description"] == "Fills forms."
s = card["skills"][0]
assert s["id"] == "mine-forms" and s["tags"] == ["pdf", "forms", "paperwork"], s
assert s["examples"] == ["Fill in the tax form", "Sign the lease"], s
assert card["defaultInputModes"] == ["text/plain"], card
' "$top/a2a.json" "$name"
ss_run 0 "$SKILLSYNC" card --a2a --out "$top/site"
cmp -s "$top/a2a.json" "$top/site/.well-known/agent-card.json" || fail "--out wrote something else"
[ "$(ls -A "$top/site/.well-known")" = "agent-card.json" ] || fail "--out left other files: $(ls -A "$top/site/.well-known")"
ss_run 1 "$SKILLSYNC" card --a2a --url ""
grep -q -- "--url" "$top/stderr" || fail "a2a without url: $(cat "$top/stderr")"
ss_run 0 "$SKILLSYNC" card --url https://agent.example/

# A permissioned space's clone: only my skills; no publish without --public.
python3 - .git/skillsync/state.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT OR REPLACE INTO config (key, value) VALUES ('transport', 'space')")
db.commit()
PY
ss_run 0 "$SKILLSYNC" card --json
py 'import json,sys; d=json.load(open(sys.argv[1])); assert [s["id"] for s in d["card"]["skills"]] == ["mine-forms"], d' "$top/stdout"
grep -q "only your own skills" "$top/stderr" || fail "space note: $(cat "$top/stderr")"
ss_run 1 "$SKILLSYNC" card --publish
grep -q -- "--public" "$top/stderr" || fail "space publish: $(cat "$top/stderr")"
ss_run 1 "$SKILLSYNC" card --a2a --out "$top/site2"
ss_run 0 "$SKILLSYNC" card --publish --public
card_of "$me_did" | py 'import json,sys; v=json.load(sys.stdin); assert [s["id"] for s in v["skills"]] == ["mine-forms"], v'
echo "card: ok"
