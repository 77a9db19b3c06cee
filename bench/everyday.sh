#!/usr/bin/env bash
# bench/everyday.sh: the commands run after every edit (issue 28), each against git's own
# command on a plain copy of the same repository. Fills a local PDS with MEMBERS x SKILLS
# records shaped like real skills (ss-fill --real; members after the second write the second's
# names, as bench/commit.sh), clones the space once, then for each way the tree is reached:
#   - "in place": the clone as clone wrote it (skillsync) and a `cp -a` of it (git, whose
#     status ran once first);
#   - "after a copy": in each round a fresh `cp -a` of each side's tree (new inodes and change
#     times: stale stat data, as after a restore from a backup), the first status timed apart;
# and in each round, on each side's own tree:
#   status (nothing changed); one SKILL.md edited: status, diff, commit -m (git commit -am);
#   CHANGES SKILL.md edited: status, commit -m (git add -A && git commit).
# Prints "median (min-max)" of wall time, the median CPU (user+sys) and peak RSS, and the ratio
# of the wall medians, one row per case. Usage:
#   bench/everyday.sh [--members N] [--skills M] [--changes C] [--runs R] [--modes "place copy"]
#   [--trees DIR]
#   (default 3 x 3000, 1000 changes, 3 runs). BUILD=<dir>: the build (a Release build is
#   fairer); starts and stops its own PDS (free ports). SS_BENCH_KEEP=<dir>: the trees are moved
#   there at the end (for profiles: none of the commands needs the PDS). --trees DIR: no fill
#   and no PDS; the rounds run on DIR/ss-place and DIR/git-place, trees an earlier run kept
#   (filling 3 x 30,000 takes the PDS ten minutes or more; the trees go on from there).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
members=3 skills=3000 changes=1000 runs=3 modes="place copy" trees=
while [ $# -gt 0 ]; do
	case $1 in
	--members) members=$2; shift 2 ;;
	--skills) skills=$2; shift 2 ;;
	--changes) changes=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--modes) modes=$2; shift 2 ;;
	--trees) trees=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: bench/everyday.sh [--members N] [--skills M] [--changes C] [--runs R] [--modes \"place copy\"] [--trees DIR]" >&2; exit 129 ;;
	esac
done
bench_build
skillsync=${SKILLSYNC:-$build/skillsync}
[ -x "$skillsync" ] || { echo "bench/everyday.sh: build first (no $skillsync)" >&2; exit 1; }

bench_git_env
if [ -n "$trees" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
	# the trees go back where they were, whatever happens
	trap 'mv "$work/ss-place" "$work/git-place" "$trees/"; rm -rf "$work"' EXIT
	mv "$trees/ss-place" "$trees/git-place" "$work/"
	export SKILLSYNC_CONFIG_HOME=$work/config
	cd "$work"
else
	bench_pds
	export SKILLSYNC_CONFIG_HOME=$work/config # nobody signed in: a read-only clone
	bench_fill_clone "$members" "$skills" e ss-place
	cd "$work"
	cp -a ss-place git-place
	(cd git-place && git status >/dev/null)
fi
(cd ss-place && ls -d */ | awk -v n="$changes" 'NR <= n { sub("/$", "/SKILL.md"); print }') \
	>"$work/changed"
[ "$(wc -l <"$work/changed")" -eq "$changes" ] || { echo "fewer than $changes skills" >&2; exit 1; }
echo "clone: $(git -C ss-place ls-files | wc -l) files" >&2

# timed <case> <side> <command...>: one run in the current directory, one row in $work/rows.
timed() {
	local c=$1 side=$2 t0 t1
	shift 2
	sync
	t0=$(date +%s%N)
	/usr/bin/time -f "%M %U %S" -o "$work/rss" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	t1=$(date +%s%N)
	echo "$c|$side|$(((t1 - t0) / 1000000))|$(tail -n 1 "$work/rss")" >>"$work/rows"
}
# edit <n> <tag>: a line appended to the first n of the changed SKILL.md files.
edit() { head -n "$1" "$work/changed" | while read -r f; do echo "$2" >>"$f"; done; }
# round <mode> <side> <run>: every case once, on the side's tree for the mode.
round() {
	local m=$1 side=$2 r=$3
	if [ "$m" = copy ]; then
		rm -rf "$work/$side-copy"
		cp -a "$work/$side-place" "$work/$side-copy"
	fi
	cd "$work/$side-$m"
	if [ "$m" = copy ] && [ "$side" = ss ]; then
		timed "$m|status, the first after the copy" ss "$skillsync" status
	elif [ "$m" = copy ]; then
		timed "$m|status, the first after the copy" git git status
	fi
	if [ "$side" = ss ]; then
		timed "$m|status, nothing changed" ss "$skillsync" status
		edit 1 "round $r"
		timed "$m|status, one SKILL.md edited" ss "$skillsync" status
		timed "$m|diff, one SKILL.md edited" ss "$skillsync" diff
		timed "$m|commit -m, that one skill" ss "$skillsync" commit -m "one $r"
		edit "$changes" "round $r, many"
		timed "$m|status, $changes SKILL.md edited" ss "$skillsync" status
		timed "$m|commit -m, those $changes" ss "$skillsync" commit -m "many $r"
	else
		timed "$m|status, nothing changed" git git status
		edit 1 "round $r"
		timed "$m|status, one SKILL.md edited" git git status
		timed "$m|diff, one SKILL.md edited" git git --no-pager diff
		timed "$m|commit -m, that one skill" git git commit -q -am "one $r"
		edit "$changes" "round $r, many"
		timed "$m|status, $changes SKILL.md edited" git git status
		timed "$m|commit -m, those $changes" git sh -c "git add -A && git commit -q -m 'many $r'"
	fi
	[ -z "$(git status --porcelain | head -n 1)" ] || { echo "$side left changes" >&2; exit 1; }
	cd "$work"
}
for m in $modes; do
	for r in $(seq 1 "$runs"); do
		# who goes first alternates from round to round
		if [ $((r % 2)) = 1 ]; then round "$m" ss "$r"; round "$m" git "$r"; else
			round "$m" git "$r"; round "$m" ss "$r"; fi
		echo "$m: round $r of $runs" >&2
	done
done

# stat <case> <side> <field>: "median (min-max)" (field 3: wall ms) or the median (4: RSS KB,
# 5: CPU = user + sys s).
stat() {
	awk -F'|' -v c="$1" -v s="$2" -v f="$3" '$1 "|" $2 == c && $3 == s {
		split($5, a, " "); if (f == 3) print $4 + 0; else if (f == 4) print a[1];
		else print (a[2] + a[3]) * 1000 }' "$work/rows" | sort -n | awk -v f="$3" '
		{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (f == 3) printf "%d (%d-%d)", m, v[1], v[NR]; else if (f == 4) printf "%.0f", m / 1024
		else printf "%.0f", m }'
}
med() { stat "$@" | cut -d' ' -f1; }
echo
echo "| $(ls -d ss-place/*/ | wc -l) skills | skillsync ms | git ms | ratio | CPU ms (ss / git) | peak RSS MB (ss / git) |"
echo "|---|---|---|---|---|---|"
for m in $modes; do
	cut -d'|' -f1,2 "$work/rows" | grep "^$m|" | awk '!seen[$0]++' | while read -r c; do
		label=${c#*|}
		[ "$m" = copy ] && label="$label, after a copy"
		ratio=$(echo "scale=1; $(med "$c" ss 3) / $(med "$c" git 3)" | bc 2>/dev/null || echo -)
		echo "| $label | $(stat "$c" ss 3) | $(stat "$c" git 3) | ${ratio}x |" \
			"$(stat "$c" ss 5) / $(stat "$c" git 5) | $(stat "$c" ss 4) / $(stat "$c" git 4) |"
	done
done
if [ -z "$trees" ] && [ -n "${SS_BENCH_KEEP:-}" ]; then
	mkdir -p "$SS_BENCH_KEEP"
	mv "$work/ss-place" "$work/git-place" "$SS_BENCH_KEEP/"
	echo "trees kept in $SS_BENCH_KEEP" >&2
fi
