#!/usr/bin/env bash
# needs: pds
# A push killed at each of its points (SKILLSYNC_TEST_CRASH, test-only), then run again, or
# followed by a pull: the next run finds out from the server what landed and converges: every
# record as committed, none lost, none written twice (a write that landed keeps the killed
# run's updatedAt, and a rerun after everything landed sends no write at all), no false "pull
# first", no false conflict, status clean.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture

rev() { curl -sf "$pds/xrpc/com.atproto.sync.getLatestCommit?did=$me_did" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])'; }
# mine: "<name> <updatedAt> <first line of instructions' last line>" for each of my records.
mine() {
	ss_records "$me_did" | python3 /dev/fd/3 3<<'PY'
import json, sys
out = []
for r in json.load(sys.stdin)["records"]:
    v = r["value"]
    out.append(f'{v["name"]} {v["updatedAt"]} {v["instructions"].rstrip().splitlines()[-1]}')
print("\n".join(sorted(out)))
PY
}
# expected: what the records must say after a converged push: each ss_skill directory's name and
# the last line of its SKILL.md.
expected() {
	for d in */; do
		if [ -f "$d/SKILL.md" ] && [ "$d" != pdf-forms/ ]; then echo "${d%/} $(tail -n 1 "$d/SKILL.md")"; fi
	done | sort
}
# the authority updates pdf-forms (a ss_skill of theirs I never touch): the pull must bring it
auth_round=0
auth_change() {
	auth_round=$((auth_round + 1))
	ss_auth_change "authority round $auth_round"
}
# kept <point>: a record that already had the killed run's time keeps it (not written twice)
kept() {
	[ -n "$journal_time" ] || return 0
	for name in $(grep " $journal_time " "$work/killed" | cut -d' ' -f1); do
		grep -q "^$name $journal_time " "$work/now" || fail "$1: '$name' was written again"
	done
}

# crash <point> <commit message> [pull]: commit, push killed at point; then the next push (or,
# with "pull", the next pull, then a push for what had not landed) must converge.
crash() {
	local point=$1 msg=$2 how=${3:-push} rc landed=0 left
	"$SKILLSYNC" commit -m "$msg" >/dev/null || fail "$point: commit"
	set +e
	SKILLSYNC_TEST_CRASH=$point "$SKILLSYNC" push >"$work/out" 2>&1
	rc=$?
	set -e
	[ "$rc" = 137 ] || fail "$point: the push was not killed (exit $rc): $(cat "$work/out")"
	journal_time=$(ss_sql .git/skillsync/state.db 'select push_time from push_journal')
	mine >"$work/killed"
	[ -z "$journal_time" ] || landed=$(grep -c " $journal_time " "$work/killed" || true)
	if [ "$how" = pull ]; then
		auth_change
		"$SKILLSYNC" pull >"$work/out" 2>&1 || fail "$point: pull: $(cat "$work/out")"
		if [ "$landed" -gt 0 ] && ! grep -q "^finished an interrupted push: " "$work/out"; then
			fail "$point: the pull did not say it finished the interrupted push: $(cat "$work/out")"
		fi
		left=$(ss_sql .git/skillsync/state.db 'select 1 from push_journal')
		[ -z "$left" ] || fail "$point: the pull left the journal"
		[ "$(tail -n 1 pdf-forms/SKILL.md)" = "authority round $auth_round" ] ||
			fail "$point: the pull did not bring the authority's change: $(cat "$work/out")"
		git merge-base --is-ancestor refs/remotes/space/main HEAD || fail "$point: pull did not merge"
		[ -z "$(git status --porcelain)" ] || fail "$point: not clean after the pull: $(git status --porcelain)"
		mine >"$work/now"
		kept "$point (pull)"
	fi
	"$SKILLSYNC" push >"$work/out" 2>&1 || fail "$point: rerun: $(cat "$work/out")"
	# Converged: my records are what the directories say.
	mine >"$work/now"
	cut -d' ' -f1,3- "$work/now" >"$work/got"
	expected >"$work/want"
	diff -u "$work/want" "$work/got" >/dev/null ||
		fail "$point: records differ from the commit: $(diff -u "$work/want" "$work/got")"
	kept "$point"
	if [ "$how" = push ] && [ "$landed" -gt 0 ] && ! grep -q "finished an interrupted push" "$work/out"; then
		fail "$point: the rerun did not say it finished the interrupted push: $(cat "$work/out")"
	fi
	left=$(ss_sql .git/skillsync/state.db 'select 1 from push_journal')
	[ -z "$left" ] || fail "$point: journal left"
	# Nothing more to send, no write, status clean, main holds the tracking commit.
	local r=$(rev)
	"$SKILLSYNC" push >"$work/out" 2>&1 || fail "$point: third push: $(cat "$work/out")"
	grep -q "everything up to date" "$work/out" || fail "$point: not up to date: $(cat "$work/out")"
	[ "$(rev)" = "$r" ] || fail "$point: an up-to-date push wrote"
	"$SKILLSYNC" status >"$work/st"
	grep -q "up to date with the space" "$work/st" && grep -q "working tree clean" "$work/st" ||
		fail "$point: status: $(cat "$work/st")"
	git merge-base --is-ancestor refs/remotes/space/main HEAD || fail "$point: tracking not in main"
	echo "$point ($msg, then $how): converged"
}

ss_skill a "a one"
ss_skill b "b one"
ss_skill c "c one"
crash before-batch-1 "create a b c"
# After that: the writes of each kind, each point.
n=0
for point in after-batch-1 before-state before-ref before-main before-batch-1; do
	n=$((n + 1))
	printf '%s\n' "a round $n" >>a/SKILL.md
	ss_skill "new$n" "new$n one"
	if [ -d c ]; then git rm -rq c; else ss_skill c "c again $n"; fi
	crash "$point" "round $n at $point"
done

# Two requests (250 creates, then 250 updates): killed between them, and before the second.
for i in $(seq -w 1 250); do ss_skill "many-$i" "many $i one"; done
crash after-batch-1 "250 new skills"
for i in $(seq -w 1 250); do printf 'many %s two\n' "$i" >>"many-$i/SKILL.md"; done
crash before-batch-2 "250 updated skills"
[ "$(mine | wc -l)" = "$(expected | wc -l)" ] || fail "record count"

# The same points, converged by the next pull (which finishes the push from what the server
# says landed, then fetches and merges the authority's change with no false conflict).
for point in before-batch-1 after-batch-1 before-state before-ref before-main; do
	n=$((n + 1))
	printf '%s\n' "a round $n" >>a/SKILL.md
	ss_skill "new$n" "new$n one"
	if [ -d c ]; then git rm -rq c; else ss_skill c "c again $n"; fi
	crash "$point" "round $n at $point" pull
done
# Killed between two requests: the pull records the first 200, the push sends the rest.
for i in $(seq -w 1 250); do printf 'many %s three\n' "$i" >>"many-$i/SKILL.md"; done
crash after-batch-1 "250 updated skills again" pull
[ "$(mine | wc -l)" = "$(expected | wc -l)" ] || fail "record count"
echo "push_crash: all checks passed"
