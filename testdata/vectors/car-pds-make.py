#!/usr/bin/env python3
"""Makes the car-pds-* vectors from a running test PDS (tests/pds/start <dir>).

Usage: car-pds-make.py <dir>/pds.json <out-dir>

A fresh account writes skill records, posts and a profile, then changes some: the repo's CAR
before (car-pds-before.car) and after (car-pds-after.car), the CAR of the blocks written since
the first revision (car-pds-since.car), and car-pds-records.json: every record's JSON value as
getRecord returned it and the CID the PDS gave it, the expected diff of the skill range, and
the account's DID document (its #atproto key signs the commits).
Passwords and tokens stay in this process (never in argv or files).
"""
import json
import os
import subprocess
import sys
import urllib.request

info = json.load(open(sys.argv[1]))
out = sys.argv[2]
pds = info["pds"]
acct = json.loads(subprocess.run([os.path.join(os.path.dirname(__file__), "../../tests/pds/account"),
                                  sys.argv[1], "vec"], check=True, capture_output=True).stdout)
did, token = acct["did"], acct["accessJwt"]


def xrpc(method, params=None, body=None, raw=False):
    url = f"{pds}/xrpc/{method}"
    if params:
        url += "?" + "&".join(f"{k}={v}" for k, v in params.items())
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    if body is not None:
        req.data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req) as r:
        data = r.read()
    return data if raw else json.loads(data)


def skill(name, text):
    return {"$type": "garden.engram.skill", "name": name, "description": f"the {name} skill",
            "instructions": text, "createdAt": "2026-01-01T00:00:00.000Z",
            "updatedAt": "2026-01-01T00:00:00.000Z"}


def put(coll, rkey, value):
    return xrpc("com.atproto.repo.putRecord", body={"repo": did, "collection": coll, "rkey": rkey,
                                                    "record": value, "validate": False})


def delete(coll, rkey):
    xrpc("com.atproto.repo.deleteRecord", body={"repo": did, "collection": coll, "rkey": rkey})


S = "garden.engram.skill"
for i in range(24):
    put(S, f"skill-{i:02d}", skill(f"skill-{i:02d}", f"step {i}\nünïcödé ✓"))
for i in range(8):
    put("app.bsky.feed.post", f"3lpost{i:07d}", {"$type": "app.bsky.feed.post", "text": f"post {i}",
                                                  "createdAt": "2026-01-01T00:00:00.000Z"})
put("app.bsky.actor.profile", "self", {"$type": "app.bsky.actor.profile", "displayName": "Vec"})
rev1 = xrpc("com.atproto.sync.getLatestCommit", {"did": did})["rev"]
before = xrpc("com.atproto.sync.getRepo", {"did": did}, raw=True)

put(S, "skill-03", skill("skill-03", "changed"))
delete(S, "skill-07")
put(S, "skill-24", skill("skill-24", "new"))
put("app.bsky.feed.post", "3lpost9999999", {"$type": "app.bsky.feed.post", "text": "later",
                                            "createdAt": "2026-01-02T00:00:00.000Z"})
after = xrpc("com.atproto.sync.getRepo", {"did": did}, raw=True)
since = xrpc("com.atproto.sync.getRepo", {"did": did, "since": rev1}, raw=True)

records = []
for coll in (S, "app.bsky.feed.post", "app.bsky.actor.profile"):
    for r in xrpc("com.atproto.repo.listRecords", {"repo": did, "collection": coll, "limit": 100})["records"]:
        raw = xrpc("com.atproto.repo.getRecord", {"repo": did, "collection": coll,
                                                  "rkey": r["uri"].rsplit("/", 1)[1]}, raw=True)
        records.append({"uri": r["uri"].replace(did, "did"), "cid": r["cid"],
                        "value": json.loads(raw)["value"]})
for name, data in (("before", before), ("after", after), ("since", since)):
    open(os.path.join(out, f"car-pds-{name}.car"), "wb").write(data)
with urllib.request.urlopen(f"{info['plc']}/{did}") as r:
    did_doc = json.loads(r.read())
meta = {"did": did, "didDoc": did_doc, "rev1": rev1, "records": records,
        "diff": [["update", f"{S}/skill-03"], ["delete", f"{S}/skill-07"],
                 ["create", f"{S}/skill-24"]]}
open(os.path.join(out, "car-pds-records.json"), "w").write(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
