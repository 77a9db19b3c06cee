#!/usr/bin/env bash
# needs: pds
# Packs merged when they pile up (core/git/repo_pack.c, docs/GIT-MODEL.md "Objects"): a clone and
# pulls that each write a pack, with git's own gc.autoPackLimit lowered to 3; the pull that
# makes the fourth pack leaves one, with every object that was there before (loose ones too),
# `git fsck --full` clean, and log and status as before. The merge runs after the pull has
# released the clone's lock (a fetch meanwhile is not kept waiting), a second merge is skipped
# while one runs, gc.auto=0 turns it off, and a run killed between writing the new pack and
# removing the old ones leaves a repository that works and is merged by the next pull. A pack
# git wrote (with deltas) is merged like the others.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

tmp=$(mktemp -d)
bg=
trap '[ -z "$bg" ] || kill "$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
export SKILLSYNC_CONFIG_HOME=$tmp/config
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_TEST_DELAY SKILLSYNC_LOCK_WAIT
ss_git_identity
ss_pds_env
ss_accounts "$tmp" "" me
export HOME=$tmp/home

# more <prefix>: 80 new skills on the PDS (160 objects or more: a pack in the pull that fetches them)
more() {
	SS_FILL_TOKEN=$(ss_field me accessJwt) "$fill" --pds "$pds" --did "$(ss_field me did)" \
		--generate 80 --prefix "$1" --size 300 >/dev/null || fail "fill $1"
}
packs() { find "$1/.git/objects/pack" -name 'pack-*.pack' | wc -l; }
loose() { find "$1/.git/objects" -path '*/objects/[0-9a-f][0-9a-f]/*' -type f | wc -l; }
objects() { git -C "$1" cat-file --batch-all-objects --batch-check='%(objectname)' | sort -u; }
# intact <clone> <objects before>: every object still there, fsck clean, log and status work
intact() {
	objects "$1" >"$tmp/after"
	[ -z "$(comm -23 "$2" "$tmp/after")" ] || fail "objects lost: $(comm -23 "$2" "$tmp/after" | head -3)"
	git -C "$1" fsck --full --no-dangling >"$tmp/fsck" 2>&1 || fail "fsck: $(cat "$tmp/fsck")"
	(cd "$1" && ss_run 0 "$SKILLSYNC" log) || fail "log in $1"
	grep -q . "$tmp/stdout" || fail "log printed nothing"
	(cd "$1" && ss_run 0 "$SKILLSYNC" status) || fail "status in $1"
	[ "$(git -C "$1" status --porcelain)" = "" ] || fail "the tree changed in $1"
}

more a
ss_run 0 "$SKILLSYNC" clone "$(ss_field me handle)" c
[ "$(packs c)" = 1 ] || fail "a clone of 80 skills wrote $(packs c) packs"
git -C c config gc.autoPackLimit 3
for p in b d; do
	more $p
	(cd c && ss_run 0 "$SKILLSYNC" pull --quiet)
done
[ "$(packs c)" = 3 ] || fail "three packs expected, not $(packs c)"
[ "$(loose c)" -gt 0 ] || fail "the pulls' commits should be loose"
objects c >"$tmp/before"

# the pull that makes the fourth pack merges them all, and the loose objects, after its lock
# is released: a fetch meanwhile does not wait (SKILLSYNC_LOCK_WAIT=0 would exit 6)
more e
(cd c && SKILLSYNC_TEST_DELAY=pack-merge:60000:$tmp/go "$SKILLSYNC" pull --quiet) >"$tmp/bg.out" 2>&1 &
bg=$!
# held <file>: someone holds an flock on it (read from /proc/locks: taking the lock to test it
# could make the pull find it taken and skip its merge)
held() {
	local ino
	ino=$(stat -c %i "$1" 2>/dev/null) || return 1
	grep -q "FLOCK .*:$ino " /proc/locks
}
for _ in $(seq 1 600); do
	! held c/.git/skillsync/pack.lock || break
	sleep 0.1
done
held c/.git/skillsync/pack.lock || fail "the pull never started merging"
(cd c && SKILLSYNC_LOCK_WAIT=0 ss_run 0 "$SKILLSYNC" fetch --quiet) || fail "fetch waited"
touch "$tmp/go"
wait "$bg" || fail "pull: $(cat "$tmp/bg.out")"
bg=
[ "$(packs c)" = 1 ] || fail "packs not merged: $(packs c)"
[ "$(loose c)" = 0 ] || fail "$(loose c) loose objects left"
intact c "$tmp/before"

# gc.auto=0: nothing merged, as with git
ss_run 0 "$SKILLSYNC" clone "$(ss_field me handle)" off
git -C off config gc.autoPackLimit 1
git -C off config gc.auto 0
for p in f g; do
	more $p
	(cd off && ss_run 0 "$SKILLSYNC" pull --quiet)
done
[ "$(packs off)" = 3 ] || fail "gc.auto=0 merged packs: $(packs off)"

# another run merging (pack.lock held): this one skips, and merges next time
git -C off config gc.auto 6700
python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w"); time.sleep(60)' \
	off/.git/skillsync/pack.lock "$tmp/held" &
bg=$!
for _ in $(seq 1 600); do
	[ ! -e "$tmp/held" ] || break
	sleep 0.1
done
(cd off && ss_run 0 "$SKILLSYNC" pull --quiet)
[ "$(packs off)" = 3 ] || fail "merged while pack.lock was held: $(packs off)"
kill "$bg" && wait "$bg" 2>/dev/null || true
bg=

# killed with the new pack written, the old ones not yet removed: old and new, all readable
objects off >"$tmp/before"
(cd off && SKILLSYNC_TEST_CRASH=pack-written ss_run 137 "$SKILLSYNC" pull --quiet)
[ "$(packs off)" = 4 ] || fail "after the kill: $(packs off) packs, not old and new"
intact off "$tmp/before"
(cd off && ss_run 0 "$SKILLSYNC" pull --quiet)
[ "$(packs off)" = 1 ] || fail "the next pull did not merge: $(packs off)"
intact off "$tmp/before"

# a pack git wrote, with deltas, is merged too: its deltas go into the new pack whole (two
# versions of one long skill: git stores one as a delta of the other)
for v in 1 2; do
	mkdir -p "$tmp/big" && python3 -c 'import sys; print("---\nname: big\ndescription: Big.\n---"); [print("line", i, "of the long skill") for i in range(2000)]; print(sys.argv[1])' "$v" >"$tmp/big/SKILL.md"
	SS_FILL_TOKEN=$(ss_field me accessJwt) "$fill" --pds "$pds" --did "$(ss_field me did)" --put "$tmp/big" >/dev/null || fail "put big"
	(cd off && ss_run 0 "$SKILLSYNC" pull --quiet)
done
git -C off repack -a -d -f -q
deltas() { git verify-pack -v "$1"/.git/objects/pack/*.idx | grep -c '^chain length' || true; }
[ "$(deltas off)" -gt 0 ] || fail "git wrote no delta"
more h
objects off >"$tmp/before"
(cd off && ss_run 0 "$SKILLSYNC" pull --quiet)
[ "$(packs off)" = 1 ] || fail "git's pack and the pull's not merged: $(packs off)"
[ "$(deltas off)" = 0 ] || fail "a delta in the merged pack"
intact off "$tmp/before"
