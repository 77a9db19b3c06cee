#!/usr/bin/env bash
# needs: pds
# Crash recovery with the person's work in the tree: a pull, push or clone killed (kill -9,
# SKILLSYNC_TEST_CRASH) at each of its points while the clone holds an uncommitted edit and
# untracked symlinks to directories outside it. The next command converges to what a clean
# run gives (trees, journal gone, status clean but for the edit), the edit is intact, and
# nothing is written outside the clone. A recovery that would overwrite a file the person
# changed, or write through a symlink, stops with one line naming the path and keeps its
# journal.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export SKILLSYNC_CONFIG_HOME=$tmp/config
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT
# Sections 1-6 are about merges that write scripts: the review gate would hold them back
# (docs/CONFIG.md), so it is off there; section 7 kills pulls that hold.
export SKILLSYNC_REVIEW_POLICY=off
ss_git_identity
ss_pds_env
ss_accounts "$tmp" "" auth me m2
export HOME=$tmp/home

# skill <who> <name> <body> [path content]...: writes the skill as <who> (putRecord).
skill() {
	local who=$1 name=$2 body=$3 d
	shift 3
	d=$tmp/src/$who/$name
	rm -rf "$d" && mkdir -p "$d"
	printf -- '---\nname: %s\ndescription: Skill %s.\n---\n%s\n' "$name" "$name" "$body" >"$d/SKILL.md"
	while [ $# -gt 0 ]; do
		mkdir -p "$(dirname "$d/$1")"
		printf '%s\n' "$2" >"$d/$1"
		shift 2
	done
	SS_FILL_TOKEN=$(ss_field "$who" accessJwt) "$fill" --pds "$pds" --did "$(ss_field "$who" did)" \
		--put "$d" >/dev/null || fail "put $name as $who"
}
tree() { git -C "$1" rev-parse "${2:-HEAD}^{tree}"; }
# outside: a listing with checksums of everything outside the clones that a symlink points at
outside() { (cd "$tmp/outside" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ | awk '{print $1, $5, $NF}' && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# plant <clone>: untracked symlinks to directories outside the clone: at the top ("other"),
# inside a skill ("mskill/scripts"), and in place of a tracked directory ("good/scripts")
plant() {
	ln -sfn "$tmp/outside/o1" "$1/other"
	ln -sfn "$tmp/outside/o2" "$1/mskill/scripts"
	rm -rf "$1/good/scripts" && ln -sfn "$tmp/outside/o3" "$1/good/scripts"
}
unplant() {
	local l
	for l in other mskill/scripts good/scripts; do
		if [ -L "$1/$l" ]; then rm "$1/$l"; fi
	done
	git -C "$1" checkout -q -- good/scripts
}
# same <clone> <reference clone> <what>: the same main and tracking trees and the same view in
# the state, no merge journal, no merge state; nothing written outside
same() {
	[ "$(tree "$1")" = "$(tree "$2")" ] || fail "$3: main differs: $(git -C "$1" diff --stat "$(tree "$2")" 2>&1)"
	[ "$(tree "$1" refs/remotes/space/main)" = "$(tree "$2" refs/remotes/space/main)" ] ||
		fail "$3: the tracking trees differ"
	[ ! -e "$1/.git/skillsync/merge" ] || fail "$3: the merge journal stayed"
	[ ! -e "$1/.git/MERGE_HEAD" ] || fail "$3: a merge state stayed"
	[ "$(outside)" = "$outside_before" ] || fail "$3: something was written outside the clone: $(outside)"
	[ "$(view "$1")" = "$(view "$2")" ] || fail "$3: the states' views differ: $(view "$1") / $(view "$2")"
}
view() { ss_sql "$1/.git/skillsync/state.db" "select rkey, did, cid, tree from view order by rkey"; }

mkdir -p outside/o1 outside/o2 outside/o3
echo "outside three" >outside/o3/run.sh
outside_before=$(outside)

skill auth good "good v1" scripts/run.sh "echo good 1"
skill auth alpha "alpha v1"
skill m2 mskill "mskill v1" notes.md "notes v1"
SKILLSYNC_PASSWORD=$(ss_field me password) ss_run 0 "$SKILLSYNC" login "$(ss_field me handle)"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" a --member "$(ss_field m2 handle)"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" b --member "$(ss_field m2 handle)"

# 1. The audit's case: my uncommitted edit of a file the pull changes, and symlinks where the
# pull writes, then a pull to be killed right after its journal: it refuses before, so there is
# no journal; nothing of mine is replaced and nothing is written through the symlinks, by the
# pull or by the next command.
echo "my unsaved edit" >a/mskill/notes.md
plant a
skill m2 mskill "mskill v2" notes.md "notes v2" scripts/tool.sh "echo tool"
skill m2 other "other v1" x.md "x"
skill auth good "good v2" scripts/run.sh "echo good 2"
(cd a && SKILLSYNC_TEST_CRASH=merge-journaled ss_run 1 "$SKILLSYNC" pull)
[ ! -e a/.git/skillsync/merge ] || fail "the refused pull left a merge journal"
(cd a && ss_run 0 "$SKILLSYNC" status)
grep -q "mskill" "$tmp/stdout" || fail "status hides the edit: $(cat "$tmp/stdout")"
(cd a && ss_run 1 "$SKILLSYNC" pull)
[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "the refused pull printed: $(cat "$tmp/stderr")"
grep -q "'mskill/notes.md'" "$tmp/stderr" || fail "the refused pull did not name the edit: $(cat "$tmp/stderr")"
[ "$(cat a/mskill/notes.md)" = "my unsaved edit" ] || fail "the edit was replaced"
[ "$(outside)" = "$outside_before" ] || fail "written through a symlink: $(outside)"
[ -L a/good/scripts ] && [ -L a/other ] && [ -L a/mskill/scripts ] || fail "a symlink was replaced"
[ ! -e a/.git/skillsync/merge ] || fail "a refused pull left a merge journal"
# the symlinks alone, where the pull adds directories: refused too, naming the first
git -C a checkout -q -- mskill/notes.md
rm a/good/scripts && git -C a checkout -q -- good/scripts
(cd a && ss_run 1 "$SKILLSYNC" pull)
[ "$(cat "$tmp/stderr")" = "skillsync: cannot merge the space's changes: 'mskill/scripts' is a symbolic link" ] ||
	fail "the pull through symlinks said: $(cat "$tmp/stderr")"
[ "$(outside)" = "$outside_before" ] || fail "written through a symlink: $(outside)"
[ ! -e a/.git/skillsync/merge ] || fail "a refused pull left a merge journal"
unplant a
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the refused pull"

# 2. A pull killed after its journal, then my edit and a symlink where it writes: the next
# command (any that takes the lock) stops with one line naming the path, keeps the journal and
# says the same again; once the path is mine no more, it finishes the pull.
skill m2 mskill "mskill v3" notes.md "notes v3" scripts/tool.sh "echo tool 3"
(cd a && SKILLSYNC_TEST_CRASH=merge-journaled ss_run 137 "$SKILLSYNC" pull)
echo "my late edit" >a/mskill/notes.md
# status writes nothing and does not hide the edit: it names the path the next pull stops at
(cd a && ss_run 0 "$SKILLSYNC" status)
grep -q "^It will stop at a change of yours: cannot finish the interrupted pull: 'mskill/notes.md' has changes of yours" "$tmp/stdout" ||
	fail "status after the kill hides my edit: $(cat "$tmp/stdout")"
sed -n '/^Changes not staged for commit:$/,/^$/p' "$tmp/stdout" | grep -q "^  modified  mskill/$" ||
	fail "status after the kill does not list my edit: $(cat "$tmp/stdout")"
! sed -n '/^Files the interrupted pull was writing/,/^$/p' "$tmp/stdout" | grep -q "mskill/notes.md" ||
	fail "status after the kill takes my edit for the pull's: $(cat "$tmp/stdout")"
(cd a && ss_run 0 "$SKILLSYNC" status --json)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["interrupted"] and "mskill/notes.md" in d["blocked"] and "mskill/notes.md" not in d["pullPaths"] and [c for c in d["changes"] if c["name"] == "mskill"]))' "$tmp/stdout" ||
	fail "status --json after the kill: $(cat "$tmp/stdout")"
[ "$(cat a/mskill/notes.md)" = "my late edit" ] || fail "status replaced my edit"
for again in 1 2; do
	(cd a && ss_run 1 "$SKILLSYNC" fetch)
	[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "recovery printed: $(cat "$tmp/stderr")"
	grep -q "^skillsync: cannot finish the interrupted pull: 'mskill/notes.md' has changes of yours" "$tmp/stderr" ||
		fail "recovery over my edit said: $(cat "$tmp/stderr")"
	[ "$(cat a/mskill/notes.md)" = "my late edit" ] || fail "recovery replaced my edit"
	[ -e a/.git/skillsync/merge ] || fail "recovery dropped its journal"
done
git -C a checkout -q -- mskill/notes.md
rm -rf a/mskill/scripts && ln -s "$tmp/outside/o2" a/mskill/scripts
(cd a && ss_run 1 "$SKILLSYNC" commit -m x)
grep -q "^skillsync: cannot finish the interrupted pull: 'mskill/scripts' is a symbolic link" "$tmp/stderr" ||
	fail "recovery through a symlink said: $(cat "$tmp/stderr")"
[ "$(outside)" = "$outside_before" ] || fail "recovery wrote through a symlink: $(outside)"
rm a/mskill/scripts && git -C a checkout -q -- mskill/scripts
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the recovery that waited"
[ -z "$(git -C a status --porcelain)" ] || fail "not clean: $(git -C a status --porcelain)"

# 3. Killed at every point of a pull, with my edit and symlinks where the pull does not write:
# status right after the kill lists my edit as usual and the half-written files apart, never
# as edits; the next pull converges, the edit and the symlinks stay, nothing is written
# outside.
edit() { echo "my edit, round $1" >>a/alpha/SKILL.md; }
plant_aside() { ln -sfn "$tmp/outside/o1" a/zlink && ln -sfn "$tmp/outside/o2" a/alpha/scripts; }
kept() { # kept <round> <what>: my edit and symlinks are there
	[ "$(tail -n1 a/alpha/SKILL.md)" = "my edit, round $1" ] || fail "$2: my edit is gone"
	[ -L a/zlink ] && [ -L a/alpha/scripts ] || fail "$2: a symlink of mine is gone"
}
n=0
for point in pull-recovered fetch-before-ref pull-fetched merge-journaled merge-checkout-midfile \
	merge-checkout-midway merge-checked-out merge-ref-moved; do
	n=$((n + 1))
	git -C a checkout -q -- alpha
	edit $n
	plant_aside
	skill m2 mskill "mskill round $n" notes.md "notes round $n" scripts/tool.sh "echo $n"
	(cd a && SKILLSYNC_TEST_CRASH=$point ss_run 137 "$SKILLSYNC" pull)
	if [ "$point" = merge-checkout-midway ]; then
		[ -n "$(git -C a status --porcelain mskill)" ] || fail "the kill at $point left no half-written file"
	fi
	if [ "$point" = merge-checkout-midfile ]; then
		# killed inside the first file: every tracked file whole (still the old version), the
		# new one half written under the temporary name beside it
		[ -z "$(git -C a status --porcelain --untracked-files=no mskill)" ] ||
			fail "the kill at $point left a tracked file half written: $(git -C a status --porcelain mskill)"
		[ -s a/mskill/.skillsync-new ] || fail "the kill at $point left no temporary file"
		git -C a show "$(git -C a rev-parse refs/remotes/space/main):mskill/SKILL.md" >"$tmp/want"
		[ "$(wc -c <a/mskill/.skillsync-new)" -lt "$(wc -c <"$tmp/want")" ] &&
			cmp -s -n "$(wc -c <a/mskill/.skillsync-new)" a/mskill/.skillsync-new "$tmp/want" ||
			fail "the temporary file is not the first half of the new SKILL.md"
	fi
	# status right after the kill: a half-done merge is said first; my edit is listed as
	# usual, the files the pull was writing apart from it, never as edits
	(cd a && ss_run 0 "$SKILLSYNC" status --json)
	mv "$tmp/stdout" "$tmp/status.json"
	(cd a && ss_run 0 "$SKILLSYNC" status)
	interrupted=$(ss_json "$tmp/status.json" interrupted)
	case $point in
	merge-*)
		[ "$(head -n1 "$tmp/stdout")" = "A pull was interrupted while it updated the files: run 'skillsync pull' to finish it." ] ||
			fail "status after a kill at $point: $(cat "$tmp/stdout")"
		# the half-written files are the pull's own, not a change of mine it would stop at
		! grep -q "will stop" "$tmp/stdout" || fail "status after a kill at $point: $(cat "$tmp/stdout")"
		sed -n '/^Changes not staged for commit:$/,/^$/p' "$tmp/stdout" | grep -q "^  modified  alpha/$" ||
			fail "status after a kill at $point hides my edit: $(cat "$tmp/stdout")"
		! sed -n '/^Changes/,$p' "$tmp/stdout" | grep -q "mskill" ||
			fail "status after a kill at $point lists the pull's files as changes: $(cat "$tmp/stdout")"
		# the pull's files, listed apart: those it had written by the kill
		sed -n '/^Files the interrupted pull was writing/,/^$/p' "$tmp/stdout" | sed '1d;/^$/d' >"$tmp/apart"
		case $point in
		merge-checkout-midfile) [ "$(cat "$tmp/apart")" = "  mskill/.skillsync-new" ] ;;
		merge-checkout-midway | merge-checked-out) [ -s "$tmp/apart" ] && ! grep -qv "^  mskill/" "$tmp/apart" ;;
		*) [ ! -s "$tmp/apart" ] ;;
		esac || fail "status after a kill at $point: the pull's files: $(cat "$tmp/stdout")"
		[ "$interrupted" = True ] || fail "status --json after a kill at $point: $(cat "$tmp/status.json")"
		python3 - "$tmp/status.json" "$tmp/apart" <<'PY' || fail "status --json after a kill at $point: $(cat "$tmp/status.json")"
