#!/usr/bin/env bash
# needs: pds
# Network text never reaches the terminal or git history raw. A member whose DID document
# claims a handle with terminal escapes and a newline (a forged line of history), another whose
# document claims the authority's handle (served by a small PLC proxy on loopback in front of
# the test PLC), notes and record names with escapes written straight to the PDS: clone's
# warnings, members, ls, show, log, pull and the tracking commits show the DID for a handle
# that does not resolve back, and every such text escaped (\xNN), the --json outputs valid
# JSON. And the editor `commit` starts does not get SKILLSYNC_PASSWORD.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

work=$(mktemp -d)
proxy=
trap '[ -z "$proxy" ] || kill "$proxy" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
export SKILLSYNC_CONFIG_HOME=$work/config
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT
ss_pds_env
ss_git_identity

ss_accounts . esc auth m1 m2 me
for who in auth m1 m2 me; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done
esc=$'\033'
forged="mem.test${esc}[31m
removed good by $auth_handle"

# The PLC proxy: m1's document claims the forged handle, m2's the authority's; every other
# request goes to the test PLC as it is.
cat >plc.py <<'PY'
import http.server, json, sys, urllib.error, urllib.request
upstream, portfile, overrides = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            with urllib.request.urlopen(upstream.rstrip("/") + self.path, timeout=30) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        did = self.path.lstrip("/")
        if status == 200 and did in overrides:
            doc = json.loads(body)
            doc["alsoKnownAs"] = ["at://" + overrides[did]]
            body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
open(portfile + ".tmp", "w").write(str(server.server_address[1]))
import os; os.rename(portfile + ".tmp", portfile)
server.serve_forever()
PY
overrides=$(python3 -c 'import json,sys; print(json.dumps({sys.argv[1]: sys.argv[2], sys.argv[3]: sys.argv[4]}))' \
	"$m1_did" "$forged" "$m2_did" "$auth_handle")
python3 plc.py "$plc" "$work/plc.port" "$overrides" &
proxy=$!
for _ in $(seq 100); do [ -e plc.port ] && break; sleep 0.1; done
[ -e plc.port ] || fail "the PLC proxy did not start"
export SKILLSYNC_PLC_URL=http://127.0.0.1:$(cat plc.port)

# put <who> <rkey> <name> <note> [<instructions>]: a record written straight to the PDS.
put() {
	python3 - "$3" "$4" "${5:-x}" >"$work/record.json" <<'PY'
import datetime, json, sys
when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
rec = {"$type": "garden.engram.skill", "name": sys.argv[1], "description": "d",
       "instructions": sys.argv[3], "createdAt": when, "updatedAt": when}
if sys.argv[2]:
    rec["note"] = sys.argv[2]
print(json.dumps(rec))
PY
	python3 - "$2" "$(ss_json "$work/$1.json" did)" "$work/record.json" <<'PY' >"$work/body.json"
import json, sys
print(json.dumps({"repo": sys.argv[2], "collection": "garden.engram.skill", "rkey": sys.argv[1],
                  "record": json.load(open(sys.argv[3])), "validate": False}))
PY
	ss_curl_auth "$(ss_json "$work/$1.json" accessJwt)" -fsS -o /dev/null -X POST \
		-H 'content-type: application/json' --data-binary "@$work/body.json" \
		"$pds/xrpc/com.atproto.repo.putRecord" || fail "putRecord $2 as $1"
}

# raw_clean <file> <what>: no raw escape and no forged line in what a command printed.
raw_clean() {
	! grep -q "$esc" "$1" || fail "$2 printed a raw escape: $(cat -v "$1")"
	! grep -q "^ *removed good by" "$1" || fail "$2 printed a forged line: $(cat -v "$1")"
}

