#!/usr/bin/env bash
# needs: pds
# Skills whose names start alike ("x", "x-a", "x-b": in git's tree order "x-a" and "x-b" come
# before the directory "x/", and libgit2 skipped "x" in a diff limited to the three): a pull
# that changes all three brings every change into the files and the index, not only into
# main, and an uncommitted edit of one of them still stops it; edits of all three staged with
# git are all in `status`, `diff --staged` and `diff <names>`, and `commit` takes all three.
# Found on real skills (Trail of Bits' semgrep beside semgrep-rule-creator and
# semgrep-rule-variant-creator), where the pull moved main and left the old SKILL.md staged
# against it.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset SKILLSYNC_LOCK_WAIT SKILLSYNC_TEST_CRASH SKILLSYNC_REVIEW_POLICY SKILLSYNC_REVIEW_TRUST
fill=$(dirname "$SKILLSYNC")/ss-fill

ss_sandbox
ss_accounts "$work" "" auth me
# put <last line>: the authority writes x, x-a and x-b, each SKILL.md ending with it.
put() {
	rm -rf "$work/src" && mkdir -p "$work/src"
	for n in x x-a x-b; do (cd "$work/src" && ss_skill "$n" "$1"); done
	SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$work/auth.json" did)" --put "$work"/src/*/ >/dev/null
}
put first
SKILLSYNC_PASSWORD=$(ss_json "$work/me.json" password) "$SKILLSYNC" login "$(ss_json "$work/me.json" handle)" >/dev/null
ss_run 0 "$SKILLSYNC" clone "$(ss_json "$work/auth.json" handle)" space --quiet
cd "$work/space"

put second
ss_run 0 "$SKILLSYNC" pull --quiet
for n in x x-a x-b; do
	[ "$(tail -n 1 "$n/SKILL.md")" = second ] || fail "$n/SKILL.md was not updated: $(tail -n 1 "$n/SKILL.md")"
	[ "$(git show "main:$n/SKILL.md" | tail -n 1)" = second ] || fail "main's $n is not the new version"
done
[ -z "$(git status --porcelain)" ] || fail "git status after the pull: $(git status --porcelain)"

# An uncommitted edit of x is in the way: nothing is written, and it is named.
echo "my edit" >>x/SKILL.md
put third
ss_run 1 "$SKILLSYNC" pull
grep -q "'x/SKILL.md'" "$work/stderr" || fail "the edit in the way was not named: $(cat "$work/stderr")"
[ "$(tail -n 1 x/SKILL.md)" = "my edit" ] && [ "$(tail -n 1 x-a/SKILL.md)" = second ] ||
	fail "a refused pull wrote files"
git checkout -q -- x/SKILL.md
ss_run 0 "$SKILLSYNC" pull --quiet

# Staged with git: status, the diffs and commit see all three.
for n in x x-a x-b; do echo "staged" >>"$n/SKILL.md"; done
git add -A
ss_run 0 "$SKILLSYNC" status
for n in x x-a x-b; do
	grep -q "modified  $n/$" "$work/stdout" || fail "status misses $n: $(cat "$work/stdout")"
done
ss_run 0 "$SKILLSYNC" diff --staged --stat
[ "$(grep -c '^x[-ab]*/: updated' "$work/stdout")" = 3 ] || fail "diff --staged: $(cat "$work/stdout")"
for n in x x-a x-b; do echo "unstaged" >>"$n/SKILL.md"; done
ss_run 0 "$SKILLSYNC" diff --stat x x-a x-b
[ "$(grep -c '^x[-ab]*/: updated' "$work/stdout")" = 3 ] || fail "diff <names>: $(cat "$work/stdout")"
git checkout -q -- .
ss_run 0 "$SKILLSYNC" commit -m "Edit the three"
[ -z "$(git status --porcelain)" ] || fail "commit left: $(git status --porcelain)"
[ "$(git show --name-only --format= HEAD | LC_ALL=C sort | tr '\n' ' ')" = "x-a/SKILL.md x-b/SKILL.md x/SKILL.md " ] ||
	fail "the commit holds: $(git show --name-only --format= HEAD)"
echo "names_alike: ok"
