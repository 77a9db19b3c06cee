#!/usr/bin/env python3
"""A fault-injecting HTTP proxy between skillsync and the test PLC directory and PDS.

Usage: tests/fault/proxy.py <pds-url> <plc-url> <port-file>

Listens on 127.0.0.1 on a free port (written to <port-file> once it listens) and forwards
every request: paths "/did:..." to the PLC directory, everything else to the PDS. In every
response body the PDS's origin is replaced by the proxy's, so that a DID document (and a
session's didDoc) names the proxy as the PDS: point SKILLSYNC_PLC_URL and
SKILLSYNC_HANDLE_RESOLVER at the proxy and skillsync talks to the PDS only through it.

Controlled over HTTP on the same port (these requests are not counted):
  GET /_fault/set?kind=K&at=N[&times=T][&path=P]
                                         count requests from 1 again; requests N .. N+T-1
                                         (T default 1; 0: every one from N) get fault K; with
                                         P, only requests to that path count towards N
  GET /_fault/clear                      no fault, count from 1 again
  GET /_fault/count                      {"count": requests so far, "hits": faults injected,
                                          "log": ["METHOD path", ...], "held_at_once": the
                                          most held requests in flight together}
  GET /_fault/hold?prefix=P&ms=M         from now on, requests whose path starts with P wait
                                         M ms before they are forwarded (a slow server); no
                                         prefix: none; held_at_once counts from 0 again
  GET /_fault/serve?did=D&file=F         the first page (no cursor) of every listRecords of
                                         repo D gets the records in F appended: F holds one raw
                                         JSON record entry ({"uri","cid","value"}) a line, as
                                         bytes (invalid UTF-8, huge integers and bodies over
                                         the PDS's limits included); no file: stop serving
  GET /_fault/tamper?kind=T&did=D[&rkey=R]
                                         from now on, answers about repo D are tampered with
                                         (kind T below) until /_fault/tamper with no kind
Tampering (T), on the way from the PDS:
  value         listRecords: record R's value changed (its description), its CID kept
  cid           listRecords: record R listed with another (well-formed) CID
  refuse-since  getRepo with `since`: refused, 400 InvalidRequest (the reference PDS never is)
  sig           getRepo with `since`: the commit signed again by another (P-256) key, its CID
                and the CAR's root updated to match
  swap          getRepo with `since`: two MST node blocks' bytes swapped, CIDs kept (or one
                node's last byte changed when the CAR has one)
  block         every getRepo (with `since` or without) and getBlocks: record R's block
                bytes changed, its CID kept
  block-since   the same in getRepo with `since` only: the getBlocks that asks for the record
                again gets the right block (a wrong answer, then an honest one)
  whole-sig     getRepo without `since`: the commit signed again by another key, as `sig`
  record        nothing changed; the repo's full CAR now is kept for replay
  replay        getRepo with `since`: the CAR the last `record` kept (an older commit)
  replay-all    every getRepo, with `since` or without: the CAR the last `record` kept
  low-rev       getLatestCommit: the real head's CID with a low revision (a lying head)
  withhold      getRepo with `since` and getBlocks: the block of record R (the one whose name
                is R) left out
  op-no-rev     com.atproto.space.listRepoOps of repo D: the first op of each page without
                its "rev"
  op-bad-rev    the same, the first op's "rev" not a TID
  op-bad-cid    the same, the first op's "cid" not a CID
  blob          com.atproto.sync.getBlob and com.atproto.space.getBlob of repo D: the bytes'
                first byte changed (they no longer hash to the CID asked for)
  blob-gone     the same: 400 BlobNotFound, as from a PDS that no longer has the blob
Faults (K):
  drop-before   the connection is closed without an answer; the PDS never sees the request
  drop-after    the request reaches the PDS (which acts on it), then the connection is closed
                without an answer
  cut           the PDS's answer with its full Content-Length but only half its body, then
                the connection is closed
  400 500 502 503  that status with an XRPC error body; the PDS never sees the request
  502-after     the request reaches the PDS (which acts on it), then a 502 with an XRPC error
                body instead of its answer (a gateway that lost the answer)
  504-after     the same with a 504 (a gateway that gave up waiting for the answer)
  twice         the request is sent to the PDS twice, the same bytes; the client gets the
                second answer (a replay: a one-time token's second use)
  429           "429 Too Many Requests" with Retry-After: 1; the PDS never sees the request
  stall         no answer until the client gives up (or 30 s); the PDS never sees the request
  stall-after   the request reaches the PDS, then no answer until the client gives up
  shape-types   the PDS's answer (status 200) with every top-level value of another JSON type
  shape-array   the PDS's answer replaced by "[]" (status 200, application/json)
  shape-html    the PDS's answer replaced by an HTML page (status 200, text/html)
OAuth (tamper kinds; D is the DID that oauth-sub names), the proxy standing in for the
PDS's authorization server, which it reaches as the issuer the PDS's metadata names (the
proxy's origin, after the rewrite above):
  oauth-resource  the PDS's protected-resource metadata names another resource
  oauth-issuer  the authorization server's metadata names another issuer
  oauth-nonce   every POST to /oauth/... is refused with use_dpop_nonce and a new DPoP-Nonce
  oauth-sub     a stand-in authorization server: PAR answers a request_uri (keeping the
                request's state and redirect_uri), /oauth/authorize redirects to the client
                with a code, that state and the proxy as iss, and /oauth/token gives tokens
                whose sub is D
  oauth-iss     the same, but the redirect's iss names another issuer
Python 3 standard library only, no network beyond loopback.
"""
import hashlib
import http.client
import secrets
import http.server
import base64
import json
import os
import select
import socket
import sys
import threading
import time
import urllib.parse

