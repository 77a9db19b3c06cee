#!/usr/bin/env bash
# needs: pds
# fetch, pull and log end to end against the real PDS: every kind of view change, a conflict
# resolved and pushed, uncommitted edits in the way, a no-change pull (one request per member,
# nothing written), the lock, a pull without a session. A pull killed at each step:
# tests/cmd/recover.sh.
# Records of the other members are written straight to the PDS with curl (the token in a
# config on stdin, not in argv).
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_pds_env
ss_accounts "$tmp" pull auth me m2 m3
export HOME="$tmp/home"
handle() { ss_json "$tmp/$1.json" handle; }
did() { ss_json "$tmp/$1.json" did; }
token() { ss_json "$tmp/$1.json" accessJwt; }

now() { python3 -c 'import datetime; print(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")'; }

# put <who> <name> <instructions> [note] [file-path file-content]...: my record's JSON by
# hand, written with putRecord as <who> (another device, or another member).
put() {
	local who=$1 name=$2 body=$3 note=${4:-}
	shift 3
	[ $# -gt 0 ] && shift
	python3 - "$name" "$body" "$note" "$(now)" "$@" >"$tmp/record.json" <<'PY'
import json, sys
name, body, note, when, *files = sys.argv[1:]
rec = {"$type": "garden.engram.skill", "name": name, "description": "the " + name + " skill",
       "instructions": body, "createdAt": when, "updatedAt": when}
if files:
    rec["files"] = [{"path": files[i], "content": files[i + 1]} for i in range(0, len(files), 2)]
if note:
    rec["note"] = note
print(json.dumps(rec))
PY
	python3 - "$(did "$who")" "$name" "$tmp/record.json" >"$tmp/put.json" <<'PY'
import json, sys
did, rkey, path = sys.argv[1:]
print(json.dumps({"repo": did, "collection": "garden.engram.skill", "rkey": rkey,
                  "record": json.load(open(path))}))
PY
	ss_curl_auth "$(token "$who")" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary @"$tmp/put.json" "$pds/xrpc/com.atproto.repo.putRecord" >/dev/null ||
		fail "putRecord $name as $who"
	sleep 0.01 # distinct updatedAt instants
}
del() {
	ss_curl_auth "$(token "$1")" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$(did "$1")\",\"collection\":\"garden.engram.skill\",\"rkey\":\"$2\"}" \
		"$pds/xrpc/com.atproto.repo.deleteRecord" >/dev/null || fail "deleteRecord $2 as $1"
}
get_instructions() { # get_instructions <who> <name>
	curl -fsS "$pds/xrpc/com.atproto.repo.getRecord?repo=$(did "$1")&collection=garden.engram.skill&rkey=$2" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["value"]["instructions"], end="")'
}

body_of() { sed '1,/^---$/d' "$1"; } # SKILL.md minus its frontmatter
has_line() { grep -qxF -- "$2" "$1" || fail "no line '$2' in $1: $(cat "$1")"; }
commit() { ss_run 0 "$SKILLSYNC" commit -m "$1"; } # commit <message>: every change
clean() { [ -z "$(git -C "$1" status --porcelain)" ] || fail "$1 not clean: $(git -C "$1" status --porcelain)"; }

# The space: auth is the authority; I am "me"; m2 a member; m3 joins later.
put auth alpha $'step 1\nstep 2\nstep 3\n'
put auth beta $'beta by the authority\n'
put m2 beta $'beta by m2\n' "m2's beta"
put m2 gamma $'line 1\nline 2\nline 3\n' "first gamma" notes.md $'a\nb\n'
put m3 delta $'delta 1\n' "m3's delta"
SKILLSYNC_PASSWORD=$(ss_json "$tmp/me.json" password) ss_run 0 "$SKILLSYNC" login "$(handle me)"
cd "$tmp"
ss_run 0 "$SKILLSYNC" clone "$(handle auth)" space --member "$(handle m2)"
cd space
[ "$(body_of beta/SKILL.md)" = "beta by the authority" ] || fail "beta is not the authority's"
clean .

