#!/usr/bin/env bash
# needs: pds
# The history a member who pushes and pulls gets is as straight as git's: a push whose result
# is main's tree moves the tracking ref to main's commit (as git push moves origin/main), a
# pull with nothing unpushed fast-forwards, and merge commits appear only where two lines of
# work met (a change from the space and a local commit not pushed yet).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SKILLSYNC_CONFIG_HOME=$work/config
ss_git_identity
ss_pds_env
ss_push_fixture

skill() { # skill <name> <last line>
	mkdir -p "$1"
	printf -- '---\nname: %s\ndescription: Skill %s.\n---\n# %s\n\n%s\n' "$1" "$1" "$1" "$2" >"$1/SKILL.md"
}
# the authority changes pdf-forms, a skill of theirs I never touch
auth_round=0
auth_change() {
	auth_round=$((auth_round + 1))
	rm -rf "$work/authsrc" && mkdir -p "$work/authsrc"
	cp -r "$SS_TESTDATA/skills/valid/basic/pdf-forms" "$work/authsrc/"
	printf '\nauthority round %s\n' "$auth_round" >>"$work/authsrc/pdf-forms/SKILL.md"
	SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$work/auth.json" did)" --put "$work/authsrc/pdf-forms" >/dev/null
}
merges() { git rev-list --merges --count HEAD; }
tracking_is_main() { [ "$(git rev-parse refs/remotes/space/main)" = "$(git rev-parse HEAD)" ]; }
push() { "$SKILLSYNC" push >"$work/out" 2>&1 || fail "push $1: $(cat "$work/out")"; }
pull() { "$SKILLSYNC" pull >"$work/out" 2>&1 || fail "pull $1: $(cat "$work/out")"; }

# A top-level file outside the skills lives on main only; it must not make the history fork.
echo "my skills" >README.md
git add README.md && git commit -qm "Add a README"

# One member alone: ten pushes, ten pulls, no merge commit.
for i in 1 2 3 4 5 6 7 8 9 10; do
	skill "mine$((i % 3))" "round $i"
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
		skill "mine$((i % 3))" "both $i"
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
		skill "mine$((i % 3))" "alone $i"
		"$SKILLSYNC" commit -m "Alone $i" >/dev/null || fail "commit alone $i"
		push "$i"
		tracking_is_main || fail "push $i: the tracking ref is not main's commit"
	fi
	[ "$(merges)" = "$expect" ] || fail "round $i: $(merges) merge commits, expected $expect: $(git log --merges --oneline)"
done
[ -f README.md ] && [ "$(git status --porcelain)" = "" ] || fail "not clean: $(git status --short)"
# The space holds what main holds.
ss_records "$me_did" >"$work/mine.json"
for d in mine0 mine1 mine2; do
	grep -q "$(tail -n 1 "$d/SKILL.md")" "$work/mine.json" || fail "$d not in the space: $(cat "$work/mine.json")"
done
# Fetched, not merged: push, push --dry-run and diff --pushed all refuse with the same line
# (a plan against a view main has not merged would undo the others' change); status says pull.
auth_change
"$SKILLSYNC" fetch >/dev/null || fail "fetch"
skill mine1 "after the fetch"
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
