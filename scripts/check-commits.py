#!/usr/bin/env python3
"""Checks the commit messages since the rule began (docs/CONTRIBUTING.md, "Commit messages"):

- the subject (the first line) is under 72 characters and not empty;
- when there is a body, a blank line separates it from the subject.

With no argument it checks every commit reachable from HEAD that is not reachable from BASE,
the last commit made before the rule (the history before it stays as it was written). With
--message FILE it checks one message, as the commit-msg hook (.githooks/commit-msg) does.
Prints one line per problem and exits 1 when there is any; ctest runs it as `commit_messages`.
In a shallow clone that lacks BASE it says so and checks nothing.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "f3ab78c1ec5c4a28acb49ac2ab2c8ad8360301ed"
MAX_SUBJECT = 72


def problems(message):
    """What is wrong with one commit message, as a list of phrases."""
    lines = [l for l in message.split("\n") if not l.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["the subject is empty"]
    out = []
    if len(lines[0]) >= MAX_SUBJECT:
        out.append("the subject is %d characters (under %d, please)" % (len(lines[0]), MAX_SUBJECT))
    if len(lines) > 1 and lines[1].strip():
        out.append("no blank line between the subject and the body")
    return out


def git(*args):
    return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--message":
        with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
            found = problems(f.read())
        for p in found:
            print("commit message: %s" % p)
        return 1 if found else 0
    if len(sys.argv) != 1:
        print("usage: check-commits.py [--message <file>]", file=sys.stderr)
        return 2
    if git("cat-file", "-e", BASE + "^{commit}").returncode:
        if git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
            print("check-commits: a shallow clone without the rule's base commit: nothing checked")
            return 0
        print("check-commits: the rule's base commit %s is not in this repository" % BASE)
        return 1
    log = git("log", "--format=%H%x00%B%x01", BASE + "..HEAD")
    if log.returncode:
        print("check-commits: git log failed: %s" % log.stderr.strip())
        return 1
    bad = 0
    for entry in log.stdout.split("\x01"):
        entry = entry.lstrip("\n")
        if not entry:
            continue
        oid, message = entry.split("\x00", 1)
        for p in problems(message):
            print("%s %s: %s" % (oid[:12], message.split("\n", 1)[0][:60], p))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