KINDS = {"drop-before", "drop-after", "cut", "400", "500", "502", "503", "429", "stall",
         "stall-after", "shape-types", "shape-array", "shape-html", "502-after", "504-after", "twice"}
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
       "host", "accept-encoding", "te", "upgrade", "proxy-connection"}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.kind, self.at, self.times, self.path = None, 0, 1, None
        self.count, self.hits, self.log, self.matched = 0, 0, [], 0
        self.serve = {}  # did -> [raw record bytes]
        self.tamper = None  # {"kind", "did", "rkey", "car"}
        self.hold, self.hold_s = None, 0.0  # path prefix, seconds
        self.held, self.held_at_once = 0, 0

    def next(self, line):
        """Counts a request; returns the fault it gets, or None."""
        with self.lock:
            self.count += 1
            self.log.append(line)
            n = self.count
            if self.path:
                if line.split(" ", 1)[1] != self.path:
                    return None
                self.matched += 1
                n = self.matched
            if self.kind and n >= self.at and (self.times == 0 or n < self.at + self.times):
                self.hits += 1
                return self.kind
        return None


STATE = State()

TAMPER_KINDS = {"value", "cid", "refuse-since", "sig", "swap", "record", "replay", "block",
                "block-since", "whole-sig", "replay-all", "low-rev", "withhold"}
LOW_REV = "2222222222222"
# A space writer's listRepoOps answers with an op that is not one (see tamper_ops).
OP_TAMPER_KINDS = {"op-no-rev", "op-bad-rev", "op-bad-cid"}
TAMPER_KINDS |= OP_TAMPER_KINDS
OAUTH_KINDS = {"oauth-resource", "oauth-issuer", "oauth-nonce", "oauth-sub", "oauth-iss"}
# which metadata document each metadata kind changes, and the field it changes
OAUTH_META = {"oauth-resource": ("/.well-known/oauth-protected-resource", "resource"),
              "oauth-issuer": ("/.well-known/oauth-authorization-server", "issuer")}
TAMPER_KINDS |= OAUTH_KINDS
BLOB_PATHS = ("/xrpc/com.atproto.sync.getBlob", "/xrpc/com.atproto.space.getBlob")
TAMPER_KINDS |= {"blob", "blob-gone"}


def varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i


def enc_varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    out.append(n)
    return bytes(out)


