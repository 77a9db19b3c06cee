#!/usr/bin/env bash
# needs: pds
# `skillsync clone` against the real PDS: the precedence rule (mine, authority, newest, ties,
# an invalid own record falling back, a read-only clone), hostile records skipped with one line
# each and nothing written outside the clone, exact round trips, a clean git repository, and
# the refusals (non-empty target, leftovers of an interrupted clone).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill
valid=$SS_TESTDATA/skills/valid

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SKILLSYNC_CONFIG_HOME=$work/config
ss_pds_env

# Four fresh accounts: the authority, two members, and me. Their secrets stay in files.
ss_accounts . "" auth m1 m2 me
for who in auth m1 m2 me; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done

# put <who> <updatedAt> <skill-dir>...: the records, encoded by core/record (ss-fill).
put() {
	local who=$1 when=$2
	shift 2
	SS_FILL_TOKEN=$(ss_json "$who.json" accessJwt) "$fill" --pds "$pds" --did "$(ss_json "$who.json" did)" \
		--updated-at "$when" --put "$@"
}
# sk <case>: the skill directory of testdata/skills/valid/<case>.
sk() {
	local d
	for d in "$valid/$1"/*/; do echo "${d%/}"; done
}
# renamed <dir> <name>: a copy of skill <dir> named <name>.
renamed() {
	local src=$1 name=$2
	local dst=$work/src/$name
	rm -rf "$dst"
	mkdir -p "$work/src"
	cp -r "$src" "$dst"
	sed -i "s/^name: .*/name: $name/" "$dst/SKILL.md"
	echo "$dst"
}
# raw <who> <rkey> [<json>]: a record written straight to the PDS, bypassing every check (the
# JSON comes from stdin when not given).
cat >raw.py <<'PY'
import json, os, sys, urllib.request
pds, did, rkey = sys.argv[1:4]
value = sys.argv[4] if len(sys.argv) > 4 else sys.stdin.read()
body = {"repo": did, "collection": "garden.engram.skill", "rkey": rkey,
        "record": json.loads(value), "validate": False}
req = urllib.request.Request(pds + "/xrpc/com.atproto.repo.putRecord",
                             data=json.dumps(body).encode(),
                             headers={"content-type": "application/json",
                                      "authorization": "Bearer " + os.environ["SS_TOKEN"]})
urllib.request.urlopen(req, timeout=60).read()
PY
raw() {
	SS_TOKEN=$(ss_json "$1.json" accessJwt) python3 raw.py "$pds" "$(ss_json "$1.json" did)" "$2" ${3+"$3"}
}

old=2026-01-01T00:00:00.000Z
mid=2026-06-01T00:00:00.000Z
new=2027-01-01T00:00:00.000Z

# Precedence cases.
put auth "$old" "$(renamed "$(sk basic)" shared)" "$(renamed "$(sk basic)" authwins)"
put m1 "$new" "$(renamed "$(sk non-ascii)" shared)" "$(renamed "$(sk non-ascii)" authwins)"
put me "$old" "$(renamed "$(sk nested-files)" shared)"
# newest: m2's is newer than m1's, and the instant (not the text) decides: 23:00-02:00 is later.
put m1 2026-11-29T23:30:00.000Z "$(renamed "$(sk crlf)" newest)"
put m2 2026-11-29T23:00:00.000-02:00 "$(renamed "$(sk quoting)" newest)"
# tie: the same instant; the smaller DID wins.
put m1 "$mid" "$(renamed "$(sk empty-body)" tie)"
put m2 "$mid" "$(renamed "$(sk no-final-newline)" tie)"
# fallback: my own version is invalid (its name is not its key): the authority's wins.
put auth "$old" "$(renamed "$(sk executable-script)" fallback)"
raw me fallback '{"$type":"garden.engram.skill","name":"other","description":"d","instructions":"x","createdAt":"'$new'","updatedAt":"'$new'"}'
# Plain skills, one per member, for the round trip.
put auth "$mid" "$(sk all-optional-keys)" "$(sk model-invocation-false)"
put m1 "$mid" "$(sk executable-script)" "$(sk dashes-in-value)"
put m2 "$mid" "$(sk non-ascii)" "$(sk lenient-description)"

