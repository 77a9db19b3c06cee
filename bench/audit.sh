#!/usr/bin/env bash
# bench/audit.sh: what the review gate and the audit cost (issue 27). Starts a real PDS on
# loopback, fills 2 members x SKILLS real-shaped skills (ss-fill --real; default 3000 each, a
# 6,000-skill clone), clones it read-only (nobody signed in: every change is someone else's,
# so the gate looks at all of them), then times, ROUNDS times each, alternating the order:
#   a. a pull when nothing changed, review.policy scripts against off (the goal: the gate
#      costs nothing when nothing changed);
#   b. a pull after the second member changed 100 skills (instructions and scripts/run.sh),
#      scripts against off: under scripts each change is audited and held ('accept --all'
#      takes them in after the timed pull, untimed), under off each merges as before (the
#      goal: the 100 audits under 100 ms);
#   c. `skillsync audit` of the N changed skills named, and over every skill of the working tree, against `grep -rP` of the
#      audit's own patterns (core/skill/audit_rules.json), one pass per pattern: what a
#      person would run instead.
# Each run is measured by /usr/bin/time: wall time, CPU time (user + system) and peak RSS.
# Prints one Markdown row per run, then per case "median (min-max)". Usage:
#   bench/audit.sh [--skills M] [--rounds R] [--changes N]
# Needs a Release build (BUILD=build-rel, relative to the checkout, or absolute).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
skills=3000 rounds=5 changes=100
while [ $# -gt 0 ]; do
	case $1 in
	--skills) skills=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--changes) changes=$2; shift 2 ;;
	*) echo "usage: bench/audit.sh [--skills M] [--rounds R] [--changes N]" >&2; exit 129 ;;
	esac
done
bench_build
skillsync=$build/skillsync
[ -x "$skillsync" ] && [ -x "$build/ss-fill" ] ||
	{ echo "bench/audit.sh: build skillsync and ss-fill first (in $build)" >&2; exit 1; }
bench_pds
export SKILLSYNC_CONFIG_HOME=$work/config # a read-only clone
export LC_ALL=C.UTF-8                     # grep -P reads UTF-8 as the audit does
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@example.test GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@example.test
umask 077

echo "filling 2 members x $skills real-shaped skills..." >&2
for i in 1 2; do
	tests/pds/account "$info" "bench$i" >"$work/m$i.json"
	SS_FILL_TOKEN=$(json "$work/m$i.json" accessJwt) "$build/ss-fill" --pds "$pds" \
		--did "$(json "$work/m$i.json" did)" --generate "$skills" --prefix "m$i" --real
done
python3 - core/skill/audit_rules.json >"$work/patterns" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rules"]:
    if r.get("pattern"):
        print(r["pattern"])
PY
cd "$work"
"$skillsync" clone "$(json m1.json handle)" space --member "$(json m2.json handle)" >/dev/null 2>&1
cd space

