#!/usr/bin/env python3
"""Checks that the unit tests' ctest entries run every test file's group exactly once.

    check-groups.py <ctest> <build dir> --areas <tests/area>... --binaries <test binary>...

A unit area is a folder tests/<area>/ whose files <module>.c each define one group,
`int test_<module>_run(void)`, that runs cmocka cases. tests/CMakeLists.txt generates one
binary's main() from the list of files and one ctest entry per file: `<binary> <module>`.
This fails when
- a file defines no runnable group (no test_<module>_run calling cmocka_run_group_tests over
  cmocka_unit_test cases);
- a file's group is run by no entry, or by more than one (a module silently dropped from the
  generated list, or run twice in the full suite);
- a binary's groups (`<binary> --list`) differ from those its entries run;
- an entry needs the `pds` fixture but its file does not include tests/<area>/pds.h, or the
  other way round (the pure binary must run without the PDS);
- a binary accepts a group name it does not have (it must be a usage error, exit 129).
It reads the entries from `ctest -N --show-only=json-v1`, the files from the source tree.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def groups_in_files(areas):
    """{(area, module): path} for every tests/<area>/*.c."""
    out = {}
    for d in areas:
        area = os.path.basename(os.path.normpath(d))
        for name in sorted(os.listdir(d)):
            if name.endswith(".c"):
                out[(area, name[:-2])] = os.path.join(d, name)
    return out


def runnable(path, module):
    """The problem with the file's group, or None when it defines one that runs cases."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^int test_%s_run\(void\)\n\{\n(.*?)^\}" % re.escape(module), text,
                  re.M | re.S)
    if not m:
        return "defines no group: no `int test_%s_run(void)`" % module
    body = m.group(1)
    if "cmocka_run_group_tests" not in body or "cmocka_unit_test" not in body:
        return "test_%s_run runs no cmocka cases" % module
    return None


def needs_pds(path, area):
    """Whether the file includes the area's PDS header (tests/<area>/pds.h)."""
    header = os.path.join(os.path.dirname(path), "pds.h")
    if not os.path.exists(header):
        return False
    with open(path, encoding="utf-8") as f:
        return any(line.startswith('#include "%s/pds.h"' % area) for line in f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ctest")
    ap.add_argument("build")
    ap.add_argument("--areas", nargs="+", required=True)
    ap.add_argument("--binaries", nargs="+", required=True)
    args = ap.parse_args()

    problems = []
    files = groups_in_files(args.areas)
    area_names = sorted({a for a, _ in files}, key=len, reverse=True)
    for (area, module), path in sorted(files.items()):
        why = runnable(path, module)
        if why:
            problems.append("tests/%s/%s.c %s" % (area, module, why))

    def area_of(binary):
        base = os.path.basename(binary)
        for a in area_names:
            if base == "test_" + a or base.startswith("test_%s_" % a):
                return a
        return None

    shown = subprocess.run([args.ctest, "--test-dir", args.build, "-N",
                            "--show-only=json-v1"], check=True, capture_output=True, text=True)
    binaries = {os.path.realpath(b): b for b in args.binaries}
    runs = {}  # (area, module) -> entry names
    by_binary = {b: set() for b in binaries}
    for t in json.loads(shown.stdout)["tests"]:
        cmd = t.get("command") or []
        if not cmd or os.path.realpath(cmd[0]) not in binaries:
            continue
        binary = os.path.realpath(cmd[0])
        if len(cmd) != 2:
            problems.append("entry %s runs %s, not one group" % (t["name"], cmd[1:] or "all"))
            continue
        area = area_of(binary)
        runs.setdefault((area, cmd[1]), []).append(t["name"])
        by_binary[binary].add(cmd[1])
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        has_pds = "pds" in (props.get("FIXTURES_REQUIRED") or [])
        path = files.get((area, cmd[1]))
        if path and has_pds != needs_pds(path, area):
            problems.append("entry %s %s the pds fixture but tests/%s/%s.c %s tests/%s/pds.h" %
                            (t["name"], "needs" if has_pds else "lacks", area, cmd[1],
                             "does not include" if has_pds else "includes", area))

    for key in sorted(files):
        n = len(runs.get(key, []))
        if n != 1:
            problems.append("tests/%s/%s.c: its group is run by %d ctest entries, not 1 (%s)" %
                            (key[0], key[1], n, ", ".join(runs.get(key, [])) or "rebuild?"))
    for key in sorted(set(runs) - set(files)):
        problems.append("entries %s run group %s, which no tests/%s/*.c defines" %
                        (", ".join(runs[key]), key[1], key[0]))

    for binary, wanted in sorted(by_binary.items()):
        name = os.path.basename(binary)
        listed = subprocess.run([binary, "--list"], capture_output=True, text=True)
        have = set(listed.stdout.split())
        if listed.returncode != 0:
            problems.append("%s --list exited %d" % (name, listed.returncode))
        for g in sorted(have - wanted):
            problems.append("%s has group %s but no ctest entry runs it" % (name, g))
        for g in sorted(wanted - have):
            problems.append("%s has no group %s, which an entry runs" % (name, g))
        bad = subprocess.run([binary, "no-such-group"], capture_output=True, text=True)
        if bad.returncode != 129:
            problems.append("%s no-such-group exited %d, not 129" % (name, bad.returncode))

    for p in problems:
        print("unit_groups: " + p, file=sys.stderr)
    entries = sum(len(v) for v in runs.values())
    print("unit_groups: %d files in %s, %d ctest entries over %d binaries" %
          (len(files), ", ".join(sorted(area_names)), entries, len(binaries)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
