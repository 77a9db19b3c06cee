#!/usr/bin/env python3
"""Checks the naming rule of docs/CONTRIBUTING.md over the built objects of core/ and sync/ (ctest `prefixes`):

- every name an object exports is ss_<module>_..., where <module> is its file's name or a
  leading part of it (core/atproto/mst_walk.c exports ss_mst_*; ss_mst_walk_* would do too);
- a name with a double underscore, ss_<module>__..., is the module's private one: declared
  in its folder's <module>_priv.h or in no header at all, never in a public header.

The one exception is core/util/mem.c's allocators, ss_x*, named as git's xmalloc family.

Usage: check-prefixes.py <source root> <object>[;<object>...]
"""
import os
import re
import subprocess
import sys

EXCEPTIONS = {"core/util/mem.c": re.compile(r"^ss_x[a-z]+$")}


def source_of(obj, root):
    """core/atproto/mst.c for .../sscore.dir/core/atproto/mst.c.o"""
    m = re.search(r"\.dir/(.*)\.o$", obj.replace(os.sep, "/"))
    return m.group(1) if m else None


def exported(obj):
    out = subprocess.run(["nm", "-g", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        # names with two leading underscores are the compiler's or the sanitizers' own
        # (__odr_asan.*), not the module's
        if len(parts) == 3 and parts[1] in "TDBR" and not parts[2].startswith("__"):
            yield parts[2]


def public_headers(root):
    names = {}
    for top in ("core", "sync"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(".h") and not f.endswith("_priv.h"):
                    path = os.path.relpath(os.path.join(dirpath, f), root)
                    for name in re.findall(r"\b(ss_\w+__\w+)\s*\(", open(os.path.join(dirpath, f)).read()):
                        names[name] = path
    return names


def main():
    root = sys.argv[1]
    objs = [o for arg in sys.argv[2:] for o in arg.split(";") if o]
    public = public_headers(root)
    problems = []
    for obj in objs:
        src = source_of(obj, root)
        if not src:
            continue
        base = os.path.basename(src)[:-2]
        parts = base.split("_")
        prefixes = ["_".join(parts[:i]) for i in range(len(parts), 0, -1)]
        for name in exported(obj):
            exc = EXCEPTIONS.get(src)
            if exc and exc.match(name):
                continue
            if not any(name.startswith(f"ss_{p}_") or name.startswith(f"SS_{p.upper()}_") for p in prefixes):
                problems.append(f"{src}: exports '{name}', not ss_{base.split('_')[0]}_... (docs/CONTRIBUTING.md: the file matches the prefix)")
            if "__" in name and name in public:
                problems.append(f"{src}: '{name}' is private by its name but declared in {public[name]}")
    for p in problems:
        print("prefixes:", p)
    if not problems:
        print(f"prefixes: {len(objs)} objects, every exported name ss_<module>_")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
