# tests/cmd/lib/space.sh: what the permissioned-space scripts share (source after common.sh,
# with $tmp set, ss_pds_env done and the accounts' JSON in $tmp/<name>.json).
# Secrets stay out of argv: tokens are read from the account files by python, passwords go
# through the environment of one command.

handle() { ss_json "$tmp/$1.json" handle; }
did() { ss_json "$tmp/$1.json" did; }

# sp_login <name>...: signs each account in with its account password.
sp_login() {
	local n
	for n; do
		SKILLSYNC_PASSWORD=$(ss_json "$tmp/$n.json" password) "$SKILLSYNC" login "$(handle "$n")" \
			>/dev/null || fail "login $n"
	done
}

# sp_xrpc <name> <GET|POST> <nsid> <json-or-query>: a session call as <name> on $pds; prints
# the answer, exits 22 on an HTTP error (the answer on stderr).
sp_xrpc() {
	python3 - "$tmp/$1.json" "$pds" "$2" "$3" "$4" <<'PY'
import json, sys, urllib.request, urllib.error
acct, pds, verb, nsid, arg = sys.argv[1:6]
tok = json.load(open(acct))["accessJwt"]
if verb == "GET":
    req = urllib.request.Request(f"{pds}/xrpc/{nsid}?{arg}")
else:
    req = urllib.request.Request(f"{pds}/xrpc/{nsid}", data=arg.encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
req.add_header("Authorization", "Bearer " + tok)
try:
    print(urllib.request.urlopen(req).read().decode())
except urllib.error.HTTPError as e:
    print(e.read().decode(), file=sys.stderr)
    sys.exit(22)
PY
}

# sp_put <name> <space uri> <skill> <updatedAt> <last line>: <name> writes (putRecord) a valid
# skill record into its own repo in the space.
sp_put() {
	local body
	body=$(python3 - "$2" "$(did "$1")" "$3" "$4" "$5" <<'PY'
import json, sys
space, repo, name, when, line = sys.argv[1:6]
rec = {"$type": "garden.engram.skill", "name": name, "description": "Skill " + name + ".",
       "instructions": "# " + name + "\n\n" + line + "\n", "createdAt": when, "updatedAt": when}
print(json.dumps({"space": space, "repo": repo, "collection": "garden.engram.skill",
                  "rkey": name, "record": rec}))
PY
)
	sp_xrpc "$1" POST com.atproto.space.putRecord "$body" >/dev/null || fail "putRecord $3 as $1"
}

# sp_del <name> <space uri> <skill>: <name> deletes its record.
sp_del() {
	sp_xrpc "$1" POST com.atproto.space.deleteRecord \
		"{\"space\":\"$2\",\"repo\":\"$(did "$1")\",\"collection\":\"garden.engram.skill\",\"rkey\":\"$3\"}" \
		>/dev/null || fail "deleteRecord $3 as $1"
}

# sp_records <name> <space uri>: <name>'s skill records in the space, read from the host with
# its session: one "<rkey> <first line of its note> | <last line of the instructions>" a line,
# by key, then "ops <n>": how many ops the repo has made (each write is one).
sp_records() {
	python3 - "$tmp/$1.json" "$pds" "$2" "$(did "$1")" <<'PY'
import json, sys, urllib.parse, urllib.request
acct, pds, space, repo = sys.argv[1:5]
tok = json.load(open(acct))["accessJwt"]
def get(nsid, **q):
    q.update(space=space, repo=repo, limit=1000)
    req = urllib.request.Request(f"{pds}/xrpc/{nsid}?{urllib.parse.urlencode(q)}")
    req.add_header("Authorization", "Bearer " + tok)
    return json.load(urllib.request.urlopen(req))
recs = get("com.atproto.space.listRecords", collection="garden.engram.skill")["records"]
for r in sorted(recs, key=lambda r: r["rkey"]):
    v = r["value"]
    last = [l for l in v.get("instructions", "").splitlines() if l.strip()][-1:]
    print(r["rkey"], v.get("note", "-").split("\n")[0], "|", "".join(last))
print("ops", len(get("com.atproto.space.listRepoOps")["ops"]))
PY
}

# sp_space <authority> <key> <member>...: creates the space as <authority> (signed in) and adds
# the members with write access; prints its URI.
sp_space() {
	local a=$1 key=$2 m uri
	shift 2
	uri=$("$SKILLSYNC" space create "$key" --as "$(handle "$a")" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["uri"])') ||
		fail "space create $key"
	for m; do
		"$SKILLSYNC" space members add "$(handle "$m")" --space "$uri" --as "$(handle "$a")" >/dev/null ||
			fail "members add $m"
	done
	echo "$uri"
}

# sp_knob <name> <json | @file>: a test knob of the space host (tests/spaces/README.md).
sp_knob() {
	python3 - "$SS_PDS_INFO" "$1" "$2" <<'PY'
import base64, json, sys, urllib.request
info, name, body = sys.argv[1:4]
if body.startswith("@"):
    body = open(body[1:]).read()
i = json.load(open(info))
req = urllib.request.Request(i["spaces"]["knobs"] + name, data=body.encode(), method="POST",
                             headers={"Content-Type": "application/json"})
auth = base64.b64encode(("admin:" + i["adminPassword"]).encode()).decode()
req.add_header("Authorization", "Basic " + auth)
print(urllib.request.urlopen(req).read().decode())
PY
}

# sp_line <dir> <skill>: the last non-empty line of the skill's SKILL.md in clone <dir>.
sp_line() { grep -v '^$' "$1/$2/SKILL.md" | tail -n 1; }
