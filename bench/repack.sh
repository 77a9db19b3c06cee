#!/usr/bin/env bash
# Pack merge benchmark (not a test): what merging a clone's packs costs (core/git/repo_pack.c),
# and what it saves the commands that read objects. Per size, fills a local PDS with N members
# x M real-shaped skills (ss-fill --real, members after the second write the second's names,
# as bench/clone.sh --real), clones it once with gc.auto=0 (no merge: the fetch's packs as
# they are), copies that clone and, in the copy, with gc.autoPackLimit=1, times the pull
# that merges its packs (a pull with nothing to fetch, so the merge is the work; an idle pull
# on the unmerged clone is the baseline), then times `log`, `status` and `prompt` on both
# clones, rounds interleaved. Prints Markdown tables: "median (min-max)", peak RSS.
# Usage: bench/repack.sh [<members>x<skills>...]   (default: 3x3000)
# Needs a build in build/ (BUILD=<dir> for another, e.g. a Release one); starts and stops its
# own PDS. SS_BENCH_RUNS=n (default 5) rounds of each reading command. Clones under $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
. bench/lib.sh
bench_build
skillsync=$build/skillsync
fill=$build/ss-fill
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(3x3000)
runs=${SS_BENCH_RUNS:-5}

bench_pds
export SKILLSYNC_CONFIG_HOME=$work/config
now() { date +%s.%N; }
spread() {
	printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%.3f s", m; else printf "%.3f s (%.3f-%.3f)", m, v[1], v[NR] }'
}
maxkb() { printf '%s\n' "$@" | sort -n | tail -n 1 | awk '{printf "%.0f MB", $1 / 1024}'; }
packs() { find "$1/.git/objects/pack" -name 'pack-*.pack' | wc -l; }
packbytes() { du -sb "$1/.git/objects/pack" | awk '{printf "%.1f MB", $1 / 1048576}'; }
# timed <dir> <command...>: in <dir>, under /usr/bin/time; sets t (seconds) and kb (peak RSS).
timed() {
	local dir=$1 t0 t1
	shift
	t0=$(now)
	(cd "$dir" && /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>"$work/err") ||
		{ cat "$work/err"; exit 1; }
	t1=$(now)
	t=$(echo "$t1 - $t0" | bc)
	kb=$(tail -n 1 "$work/rss")
}

for size in "${sizes[@]}"; do
	n=${size%x*}
	m=${size#*x}
	handles=()
	for i in $(seq 1 "$n"); do
		acct=$work/$size-$i.json
		(umask 077 && tests/pds/account "$info" "r$i" >"$acct")
		prefix=m$i
		[ "$i" -le 2 ] || prefix=m2
		SS_FILL_TOKEN=$(json "$acct" accessJwt) "$fill" --pds "$pds" --did "$(json "$acct" did)" \
			--generate "$m" --prefix "$prefix" --real
		handles+=("$(json "$acct" handle)")
	done
	members=()
	for h in "${handles[@]:1}"; do members+=(--member "$h"); done
	home=$work/home-$size
	mkdir -p "$home"
	printf '[gc]\n\tauto = 0\n' >"$home/.gitconfig"
	a=$work/$size-packs b=$work/$size-one
	HOME=$home timed "$work" "$skillsync" clone "${handles[0]}" "$a" "${members[@]}"
	clone_t=$t clone_kb=$kb
	git -C "$a" config gc.auto 0
	cp -a "$a" "$b"
	# the copy's files have new inodes and change times: without a refreshed index, status
	# would hash every file again in the copy only
	git -C "$a" update-index -q --refresh
	git -C "$b" update-index -q --refresh
	git -C "$b" config gc.auto 6700
	git -C "$b" config gc.autoPackLimit 1
	before="$(packs "$a") packs, $(packbytes "$a")"
	timed "$a" "$skillsync" pull --quiet
	idle_t=$t idle_kb=$kb
	timed "$b" "$skillsync" pull --quiet
	merge_t=$t merge_kb=$kb
	after="$(packs "$b") pack, $(packbytes "$b")"
	git -C "$b" config gc.auto 0
	echo "| $size | clone (no merge) | $(spread "$clone_t") | $(maxkb "$clone_kb") | $before |"
	echo "| $size | idle pull, no merge | $(spread "$idle_t") | $(maxkb "$idle_kb") | |"
	echo "| $size | idle pull that merges | $(spread "$merge_t") | $(maxkb "$merge_kb") | $after |"
	for cmd in log status prompt; do
		ta=() tb=() ka=() kb_=()
		for _ in $(seq 1 "$runs"); do
			timed "$a" "$skillsync" "$cmd"
			ta+=("$t") ka+=("$kb")
			timed "$b" "$skillsync" "$cmd"
			tb+=("$t") kb_+=("$kb")
		done
		echo "| $size | $cmd, packs as fetched | $(spread "${ta[@]}") | $(maxkb "${ka[@]}") | |"
		echo "| $size | $cmd, merged | $(spread "${tb[@]}") | $(maxkb "${kb_[@]}") | |"
	done
	git -C "$b" fsck --full --no-dangling >/dev/null 2>&1 && echo "fsck of the merged clone: clean" >&2
	rm -rf "$a" "$b"
done
