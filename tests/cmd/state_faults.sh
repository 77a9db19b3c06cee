#!/usr/bin/env bash
# needs: pds
# Faults of the local state (.git/skillsync/state.db): a damaged file (garbage, truncated,
# empty) is named in one line, kept aside, and rebuilt from the member list's mirror
# (.git/skillsync/members), git and the space, after which pull, status and push give what a
# clean clone gives, with no record lost or doubled; a clone without the mirror is told to
# clone again and its file is left as it is. A state held by another process (a write
# transaction past the busy timeout) stops the command with one line and exit 6, nothing lost,
# and the rerun succeeds. A disk that refuses writes (RLIMIT_FSIZE) stops pull and push with
# one line, and the rerun converges.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
unset SKILLSYNC_PASSWORD SKILLSYNC_TEST_CRASH
ss_accounts "$work" "" auth me m2
home0=$HOME # the PDS's install cache is under it
export HOME=$work/home
skill() { # skill <who> <name> <body>: writes the skill as <who>
	local d=$work/src/$1/$2
	rm -rf "$d" && mkdir -p "$d"
	printf -- '---\nname: %s\ndescription: Skill %s.\n---\n%s\n' "$2" "$2" "$3" >"$d/SKILL.md"
	SS_FILL_TOKEN=$(ss_field "$1" accessJwt) "$fill" --pds "$pds" --did "$(ss_field "$1" did)" \
		--put "$d" >/dev/null || fail "put $2 as $1"
}
tree() { git -C "$1" rev-parse "${2:-HEAD}^{tree}"; }
view() { ss_sql "$1/.git/skillsync/state.db" "select rkey, did, cid, tree from view order by rkey"; }
members() { (cd "$1" && "$SKILLSYNC" members --json); }
mine() { ss_records "$(ss_field me did)" | python3 -c '
import json, sys
print(sorted((r["uri"].rsplit("/", 1)[1], r["cid"]) for r in json.load(sys.stdin)["records"]))'; }
# same <clone> <reference> <what>: the same main and tracking trees, view and members
same() {
	[ "$(tree "$1")" = "$(tree "$2")" ] || fail "$3: main differs"
	[ "$(tree "$1" refs/remotes/space/main)" = "$(tree "$2" refs/remotes/space/main)" ] ||
		fail "$3: the tracking trees differ"
	[ "$(view "$1")" = "$(view "$2")" ] || fail "$3: the views differ: $(view "$1") / $(view "$2")"
	[ "$(members "$1")" = "$(members "$2")" ] || fail "$3: the members differ: $(members "$1")"
}
db=a/.git/skillsync/state.db

skill auth good "good v1"
skill m2 mskill "mskill v1"
SKILLSYNC_PASSWORD=$(ss_field me password) ss_run 0 "$SKILLSYNC" login "$(ss_field me handle)"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" a --member "$(ss_field m2 handle)"
ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" b --member "$(ss_field m2 handle)"
(cd a && ss_skill mine "mine v1")
(cd a && ss_run 0 "$SKILLSYNC" commit -m "Add mine" && ss_run 0 "$SKILLSYNC" push)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "before the faults"
[ -f a/.git/skillsync/members ] || fail "the clone wrote no member list"
records_before=$(mine)

# 1. garbage: the pull names the damage and where the file went, rebuilds, and converges
head -c 20000 /dev/urandom >"$db"
cp "$db" "$work/garbage"
skill m2 mskill "mskill v2"
(cd a && ss_run 0 "$SKILLSYNC" pull)
grep -q "^warning: local state '.*/a/.git/skillsync/state.db' was damaged (file is not a database): moved it to '.*/state.db.damaged-[0-9]*' and rebuilt it from the member list; the next pull lists the space again$" "$work/stderr" ||
	fail "the rebuild said: $(cat "$work/stderr")"
[ "$(grep -c . "$work/stderr")" = 1 ] || fail "the rebuild printed: $(cat "$work/stderr")"
aside=$(sed -n "s/.*moved it to '\([^']*\)'.*/\1/p" "$work/stderr")
cmp -s "$aside" "$work/garbage" || fail "the damaged file was not kept as it was"
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the rebuild"
(cd a && ss_run 0 "$SKILLSYNC" status)
grep -q "nothing to commit" "$work/stdout" || fail "status after the rebuild: $(cat "$work/stdout")"
# a push after the rebuild sends only what changed: no record lost or doubled
(cd a && ss_skill mine "mine v2")
(cd a && ss_skill mine2 "mine2 v1")
(cd a && ss_run 0 "$SKILLSYNC" commit -m "Edit mine, add mine2" && ss_run 0 "$SKILLSYNC" push)
[ "$(grep -c '^\(update mine\|create mine2\)$' "$work/stdout")" = 2 ] || fail "the push after the rebuild: $(cat "$work/stdout")"
[ "$(mine | tr -cd ',' | wc -c)" = 3 ] || fail "my records: $(mine)"
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after a push on the rebuilt state"

# 2. truncated, then a push before any pull: refused (nothing to diff against), then pull
# rebuilds nothing more and push works
(cd a && ss_skill mine "mine v3")
(cd a && ss_run 0 "$SKILLSYNC" commit -m "Edit mine again")
truncate -s 4096 "$db"
(cd a && ss_run 3 "$SKILLSYNC" push)
grep -q "^warning: local state .* was damaged" "$work/stderr" && grep -q "^skillsync: the local state was rebuilt and lists no records yet: nothing can be pushed; run 'skillsync pull' first$" "$work/stderr" ||
	fail "the push on a rebuilt state said: $(cat "$work/stderr")"
records=$(mine)
(cd a && ss_run 0 "$SKILLSYNC" pull && ss_run 0 "$SKILLSYNC" push)
[ "$(mine | tr -cd ',' | wc -c)" = 3 ] && [ "$(mine)" != "$records" ] || fail "my records: $(mine)"
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after a truncated state"

# 3. an empty file is damage too; no mirror (a clone from an earlier build): clone again,
# the file left as it is
asides=$(ls a/.git/skillsync | grep -c damaged-)
: >"$db"
rm a/.git/skillsync/members
(cd a && ss_run 1 "$SKILLSYNC" status)
[ "$(cat "$work/stderr")" = "skillsync: local state '$PWD/a/.git/skillsync/state.db' is damaged (an empty file) and this clone has no member list to rebuild it from: clone the space again with 'skillsync clone'" ] ||
	fail "without a member list: $(cat "$work/stderr")"
[ -f "$db" ] && [ ! -s "$db" ] && [ "$(ls a/.git/skillsync | grep -c damaged-)" = "$asides" ] ||
	fail "the damaged file moved without a rebuild"
rm -rf a && ss_run 0 "$SKILLSYNC" clone "$(ss_field auth handle)" a --member "$(ss_field m2 handle)"
# a healthy state without the mirror (an earlier build's clone) gets one at the next command
rm a/.git/skillsync/members
(cd a && ss_run 0 "$SKILLSYNC" status)
grep -q "^member	" a/.git/skillsync/members || fail "no member list written for an older clone"

# 4. another process holds the state: one line, exit 6, nothing lost; then it works
skill auth good "good v2"
python3 - "$db" "$work/held" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(8)
db.execute("ROLLBACK")
PY
holder=$!
while [ ! -e "$work/held" ]; do sleep 0.1; done
(cd a && ss_run 6 "$SKILLSYNC" pull)
# (the statement it stops at is the open's check, or the first after it when the check stamp
# says the file is unchanged since it was checked)
case $(cat "$work/stderr") in
"skillsync: local state '$PWD/a/.git/skillsync/state.db' is locked by another process (cannot prepare a query): try again once it is done" | \
	"skillsync: local state '$PWD/a/.git/skillsync/state.db' is locked by another process (cannot run a query): try again once it is done") ;;
