#!/usr/bin/env python3
"""Prints tests/README.md's table from each command to the end-to-end scripts that run it.

    tests/support/command-scripts.py          prints it
    tests/support/command-scripts.py --check  fails when tests/README.md's table is not it
                                              (ctest `command_table`)

The commands are those of cmd/main.c's table, in its order (each `<x>_def = {"<name>", ...`
of cmd/cmd_*.c). A script tests/cmd/<s>.sh runs a command when one of its lines has
- `$SKILLSYNC <command>` (quoted or not, options such as --color before it allowed);
- `<f> ... <command>` where <f> is a function of the script that calls `$SKILLSYNC "$@"`
  (directly or through another such function) and <command> is among the next three words;
- `$SKILLSYNC $v` (or `<f> ... $v`) inside `for v in <words>; do`: the first word of each.
Scripts that run every command (they loop over `skillsync --help` or `help --commands`) are
listed once below the table. Commands run only by the shared helpers (tests/cmd/lib/: login,
clone, space create for most scripts' set-up) are not counted for the scripts that use them.
"""
import glob
import os
import re
import sys

SKILLSYNC = r"""["']?\$\{?SKILLSYNC\}?["']?"""


def commands():
    names = {}
    for path in glob.glob("cmd/*.c"):
        text = open(path, encoding="utf-8").read()
        for var, name in re.findall(r"\b(\w+_def) = \{\s*\"([a-z-]+)\"", text):
            names[var] = name
    table = re.search(r"commands\[\] = \{(.*?)\};", open("cmd/main.c").read(), re.S).group(1)
    return [names[v] for v in re.findall(r"&(\w+_def)", table)]


def wrappers(text):
    """The script's functions that end up calling $SKILLSYNC "$@"."""
    bodies = {}
    for m in re.finditer(r"^\s*(\w+)\(\) \{(.*?)^\s*\}|^\s*(\w+)\(\) \{(.*?)\}\s*$", text,
                         re.M | re.S):
        name, body = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        bodies[name] = body
    found = {n for n, b in bodies.items() if re.search(SKILLSYNC + r'\s+"\$@"', b)}
    while True:
        more = {n for n, b in bodies.items() if n not in found and
                any(re.search(r"(^|[\s;(])%s\s+\S*\"?\$@" % w, b) for w in found)}
        if not more:
            return found
        found |= more


def runs(text, cmds):
    out = set()
    calls = [(SKILLSYNC, 1)] + [(r"(?<![\w-])%s" % w, 3) for w in wrappers(text)]
    loop_words = {}
    for line in text.replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("#"):
            continue
        m = re.search(r"\bfor (\w+) in (.*?); do", line)
        if m:
            words = re.findall(r'"([^"]*)"|(\S+)', m.group(2))
            loop_words[m.group(1)] = [(a or b).split()[0] for a, b in words if (a or b).strip()]
        for call, reach in calls:
            for m in re.finditer(call + r"((?:\s+\S+){1,3})", line):
                # Options before the command do not count towards the reach.
                words = [w.strip("\"'") for w in m.group(1).split()]
                words = [w for w in words if not w.startswith("-")][:reach]
                for w in words:
                    var = re.fullmatch(r"\$\{?(\w+)\}?", w)
                    if var and var.group(1) in loop_words:
                        out |= {x for x in loop_words[var.group(1)] if x in cmds}
                        break
                    if w in cmds:
                        out.add(w)
                        break
    return out


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    cmds = commands()
    by_cmd = {c: [] for c in cmds}
    every = []
    for path in sorted(glob.glob("tests/cmd/*.sh")):
        name = os.path.basename(path)[:-3]
        text = open(path, encoding="utf-8").read()
        if re.search(SKILLSYNC + r"\s+(--help \||help --commands)", text):
            every.append(name)
        for c in runs(text, set(cmds)):
            by_cmd[c].append(name)
    lines = ["| command | scripts (`tests/cmd/<name>.sh`, ctest `cmd_<name>`) |", "|---|---|"]
    lines += ["| `%s` | %s |" % (c, ", ".join(by_cmd[c]) or "none") for c in cmds]
    lines += ["", "Every command: %s." % ", ".join(every)]
    table = "\n".join(lines) + "\n"
    if sys.argv[1:] != ["--check"]:
        sys.stdout.write(table)
        return 0
    if table not in open("tests/README.md", encoding="utf-8").read():
        print("command_table: tests/README.md's table from commands to scripts is not what the "
              "scripts run now: run tests/support/command-scripts.py and paste its output there")
        return 1
    print("command_table: tests/README.md's table is the scripts' own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