import json, sys
d = json.load(open(sys.argv[1]))
apart = [l.strip() for l in open(sys.argv[2]) if l.strip()]
alpha = [c for c in d["changes"] if c["name"] == "alpha"]
assert alpha and alpha[0]["unstaged"] == "modified", d["changes"]
assert not [c for c in d["changes"] if c["name"] == "mskill"], d["changes"]
assert d["pullPaths"] == apart, (d["pullPaths"], apart)
assert d["blocked"] is None
PY
		[ -e a/.git/skillsync/merge ] || fail "status after a kill at $point removed the journal"
		;;
	*)
		! grep -q "interrupted" "$tmp/stdout" || fail "status after a kill at $point: $(cat "$tmp/stdout")"
		[ "$interrupted" = False ] || fail "status --json after a kill at $point: $(cat "$tmp/status.json")"
		;;
	esac
	(cd a && ss_run 0 "$SKILLSYNC" pull)
	(cd b && ss_run 0 "$SKILLSYNC" pull)
	kept $n "pull killed at $point"
	[ "$(sed '1,/^---$/d' a/mskill/SKILL.md)" = "mskill round $n" ] || fail "pull killed at $point: mskill is stale"
	[ -z "$(find a -name '.skillsync-new*')" ] || fail "pull killed at $point: a temporary file stayed"
	git -C a stash -q
	same a b "pull killed at $point"
	git -C a stash pop -q
	[ "$(git -C a status --porcelain --untracked-files=no)" = " M alpha/SKILL.md" ] ||
		fail "pull killed at $point: $(git -C a status --porcelain)"
