#!/usr/bin/env python3
"""Checks core/util/error.h's contract over cmd/, sync/, core/ and tests/:

- err is never NULL: no call passes NULL where a function takes `ss_error *` (a NULL there
  crashes on the first failure; a caller that does not care passes a local `ss_error ignored`);
- the code is read from err: no caller compares a returned value with an SS_E* code
  (`rc == SS_ENOTFOUND`); it reads err->code after a negative return.

Prints file:line and what is wrong for each, and exits 1 when it found any. A text scan, not a
compiler: it knows the functions declared with an `ss_error *` parameter in these directories.
"""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DIRS = ("cmd", "sync", "core", "tests")

DECL = re.compile(r"\b(\w+)\s*\(([^;{()]*\bss_error\s*\*\s*\w*[^;{()]*)\)\s*[;{]")
CALL = re.compile(r"\b(\w+)\s*\(")
BRANCH = re.compile(r"\b(?:rc|ret)\s*[!=]=\s*SS_E[A-Z]+\b|\bSS_E[A-Z]+\s*[!=]=\s*(?:rc|ret)\b")


def strip_comments(s):
    """Blanks comments and string literals, keeping offsets and newlines."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', blank, s, flags=re.S)


def split_args(s, start):
    """The top-level arguments of the call whose '(' ends just before start."""
    depth, cur, args = 0, "", []
    for c in s[start:]:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(cur)
                return args
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
    return None


def main():
    files = []
    for d in DIRS:
        files += glob.glob(os.path.join(ROOT, d, "**", "*.[ch]"), recursive=True)
    src = {f: strip_comments(open(f, encoding="utf-8").read()) for f in sorted(files)}
    takes_err = {}
    for s in src.values():
        for m in DECL.finditer(s):
            params = m.group(2).split(",")
            for i, p in enumerate(params):
                if re.search(r"\bss_error\s*\*", p) and "const" not in p:
                    takes_err[m.group(1)] = (i, len(params))
    problems = []
    for f, s in src.items():
        rel = os.path.relpath(f, ROOT)
        for m in CALL.finditer(s):
            name = m.group(1)
            if name not in takes_err:
                continue
            args = split_args(s, m.end())
            i, n = takes_err[name]
            if args is None or len(args) != n or args[i].strip() != "NULL":
                continue
            line = s.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: NULL passed as the ss_error of {name}()")
        if rel.startswith("tests"):
            continue
        for m in BRANCH.finditer(s):
            line = s.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: branches on a returned code: read err->code")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