SS_FILL_TOKEN=$(ss_json auth.json accessJwt) "$(dirname "$SKILLSYNC")/ss-fill" --pds "$pds" \
	--did "$auth_did" --put "$SS_TESTDATA"/skills/valid/basic/*/ >/dev/null
put m1 hostile hostile "fine${esc}[2J${esc}]0;pwned${esc}\\
removed good by $auth_handle"
put m1 broken "x${esc}[31my" ""
put m2 impostor impostor ""

SKILLSYNC_PASSWORD=$(ss_json me.json password) "$SKILLSYNC" login "$me_handle" >/dev/null
"$SKILLSYNC" clone "$auth_handle" space --member "$m1_did" --member "$m2_did" >out 2>err ||
	fail "clone: $(cat -v err)"
raw_clean err "clone"
grep -q "^warning: skipped 'broken' of '$m1_did': " err ||
	fail "clone's warning: $(cat -v err)"
cd space

# members: the DID for both handles that do not resolve back; the authority's handle once.
"$SKILLSYNC" members >out || fail "members"
raw_clean out members
grep -q "^member  *-  *$m1_did\$" out || fail "members, m1: $(cat -v out)"
grep -q "^member  *-  *$m2_did\$" out || fail "members, m2 (claims the authority's handle): $(cat out)"
[ "$(grep -c "$auth_handle" out)" = 1 ] || fail "members names the authority's handle twice: $(cat out)"
"$SKILLSYNC" members --json >out.json || fail "members --json"
python3 - "$m1_did" "$m2_did" <<'PY' || fail "members --json: $(cat -v out.json)"
import json, sys
members = {m["did"]: m for m in json.load(open("out.json"))}
assert members[sys.argv[1]]["handle"] is None and members[sys.argv[2]]["handle"] is None
PY

# ls, show: who is the DID; the name's and reasons' escapes escaped.
"$SKILLSYNC" ls >out || fail "ls"
raw_clean out ls
grep -q "^hostile .* $m1_did " out || fail "ls, hostile: $(cat -v out)"
grep -q "^impostor .* $m2_did " out || fail "ls, impostor: $(cat -v out)"
"$SKILLSYNC" ls --json >out.json || fail "ls --json"
python3 -c 'import json; json.load(open("out.json"))' || fail "ls --json is not JSON: $(cat -v out.json)"
! grep -q "$esc" out.json || fail "ls --json holds a raw escape"
"$SKILLSYNC" show impostor >out || fail "show"
raw_clean out show
grep -q "^\* $m2_did  $m2_did" out || fail "show impostor: $(cat out)"

# The tracking commit's message: one line per change, the note escaped, nothing forged.
git log --format=%B refs/remotes/space/main >out
raw_clean out "the tracking commit"
grep -q "^added hostile by $m1_did\$" out || fail "tracking commit: $(cat -v out)"
grep -qxF '    note: fine\x1b[2J\x1b]0;pwned\x1b\ ...' out ||
	fail "tracking commit's note: $(cat -v out)"
grep -q "^added impostor by $m2_did\$" out || fail "tracking commit, impostor: $(cat -v out)"
"$SKILLSYNC" log >out || fail "log"
raw_clean out log
"$SKILLSYNC" log --json >out.json || fail "log --json"
python3 -c 'import json; json.load(open("out.json"))' || fail "log --json is not JSON"

# pull prints the changed note through the same rule.
put m1 hostile hostile "again${esc}[1A${esc}[2K" "new instructions"
"$SKILLSYNC" pull >out 2>err || fail "pull: $(cat -v err)"
raw_clean out pull
raw_clean err pull
grep -qF "updated hostile ($m1_did): again\x1b[1A\x1b[2K" out || fail "pull: $(cat -v out)"
"$SKILLSYNC" log -n 1 >out || fail "log -n 1"
raw_clean out "log after pull"

# The editor commit starts (on a terminal) gets skillsync's environment without its secrets.
cat >"$work/editor.sh" <<'SH'
#!/bin/sh
env >"$EDITOR_DUMP"
echo "edited by the editor" >"$1"
SH
chmod +x "$work/editor.sh"
echo "more" >>hostile/SKILL.md
SKILLSYNC_PASSWORD=hunter2-never-shared EDITOR="$work/editor.sh" EDITOR_DUMP="$work/env.txt" \
	script -qec "'$SKILLSYNC' commit" /dev/null >out 2>&1 </dev/null || fail "commit: $(cat out)"
[ -s "$work/env.txt" ] && grep -q "^EDITOR_DUMP=" "$work/env.txt" || fail "the editor did not run: $(cat out)"
! grep -q "hunter2-never-shared\|SKILLSYNC_PASSWORD" "$work/env.txt" ||
	fail "the editor got SKILLSYNC_PASSWORD"
git log -1 --format=%s | grep -qx "edited by the editor" || fail "commit message: $(git log -1 --format=%s)"
echo "escape: all checks passed"