*) fail "the locked state said: $(cat "$work/stderr")" ;;
esac
wait "$holder"
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the lock"

# 5. a disk that refuses writes past a limit (SIGXFSZ ignored: the write fails with EFBIG), set
# from the state database's size, so that the state's own writes fit (a fixed 64 KB broke when
# schema 6 made the database larger): 16 KB more, which a skill that does not compress overflows
# while its object is written
python3 - "$work/big" <<'PY'
import base64, os, sys
d = os.path.join(sys.argv[1], "big")
os.makedirs(d)
with open(os.path.join(d, "SKILL.md"), "w") as f:
    f.write("---\nname: big\ndescription: Skill big.\n---\n")
    # base64 of random bytes: its object does not compress below the room left
    f.write("".join(f"{base64.b64encode(os.urandom(45)).decode()}\n" for i in range(3000)))
PY
SS_FILL_TOKEN=$(ss_field m2 accessJwt) "$fill" --pds "$pds" --did "$(ss_field m2 did)" --put "$work/big/big" >/dev/null
before=$(git -C a rev-parse HEAD refs/remotes/space/main)
room=$(( $(stat -c %s "$db") / 1024 + 16 ))
(cd a && trap '' XFSZ && ulimit -f "$room" && ss_run 1 "$SKILLSYNC" pull)
[ "$(grep -c . "$work/stderr")" = 1 ] || fail "the full disk printed: $(cat "$work/stderr")"
[ "$(git -C a rev-parse HEAD refs/remotes/space/main)" = "$before" ] || fail "a failed pull moved a ref"
[ ! -e a/big ] || fail "a failed pull wrote the tree"
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the full disk"
# ... while writing the working tree: 64 KB more, and a new file that compresses well (its object
# is written, the file is not)
mkdir -p "$work/big/flat"
python3 - "$work/big/flat" <<'PY'
import os, sys
with open(os.path.join(sys.argv[1], "SKILL.md"), "w") as f:
    f.write("---\nname: flat\ndescription: Skill flat.\n---\n" + "the same line again\n" * 10000)