def car_split(data):
    """A CAR v1's header bytes and its blocks as [cid bytes, data] (CIDs of 36 bytes)."""
    hl, i = varint(data, 0)
    header = data[i:i + hl]
    i += hl
    blocks = []
    while i < len(data):
        n, j = varint(data, i)
        blocks.append([data[j:j + 36], data[j + 36:j + n]])
        i = j + n
    return header, blocks


def car_join(header, blocks):
    return enc_varint(len(header)) + header + b"".join(
        enc_varint(36 + len(d)) + c + d for c, d in blocks)


def cid_bytes(data):
    return b"\x01\x71\x12\x20" + hashlib.sha256(data).digest()


def cid_str(b):
    return "b" + base64.b32encode(b).decode().lower().rstrip("=")


# P-256, for a signature by a key that is not the member's (Python's own integers).
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P256_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
          0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def ec_add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0] and (p[1] + q[1]) % P256_P == 0:
        return None
    if p == q:
        lam = (3 * p[0] * p[0] - 3) * pow(2 * p[1], -1, P256_P) % P256_P
    else:
        lam = (q[1] - p[1]) * pow(q[0] - p[0], -1, P256_P) % P256_P
    x = (lam * lam - p[0] - q[0]) % P256_P
    return x, (lam * (p[0] - x) - p[1]) % P256_P


def ec_mul(k, p):
    r = None
    while k:
        if k & 1:
            r = ec_add(r, p)
        p = ec_add(p, p)
        k >>= 1
    return r


def p256_sign(msg):
    d = secrets.randbelow(P256_N - 1) + 1
    z = int.from_bytes(hashlib.sha256(msg).digest(), "big")
    while True:
        k = secrets.randbelow(P256_N - 1) + 1
        r = ec_mul(k, P256_G)[0] % P256_N
        s = pow(k, -1, P256_N) * (z + r * d) % P256_N
        if r and s:
            break
    if s > P256_N // 2:
        s = P256_N - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def resign(car):
    """The CAR with its root commit signed by a fresh P-256 key (root and CID updated)."""
    header, blocks = car_split(car)
    at = header.index(b"\xd8\x2a\x58\x25\x00") + 5
    root = header[at:at + 36]
    for b in blocks:
        if b[0] != root:
            continue
        d = b[1]
        k = d.index(b"\x63sig\x58\x40")
        unsigned = b"\xa5" + d[1:k] + d[k + 70:]
        d = d[:k + 6] + p256_sign(unsigned) + d[k + 70:]
        b[0], b[1] = cid_bytes(d), d
        header = header[:at] + b[0] + header[at + 36:]
    return car_join(header, blocks)


def swap_nodes(car):
    header, blocks = car_split(car)
    nodes = [b for b in blocks if b[1].startswith(b"\xa2\x61\x65")]
    if len(nodes) >= 2:
        nodes[0][1], nodes[1][1] = nodes[1][1], nodes[0][1]
    elif nodes:
        nodes[0][1] = nodes[0][1][:-1] + bytes([nodes[0][1][-1] ^ 1])
    return car_join(header, blocks)


def tamper_block(car, rkey):
    """The CAR with the block of record rkey (the one whose name is rkey) changed, CID kept."""
    header, blocks = car_split(car)
    name = b"\x64name" + bytes([0x60 + len(rkey)]) + rkey.encode()
    for b in blocks:
        if name in b[1]:
            b[1] = b[1][:-1] + bytes([b[1][-1] ^ 1])
    return car_join(header, blocks)


def withhold(car, rkey):
    """The CAR without the block of record rkey (the one whose name is rkey)."""
    header, blocks = car_split(car)
    name = b"\x64name" + bytes([0x60 + len(rkey)]) + rkey.encode()
    return car_join(header, [b for b in blocks if name not in b[1]])


def tamper_listing(data, kind, rkey):
    page = json.loads(data)
    for rec in page.get("records", []):
        if rec.get("uri", "").rsplit("/", 1)[-1] != rkey:
            continue
        if kind == "value":
            rec["value"]["description"] = "Changed on the way."
        else:
            rec["cid"] = cid_str(cid_bytes(b"another record"))
    return json.dumps(page).encode()