# Hostile records by m1: each must be skipped with one line, and nothing written outside.
good='"description":"d","instructions":"x","createdAt":"'$old'","updatedAt":"'$old'"'
raw m1 dotdot '{"name":"dotdot",'"$good"',"files":[{"path":"../../escaped","content":"x"}]}'
raw m1 absolute '{"name":"absolute",'"$good"',"files":[{"path":"'"$work"'/escaped-abs","content":"x"}]}'
raw m1 dotgit '{"name":"dotgit",'"$good"',"files":[{"path":"a/.GIT/config","content":"x"}]}'
raw m1 skillmd '{"name":"skillmd",'"$good"',"files":[{"path":"SKILL.md","content":"x"}]}'
raw m1 mismatch '{"name":"other-name",'"$good"'}'
raw m1 Bad_Name '{"name":"Bad_Name",'"$good"'}'
big=$(head -c 3000 /dev/zero | tr '\0' a)
raw m1 oversize '{"name":"oversize","description":"'"$big"'","instructions":"x","createdAt":"'$old'","updatedAt":"'$old'"}'
raw m1 notstring '{"name":"notstring","description":42,"instructions":{"a":1},"createdAt":"'$old'","updatedAt":"'$old'"}'
python3 -c 'import json, sys; print(json.dumps({"name": "manyfiles", "description": "d",
    "instructions": "x", "createdAt": sys.argv[1], "updatedAt": sys.argv[1],
    "files": [{"path": "f%05d.md" % i, "content": "x"} for i in range(10000)]}))' "$old" |
	raw m1 manyfiles

# Clone as me.
SKILLSYNC_PASSWORD=$(ss_json "me.json" password) "$SKILLSYNC" login "$me_handle" >/dev/null
# Naming the authority, me, or a member twice as a member changes nothing, and says so.
"$SKILLSYNC" clone "$auth_handle" space --member "$m1_handle" --member "$m2_handle" \
	--member "$auth_handle" --member "$me_handle" --member "$m1_did" >out 2>err ||
	{ cat err; fail "clone failed"; }
grep -q "^Cloned 11 skills from 4 members (10 invalid records skipped)" out || { cat out err; fail "summary"; }
grep -qx "'$auth_handle' is already in the space: it is the space's authority" err &&
	grep -qx "'$me_handle' is already in the space: it is you" err &&
	grep -qx "'$m1_did' is already in the space: it is a member" err ||
	fail "clone did not say who was named twice: $(cat err)"

# One line per hostile record, naming the member, the key and the reason.
expect_skip() {
	local key=$1 who=$2 reason=$3
	grep -q "^warning: skipped '$key' of '$who': .*$reason" err ||
		{ cat err; fail "no skip line for '$key' ($reason)"; }
}
expect_skip dotdot "$m1_handle" "\.\."
expect_skip absolute "$m1_handle" "absolute"
expect_skip dotgit "$m1_handle" "\.git"
expect_skip skillmd "$m1_handle" "SKILL.md"
expect_skip mismatch "$m1_handle" "key"
expect_skip Bad_Name "$m1_handle" "name"
expect_skip oversize "$m1_handle" "description"
expect_skip notstring "$m1_handle" "description"
expect_skip manyfiles "$m1_handle" "files"
expect_skip fallback "$me_handle" "key"
[ "$(grep -c '^warning: skipped' err)" = 10 ] || { cat err; fail "expected 10 skip lines"; }
[ ! -e "$work/escaped" ] && [ ! -e "$work/escaped-abs" ] && [ ! -e "$work/../escaped" ] ||
	fail "a hostile record wrote outside the clone"
[ "$(ls "$work" | sort | tr '\n' ' ')" = "auth.json config err m1.json m2.json me.json out raw.py space src " ] ||
	fail "unexpected files beside the clone: $(ls "$work")"

