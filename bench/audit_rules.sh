#!/usr/bin/env bash
# bench/audit_rules.sh: the worst CPU time of each audit rule on adversarial input at the
# record format's limits (issue 33), and the audit of a maximal record.
#
# From every rule's own cases (core/skill/audit_rules.json, hit and miss), files of BYTES bytes
# (default 200,000: a record's largest file) are made: each line of a case is cut after up to
# CUTS of its word boundaries (default 12) and the prefix repeated on one line (near-matches,
# repeated prefixes, no newline) and as many short lines (many newlines), and the whole line
# without its last byte repeated; the case's other lines stay around it, so a rule's scope and
# SKILL.md's frontmatter still hold. ss-audit-rules audits each by its rule alone, prints the
# worst CPU time per rule (and how many searches reached the engine's limit: a high
# audit-limit finding each), then audits the 32 slowest files by every rule: a maximal record
# (32 files of 200,000 bytes), whose CPU time must stay under one second.
# Usage: bench/audit_rules.sh [--bytes N] [--cuts K]
# Needs a Release build (BUILD=build-rel, relative to the checkout, or absolute).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
bytes=200000 cuts=12
while [ $# -gt 0 ]; do
	case $1 in
	--bytes) bytes=$2; shift 2 ;;
	--cuts) cuts=$2; shift 2 ;;
	*) echo "usage: bench/audit_rules.sh [--bytes N] [--cuts K]" >&2; exit 129 ;;
	esac
done
bench_build
[ -x "$build/ss-audit-rules" ] ||
	{ echo "bench/audit_rules.sh: build ss-audit-rules first (in $build)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - core/skill/audit_rules.json "$work" "$bytes" "$cuts" >"$work/manifest" <<'PY'
import json, os, sys
rules, work, size, cuts = json.load(open(sys.argv[1]))["rules"], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
n = 0
def emit(rule, shape, case, head, unit, tail):
    global n
    body = bytearray(head)
    while unit and len(body) + len(unit) + len(tail) <= size:
        body += unit
    body += tail
    n += 1
    name = os.path.join(work, "f%06d" % n)
    open(name, "wb").write(body)
    print("\t".join([rule, shape, case["path"], "1" if case.get("executable") else "0", name]))
for r in rules:
    for kind in ("hit", "miss"):
        for ci, case in enumerate(r.get(kind, [])):
            if "text" not in case:
                continue
            text = case["text"].encode("utf-16", "surrogatepass").decode("utf-16").encode("utf-8")
            lines = text.split(b"\n")
            off = 0
            for ln, line in enumerate(lines, 1):
                head, tail = text[:off], text[off + len(line):]
                off += len(line) + 1
                if not line:
                    continue
                step = len(line) // cuts + 1
                ks = sorted(set(list(range(step, len(line), step)) + [len(line)]))
                for k in ks:
                    where = "%s %d line %d" % (kind, ci, ln)
                    emit(r["id"], "%s: repeated prefix of %d bytes" % (where, k), case, head, line[:k], tail)
                    emit(r["id"], "%s: lines of a prefix of %d bytes" % (where, k), case, head, line[:k] + b"\n", tail)
                if len(line) > 1:
                    emit(r["id"], "%s: repeated near-match of %d bytes" % (where, len(line)), case, head, line[:-1] + b" ", tail)
PY
echo "$(wc -l <"$work/manifest") files of $bytes bytes" >&2
"$build/ss-audit-rules" "$work/manifest"