done

# 4. A conflicting merge killed midway and after its journal: the next pull ends in the same
# conflict, my edit and symlinks untouched. git_merge writes each file in place, so a kill
# inside one leaves a part of it: "midway-cut" leaves the conflicted file holding only the
# first line of what git_merge writes there, as that kill would (the cut rule of
# core/git/merge_priv.h), and the next pull still ends in the conflict.
git -C a checkout -q -- alpha
echo "local notes" >a/mskill/notes.md
(cd a && ss_run 0 "$SKILLSYNC" commit -m "my notes" mskill)
edit c
plant_aside
for point in merge-checkout-midway merge-checkout-midway-cut merge-conflict-journaled; do
	n=$((n + 1))
	skill m2 mskill "mskill round $n" notes.md "notes round $n" scripts/tool.sh "echo $n"
	(cd a && SKILLSYNC_TEST_CRASH=${point%-cut} ss_run 137 "$SKILLSYNC" pull)
	if [ "$point" = merge-checkout-midway-cut ]; then
		# the first line of the file with conflict markers git_merge writes there
		printf '<<<<<<< main\n' >a/mskill/notes.md
		(cd a && ss_run 0 "$SKILLSYNC" status)
		! grep -q "will stop" "$tmp/stdout" || fail "$point: status: $(cat "$tmp/stdout")"
	fi
	(cd a && ss_run 2 "$SKILLSYNC" pull)
	grep -qx "conflict: mskill/notes.md" "$tmp/stdout" || fail "conflicting pull killed at $point: $(cat "$tmp/stdout")"
	grep -q '^<<<<<<< main$' a/mskill/notes.md || fail "no conflict markers after $point"
	kept c "conflicting pull killed at $point"
	[ "$(outside)" = "$outside_before" ] || fail "$point: written outside: $(outside)"
	git -C a merge --abort
	kept c "conflicting pull killed at $point, aborted"
