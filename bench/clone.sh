#!/usr/bin/env bash
# Clone benchmark (not a test): fills a local PDS with N members x M generated skills, then
# measures `skillsync clone` (wall time, HTTP requests, bytes received, peak RSS) next to bare
# curl fetches of the same listRecords pages (members in parallel, pages one after another,
# like the clone). Usage: bench/clone.sh [<members>x<skills>...]   (default: 3x300 3x3000)
# Needs a build in build/ (cmake --build build); starts and stops its own PDS.
# SS_BENCH_RUNS=n (default 3): clones (and curl passes) per size; times are reported as
# "median (min-max)". The clones are made under $TMPDIR (e.g. a freshly made file system).
# SKILLSYNC=<binary> measures another build (e.g. an older one).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
skillsync=${SKILLSYNC:-$src/build/skillsync}
fill=$src/build/ss-fill
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(3x300 3x3000)
runs=${SS_BENCH_RUNS:-3}

work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
trap '"$src"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
tests/pds/start "$work/pds" >/dev/null
info=$work/pds/pds.json
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
pds=$(json "$info" pds)
export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
export SKILLSYNC_CONFIG_HOME=$work/config
now() { date +%s.%N; }
# spread <values...>: "median (min-max)" in seconds.
spread() {
	[ $# -gt 0 ] || { printf -- '-'; return; }
	printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%.2f s", m; else printf "%.2f s (%.2f-%.2f)", m, v[1], v[NR] }'
}

# curl_member <did> <out>: every page of the member's listRecords, one after another.
curl_member() {
	local did=$1 out=$2 cursor="" page=0
	while :; do
		curl -sf "$pds/xrpc/com.atproto.repo.listRecords?repo=$did&collection=garden.engram.skill&limit=100${cursor:+&cursor=$cursor}" >"$out.$page"
		[ "$(jq '.records | length' "$out.$page")" -gt 0 ] || break
		cursor=$(jq -r '.cursor // empty' "$out.$page")
		page=$((page + 1))
		[ -n "$cursor" ] || break
	done
}

echo "| space | records | clone wall time | of which checkout | requests | bytes received | peak RSS | peak RSS before checkout | curl, same pages | fill time |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for size in "${sizes[@]}"; do
	n=${size%x*}
	m=${size#*x}
	dids=()
	handles=()
	t0=$(now)
	for i in $(seq 1 "$n"); do
		acct=$work/$size-$i.json
		(umask 077 && tests/pds/account "$info" "b$i" >"$acct")
		SS_FILL_TOKEN=$(json "$acct" accessJwt) "$fill" --pds "$pds" --did "$(json "$acct" did)" \
			--generate "$m" --prefix "m$i"
		dids+=("$(json "$acct" did)")
		handles+=("$(json "$acct" handle)")
	done
	fill_time=$(echo "$(now) - $t0" | bc)
	members=()
	for h in "${handles[@]:1}"; do members+=(--member "$h"); done

	clone_times=()
	checkout_times=()
	for run in $(seq 1 "$runs"); do
		cd "$work"
		rm -rf "clone-$size"
		sync
		t0=$(now)
		SKILLSYNC_STATS=1 /usr/bin/time -f "%M" -o "$work/rss" \
			"$skillsync" clone "${handles[0]}" "clone-$size" "${members[@]}" >/dev/null 2>"$work/err" ||
			{ cat "$work/err"; exit 1; }
		t1=$(now)
		cd "$src"
		stats=$(grep '^stats:' "$work/err")
		before=$(echo "$stats" | sed -n 's/.*epoch_before_checkout=\([0-9.]*\).*/\1/p')
		clone_times+=("$(echo "$t1 - $t0" | bc)")
		[ -z "$before" ] || checkout_times+=("$(echo "$t1 - $before" | bc)")
	done
	requests=$(echo "$stats" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')
	bytes=$(echo "$stats" | sed -n 's/.*received=\([0-9]*\).*/\1/p')
	rss=$(cat "$work/rss")
	fetch_rss=$(echo "$stats" | sed -n 's/.*peak_rss_before_checkout=\([0-9]*\).*/\1/p')

	curl_times=()
	for run in $(seq 1 "$runs"); do
		t0=$(now)
		for i in "${!dids[@]}"; do curl_member "${dids[$i]}" "$work/curl-$size-$i" & done
		wait
		curl_times+=("$(echo "$(now) - $t0" | bc)")
		rm -f "$work"/curl-"$size"-*
	done
	printf '| %s | %d | %s | %s | %s | %.1f MB | %.0f MB | %.0f MB | %s | %.0f s |\n' "$size" \
		$((n * m)) "$(spread "${clone_times[@]}")" "$(spread "${checkout_times[@]}")" \
		"$requests" "$(echo "$bytes / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
		"$(echo "$fetch_rss / 1024" | bc -l)" "$(spread "${curl_times[@]}")" "$fill_time"
	rm -rf "$work/clone-$size" "$work"/curl-"$size"-*
done