# No change: one request per member (authority, m2, me), nothing written.
state=.git/skillsync/state.db
before=$(sha256sum "$state" | cut -d' ' -f1)
tracking=$(git rev-parse refs/remotes/space/main)
head=$(git rev-parse HEAD)
ss_run 0 "$SKILLSYNC" pull --json
requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$tmp/stdout")
[ "$requests" = 3 ] || fail "a no-change pull sent $requests requests, not 3"
grep -q '"result":"up-to-date"' "$tmp/stdout" || fail "no-change pull: $(cat "$tmp/stdout")"
[ "$(sha256sum "$state" | cut -d' ' -f1)" = "$before" ] || fail "a no-change pull wrote the state"
[ "$(git rev-parse refs/remotes/space/main)" = "$tracking" ] || fail "a no-change pull moved the tracking ref"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "a no-change pull moved main"
ss_run 0 "$SKILLSYNC" pull --quiet
[ ! -s "$tmp/stdout" ] && [ ! -s "$tmp/stderr" ] || fail "pull --quiet printed: $(cat "$tmp/stdout" "$tmp/stderr")"
ss_run 0 "$SKILLSYNC" fetch
has_line "$tmp/stdout" "the space has not changed"

# A member's newer version (two files change).
put m2 gamma $'line 1\nline 2\nline 3\nline 4\n' "gamma v2: a fourth line" notes.md $'a\nb\nc\n'
ss_run 0 "$SKILLSYNC" pull --quiet
has_line "$tmp/stdout" "fetched 1 change from the space"
has_line "$tmp/stdout" "  updated gamma ($(handle m2)): gamma v2: a fourth line"
[ "$(body_of gamma/SKILL.md)" = $'line 1\nline 2\nline 3\nline 4' ] || fail "gamma not updated"
[ "$(cat gamma/notes.md)" = $'a\nb\nc' ] || fail "gamma/notes.md not updated"
clean .

# The authority's update.
put auth alpha $'step 1\nstep 2 (better)\nstep 3\n' "alpha: clearer step 2"
ss_run 0 "$SKILLSYNC" pull
has_line "$tmp/stdout" "fast-forward: main has the space's changes"
[ "$(body_of alpha/SKILL.md)" = $'step 1\nstep 2 (better)\nstep 3' ] || fail "alpha not updated"

# A deletion: the authority's beta goes, m2's comes back.
del auth beta
ss_run 0 "$SKILLSYNC" pull
[ "$(body_of beta/SKILL.md)" = "beta by m2" ] || fail "m2's beta did not come back"
has_line "$tmp/stdout" "  updated beta ($(handle m2)): m2's beta"

# A new member's skills.
ss_run 0 "$SKILLSYNC" members add "$(handle m3)"
ss_run 0 "$SKILLSYNC" pull
[ "$(body_of delta/SKILL.md)" = "delta 1" ] || fail "the new member's delta is missing"
has_line "$tmp/stdout" "  added   delta ($(handle m3)): m3's delta"

# My own record changed from another device: mine wins over the authority's.
put me alpha $'my alpha\n' "alpha from my laptop"
ss_run 0 "$SKILLSYNC" pull
[ "$(body_of alpha/SKILL.md)" = "my alpha" ] || fail "my own alpha did not win"
has_line "$tmp/stdout" "  updated alpha ($(handle me), yours): alpha from my laptop"
clean .

# log: who changed what, and the notes.
ss_run 0 "$SKILLSYNC" log gamma
grep -q "updated gamma by $(handle m2)" "$tmp/stdout" || fail "log gamma: $(cat "$tmp/stdout")"
grep -q "note: gamma v2: a fourth line" "$tmp/stdout" || fail "log gamma has no note: $(cat "$tmp/stdout")"
grep -q "alpha" "$tmp/stdout" && fail "log gamma shows alpha: $(cat "$tmp/stdout")"
ss_run 0 "$SKILLSYNC" log --json
python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); assert l and all(e["kind"] in ("space","local","merge") for e in l)' "$tmp/stdout" ||
	fail "log --json: $(cat "$tmp/stdout")"