PY
SS_FILL_TOKEN=$(ss_field m2 accessJwt) "$fill" --pds "$pds" --did "$(ss_field m2 did)" --put "$work/big/flat" >/dev/null
before=$(git -C a rev-parse HEAD)
room=$(( $(stat -c %s "$db") / 1024 + 64 ))
(cd a && trap '' XFSZ && ulimit -f "$room" && ss_run 1 "$SKILLSYNC" pull)
[ "$(grep -c . "$work/stderr")" = 1 ] && grep -q "'.*/a/flat/SKILL.md': File too large" "$work/stderr" ||
	fail "the full disk in the tree printed: $(cat "$work/stderr")"
[ "$(git -C a rev-parse HEAD)" = "$before" ] && [ -z "$(git -C a status --short)" ] &&
	[ ! -e a/.git/skillsync/merge ] || fail "the checkout cut short left: $(git -C a status --short)"
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the full disk in the tree"
cmp -s a/flat/SKILL.md "$work/big/flat/SKILL.md" || fail "the file after the rerun"
# ... while writing the state: the database may not grow
for i in $(seq 1 40); do skill m2 "small$i" "small $i $(head -c 300 /dev/urandom | base64 -w0)"; done
before=$(git -C a rev-parse HEAD refs/remotes/space/main)
limit=$(( $(stat -c %s "$db") / 1024 ))
(cd a && trap '' XFSZ && ulimit -f "$limit" && ss_run 1 "$SKILLSYNC" pull)
[ "$(grep -c . "$work/stderr")" = 1 ] && grep -q "^skillsync: local state '.*/a/.git/skillsync/state.db': .*(is the disk full?)$" "$work/stderr" ||
	fail "the full disk in the state printed: $(cat "$work/stderr")"
