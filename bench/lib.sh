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

json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