# Uncommitted edits in the way: fetched, then stopped naming the file; nothing overwritten.
echo "my unsaved edit" >>delta/SKILL.md
put m3 delta $'delta 2\n' "m3's second delta"
head=$(git rev-parse HEAD)
ss_run 1 "$SKILLSYNC" pull
[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "blocked pull printed more than one error line: $(cat "$tmp/stderr")"
grep -q "'delta/SKILL.md'" "$tmp/stderr" || fail "blocked pull did not name the file: $(cat "$tmp/stderr")"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "blocked pull moved main"
[ "$(tail -n1 delta/SKILL.md)" = "my unsaved edit" ] || fail "blocked pull overwrote my edit"
git show refs/remotes/space/main:delta/SKILL.md | grep -qx "delta 2" || fail "blocked pull did not fetch"
git checkout -q -- delta
ss_run 0 "$SKILLSYNC" pull
[ "$(body_of delta/SKILL.md)" = "delta 2" ] || fail "delta 2 not merged after the edit went"

# --ff-only refuses when main has a commit of its own; a plain pull then merges cleanly.
printf 'my notes\n' >delta/extra.md
commit "delta: my notes"
put m2 beta $'beta by m2, v2\n' "m2's beta v2"
head=$(git rev-parse HEAD)
ss_run 1 "$SKILLSYNC" pull --ff-only
grep -q "not possible to fast-forward" "$tmp/stderr" || fail "pull --ff-only said: $(cat "$tmp/stderr")"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "pull --ff-only moved main"
ss_run 0 "$SKILLSYNC" pull
grep -q "^merged the space's changes into main (merge commit " "$tmp/stdout" || fail "pull said: $(cat "$tmp/stdout")"
has_line "$tmp/stdout" "  updated beta ($(handle m2)): m2's beta v2"
[ "$(body_of beta/SKILL.md)" = "beta by m2, v2" ] && [ "$(cat delta/extra.md)" = "my notes" ] ||
	fail "the clean merge lost a side"
[ "$(git rev-list --parents -n1 HEAD | wc -w)" = 3 ] || fail "the clean merge is not a merge commit"
clean .

# A conflict: the same line edited here and by the winning remote version (m2's gamma).
sed -i 's/^line 2$/line 2 (mine)/' gamma/SKILL.md
commit "gamma: my line 2"
put m2 gamma $'line 1\nline 2 (m2)\nline 3\nline 4\n' "gamma v3" notes.md $'a\nb\nc\n'
ss_run 2 "$SKILLSYNC" pull
has_line "$tmp/stdout" "conflict: gamma/SKILL.md"
grep -q '^<<<<<<< ' gamma/SKILL.md || fail "no conflict markers in gamma/SKILL.md"
[ "$(git status --porcelain gamma/SKILL.md)" = "UU gamma/SKILL.md" ] || fail "no index conflict: $(git status --porcelain)"
ss_run 0 "$SKILLSYNC" status
grep -q "merge waits" "$tmp/stdout" || fail "status does not say a merge waits: $(cat "$tmp/stdout")"
has_line "$tmp/stdout" "Unmerged paths:"
has_line "$tmp/stdout" "  gamma/  (1 conflicted file)"
has_line "$tmp/stdout" "    both modified   gamma/SKILL.md"
grep -q "then run 'skillsync commit'" "$tmp/stdout" || fail "status does not say how to conclude: $(cat "$tmp/stdout")"
# the tracking commit is what the merge brings in: nothing to pull, and not "up to date" either
grep -q "skillsync pull" "$tmp/stdout" && fail "status asks for a pull while the merge waits: $(cat "$tmp/stdout")"
grep -q "up to date" "$tmp/stdout" && fail "status says up to date while a merge waits: $(cat "$tmp/stdout")"
ss_run 0 "$SKILLSYNC" status --json
python3 - "$tmp/stdout" <<'PY' || fail "status --json: $(cat "$tmp/stdout")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["merging"] is True and s["behind"] == 0, s
assert s["unmerged"] == [{"name": "gamma", "path": "gamma/SKILL.md", "kind": "both modified"}], s["unmerged"]
assert [c["conflicted"] for c in s["changes"] if c["name"] == "gamma"] == [True], s["changes"]
PY
ss_run 2 "$SKILLSYNC" pull # a merge still waits: fetches, says so, exits 2 again
python3 - gamma/SKILL.md <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t = re.sub(r"<<<<<<< [^\n]*\n.*?=======\n.*?>>>>>>> [^\n]*\n", "line 2 (both)\n", t, flags=re.S)
open(p, "w").write(t)
PY
commit "gamma: both line 2s"
[ "$(git rev-list --parents -n1 HEAD | wc -w)" = 3 ] || fail "the resolution is not a merge commit"
clean .
ss_run 0 "$SKILLSYNC" status
grep -q "^Your branch has .* not yet pushed; push would send: .*create gamma" "$tmp/stdout" ||
	fail "status before the push: $(cat "$tmp/stdout")"
ss_run 0 "$SKILLSYNC" push
has_line "$tmp/stdout" "create gamma (your own version of $(handle m2)'s)"
[ "$(get_instructions me gamma)" = $'line 1\nline 2 (both)\nline 3\nline 4' ] ||
	fail "push did not land the resolved gamma: $(get_instructions me gamma)"
[ "$(get_instructions m2 gamma)" = $'line 1\nline 2 (m2)\nline 3\nline 4' ] || fail "m2's gamma changed"
head=$(git rev-parse HEAD)
ss_run 0 "$SKILLSYNC" pull # the pushed merge is in the space: nothing comes back
[ "$(git rev-parse HEAD)" = "$head" ] || fail "the pull after the push moved main: $(cat "$tmp/stdout")"
clean .
ss_run 0 "$SKILLSYNC" status
has_line "$tmp/stdout" "Your branch is up to date with the space."

# The lock: a holder makes a second run wait, then give up naming it; a finished holder's
# file is harmless.
lock=.git/skillsync/lock
(
	exec 9>>"$lock"
	flock -x 9
	printf 'pid %s host testhost started 0\n' "$BASHPID" >"$lock"
	touch "$tmp/locked"
	sleep 4
) &
holder=$!
while [ ! -e "$tmp/locked" ]; do sleep 0.05; done
SKILLSYNC_LOCK_WAIT=1 ss_run 6 "$SKILLSYNC" pull
grep -q "another skillsync (pid $holder on testhost" "$tmp/stderr" || fail "locked pull said: $(cat "$tmp/stderr")"
ss_run 0 "$SKILLSYNC" pull # waits up to 5 s for the holder, which ends after 4
wait "$holder"
ss_run 0 "$SKILLSYNC" pull

# Two pulls at once: each ends up to date or locked out, the repository consistent.
put m2 beta $'beta by m2, again\n'
"$SKILLSYNC" pull >"$tmp/p1" 2>&1 &
p1=$!
"$SKILLSYNC" pull >"$tmp/p2" 2>&1 &
p2=$!
rc1=0 rc2=0
wait $p1 || rc1=$?
wait $p2 || rc2=$?
case "$rc1$rc2" in 00 | 06 | 60) ;; *) fail "two pulls exited $rc1 and $rc2: $(cat "$tmp/p1" "$tmp/p2")" ;; esac
[ "$(body_of beta/SKILL.md)" = "beta by m2, again" ] || fail "beta not pulled by the two pulls"
clean .
git fsck --no-dangling >/dev/null 2>&1 || fail "git fsck after two pulls"
[ "$(git rev-list --count refs/remotes/space/main --not "$tracking")" -ge 1 ] || fail "tracking ref lost"

