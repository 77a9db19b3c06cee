#!/usr/bin/env bash
# needs: pds
# The history a member who pushes and pulls gets is as straight as git's: a push whose result
# is main's tree moves the tracking ref to main's commit (as git push moves origin/main), a
# pull with nothing unpushed fast-forwards, and merge commits appear only where two lines of
# work met (a change from the space and a local commit not pushed yet).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_push_fixture

# the authority changes pdf-forms, a ss_skill of theirs I never touch
auth_round=0
auth_change() {
	auth_round=$((auth_round + 1))
	ss_auth_change "authority round $auth_round"
}
merges() { git rev-list --merges --count HEAD; }
tracking_is_main() { [ "$(git rev-parse refs/remotes/space/main)" = "$(git rev-parse HEAD)" ]; }
push() { "$SKILLSYNC" push >"$work/out" 2>&1 || fail "push $1: $(cat "$work/out")"; }
pull() { "$SKILLSYNC" pull >"$work/out" 2>&1 || fail "pull $1: $(cat "$work/out")"; }

# skillsync's commits take the identity from git config (log tells them from the space's)
git config user.name Tester && git config user.email t@example.test
# A top-level file outside the skills lives on main only; it must not make the history fork.
echo "my skills" >README.md
git add README.md && git commit -qm "Add a README"

# One member alone: ten pushes, ten pulls, no merge commit.
for i in 1 2 3 4 5 6 7 8 9 10; do
	ss_skill "mine$((i % 3))" "round $i"
	"$SKILLSYNC" commit -m "Round $i" >/dev/null || fail "commit $i"
	push "$i"
	tracking_is_main || fail "push $i: the tracking ref is not main's commit"
	pull "$i"
	grep -q "already up to date" "$work/out" || fail "pull $i after a push: $(cat "$work/out")"
done
[ "$(git log --merges --oneline)" = "" ] || fail "merge commits: $(git log --merges --oneline)"
[ -f README.md ] || fail "the README was lost"
"$SKILLSYNC" status >"$work/st"
grep -q "Your branch is up to date with the space." "$work/st" || fail "status: $(cat "$work/st")"

# A second member's changes interleaved: a pull with nothing unpushed fast-forwards; a merge
# only where my unpushed commit and the space's change met, and the push after it moves the
# tracking ref to that merge.
expect=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	auth_change
	if [ $((i % 3)) = 0 ]; then
		ss_skill "mine$((i % 3))" "both $i"
		"$SKILLSYNC" commit -m "Both $i" >/dev/null || fail "commit both $i"
		pull "both $i"
		expect=$((expect + 1))
		[ "$(git show -s --format=%P HEAD | wc -w)" = 2 ] || fail "pull $i: no merge where both sides changed"
		push "both $i"
		tracking_is_main || fail "push $i after the merge: the tracking ref is not main's commit"
	else
		pull "$i"
		tracking_is_main || fail "pull $i: did not fast-forward to the space's change"
		grep -q "authority round $auth_round" pdf-forms/SKILL.md || fail "pull $i did not bring the change"
		ss_skill "mine$((i % 3))" "alone $i"
		"$SKILLSYNC" commit -m "Alone $i" >/dev/null || fail "commit alone $i"
		push "$i"
		tracking_is_main || fail "push $i: the tracking ref is not main's commit"
	fi
	[ "$(merges)" = "$expect" ] || fail "round $i: $(merges) merge commits, expected $expect: $(git log --merges --oneline)"
done
[ -f README.md ] && [ "$(git status --porcelain)" = "" ] || fail "not clean: $(git status --short)"
# log still tells my commits from the space's, though the tracking history now holds both.
"$SKILLSYNC" log --json >"$work/log.json" || fail "log --json"
python3 - "$work/log.json" <<'PY' || fail "log kinds: $(cat "$work/log.json")"
import json, sys
kinds = {}
for e in json.load(open(sys.argv[1])):
    kinds.setdefault(e["subject"].split(" ")[0], set()).add(e["kind"])
assert kinds["Round"] == {"local"} and kinds["Alone"] == {"local"}, kinds
assert kinds["Both"] == {"local"} and kinds["Merge"] == {"merge"}, kinds
assert kinds["pull:"] == {"space"}, kinds
PY
# The space holds what main holds.
ss_records "$me_did" >"$work/mine.json"
for d in mine0 mine1 mine2; do
	grep -q "$(tail -n 1 "$d/SKILL.md")" "$work/mine.json" || fail "$d not in the space: $(cat "$work/mine.json")"
done
# Fetched, not merged: push, push --dry-run and diff --pushed all refuse with the same line
# (a plan against a view main has not merged would undo the others' change); status says pull.
auth_change
"$SKILLSYNC" fetch >/dev/null || fail "fetch"
ss_skill mine1 "after the fetch"
"$SKILLSYNC" commit -m "After the fetch" >/dev/null || fail "commit after the fetch"
for cmd in "push" "push --dry-run" "diff --pushed" "diff --pushed --json"; do
	set +e
	# shellcheck disable=SC2086
	"$SKILLSYNC" $cmd >"$work/out" 2>&1
	rc=$?
	set -e
	[ "$rc" = 3 ] || fail "$cmd when the view is not merged: exit $rc: $(cat "$work/out")"
	[ "$(cat "$work/out")" = "skillsync: the space changed since your last pull (fetched, not merged): nothing can be pushed; run 'skillsync pull' first" ] ||
		fail "$cmd said: $(cat "$work/out")"
done
"$SKILLSYNC" status >"$work/st"
grep -q "The space's view has 1 change not merged into main: run 'skillsync pull'" "$work/st" &&
	! grep -q "push would send" "$work/st" || fail "status when the view is not merged: $(cat "$work/st")"
pull "after the fetch"
[ "$(git show -s --format=%P HEAD | wc -w)" = 2 ] || fail "the pull after the fetch did not merge"
"$SKILLSYNC" diff --pushed --stat >"$work/out" || fail "diff --pushed after the pull: $(cat "$work/out")"
grep -q "mine1" "$work/out" && ! grep -q "pdf-forms" "$work/out" || fail "diff --pushed after the pull: $(cat "$work/out")"
push "after the fetch"
tracking_is_main || fail "push after the fetch: the tracking ref is not main's commit"
echo "history: all checks passed"
