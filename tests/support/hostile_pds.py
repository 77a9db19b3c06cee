#!/usr/bin/env python3
"""A hostile PDS (and PLC front) on loopback, for the tests of the listing's defences.

Usage: hostile_pds.py <portfile> [<upstream plc url>]
Listens on 127.0.0.1 (a free port, written to <portfile> once listening). A service URL
http://127.0.0.1:<port>/<mode> is a PDS misbehaving as <mode> says:

  alternate  listRecords answers one valid record and cursor "a", "b", "a", ... forever
  endless    listRecords answers 100 copies of a valid record and a fresh cursor forever
  junkpage   one page holding the valid records and ~60 MB of `[]` values in an extra key
  toobig     50 valid records of ~30 KB each; pages honour `limit`
  badrecs    valid records, and records with an integer over int64, nesting deeper than
             jansson's limit, duplicate keys, and a second "value" key
  down       every request answers 503
  flaky      one valid record, "flaky-skill"; every request answers 503 while <portfile>.down
             exists
  flip       one record, "flip-skill": valid, or with a duplicate key (a new CID and revision)
             while <portfile>.flip exists

/plc/<did> answers a DID document pointing at /<mode> for did:plc:hostile<mode>[-<n>] (404
for all of them while <portfile>.gone exists; for did:plc:hostileuserinfo the endpoint is
http://localhost:1@evil.invalid), and forwards any other DID to the upstream PLC.
"""
import http.server
import json
import os
import sys
import urllib.parse
import urllib.request

COLL = "garden.engram.skill"
CID = "bafyreihostilehostilehostilehostilehostilehostilehostile"


def record(did, name, text="hello", cid=CID):
    value = {"$type": COLL, "name": name, "description": "d", "instructions": text,
             "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"}
    return {"uri": f"at://{did}/{COLL}/{name}", "cid": cid, "value": value}


def page(records, cursor=None):
    out = {"records": records}
    if cursor:
        out["cursor"] = cursor
    return json.dumps(out).encode()


def raw_record(did, name, value_text):
    uri = json.dumps(f"at://{did}/{COLL}/{name}")
    cid = CID + name + str(len(value_text))
    return f'{{"uri":{uri},"cid":"{cid}","value":{value_text}}}'


def good_value(name):
    return json.dumps(record("x", name)["value"])


def badrecs(did):
    deep = '{"$type":"' + COLL + '","name":"deep-one","x":' + "[" * 3000 + "]" * 3000 + "}"
    big = good_value("big-int")[:-1] + ',"n":123456789012345678901234567890}'
    dup = good_value("dup-key")[:-1] + ',"name":"dup-key"}'
    parts = [raw_record(did, "good-one", good_value("good-one")),
             raw_record(did, "big-int", big),
             raw_record(did, "deep-one", deep),
             raw_record(did, "dup-key", dup),
             raw_record(did, "two-values", good_value("two-values"))[:-1] + ',"value":{}}',
             raw_record(did, "good-two", good_value("good-two"))]
    return ('{"records":[' + ",".join(parts) + "]}").encode()


JUNK = []


def junkpage(did):
    if not JUNK:
        JUNK.append("[" + ",".join(["[]"] * 20_000_000) + "]")
    junk = JUNK[0]
    recs = json.dumps([record(did, "junk-after-%d" % i) for i in range(3)])
    return ('{"extra":' + junk + ',"records":' + recs + "}").encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        parts = url.path.split("/")
        mode = parts[1].split("-")[0] if len(parts) > 1 else ""
        flag = self.server.portfile
        if mode == "plc":
            return self.plc(urllib.parse.unquote(parts[2]))
        did = q.get("repo") or q.get("did") or "did:plc:unknown"
        if mode == "down" or (mode == "flaky" and os.path.exists(flag + ".down")):
            return self.send(503, b'{"error":"Down","message":"down"}')
        nsid = parts[-1]
        flipped = mode == "flip" and os.path.exists(flag + ".flip")
        if nsid == "com.atproto.sync.getLatestCommit":
            rev = "3aaa" + mode + ("2" if flipped else "")
            return self.send(200, json.dumps({"cid": CID + rev, "rev": rev}).encode())
        if nsid != "com.atproto.repo.listRecords":
            return self.send(404, b'{"error":"NotFound"}')
        cursor = q.get("cursor")
        limit = int(q.get("limit", "50"))
        if mode == "alternate":
            return self.send(200, page([record(did, "loop")], "b" if cursor == "a" else "a"))
        if mode == "endless":
            n = int(cursor or "0") + 1
            return self.send(200, page([record(did, "endless")] * 100, str(n)))
        if mode == "junkpage":
            return self.send(200, b'{"records":[]}' if cursor else junkpage(did))
        if mode == "toobig":
            start = int(cursor or "0")
            names = ["big-%02d" % i for i in range(start, min(start + limit, 50))]
            recs = [record(did, n, "x" * 30000) for n in names]
            return self.send(200, page(recs, str(start + len(names)) if names else None))
        if mode == "flaky":
            return self.send(200, page([] if cursor else [record(did, "flaky-skill")], "1"))
        if mode == "flip":
            if cursor:
                return self.send(200, page([]))
            if not flipped:
                return self.send(200, page([record(did, "flip-skill", "first")], "1"))
            dup = good_value("flip-skill")[:-1] + ',"instructions":"second"}'
            return self.send(200, ('{"records":[' + raw_record(did, "flip-skill", dup)
                                   + '],"cursor":"1"}').encode())
        if mode == "badrecs":
            return self.send(200, b'{"records":[]}' if cursor else badrecs(did))
        return self.send(404, b'{"error":"NotFound"}')

    def plc(self, did):
        if did.startswith("did:plc:hostile"):
            if os.path.exists(self.server.portfile + ".gone"):
                return self.send(404, b'{"message":"DID not registered"}')
            mode = did[len("did:plc:hostile"):]
            host = f"http://127.0.0.1:{self.server.server_port}/{mode}"
            if mode == "userinfo":
                host = "http://localhost:1@evil.invalid"
            doc = {"id": did, "alsoKnownAs": [],
                   "service": [{"id": "#atproto_pds", "type": "AtprotoPersonalDataServer",
                                "serviceEndpoint": host}]}
            return self.send(200, json.dumps(doc).encode())
        try:
            with urllib.request.urlopen(self.server.upstream + "/" + did) as r:
                return self.send(r.status, r.read())
        except urllib.error.HTTPError as e:
            return self.send(e.code, e.read())


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.upstream = sys.argv[2].rstrip("/") if len(sys.argv) > 2 else ""
    server.daemon_threads = True
    server.portfile = sys.argv[1]
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(server.server_port))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
