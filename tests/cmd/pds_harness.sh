#!/usr/bin/env bash
# needs: pds
# The test PDS fixture (tests/pds/) is a real, usable PDS: it answers describeServer, its three
# accounts sign in, a garden.engram.skill record written with putRecord comes back from
# getRecord, DIDs resolve through its PLC to it, the account and app-password helpers work,
# and both servers listen on 127.0.0.1 only.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SS_SOURCE_DIR:?}"
pds_dir=$SS_SOURCE_DIR/tests/pds

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

[ "$(stat -c %a "$SS_PDS_INFO")" = 600 ] || fail "pds.json is not mode 0600"

# HTTP checks in Python (tokens and passwords stay out of argv).
python3 - <<'PY'
import json, os, sys, urllib.request, urllib.error

info = json.load(open(os.environ["SS_PDS_INFO"]))

def fail(msg):
    sys.exit("FAIL: " + msg)

def call(base, method, body=None, token=None, params=""):
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["content-type"] = "application/json"
    if token:
        headers["authorization"] = "Bearer " + token
    url = f"{base}/xrpc/{method}{params}"
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)

pds, plc = info["pds"], info["plc"]
for url in (pds, plc):
    if not url.startswith("http://localhost:"):
        fail(f"{url} is not http://localhost:PORT")

status, desc = call(pds, "com.atproto.server.describeServer")
if status != 200 or ".test" not in desc.get("availableUserDomains", []):
    fail(f"describeServer: {status} {desc}")
if desc.get("inviteCodeRequired") is not False:
    fail("invite codes are required")

names = [a["name"] for a in info["accounts"]]
if names != ["alice", "bob", "carol"]:
    fail(f"accounts are {names}")
sessions = {}
for acct in info["accounts"]:
    if acct["handle"] != acct["name"] + ".test" or not acct["did"].startswith("did:plc:"):
        fail(f"account {acct}")
    if len(acct["password"]) < 20:
        fail(f"{acct['handle']}: password is weak")
    status, s = call(pds, "com.atproto.server.createSession",
                     {"identifier": acct["handle"], "password": acct["password"]})
    if status != 200 or s["did"] != acct["did"]:
        fail(f"createSession {acct['handle']}: {status} {s}")
    sessions[acct["name"]] = s
status, s = call(pds, "com.atproto.server.createSession",
                 {"identifier": "alice.test", "password": "wrong-password"})
if status != 401:
    fail(f"createSession with a wrong password: {status}")

# DID document from the PLC names this PDS.
alice = info["accounts"][0]
with urllib.request.urlopen(f"{plc}/{alice['did']}", timeout=30) as res:
    doc = json.load(res)
endpoints = [s["serviceEndpoint"] for s in doc["service"] if s["id"].endswith("#atproto_pds")]
if endpoints != [pds] or doc["alsoKnownAs"] != ["at://alice.test"]:
    fail(f"DID document of alice: {doc}")

record = {
    "$type": "garden.engram.skill",
    "name": "pdf-forms",
    "description": "Fill PDF forms. Use when a task involves a PDF with fields.",
    "instructions": "# PDF forms\n\n1. List the fields.\n2. Fill them.\n",
    "files": [{"path": "scripts/fill.py", "content": "print('hi')\n", "executable": True}],
    "createdAt": "2026-11-30T00:00:00.000Z",
    "updatedAt": "2026-11-30T00:00:00.000Z",
}
put = {"repo": alice["did"], "collection": "garden.engram.skill", "rkey": "pdf-forms",
       "record": record}
status, out = call(pds, "com.atproto.repo.putRecord", put, sessions["alice"]["accessJwt"])
if status != 200 or not out["uri"].endswith("/garden.engram.skill/pdf-forms"):
    fail(f"putRecord: {status} {out}")
status, got = call(pds, "com.atproto.repo.getRecord", None, None,
                   f"?repo={alice['did']}&collection=garden.engram.skill&rkey=pdf-forms")
if status != 200 or got["value"] != record or got["cid"] != out["cid"]:
    fail(f"getRecord: {status} {got}")
# Bob cannot write into alice's repository.
status, out = call(pds, "com.atproto.repo.putRecord", put, sessions["bob"]["accessJwt"])
if status == 200:
    fail("bob wrote into alice's repository")
print("ok: describeServer, sessions, PLC, putRecord/getRecord")
PY

# The helpers: a fresh account, and an app password that signs in.
acct=$("$pds_dir/account" "$SS_PDS_INFO" harness)
app=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["password"])' <<<"$acct" |
	"$pds_dir/app-password" "$SS_PDS_INFO" \
		"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["handle"])' <<<"$acct")" - test)
[[ $app =~ ^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$ ]] || fail "app password '$app'"
ACCT=$acct APP=$app python3 - <<'PY'
import json, os, sys, urllib.request
info = json.load(open(os.environ["SS_PDS_INFO"]))
acct = json.loads(os.environ["ACCT"])
if not acct["handle"].startswith("harness-") or not acct["handle"].endswith(".test"):
    sys.exit(f"FAIL: account handle {acct['handle']}")
body = json.dumps({"identifier": acct["handle"], "password": os.environ["APP"]}).encode()
req = urllib.request.Request(info["pds"] + "/xrpc/com.atproto.server.createSession", data=body,
                             headers={"content-type": "application/json"})
with urllib.request.urlopen(req, timeout=30) as res:
    if json.load(res)["did"] != acct["did"]:
        sys.exit("FAIL: app password session is for another DID")
print("ok: account and app-password helpers")
PY

# Both servers listen on 127.0.0.1, on no other address (IPv4 or IPv6).
for url in $(python3 -c 'import json,os; i=json.load(open(os.environ["SS_PDS_INFO"])); print(i["pds"], i["plc"])'); do
	port=$(printf '%04X' "${url##*:}")
	# /proc/net/tcp*: local address hex ADDR:PORT in column 2, state 0A = LISTEN.
	listeners=$(awk -v p="$port" '$4 == "0A" && $2 ~ (":" p "$") { print $2 }' /proc/net/tcp /proc/net/tcp6)
	[ -n "$listeners" ] || fail "nothing listens on port ${url##*:}"
	[ "$listeners" = "0100007F:$port" ] || fail "port ${url##*:} listens on $listeners, not only 127.0.0.1"
done
echo "ok: listening on 127.0.0.1 only"
