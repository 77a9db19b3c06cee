#!/usr/bin/env python3
"""bench/mcp_client.py: times `skillsync mcp` the way an agent uses it (bench/mcp.sh).

    mcp_client.py <skillsync> <clone> <rounds> <rss file>

Starts the server once, initializes, then per round: skills/list (every page), skills/get of
50 skills and resources/read of 200 files drawn from the listing (the same draw each round).
The first skills/list of the process is reported apart: it reads and hashes every file of
main. Prints one JSON object: the seconds of each call (lists); the server's peak RSS (KB,
from /usr/bin/time) goes to <rss file>.
"""
import json
import random
import subprocess
import sys
import time

exe, clone, rounds, rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss, exe, "mcp", "-C", clone],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
next_id = 0


def call(method, params=None):
    global next_id
    next_id += 1
    msg = {"jsonrpc": "2.0", "id": next_id, "method": method}
    if params is not None:
        msg["params"] = params
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    while True:
        answer = json.loads(proc.stdout.readline())
        if answer.get("id") == next_id:
            if "error" in answer:
                raise SystemExit(f"{method}: {answer['error']}")
            return answer["result"]


def list_all():
    out, cursor = [], None
    while True:
        page = call("skills/list", {"cursor": cursor} if cursor else {})
        out += page["skills"]
        cursor = page.get("nextCursor")
        if not cursor:
            return out


def timed(fn, *args):
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"}})
start = time.perf_counter()
skills = list_all()
first = time.perf_counter() - start
rng = random.Random(7)
gets = [s["uri"] for s in rng.sample(skills, min(50, len(skills)))]
files = [r["uri"] for r in rng.sample([r for s in skills for r in s["resources"]], 200)]
result = {"skills": len(skills), "files": sum(len(s["resources"]) for s in skills),
          "first_list": first, "list": [], "get": [], "read": []}
for _ in range(rounds):
    result["list"].append(timed(list_all))
    result["get"] += [timed(call, "skills/get", {"uri": u}) for u in gets]
    result["read"] += [timed(call, "resources/read", {"uri": u}) for u in files]
proc.stdin.close()
proc.wait()
print(json.dumps(result))
