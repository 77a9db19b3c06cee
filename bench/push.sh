#!/usr/bin/env bash
# Push benchmark (not a test): a space of N skills (the authority's, generated), cloned as
# another account; one skill changed and committed; then `skillsync push --dry-run` (the
# local work only: plan, note, record) and `skillsync push` (wall time, HTTP requests of which
# write requests, bytes). Usage: bench/push.sh [<skills>...]   (default: 300 3000)
# SS_BENCH_CHANGED=K changes K skills instead of one; SKILLSYNC=<binary> runs another build.
# Needs a build in build/ (cmake --build build); starts and stops its own PDS.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
skillsync=${SKILLSYNC:-$src/build/skillsync}
fill=$(dirname "$skillsync")/ss-fill
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(300 3000)

work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
trap '"$src"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
tests/pds/start "$work/pds" >/dev/null
info=$work/pds/pds.json
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
pds=$(json "$info" pds)
export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
export SKILLSYNC_CONFIG_HOME=$work/config GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@example.test
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=b@example.test
now() { date +%s.%N; }
# best of 5 runs of a command, in seconds
best() {
	local b="" t0 t
	for _ in 1 2 3 4 5; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t=$(echo "$(now) - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

echo "| space | push --dry-run (best of 5) | push wall time | requests | write requests | bytes sent | bytes received |"
echo "|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	auth=$work/auth-$n.json me=$work/me-$n.json
	(umask 077 && tests/pds/account "$info" "a$n" >"$auth" && tests/pds/account "$info" "p$n" >"$me")
	SS_FILL_TOKEN=$(json "$auth" accessJwt) "$fill" --pds "$pds" --did "$(json "$auth" did)" \
		--generate "$n" --prefix "s" >/dev/null
	SKILLSYNC_PASSWORD=$(json "$me" password) "$skillsync" login "$(json "$me" handle)" >/dev/null
	cd "$work"
	"$skillsync" clone "$(json "$auth" handle)" "clone-$n" >/dev/null 2>&1
	cd "clone-$n"
	for s in $(ls | head -n "${SS_BENCH_CHANGED:-1}"); do
		printf '\n## One more step\nAdded for the benchmark.\n' >>"$s/SKILL.md"
	done
	"$skillsync" commit -m "bench: ${SS_BENCH_CHANGED:-1} changed" >/dev/null
	dry=$(best "$skillsync" push --dry-run)
	t0=$(now)
	SKILLSYNC_STATS=1 "$skillsync" push >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
	t=$(echo "$(now) - $t0" | bc)
	stats=$(grep '^stats:' "$work/err")
	get() { echo "$stats" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
	printf '| %d | %.3f s | %.3f s | %s | %s | %s B | %s B |\n' "$n" "$dry" "$t" \
		"$(echo "$stats" | sed -n 's/stats: requests=\([0-9]*\).*/\1/p')" "$(get writes)" \
		"$(get sent)" "$(get received)"
	"$skillsync" logout >/dev/null 2>&1 || true
	cd "$src"
done