cd space
# The view, by the precedence rule.
from() { "$SKILLSYNC" ls --json | python3 -c '
import json, sys
v = {s["name"]: s["winner"] for s in json.load(sys.stdin)}
print(v[sys.argv[1]]["did"], v[sys.argv[1]]["why"])' "$1"; }
[ "$(from shared)" = "$me_did mine" ] || fail "shared: $(from shared)"
[ "$(from authwins)" = "$auth_did authority" ] || fail "authwins: $(from authwins)"
[ "$(from newest)" = "$m2_did newest" ] || fail "newest: $(from newest)"
smaller=$(printf '%s\n%s\n' "$m1_did" "$m2_did" | LC_ALL=C sort | head -1)
[ "$(from tie)" = "$smaller newest" ] || fail "tie: $(from tie)"
[ "$(from fallback)" = "$auth_did authority" ] || fail "fallback: $(from fallback)"
for hostile in dotdot absolute dotgit skillmd mismatch Bad_Name oversize notstring manyfiles other-name; do
	[ ! -e "$hostile" ] || fail "hostile '$hostile' was checked out"
done
"$SKILLSYNC" show fallback | grep -q "invalid: .*key" || fail "show does not give the invalid version's reason"
"$SKILLSYNC" show shared --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["winner"]["why"] == "mine", s
assert [v["why"] for v in s["shadows"]] == ["authority", "newest"], s' || fail "show shared --json"
"$SKILLSYNC" show shared >"$work/show.txt"
grep -qx "    the authority's version, shadowed by yours" "$work/show.txt" &&
	grep -qx "    a member's version, shadowed by yours" "$work/show.txt" || fail "show shared: $(cat "$work/show.txt")"
"$SKILLSYNC" show newest | grep -qx "    a member's version, shadowed by $m2_handle's, updated later" ||
	fail "show newest: $("$SKILLSYNC" show newest)"
"$SKILLSYNC" show tie | grep -q "shadowed by .*(updated at the same time: the smaller DID wins)$" ||
	fail "show tie: $("$SKILLSYNC" show tie)"
"$SKILLSYNC" ls | grep -q "^shared  *mine  *$me_handle" || fail "ls text"

# A clean, ordinary git repository.
[ -z "$(git status --porcelain)" ] || { git status; fail "git status not clean"; }
fsck=$(git fsck --no-dangling 2>&1) || fail "git fsck: $fsck"
[ -z "$fsck" ] || fail "git fsck: $fsck"
"$SKILLSYNC" status | grep -q "working tree clean" || fail "skillsync status not clean"
[ "$(git rev-parse HEAD)" = "$(git rev-parse refs/remotes/space/main)" ] || fail "main != tracking"
[ "$(git rev-parse --abbrev-ref HEAD)" = main ] || fail "HEAD is not main"
[ "$(stat -c %a .git/skillsync/state.db)" = 600 ] || fail "state.db not 0600"

# Round trip: every valid record in the view comes back from its directory as the same record.
for name in $(ls); do
	did=$(from "$name" | cut -d' ' -f1)
	"$fill" --print --updated-at "$old" "$name" >"../$name.local" || fail "cannot re-encode '$name'"
	curl -sf "$pds/xrpc/com.atproto.repo.getRecord?repo=$did&collection=garden.engram.skill&rkey=$name" >"../$name.remote"
	python3 - "../$name.local" "../$name.remote" <<'PY' || fail "round trip of '$name'"
import json, sys
local = json.load(open(sys.argv[1]))
remote = json.load(open(sys.argv[2]))["value"]
for k in ("createdAt", "updatedAt", "note", "$type"):
    local.pop(k, None)
    remote.pop(k, None)
if local != remote:
    sys.exit(f"differs:\n{local}\n{remote}")
PY
done
cd ..

# A read-only clone (nobody signed in): no "mine"; the authority's version of shared wins.
SKILLSYNC_CONFIG_HOME=$work/empty-config "$SKILLSYNC" clone "$auth_did" ro --member "$m1_handle" \
	--member "$m2_handle" --member "$me_handle" >/dev/null 2>&1 || fail "read-only clone"
(cd ro && [ "$(from shared)" = "$auth_did authority" ]) || fail "read-only: shared"
# It refuses to push, in one line that says how to get a clone that can (also with --dry-run).
for dry in "" --dry-run; do
	rc=0
	(cd ro && SKILLSYNC_CONFIG_HOME=$work/empty-config "$SKILLSYNC" push $dry) >/dev/null 2>err5 || rc=$?
	[ "$rc" = 5 ] && [ "$(wc -l <err5)" = 1 ] &&
		grep -q "^skillsync: this clone is read-only .*skillsync login <handle>.*--as <handle>" err5 ||
		fail "read-only push $dry: exit $rc: $(cat err5)"
done

# Refusals: a non-empty target; leftovers of an interrupted clone are removed first.
# --as an account that is not signed in: one line, and no partial clone to speak of.
rc=0
"$SKILLSYNC" clone "$auth_handle" nobody --as "$m2_handle" >/dev/null 2>err1 || rc=$?
[ "$rc" = 5 ] && [ "$(wc -l <err1)" = 2 ] || fail "--as not signed in: exit $rc: $(cat err1)"
grep -q "^skillsync: '$m2_handle' is not signed in" err1 || fail "--as not signed in said: $(cat err1)"
! grep -q "partial clone" err1 || fail "--as not signed in spoke of a partial clone: $(cat err1)"
[ ! -e nobody ] && [ ! -e nobody.skillsync-partial ] || fail "--as not signed in left a directory"
# A member name that does not resolve: said in one line naming it, then where the partial clone
# stays (its repository is made while the names resolve); the next clone starts it over.
rc=0
"$SKILLSYNC" clone "$auth_handle" unres --member nosuch-member.test >/dev/null 2>err6 || rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "^skillsync:" err6)" = 2 ] || fail "unresolvable member: exit $rc: $(cat err6)"
grep -q "^skillsync: cannot resolve 'nosuch-member.test': " err6 || fail "unresolvable said: $(cat err6)"
grep -q "^skillsync: the partial clone stays in 'unres.skillsync-partial'" err6 ||
	fail "unresolvable: no partial clone named: $(cat err6)"