# timed <label> <command>...: runs it under /usr/bin/time, prints one row, keeps it in rows.
timed() {
	local label=$1 wall user sys cpu rss
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
	read -r wall user sys rss < <(tail -1 "$work/time")
	grep -q "non-zero" "$work/time" && [ "$label" = "${label#audit}" ] && { echo "$label failed:" >&2; cat "$work/err" >&2; }
	wall=$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1000 }')
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')
	printf '| %s | %d ms | %d ms | %d MB |\n' "$label" "$wall" "$cpu" $((rss / 1024))
	echo "$label|$wall|$cpu|$rss" >>"$work/rows"
}
# summary <label regexp> <case>: "median (min-max)" of wall, CPU and peak RSS of the runs.
summary() {
	grep -E "^$1\|" "$work/rows" | awk -F'|' -v c="$2" '
		function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
		{ w[NR] = $2; p[NR] = $3; r[NR] = $4 }
		END { if (!NR) exit; sort(w, NR); sort(p, NR); sort(r, NR)
		      printf "| %s | %d ms (%d-%d) | %d ms (%d-%d) | %d MB |\n", c, med(w, NR), w[1], w[NR],
		             med(p, NR), p[1], p[NR], r[NR] / 1024 }'
}
# change <round>: the second member's first N skills get new instructions and a new script.
change() {
	python3 - "$pds" "$work/m2.json" "$1" "$changes" <<'PY'
import datetime, json, sys, urllib.request
pds, acct, r, n = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
def rec(rkey):
    body = "".join("Step %d of %s: check the input, then run the script. Round %s.\n" % (k, rkey, r)
                   for k in range(60))
    script = "#!/bin/sh\nset -eu\n# round %s\nfor f in \"$@\"; do\n\twc -l \"$f\"\ndone\n" % r
    return {"$type": "garden.engram.skill", "name": rkey, "description": "changed skill " + rkey,
            "instructions": body, "files": [{"path": "scripts/run.sh", "content": script,
            "executable": True}], "createdAt": now, "updatedAt": now, "note": "round " + r}
names = ["m2-%05d" % i for i in range(n)]
for start in range(0, n, 200):
    writes = [{"$type": "com.atproto.repo.applyWrites#update", "collection": "garden.engram.skill",
               "rkey": k, "value": rec(k)} for k in names[start:start + 200]]
    req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.applyWrites", method="POST",
        data=json.dumps({"repo": acct["did"], "writes": writes}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + acct["accessJwt"]})
    urllib.request.urlopen(req).read()
PY
}
grep_all() {
	while IFS= read -r p; do grep -rPn --exclude-dir=.git -e "$p" . || true; done <"$work/patterns"
}
export -f grep_all
export work

n=$(find . -mindepth 2 -maxdepth 2 -name SKILL.md | wc -l)
echo "| run ($n skills) | wall time | CPU time | peak RSS |"
echo "|---|---|---|---|"
for r in $(seq 1 "$rounds"); do
	first=scripts second=off
	[ $((r % 2)) = 1 ] || { first=off second=scripts; }
	timed "no change, $first, run $r" env SKILLSYNC_REVIEW_POLICY="$first" "$skillsync" pull --quiet
	timed "no change, $second, run $r" env SKILLSYNC_REVIEW_POLICY="$second" "$skillsync" pull --quiet
done
for r in $(seq 1 "$rounds"); do
	first=scripts second=off
	[ $((r % 2)) = 1 ] || { first=off second=scripts; }
	for policy in $first $second; do
		change "$policy-$r"
		timed "$changes changed, $policy, run $r" env SKILLSYNC_REVIEW_POLICY="$policy" "$skillsync" pull --quiet
		if [ "$policy" = scripts ]; then
			held=$("$skillsync" review --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
			[ "$held" = "$changes" ] || echo "warning: $held held, not $changes" >&2
			"$skillsync" accept --all >/dev/null
		fi
	done
done
named=()
for i in $(seq 0 $((changes - 1))); do named+=("$(printf 'm2-%05d' "$i")"); done
for r in $(seq 1 "$rounds"); do
	timed "audit, run $r" "$skillsync" audit
	timed "audit of $changes, run $r" "$skillsync" audit "${named[@]}"
	timed "grep -rP, run $r" bash -c grep_all
done
"$skillsync" audit | tail -1 >&2
echo
echo "| case ($n skills) | wall time | CPU time | peak RSS |"
echo "|---|---|---|---|"
for p in scripts off; do summary "no change, $p, run [0-9]+" "no-change pull, review.policy $p"; done
for p in scripts off; do summary "$changes changed, $p, run [0-9]+" "pull of $changes changed skills, review.policy $p"; done
summary "audit, run [0-9]+" "skillsync audit"
summary "audit of $changes, run [0-9]+" "skillsync audit of the $changes changed skills"
summary "grep -rP, run [0-9]+" "grep -rP, $(wc -l <"$work/patterns") patterns, one pass each"