def tamper_ops(data, kind):
    """A listRepoOps page with its first op made one that is not an op (kind: op-*)."""
    page = json.loads(data)
    ops = page.get("ops") or []
    if ops:
        if kind == "op-no-rev":
            ops[0].pop("rev", None)
        elif kind == "op-bad-rev":
            ops[0]["rev"] = "not-a-tid"
        else:
            ops[0]["cid"] = "bafy-not-a-cid"
    return json.dumps(page).encode()


def flip(v):
    """A value of another JSON type."""
    if isinstance(v, bool):
        return "true"
    if isinstance(v, str):
        return 12345
    if isinstance(v, (int, float)):
        return "12345"
    if isinstance(v, list):
        return {"0": v[0] if v else None}
    if isinstance(v, dict):
        return [v]
    return 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = {}  # "pds" / "plc" -> (host, port)
    pds_origin = b""
    self_origin = b""

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self.handle_one()

    def do_POST(self):
        self.handle_one()

    def reply(self, status, body, ctype="application/json", extra=None, close=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def stall(self):
        """Waits until the client closes the connection (or 30 s), then drops it."""
        end = time.monotonic() + 30
        while time.monotonic() < end:
            r, _, _ = select.select([self.connection], [], [], 0.2)
            if r:
                try:
                    if not self.connection.recv(65536, socket.MSG_PEEK):
                        break
                except OSError:
                    break
        self.drop()

    def control(self, url):
        q = dict(urllib.parse.parse_qsl(url.query))
        with STATE.lock:
            if url.path == "/_fault/set":
                if q.get("kind") not in KINDS:
                    return self.reply(400, b'{"error":"unknown kind"}')
                STATE.kind, STATE.at = q["kind"], int(q.get("at", "1"))
                STATE.times = int(q.get("times", "1"))
                STATE.path = q.get("path")
                STATE.count, STATE.hits, STATE.log, STATE.matched = 0, 0, [], 0
            elif url.path == "/_fault/clear":
                STATE.kind, STATE.path = None, None
                STATE.count, STATE.hits, STATE.log, STATE.matched = 0, 0, [], 0
            elif url.path == "/_fault/tamper":
                if not q.get("kind") and STATE.tamper:
                    STATE.tamper["kind"] = None
                elif q["kind"] not in TAMPER_KINDS:
                    return self.reply(400, b'{"error":"unknown tamper kind"}')
                else:
                    kept = STATE.tamper["car"] if STATE.tamper else None
                    STATE.tamper = {"kind": q["kind"], "did": q.get("did"),
                                    "rkey": q.get("rkey"), "car": kept}
                    if q["kind"] == "record":
                        host, port = self.upstream["pds"]
                        conn = http.client.HTTPConnection(host, port, timeout=60)
                        conn.request("GET", "/xrpc/com.atproto.sync.getRepo?did=" +
                                     urllib.parse.quote(q.get("did", "")))
                        STATE.tamper["car"] = conn.getresponse().read()
                        conn.close()
            elif url.path == "/_fault/hold":
                STATE.hold = q.get("prefix") or None
                STATE.hold_s = int(q.get("ms", "0")) / 1000
                STATE.held_at_once = 0
            elif url.path == "/_fault/serve":
                if q.get("file"):
                    with open(q["file"], "rb") as f:
                        STATE.serve[q["did"]] = [l.rstrip(b"\n") for l in f if l.strip()]
                else:
                    STATE.serve.pop(q.get("did"), None)
            body = json.dumps({"count": STATE.count, "hits": STATE.hits,
                               "log": STATE.log, "held_at_once": STATE.held_at_once}).encode()
        self.reply(200, body)

    def forward(self, body):
        which = "plc" if self.path.startswith("/did:") else "pds"
        host, port = self.upstream[which]
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            rh = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP]
            return resp.status, rh, data
        finally:
            conn.close()

    def served(self, data):
        """data with the records to serve appended, for the first page of a listing."""
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/xrpc/com.atproto.repo.listRecords":
            return data
        q = dict(urllib.parse.parse_qsl(url.query))
        with STATE.lock:
            extra = STATE.serve.get(q.get("repo"))
        if not extra or q.get("cursor"):
            return data
        page = json.loads(data)
        records = page.pop("records", [])
        head = json.dumps(page)[:-1].encode()  # without its closing brace
        parts = [json.dumps(r).encode() for r in records] + extra
        sep = b", " if page else b""
        return head + sep + b'"records": [' + b", ".join(parts) + b"]}"

    def oauth(self, url, body, tamper):
        """Answers an OAuth request as the tamper kind says; False to forward it."""
        kind, path = tamper["kind"], url.path
        if kind in OAUTH_META and path == OAUTH_META[kind][0]:
            status, rh, data = self.forward(body)
            meta = json.loads(data.replace(self.pds_origin, self.self_origin))
            meta[OAUTH_META[kind][1]] = "http://127.0.0.1:1"
            self.reply(status, json.dumps(meta).encode())
            return True
        if kind == "oauth-nonce" and self.command == "POST" and path.startswith("/oauth/"):
            self.reply(400, b'{"error":"use_dpop_nonce","error_description":"new nonce"}',
                       extra={"DPoP-Nonce": secrets.token_urlsafe(16)})
            return True
        if kind not in ("oauth-sub", "oauth-iss"):
            return False
        if path == "/oauth/par":
            form = dict(urllib.parse.parse_qsl((body or b"").decode()))
            tamper["state"], tamper["redirect"] = form.get("state"), form.get("redirect_uri")
            self.reply(201, b'{"request_uri":"urn:ietf:params:oauth:request_uri:stand-in",'
                            b'"expires_in":60}')
            return True
        if path == "/oauth/authorize":
            iss = self.self_origin.decode() if kind == "oauth-sub" else "http://127.0.0.1:1"
            query = urllib.parse.urlencode({"state": tamper.get("state"), "iss": iss,
                                            "code": "stand-in-code"})
            self.reply(302, b"", "text/plain",
                       extra={"Location": f"{tamper.get('redirect')}?{query}"})
            return True
        if path == "/oauth/token":
            tokens = {"access_token": "stand-in-access", "token_type": "DPoP",
                      "refresh_token": "stand-in-refresh", "scope": "atproto",
                      "sub": tamper["did"], "expires_in": 60}
            self.reply(200, json.dumps(tokens).encode())
            return True
        return False

    def handle_one(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/_fault/"):
            return self.control(url)
        kind = STATE.next(f"{self.command} {url.path}")
        if kind in ("drop-before", "stall"):
            # The body stays unread: the PDS never sees the request.
            return self.drop() if kind == "drop-before" else self.stall()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if kind in ("400", "500", "502", "503"):
            msg = json.dumps({"error": "InternalServerError",
                              "message": f"injected {kind}"}).encode()
            return self.reply(int(kind), msg)
        if kind == "429":
            msg = b'{"error":"RateLimitExceeded","message":"injected 429"}'
            return self.reply(429, msg, extra={"Retry-After": "1"})
        with STATE.lock:
            tamper = STATE.tamper
        if tamper and tamper["kind"] in OAUTH_KINDS and self.oauth(url, body, tamper):
            return None
        q = dict(urllib.parse.parse_qsl(url.query))
        about = tamper and tamper["kind"] and (q.get("did") or q.get("repo")) == tamper["did"]
        since = about and url.path == "/xrpc/com.atproto.sync.getRepo" and "since" in q
        blob = about and url.path in BLOB_PATHS
        if blob and tamper["kind"] == "blob-gone":
            return self.reply(400, b'{"error":"BlobNotFound","message":"Blob not found"}')
        if since and tamper["kind"] == "refuse-since":
            return self.reply(400, b'{"error":"InvalidRequest","message":"since refused"}')
        if since and tamper["kind"] == "replay":
            return self.reply(200, tamper["car"], "application/vnd.ipld.car")
        if (about and url.path == "/xrpc/com.atproto.sync.getRepo" and
                tamper["kind"] == "replay-all"):
            return self.reply(200, tamper["car"], "application/vnd.ipld.car")
        with STATE.lock:
            held = STATE.hold is not None and url.path.startswith(STATE.hold)
            if held:
                STATE.held += 1
                STATE.held_at_once = max(STATE.held_at_once, STATE.held)
                wait = STATE.hold_s
        if held:
            time.sleep(wait)
            with STATE.lock:
                STATE.held -= 1
        try:
            status, rh, data = self.forward(body)
            if kind == "twice":
                status, rh, data = self.forward(body)
        except OSError as e:
            return self.reply(502, json.dumps({"error": "ProxyError",
                                               "message": str(e)}).encode())
        if kind in ("502-after", "504-after"):
            return self.reply(int(kind[:3]), json.dumps({"error": "InternalServerError",
                                                         "message": f"injected {kind}"}).encode())
        if kind == "drop-after":
            return self.drop()
        if kind == "stall-after":
            return self.stall()
        car = url.path in ("/xrpc/com.atproto.sync.getRepo", "/xrpc/com.atproto.sync.getBlocks")
        if not car and url.path not in BLOB_PATHS:  # a CAR or a blob is binary: left as it is
            data = data.replace(self.pds_origin, self.self_origin)
        if status == 200 and since and tamper["kind"] == "sig":
            data = resign(data)
        if status == 200 and since and tamper["kind"] == "swap":
            data = swap_nodes(data)
        if (status == 200 and about and tamper["kind"] == "withhold" and
                (since or url.path == "/xrpc/com.atproto.sync.getBlocks")):
            data = withhold(data, tamper["rkey"])
        if (status == 200 and about and tamper["kind"] == "low-rev" and
                url.path == "/xrpc/com.atproto.sync.getLatestCommit"):
            head = json.loads(data)
            head["rev"] = LOW_REV
            data = json.dumps(head).encode()
        whole = about and url.path == "/xrpc/com.atproto.sync.getRepo" and "since" not in q
        if status == 200 and about and car and tamper["kind"] == "block":
            data = tamper_block(data, tamper["rkey"])
        if status == 200 and since and tamper["kind"] == "block-since":
            data = tamper_block(data, tamper["rkey"])
        if status == 200 and blob and tamper["kind"] == "blob" and data:
            data = bytes([data[0] ^ 1]) + data[1:]
        if status == 200 and whole and tamper["kind"] == "whole-sig":
            data = resign(data)
        if (status == 200 and about and tamper["kind"] in ("value", "cid") and
                url.path == "/xrpc/com.atproto.repo.listRecords"):
            data = tamper_listing(data, tamper["kind"], tamper["rkey"])
        if (status == 200 and about and tamper["kind"] in OP_TAMPER_KINDS and
                url.path == "/xrpc/com.atproto.space.listRepoOps"):
            data = tamper_ops(data, tamper["kind"])
        if status == 200:
            data = self.served(data)
        ctype = dict((k.lower(), v) for k, v in rh).get("content-type", "application/json")
        if kind == "shape-types":
            try:
                page = json.loads(data)
                page = {k: flip(v) for k, v in page.items()} if isinstance(page, dict) else {}
            except ValueError:
                page = {"unexpected": True}
            return self.reply(200, json.dumps(page).encode())
        if kind == "shape-array":
            return self.reply(200, b"[]")
        if kind == "shape-html":
            return self.reply(200, b"<html><body>Bad gateway</body></html>", "text/html")
        self.send_response(status)
        for k, v in rh:
            if k.lower() != "content-type":
                self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        if kind == "cut":
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            return self.drop()
        self.end_headers()
        self.wfile.write(data)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """A client that went away (after a fault, or its timeout) is no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def origin(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port or 80


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: proxy.py <pds-url> <plc-url> <port-file>")
    pds, plc, port_file = sys.argv[1:4]
    Handler.upstream = {"pds": origin(pds), "plc": origin(plc)}
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    Handler.pds_origin = pds.rstrip("/").encode()
    Handler.self_origin = f"http://127.0.0.1:{port}".encode()
    with open(port_file + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