# A missing session (after logout, or a refresh token that expired): public repos need none,
# so pull goes on as me, saying once (naming me's handle) that push will need a sign-in; only
# push fails, with one line and exit 5. Never a prompt.
SKILLSYNC_CONFIG_HOME="$tmp/nobody" ss_run 0 timeout 20 setsid -w "$SKILLSYNC" pull </dev/null
[ "$(cat "$tmp/stderr")" = "skillsync: not signed in as '$(handle me)': reading the public repos \
without a session; push will need 'skillsync login $(handle me)'" ] ||
	fail "pull without a session said: $(cat "$tmp/stderr")"
SKILLSYNC_CONFIG_HOME="$tmp/nobody" ss_run 0 timeout 20 setsid -w "$SKILLSYNC" pull --quiet </dev/null
[ ! -s "$tmp/stderr" ] && [ ! -s "$tmp/stdout" ] || fail "pull --quiet without a session printed"
SKILLSYNC_CONFIG_HOME="$tmp/nobody" ss_run 5 timeout 20 setsid -w "$SKILLSYNC" push </dev/null
[ "$(cat "$tmp/stderr")" = "skillsync: not signed in as '$(handle me)' (run 'skillsync login $(handle me)')" ] ||
	fail "push without a session said: $(cat "$tmp/stderr")"

echo "ok"
