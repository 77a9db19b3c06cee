# bench/lib.sh: what the bench scripts share (sourced, from the checkout's top, with $src set).

# bench_build: $build, the build directory (BUILD, default build/, relative to the checkout).
bench_build() {
	build=${BUILD:-build}
	case $build in
	/*) ;;
	*) build=$src/$build ;;
	esac
}

# bench_pds: a work directory ($work, removed at exit) with its own PDS on loopback, stopped at
# exit; $info, $pds and json <file> <key>; skillsync pointed at that PDS's PLC and handles.
bench_pds() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-bench.XXXXXX")
	trap '"$src"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
	tests/pds/start "$work/pds" >/dev/null
	info=$work/pds/pds.json
	pds=$(json "$info" pds)
	export SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$pds
}

# bench_git_env: commits by a fixed author, and no detached `git gc --auto` after git's commits
# (it would run into the next measurement).
bench_git_env() {
	export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=b@example.test GIT_COMMITTER_NAME=Bench
	export GIT_COMMITTER_EMAIL=b@example.test
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
}

# bench_fill_clone <members> <skills> <account prefix> <dir>: that many accounts on the bench's
# PDS, each with that many real-shaped skills (ss-fill --real; the third and later members
# reuse the second's names, so names overlap), then a read-only clone of the first with the
# others as members into $work/<dir> (its wall time and peak RSS on stderr); $handles holds the
# members' handles.
bench_fill_clone() {
	local n=$1 skills=$2 tag=$3 dir=$4 acct prefix args=() secs kb
	echo "filling $n members x $skills skills..." >&2
	handles=()
	for i in $(seq 1 "$n"); do
		acct=$work/m$i.json
		(umask 077 && tests/pds/account "$info" "$tag$i" >"$acct")
		prefix=m$i
		[ "$i" -le 2 ] || prefix=m2
		SS_FILL_TOKEN=$(json "$acct" accessJwt) "$build/ss-fill" --pds "$pds" \
			--did "$(json "$acct" did)" --generate "$skills" --prefix "$prefix" --real
		handles+=("$(json "$acct" handle)")
	done
	for h in "${handles[@]:1}"; do args+=(--member "$h"); done
	(cd "$work" && /usr/bin/time -f "%e %M" -o "$work/clone.time" \
		"$skillsync" clone "${handles[0]}" "$dir" "${args[@]}" >/dev/null 2>&1)
	read -r secs kb <"$work/clone.time"
	echo "clone: $secs s, peak RSS $((kb / 1024)) MB" >&2
}

json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
