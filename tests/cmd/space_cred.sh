#!/usr/bin/env bash
# needs: pds
# build: plain
# The space credential over a run's life, against the test space host (tests/spaces/): a
# credential that expires mid-run is renewed (the host's credentialTtl knob, and the run held
# between the exchange and the writers' reads with SKILLSYNC_TEST_DELAY=space-writer:<ms>);
# one revoked mid-run (revoke knob) is refused, renewed once and the pull completes while I am
# still a member, and when I was also removed the pull stops with the one "credential revoked"
# line, exit 5, and nothing changed. Through the fault proxy (tests/fault/proxy.py): a 502 after
# the host spent the exchange's delegation token, and the token replayed to the host (which
# answers JwtReplayed), each end in a clone made with a new delegation token.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_TEST_DELAY SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_proxy_workdir
tmp=$work
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"
export SKILLSYNC_CONFIG_HOME=$work/config
# Until the proxy is needed, skillsync talks to the PDS directly.
export SKILLSYNC_PLC_URL=$plc SKILLSYNC_HANDLE_RESOLVER=$pds

ss_accounts "$work" scr auth m1
sp_login auth m1
uri=$(sp_space auth cred m1)
sp_put auth "$uri" a1 2026-01-01T00:00:00Z "one"
as_m1=(--as "$(handle m1)")

# calls <nsid>: how many times the space's <nsid> was called since the last reset.
calls() {
	sp_knob requests "{\"space\":\"$uri\"}" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"].get(sys.argv[1], 0))' "com.atproto.space.$1"
}
reset() { sp_knob requests "{\"space\":\"$uri\",\"reset\":true}" >/dev/null; }
# wait_for <nsid>: until the space's <nsid> was called since the last reset (10 s at most).
wait_for() {
	local _
	for _ in $(seq 100); do
		[ "$(calls "$1")" = 0 ] || return 0
		sleep 0.1
	done
	fail "no $1 within 10 s"
}
# snapshot <dir>: what a pull may change in clone <dir>: its commits, its tracking ref, its
# files and its view.
snapshot() {
	(cd "$1" && git rev-parse HEAD refs/remotes/space/main && find . -path ./.git -prune -o -type f -print0 |
		sort -z | xargs -0 sha256sum && "$SKILLSYNC" ls --json)
}

# -- a credential that expires mid-run: 1 s credentials, the run held 1.5 s before it reads
# each writer (the authority, and m1 whose repo is empty). The clone renews before using an
# expired one: an exchange more per writer, and each listing sent once (never refused and sent
# again).
sp_knob settings "{\"space\":\"$uri\",\"credentialTtl\":1}" >/dev/null
reset
SKILLSYNC_TEST_DELAY=space-writer:1500 ss_run 0 "$SKILLSYNC" clone "$uri" c "${as_m1[@]}"
[ "$(calls getSpaceCredential)" = 3 ] && [ "$(calls getDelegationToken)" = 3 ] ||
	fail "an expired credential: $(sp_knob requests "{\"space\":\"$uri\"}")"
[ "$(calls getRepo)" = 2 ] || fail "a read was refused and sent again: $(sp_knob requests "{\"space\":\"$uri\"}")"
[ "$(sp_line c a1)" = one ] && [ "$(ls c)" = a1 ] || fail "the clone: $(ls c), a1 '$(sp_line c a1)'"
sp_knob settings "{\"space\":\"$uri\",\"credentialTtl\":null}" >/dev/null

# -- revoked mid-run while still a member: the pull's credential is revoked after listRepos;
# the next read gets 401 CredentialRevoked, a new credential is minted once, the pull completes.
sp_put auth "$uri" a1 2026-01-02T00:00:00Z "two"
reset
rm -f "$work/go"
(cd c && SKILLSYNC_TEST_DELAY=space-writer:20000:"$work/go" "$SKILLSYNC" pull >"$work/out" 2>"$work/err") &
pull=$!
wait_for listRepos
revoked=$(sp_knob revoke "{\"space\":\"$uri\",\"did\":\"$(did m1)\"}")
[ "$(calls listRepoOps)" = 0 ] || fail "the pull read a writer before the credential was revoked"
touch "$work/go"
rc=0
wait "$pull" || rc=$?
[ "$rc" = 0 ] || fail "pull after a revoked credential exited $rc: $(cat "$work/err")"
[[ $revoked == *'"revoked":["'* ]] || fail "nothing revoked: $revoked"
[ "$(calls getSpaceCredential)" = 2 ] || fail "a revoked credential: $(sp_knob requests "{\"space\":\"$uri\"}")"
[ "$(calls listRepoOps)" = 2 ] || fail "the refused read was not sent again once: $(sp_knob requests "{\"space\":\"$uri\"}")"
[ "$(sp_line c a1)" = two ] || fail "the pull did not bring a1's change: $(sp_line c a1)"