"$SKILLSYNC" clone "$auth_handle" unres --member "$m1_handle" >/dev/null 2>err6 || { cat err6; fail "rerun after unresolvable"; }
[ -d unres/.git ] && [ ! -e unres.skillsync-partial ] || fail "unresolvable: partial clone not started over"
"$SKILLSYNC" clone "$auth_handle" space 2>err2 && fail "cloned into a non-empty directory"
grep -q "destination path 'space' already exists and is not an empty directory" err2 || fail "message: $(cat err2)"
# A directory of that name that no clone made (no marker inside) is refused, left as it is.
mkdir -p again.skillsync-partial/junk
rc=0
"$SKILLSYNC" clone "$auth_handle" again >/dev/null 2>err3 || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <err3)" = 1 ] || fail "unmarked partial: exit $rc: $(cat err3)"
grep -q "^skillsync: 'again.skillsync-partial' already exists and was not left by a clone" err3 ||
	fail "unmarked partial said: $(cat err3)"
[ -d again.skillsync-partial/junk ] && [ ! -e again ] || fail "an unmarked partial was touched"
# One a killed clone left (its marker inside) is removed and the clone starts again.
mkdir -p again.skillsync-partial/.git/skillsync
touch again.skillsync-partial/.git/skillsync/partial-clone
"$SKILLSYNC" clone "$auth_handle" again --member "$m1_handle" >/dev/null 2>err3 || { cat err3; fail "rerun"; }
grep -q "Removing 'again.skillsync-partial' left by an interrupted clone" err3 || fail "no cleanup message"
[ ! -e again.skillsync-partial ] && [ -d again/.git ] || fail "partial clone not replaced"
[ ! -e again/.git/skillsync/partial-clone ] || fail "a finished clone keeps the partial marker"
# A partial clone whose lock is held (another clone into the same directory is building it):
# refused after the wait, naming the holder, and its work is not removed.
mkdir -p busy.skillsync-partial/.git/skillsync
touch busy.skillsync-partial/.git/skillsync/partial-clone
(
	exec 9>>busy.skillsync-partial/.git/skillsync/lock
	flock -x 9
	printf 'pid %s host testhost started 0\n' "$BASHPID" >busy.skillsync-partial/.git/skillsync/lock
	touch "$work/busy-locked"
	sleep 3
) &
holder=$!
while [ ! -e "$work/busy-locked" ]; do sleep 0.05; done
rc=0
SKILLSYNC_LOCK_WAIT=0 "$SKILLSYNC" clone "$auth_handle" busy >/dev/null 2>err4 || rc=$?
[ "$rc" = 6 ] || fail "a clone into a directory being cloned exited $rc: $(cat err4)"
grep -q "another skillsync (pid $holder on testhost" err4 || fail "busy clone said: $(cat err4)"
[ -e busy.skillsync-partial/.git/skillsync/lock ] && [ ! -e busy ] || fail "the busy partial clone was touched"
wait "$holder"
"$SKILLSYNC" clone "$auth_handle" busy >/dev/null 2>err4 || fail "clone after the holder ended: $(cat err4)"
[ -d busy/.git ] && [ ! -e busy.skillsync-partial ] || fail "the clone after the holder ended"
# Who is in the space, and in which role: the same rule and words for clone and members.
roles() { "$SKILLSYNC" members --json | python3 -c '
import json, sys
print(" ".join(sorted(m["role"] + ":" + m["did"] for m in json.load(sys.stdin))))'; }
cd space
want="member:$m1_did member:$m2_did me:$me_did authority:$auth_did"
want=$(echo "$want" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
[ "$(roles)" = "$want" ] || fail "roles after clone: $(roles)"
for who in "$auth_handle|the space's authority" "$me_handle|you" "$m1_handle|a member"; do
	"$SKILLSYNC" members add "${who%%|*}" >out 2>err || fail "members add ${who%%|*}: $(cat err)"
	[ "$(cat out)" = "'${who%%|*}' is already in the space: it is ${who#*|}" ] ||
		fail "members add ${who%%|*} said: $(cat out err)"
done
[ "$(roles)" = "$want" ] || fail "members add changed a role: $(roles)"
for who in "$auth_handle|the space's authority" "$me_did|you"; do
	rc=0
	"$SKILLSYNC" members remove "${who%%|*}" >out 2>err || rc=$?
	[ "$rc" = 1 ] && [ ! -s out ] &&
		[ "$(cat err)" = "skillsync: cannot remove '${who%%|*}': it is ${who#*|}" ] ||
		fail "members remove ${who%%|*}: exit $rc: $(cat out err)"
done
"$SKILLSYNC" members remove "$m2_handle" >out || fail "members remove m2"
grep -qx "Removed '$m2_handle'; its skills leave the view with the next pull" out || fail "remove said: $(cat out)"
rc=0
"$SKILLSYNC" members remove "$m2_did" >out 2>err || rc=$?
[ "$rc" = 1 ] && [ "$(cat err)" = "skillsync: '$m2_did' is not a member of this space" ] ||
	fail "removing a member twice: exit $rc: $(cat out err)"
"$SKILLSYNC" members add "$m2_handle" >out || fail "members add m2"
grep -qx "Added '$m2_handle' ($m2_did); its skills arrive with the next pull" out || fail "add said: $(cat out)"
[ "$(roles)" = "$want" ] || fail "roles after remove and add: $(roles)"
cd ..
# --as the authority's own account: one DID, the authority's role, and it is me.
export SKILLSYNC_CONFIG_HOME=$work/auth-config
SKILLSYNC_PASSWORD=$(ss_json auth.json password) "$SKILLSYNC" login "$auth_handle" >/dev/null
"$SKILLSYNC" clone "$auth_handle" own --as "$auth_handle" --member "$m1_handle" >/dev/null 2>err ||
	fail "clone --as the authority: $(cat err)"
cd own
[ "$(roles)" = "$(printf '%s\n' "authority:$auth_did" "member:$m1_did" | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
	fail "roles of the authority's own clone: $(roles)"
[ "$("$SKILLSYNC" ls --json | python3 -c 'import json,sys; print({s["winner"]["why"] for s in json.load(sys.stdin)} & {"mine"})')" = "{'mine'}" ] ||
	fail "the authority's own clone has nothing of mine"
"$SKILLSYNC" members remove "$auth_did" >/dev/null 2>err && fail "removed the authority from its own clone"
[ "$(cat err)" = "skillsync: cannot remove '$auth_did': it is the space's authority" ] || fail "said: $(cat err)"
cd ..
echo "clone: all checks passed"
