# tests/fault/lib.sh: the fault proxy (tests/fault/proxy.py) for the end-to-end scripts.
# Source it after tests/cmd/lib/common.sh and ss_pds_env.

# ss_proxy_workdir: the usual start of a script behind the proxy: a fresh directory $work (the
# current directory, removed at exit with the proxy stopped), a fixed git identity, the PDS's
# environment and the proxy started.
ss_proxy_workdir() {
	work=$(mktemp -d)
	trap 'ss_proxy_stop; rm -rf "$work"' EXIT
	cd "$work"
	ss_git_identity
	ss_pds_env
	ss_proxy_start "$work"
}

# ss_proxy_start <dir>: starts the proxy in front of $pds and $plc (its port in <dir>/port,
# its pid in $proxy_pid), sets $proxy to its URL and points skillsync's identity resolution
# at it, so that every request skillsync makes goes through it. Stop it with ss_proxy_stop.
ss_proxy_start() {
	local dir=$1 i
	rm -f "$dir/port"
	python3 "$SS_SOURCE_DIR/tests/fault/proxy.py" "$pds" "$plc" "$dir/port" &
	proxy_pid=$!
	for i in $(seq 100); do
		[ -s "$dir/port" ] && break
		sleep 0.05
	done
	[ -s "$dir/port" ] || fail "the fault proxy did not start"
	proxy=http://127.0.0.1:$(cat "$dir/port")
	export SKILLSYNC_PLC_URL=$proxy SKILLSYNC_HANDLE_RESOLVER=$proxy
}

ss_proxy_stop() {
	[ -z "${proxy_pid:-}" ] || kill "$proxy_pid" 2>/dev/null || true
	proxy_pid=
}

# ss_fault <kind> <at> [<times>] [<path>]: requests <at> .. <at>+<times>-1 from now (to <path>
# only, when given) get fault <kind> (see tests/fault/proxy.py; <times> 0: every request from
# <at>). ss_fault_clear: none.
ss_fault() { curl -sf "$proxy/_fault/set?kind=$1&at=$2&times=${3:-1}&path=${4:-}" >/dev/null; }
ss_fault_clear() { curl -sf "$proxy/_fault/clear" >/dev/null; }
# ss_fault_count / ss_fault_hits: requests made and faults injected since the last set/clear.
ss_fault_count() { curl -sf "$proxy/_fault/count" | sed -E 's/^\{"count": ([0-9]+).*/\1/'; }
ss_fault_hits() { curl -sf "$proxy/_fault/count" | sed -E 's/.*"hits": ([0-9]+).*/\1/'; }
# ss_fault_serve <did> [<file>]: the first page of <did>'s listings gets <file>'s raw records.
ss_fault_serve() { curl -sf -G "$proxy/_fault/serve" --data-urlencode "did=$1" \
	--data-urlencode "file=${2:-}" >/dev/null; }
