#!/usr/bin/env bash
# needs: pds
# tests/pds/start and stop: a second harness runs beside the fixture's on its own ports, stop
# ends exactly its own server (the fixture's keeps answering), waits for it, cleans up, and is
# safe to call again; start refuses a missing directory argument.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SS_SOURCE_DIR:?}"
pds_dir=$SS_SOURCE_DIR/tests/pds

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
answers() { curl -sf -o /dev/null --max-time 10 "$1/xrpc/com.atproto.server.describeServer"; }

tmp=$(mktemp -d)
trap '"$pds_dir/stop" "$tmp/a" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

if "$pds_dir/start" 2>"$tmp/err"; then fail "start without a directory succeeded"; fi
grep -q '^usage: tests/pds/start <dir>$' "$tmp/err" || fail "start without a directory: $(cat "$tmp/err")"

"$pds_dir/start" "$tmp/a" >"$tmp/out"
pid=$(ss_json "$tmp/a/pds.json" pid)
url=$(ss_json "$tmp/a/pds.json" pds)
fixture=$(ss_json "$SS_PDS_INFO" pds)
[ "$url" != "$fixture" ] || fail "second harness got the fixture's port"
answers "$url" || fail "second harness does not answer"
[ "$(stat -c %a "$tmp/a")" = 700 ] || fail "state directory is not mode 0700"
[ "$(stat -c %a "$tmp/a/pds.json")" = 600 ] || fail "pds.json is not mode 0600"
password=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["accounts"][0]["password"])' "$tmp/a/pds.json")
if grep -qF "$password" "$tmp/out" "$tmp/a/pds.log"; then fail "a password is in start's output or the log"; fi

"$pds_dir/stop" "$tmp/a"
[ ! -e "/proc/$pid" ] || [ "$(cut -d' ' -f3 "/proc/$pid/stat")" = Z ] || fail "server $pid still runs after stop"
if answers "$url"; then fail "stopped server still answers"; fi
answers "$fixture" || fail "stopping the second harness stopped the fixture's"
if [ -e "$tmp/a/pds.json" ] || [ -e "$tmp/a/data" ]; then fail "stop left pds.json or data"; fi
[ -s "$tmp/a/pds.log" ] || fail "stop removed the log"
"$pds_dir/stop" "$tmp/a" || fail "second stop failed"
"$pds_dir/stop" "$tmp/never-started" || fail "stop of a missing directory failed"
echo "ok: start/stop lifecycle"