# -- revoked mid-run, and I was removed from the space meanwhile: the renewal is refused; one
# line, exit 5, nothing changed in the clone.
sp_put auth "$uri" a1 2026-01-03T00:00:00Z "three"
before=$(snapshot c)
reset
rm -f "$work/go"
(cd c && SKILLSYNC_TEST_DELAY=space-writer:20000:"$work/go" "$SKILLSYNC" pull >"$work/out" 2>"$work/err") &
pull=$!
wait_for listRepos
# (a credential stays good until it expires or is revoked: membership is checked at issue)
"$SKILLSYNC" space members remove "$(handle m1)" --space "$uri" --as "$(handle auth)" >/dev/null ||
	fail "members remove m1"
sp_knob revoke "{\"space\":\"$uri\",\"did\":\"$(did m1)\"}" >/dev/null
[ "$(calls listRepoOps)" = 0 ] || fail "the pull read a writer before the credential was revoked"
touch "$work/go"
rc=0
wait "$pull" || rc=$?
[ "$rc" = 5 ] || fail "pull after revoked and removed exited $rc, not 5: $(cat "$work/err")"
[ "$(grep -c . "$work/err")" = 1 ] || fail "not one line: $(cat "$work/err")"
grep -q "^skillsync: .*the space host revoked this run's credential (.*CredentialRevoked) and refused a new one: ask the space's authority whether you are still a member$" "$work/err" ||
	fail "not the revoked line: $(cat "$work/err")"
[ "$(snapshot c)" = "$before" ] || fail "the refused pull changed the clone"
"$SKILLSYNC" space members add "$(handle m1)" --space "$uri" --as "$(handle auth)" >/dev/null ||
	fail "members add m1"

# -- the exchange through the fault proxy (the space host declared as the proxy): a 502 or a 504
# after the host spent the delegation token, then the token sent twice (the host refuses the
# second use with JwtReplayed, which the client is answered). Each clone succeeds with a new
# delegation token.
export SKILLSYNC_PLC_URL=$proxy SKILLSYNC_HANDLE_RESOLVER=$proxy
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":\"$proxy\"}" >/dev/null
# replays <log>: the exchanges the host refused as replayed, in its log (docs/PDS-HARNESS.md).
replays() { grep -c '"nsid":"com.atproto.space.getSpaceCredential".*"error":"JwtReplayed"' "$1" || true; }
log=$(dirname "$SS_PDS_INFO")/pds.log
for kind in 502-after 504-after twice; do
	refused=$(replays "$log")
	rm -rf "p$kind"
	reset
	ss_fault "$kind" 1 1 /xrpc/com.atproto.space.getSpaceCredential
	rc=0
	"$SKILLSYNC" clone "$uri" "p$kind" "${as_m1[@]}" >"$work/out" 2>"$work/err" || rc=$?
	hits=$(ss_fault_hits)
	ss_fault_clear
	[ "$hits" = 1 ] || fail "$kind: $hits faults injected on the exchange"
	[ "$rc" = 0 ] || fail "$kind on the exchange: exit $rc: $(cat "$work/err")"
	! grep -q JwtReplayed "$work/err" || fail "$kind: a delegation token sent again: $(cat "$work/err")"
	want=2
	[ "$kind" != twice ] || want=3 # the replay reached the host too
	[ "$(calls getSpaceCredential)" = "$want" ] && [ "$(calls getDelegationToken)" = 2 ] ||
		fail "$kind: not one new token: $(sp_knob requests "{\"space\":\"$uri\"}")"
	[ "$(ls "p$kind")" = a1 ] && [ "$(sp_line "p$kind" a1)" = three ] ||
		fail "$kind: the clone: $(ls "p$kind"), a1 '$(sp_line "p$kind" a1)'"
	[ "$kind" != twice ] || [ "$(replays "$log")" -gt "$refused" ] ||
		fail "the host did not refuse the replayed token with JwtReplayed"
done
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":null}" >/dev/null
echo "space credential: ${SECONDS}s"