[ "$(git -C a rev-parse HEAD refs/remotes/space/main)" = "$before" ] &&
	[ -z "$(git -C a status --short)" ] || fail "the failed state write moved a ref or the tree"
(cd a && ss_run 0 "$SKILLSYNC" pull)
(cd b && ss_run 0 "$SKILLSYNC" pull)
same a b "after the full disk in the state"

# 6. the PDS stopped (SIGSTOP) after the first batch of a three-batch push, then resumed: the
# push stops with one line and exit 4; the rerun sends exactly the rest. The PDS is this
# script's own (pausing the shared one would stall the other tests).
mkdir "$work/pds"
trap '"$SS_SOURCE_DIR"/tests/pds/stop "$work/pds" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
HOME=$home0 "$SS_SOURCE_DIR"/tests/pds/start "$work/pds" >/dev/null
(
	export SS_PDS_INFO=$work/pds/pds.json SKILLSYNC_CONFIG_HOME=$work/config6
	ss_pds_env
	mkdir -p "$work/six" && cd "$work/six"
	HOME=$home0 ss_accounts "$work" "" auth6 me6
	SKILLSYNC_PASSWORD=$(ss_field me6 password) ss_run 0 "$SKILLSYNC" login "$(ss_field me6 handle)"
	ss_run 0 "$SKILLSYNC" clone "$(ss_field auth6 handle)" c
	cd c
	for i in $(seq 1 450); do ss_skill "s$i" "skill $i"; done
	ss_run 0 "$SKILLSYNC" commit -m "Add 450 skills"
	rev() { curl -sf "$pds/xrpc/com.atproto.sync.getLatestCommit?did=$(ss_field me6 did)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])'; }
	first=$(rev)
	SKILLSYNC_TIMEOUT=3 "$SKILLSYNC" push >"$work/stdout" 2>"$work/stderr" &
	pusher=$!
	server=$(cat "$work/pds/server.pid")
	while [ "$(rev)" = "$first" ]; do
		kill -0 "$pusher" 2>/dev/null || break
		sleep 0.05
	done
	kill -STOP "$server"
	rc=0
	wait "$pusher" || rc=$?
	kill -CONT "$server"
	[ "$rc" = 4 ] || fail "the push to a stopped PDS exited $rc: $(cat "$work/stderr")"
	[ "$(grep -c . "$work/stderr")" = 1 ] || fail "the push to a stopped PDS printed: $(cat "$work/stderr")"
	echo "pds stopped mid-push: $(cat "$work/stderr")"
	n=$(ss_records "$(ss_field me6 did)" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["records"]))')
	[ "$n" -ge 200 ] && [ "$n" -lt 450 ] || fail "$n records landed before the stop"
	# the line counts the writes the PDS confirmed; one more request may have landed unanswered
	said=$(sed -n 's/.*push interrupted after \([0-9]*\) of 450 writes.*/\1/p' "$work/stderr")
	[ -n "$said" ] && [ "$said" -ge 200 ] && [ "$said" -le "$n" ] ||
		fail "the line says ${said:-no} writes landed, $n did: $(cat "$work/stderr")"
	ss_run 0 "$SKILLSYNC" push
	ss_records "$(ss_field me6 did)" | python3 -c '
import json, sys
keys = [r["uri"].rsplit("/", 1)[1] for r in json.load(sys.stdin)["records"]]
assert sorted(keys) == sorted(f"s{i}" for i in range(1, 451)), keys' || fail "the records after the rerun"
	ss_run 0 "$SKILLSYNC" status
	grep -q "nothing to commit" "$work/stdout" || fail "status after the rerun: $(cat "$work/stdout")"
	cd .. && ss_run 0 "$SKILLSYNC" clone "$(ss_field auth6 handle)" d
	[ "$(tree c)" = "$(tree d)" ] || fail "the pushed tree differs from a fresh clone's"
)
echo "ok"
