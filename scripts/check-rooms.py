#!/usr/bin/env python3
"""Checks the rooms of the tree against docs/ARCHITECTURE.md, where they are written once, as data:

- the table under "## Folders" names every folder of cmd/, core/, sync/ and bench/ (`folder`,
  what it holds in one sentence, the library behind it, the folders it may include: the last
  column); an include from a file of one
  folder into another must be on that folder's row: none goes up or sideways, and the rows
  themselves must draw no circle;
- a `*_priv.h` is private to its folder: only files of that folder include it (tests may);
- the table under "## Libraries" names, for each third-party header, the only folders (or
  files) that may include it;
- no core/ or sync/ folder holds more than MAX_C .c files;
- every quoted include names a file that exists.

Prints one line per problem and exits 1 when there is any; ctest runs it as `rooms`.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
TOPS = ("cmd", "core", "sync", "bench")
MAX_C = 25
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')


def table(text, heading):
    """The rows (lists of cells) of the first table under heading."""
    at = text.find("\n" + heading + "\n")
    if at < 0:
        sys.exit(f"rooms: docs/ARCHITECTURE.md has no '{heading}' section")
    rows = []
    for line in text[at + len(heading) + 2 :].split("\n"):
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # past the header row


def names(cell):
    """The `quoted` names of a cell, without trailing slashes."""
    return [n.rstrip("/") for n in re.findall(r"`([^`]+)`", cell)]


def folder_of(path):
    return os.path.dirname(path)


def sources():
    for top in TOPS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def allowed_graph(rows, problems):
    allowed = {}
    for cells in rows:
        if len(cells) != 4 or len(names(cells[0])) != 1:
            problems.append(f"docs/ARCHITECTURE.md: a '## Folders' row is not `folder` | what | library | may include: {cells}")
            continue
        folder = names(cells[0])[0]
        if not cells[1] or cells[1].count(". ") > 0:
            problems.append(f"docs/ARCHITECTURE.md: '{folder}/' wants one sentence saying what it holds")
        allowed[folder] = set(names(cells[3]))
    for folder, targets in allowed.items():
        for t in targets:
            if t not in allowed:
                problems.append(f"docs/ARCHITECTURE.md: '{folder}/' may include '{t}/', which has no row")
    # the rows draw no circle
    state = {}

    def visit(f, path):
        state[f] = 1
        for t in sorted(allowed.get(f, ())):
            if state.get(t) == 1:
                problems.append("docs/ARCHITECTURE.md: the folders draw a circle: " + " -> ".join(path + [t]))
            elif t in allowed and not state.get(t):
                visit(t, path + [t])
        state[f] = 2

    for f in sorted(allowed):
        if not state.get(f):
            visit(f, [f])
    return allowed


def main():
    text = open(DOC, encoding="utf-8").read()
    problems = []
    allowed = allowed_graph(table(text, "## Folders"), problems)
    libs = {}
    for cells in table(text, "## Libraries"):
        for header in names(cells[0]):
            libs[header] = names(cells[1])
    files = list(sources())
    folders = sorted({folder_of(f) for f in files})
    for f in folders:
        if f not in allowed:
            problems.append(f"{f}/: no row in docs/ARCHITECTURE.md's '## Folders'")
    for f in sorted(allowed):
        if f not in folders:
            problems.append(f"docs/ARCHITECTURE.md: '{f}/' has a row but no source file")
    for path in files:
        here = folder_of(path)
        for n, line in enumerate(open(os.path.join(ROOT, path), encoding="utf-8"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, inc = m.groups()
            where = f"{path}:{n}"
            if kind == "<":
                only = libs.get(inc) or libs.get(inc.split("/")[0])
                if only is not None and not any(path == o or here == o or path.startswith(o + "/") for o in only):
                    problems.append(f"{where}: <{inc}> belongs only in {', '.join(only)}")
                continue
            if not os.path.exists(os.path.join(ROOT, inc)):
                if not (path == "cmd/main.c" and inc == "ss_commit.h"):  # generated at build time
                    problems.append(f"{where}: includes '{inc}', which does not exist")
                continue
            there = folder_of(inc)
            if there != here and there not in allowed.get(here, ()):
                problems.append(f"{where}: includes '{inc}': {here}/ may not include {there}/ (docs/ARCHITECTURE.md)")
            if inc.endswith("_priv.h") and there != here:
                problems.append(f"{where}: includes '{inc}', private to {there}/")
    for f in folders:
        if not f.startswith(("core", "sync")):
            continue
        cs = [p for p in files if folder_of(p) == f and p.endswith(".c")]
        if len(cs) > MAX_C:
            problems.append(f"{f}/: {len(cs)} .c files, more than {MAX_C}: split it")
    for p in problems:
        print("rooms:", p)
    if not problems:
        print(f"rooms: {len(files)} files in {len(folders)} folders, every include as docs/ARCHITECTURE.md allows")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