done
git -C a reset -q --hard HEAD~1
rm -f a/zlink a/alpha/scripts
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the conflicts"

# 5. Killed at every point of a push, my edit and symlinks in the tree: the next push
# converges (my record as committed, no journal), the edit stays.
for point in before-batch-1 after-batch-1 before-state before-ref before-main; do
	n=$((n + 1))
	git -C a checkout -q -- alpha
	mkdir -p a/mine
	printf -- '---\nname: mine\ndescription: Skill mine.\n---\nmine round %s\n' $n >a/mine/SKILL.md
	(cd a && ss_run 0 "$SKILLSYNC" commit -m "mine $n" mine)
	edit $n
	plant_aside
	(cd a && SKILLSYNC_TEST_CRASH=$point ss_run 137 "$SKILLSYNC" push)
	(cd a && ss_run 0 "$SKILLSYNC" push)
	kept $n "push killed at $point"
	ss_records "$(ss_field me did)" | grep -q "mine round $n" || fail "push killed at $point: my record is not on the server"
	[ "$(ss_sql a/.git/skillsync/state.db 'select count(*) from push_journal')" = 0 ] ||
		fail "push killed at $point: the push journal stayed"
	[ "$(outside)" = "$outside_before" ] || fail "push killed at $point: written outside: $(outside)"
