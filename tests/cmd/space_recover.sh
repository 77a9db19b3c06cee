#!/usr/bin/env bash
# needs: pds
# build: plain
# A push and a pull on a permissioned space killed at their points (SKILLSYNC_TEST_CRASH,
# test-only; core/util/crash.h), each time with an uncommitted edit in the clone; then the next run
# finishes cleanly. Push (m1's clone pm; each commit a new skill, an update and the previous
# new skill deleted): killed before the writes (before-batch-1), after they landed in the space
# but before the journal knows it (space-applied), after the journal knows it (after-batch-1)
# and before the state records them (before-state); the next push exits 0 without "pull
# first", the host holds exactly the committed records with their notes, each write made once
# (the ops counted), nothing is left to push, m1's second clone pr (the same uncommitted edit)
# verifies the writes incrementally (no fallback to a full read, no warning) and ends with the
# same tree and view, and pm's own pull takes nothing in. Pull (the authority's clone pl; the
# authority and m1 each change a skill): killed between two writers' listings, the first one's
# set hash folded and kept in the fetch's transaction (space-writer-listed), after that
# transaction (fetch-before-ref), after the fetch (pull-fetched); the next pull exits 0 with no
# warning and verifies incrementally (or has nothing left to read), and pl ends like its twin
# tw, which pulls without a kill: the same tree, committed and tracking trees and view, the
# uncommitted edit intact. The other kill points (merge, before-ref, before-main) are the
# public transport's code: tests/cmd/recover.sh and push_crash.sh.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME=$tmp/config
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"
ss_pds_env
ss_git_identity
cd "$tmp"

ss_accounts "$tmp" sr auth m1
sp_login auth m1
uri=$(sp_space auth recover m1)
sp_put auth "$uri" auth-s1 2026-01-01T00:00:00Z "by auth"
sp_put m1 "$uri" m1-s1 2026-01-01T00:00:00Z "by m1"
as_m1=(--as "$(handle m1)")
for c in pm pr; do
	"$SKILLSYNC" clone "$uri" "$c" "${as_m1[@]}" >/dev/null 2>&1 || fail "clone $c"
done
for c in pl tw; do
	"$SKILLSYNC" clone "$uri" "$c" --as "$(handle auth)" >/dev/null 2>&1 || fail "clone $c"
	echo "an uncommitted edit" >>"$c/auth-s1/SKILL.md"
done
for c in pm pr; do echo "an uncommitted edit" >>"$c/m1-s1/SKILL.md"; done

# view <dir>: 'ls --json' in clone <dir>, record times blanked.
view() { (cd "$1" && "$SKILLSYNC" ls --json 2>&1) | sed -E 's/"(updatedAt)":"[^"]*"/\1/g'; }
# same <a> <b>: the same working tree, committed tree and view.
same() {
	diff -r -x .git "$1" "$2" >/dev/null || { echo "working trees differ: $(diff -r -x .git "$1" "$2" | head -c 400)" && return 1; }
	[ "$(git -C "$1" rev-parse 'HEAD^{tree}')" = "$(git -C "$2" rev-parse 'HEAD^{tree}')" ] ||
		{ echo "committed trees differ" && return 1; }
	[ "$(view "$1")" = "$(view "$2")" ] || { echo "'ls --json' differs: $(diff <(view "$1") <(view "$2"))" && return 1; }
}
# listings <file>: the "listings" of a pull --json output.
listings() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fetch"]["listings"])' "$1"; }

# -- push
step=0
ops=$(sp_records m1 "$uri" | sed -n 's/^ops //p')
for point in before-state after-batch-1 space-applied before-batch-1; do
	step=$((step + 1))
	paths=("k$step" mine)
	((step == 1)) || paths+=("k$((step - 1))")
	(cd pm && ss_skill "k$step" "case $step" && ss_skill mine "version $step" && rm -rf "k$((step - 1))" &&
		"$SKILLSYNC" commit -m "case $step" "${paths[@]}" >/dev/null) || fail "$point: commit"
	rc=0
	(cd pm && SKILLSYNC_TEST_CRASH=$point "$SKILLSYNC" push) >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = 137 ] || fail "$point: the push was not killed (exit $rc): $(cat "$tmp/err")"
	rc=0
	(cd pm && "$SKILLSYNC" push) >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = 0 ] || fail "$point: the next push exited $rc: $(cat "$tmp/err")"
	[ "$step" = 1 ] && ops=$((ops + 2)) || ops=$((ops + 3))
	want=$({
		echo "k$step case $step | case $step"
		echo "m1-s1 - | by m1"
		echo "mine case $step | version $step"
	} | sort)
	held=$(sp_records m1 "$uri")
	[ "$held" = "$want"$'\n'"ops $ops" ] ||
		fail "$point: the host holds: $(tr '\n' ';' <<<"$held") not: $(tr '\n' ';' <<<"$want") ops $ops"
	left=$(cd pm && "$SKILLSYNC" push --dry-run --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["writes"]))')
	[ "$left" = 0 ] || fail "$point: $left writes still to push"
	grep -q "an uncommitted edit" pm/m1-s1/SKILL.md || fail "$point: the uncommitted edit is gone"
	(cd pr && "$SKILLSYNC" pull --json) >"$tmp/pulled" 2>"$tmp/err" || fail "$point: pr's pull: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] || fail "$point: pr's pull warned: $(cat "$tmp/err")"
	[ "$(listings "$tmp/pulled")" = "{'full': 0, 'incremental': 1, 'fallback': 0}" ] ||
		fail "$point: pr's pull did not verify m1's writes incrementally: $(listings "$tmp/pulled")"
	(cd pm && "$SKILLSYNC" pull --json) >"$tmp/pulled" 2>"$tmp/err" || fail "$point: pm's pull: $(cat "$tmp/err")"
	{ grep -q '"changes":\[\]' "$tmp/pulled" && [ ! -s "$tmp/err" ]; } ||
		fail "$point: pm's pull takes in its own writes: $(cat "$tmp/err" "$tmp/pulled")"
	problem=$(same pm pr) || fail "$point: pm and pr: $problem"
done

# Another device of m1 writes to m1's repo: pm's pull reads that write alone, verified against
# the set hash pm kept for its own repo, which its last push (a clean one, before-batch-1 killed
# nothing that had landed) brought to the pushed revision; nothing is read in full.
sp_put m1 "$uri" dev2 2026-01-02T00:00:00Z "by another device"
(cd pm && "$SKILLSYNC" pull --json) >"$tmp/pulled" 2>"$tmp/err" || fail "pm's pull of dev2: $(cat "$tmp/err")"
[ "$(listings "$tmp/pulled")" = "{'full': 0, 'incremental': 1, 'fallback': 0}" ] ||
	fail "after its push, pm's pull did not verify its own repo incrementally: $(listings "$tmp/pulled")"
[ "$(sp_line pm dev2)" = "by another device" ] || fail "pm did not get dev2"

# -- pull
round=0
for point in space-writer-listed fetch-before-ref pull-fetched; do
	round=$((round + 1))
	sp_put auth "$uri" auth-s2 2026-02-01T00:00:0"$((round % 10))"Z "auth round $round"
	sp_put m1 "$uri" m1-s1 2026-02-01T00:00:0"$((round % 10))"Z "m1 round $round"
	rc=0
	(cd pl && SKILLSYNC_TEST_CRASH=$point "$SKILLSYNC" pull) >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = 137 ] || fail "$point: the pull was not killed (exit $rc): $(cat "$tmp/err")"
	(cd pl && "$SKILLSYNC" pull --json) >"$tmp/pulled" 2>"$tmp/err" || fail "$point: the next pull: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] || fail "$point: the next pull warned: $(cat "$tmp/err")"
	case $(listings "$tmp/pulled") in
	"{'full': 0, 'incremental': 2, 'fallback': 0}" | "{'full': 0, 'incremental': 0, 'fallback': 0}") ;;
	*) fail "$point: the next pull did not verify incrementally: $(listings "$tmp/pulled")" ;;
	esac
	(cd tw && "$SKILLSYNC" pull --quiet) >/dev/null 2>"$tmp/err" || fail "$point: the twin's pull: $(cat "$tmp/err")"
	problem=$(same pl tw) || fail "$point: $problem"
	[ "$(git -C pl rev-parse 'refs/remotes/space/main^{tree}')" = "$(git -C tw rev-parse 'refs/remotes/space/main^{tree}')" ] ||
		fail "$point: the tracking trees differ"
	grep -q "an uncommitted edit" pl/auth-s1/SKILL.md || fail "$point: the uncommitted edit is gone"
done
echo "space kills: push at $step points, pull at $round points: each finished by the next run"