done
rm -f a/zlink a/alpha/scripts
git -C a checkout -q -- alpha
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the pushes"

# 6. A clone killed before its tracking ref: the next clone starts again and converges.
SKILLSYNC_TEST_CRASH=fetch-before-ref ss_run 137 "$SKILLSYNC" clone "$(ss_field auth handle)" c --member "$(ss_field m2 handle)"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" c --member "$(ss_field m2 handle)"
same c b "a clone killed before its ref"

# 7. A pull that holds a change for review (the default policy: m2 changes mskill's script)
# while it merges the authority's plain edit, killed at every point: the next pull converges
# to what the reference clone b has, holds included, and the held script is in no main.
holds() { ss_sql "$1/.git/skillsync/state.db" "SELECT name, did, cid, view_tree, kept_tree FROM holds"; }
export SKILLSYNC_REVIEW_POLICY=scripts
for point in pull-recovered fetch-before-ref pull-fetched pull-held merge-journaled \
	merge-checkout-midfile merge-checkout-midway merge-checked-out merge-ref-moved; do
	n=$((n + 1))
	skill m2 mskill "mskill round $n" notes.md "notes round $n" scripts/tool.sh "echo held $n"
	skill auth alpha "alpha round $n" extra.md "extra $n" more.md "more $n"
	(cd a && SKILLSYNC_TEST_CRASH=$point ss_run 137 "$SKILLSYNC" pull)
	(cd a && ss_run 0 "$SKILLSYNC" pull)
	(cd b && ss_run 0 "$SKILLSYNC" pull)
	same a b "a pull that holds, killed at $point"
	[ "$(holds a)" = "$(holds b)" ] && [ -n "$(holds a)" ] ||
		fail "a pull that holds, killed at $point: holds $(holds a) / $(holds b)"
	[ "$(tail -n1 a/alpha/SKILL.md)" = "alpha round $n" ] || fail "$point: the plain edit did not arrive"
	! grep -q "echo held" a/mskill/scripts/tool.sh || fail "$point: the held script reached main"
	[ -z "$(git -C a status --porcelain)" ] || fail "$point: not clean: $(git -C a status --porcelain)"
done

echo "recover: all checks passed"
