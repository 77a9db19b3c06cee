#!/usr/bin/env bash
# needs: pds
# What was reviewed is what comes in (docs/GIT-MODEL.md, "Held changes"; docs/SECURITY.md, "The
# review gate"): a scheduled pull between `review` and `accept` that replaces the held version
# says so, and `accept` then refuses until the new version is reviewed; a change review never
# showed is refused unless named by the id review shows; `accept --all` takes only what review
# showed as it is now and leaves the rejected out, naming each; a rejected change comes in when
# named. The gate's facts are kept per pair of versions: a pull reuses them instead of auditing
# the held version again, and new audit rules invalidate them. review.trust is kept by DID: a
# handle given is stored as its DID and shown with it; a handle in the environment is refused.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME SKILLSYNC_LOCK_WAIT SKILLSYNC_TEST_CRASH \
	SKILLSYNC_REVIEW_POLICY SKILLSYNC_REVIEW_TRUST
fill=$(dirname "$SKILLSYNC")/ss-fill

ss_sandbox
ss_accounts "$work" "" auth bob me eve
for who in auth bob me eve; do
	declare "${who}_did=$(ss_json "$work/$who.json" did)" "${who}_handle=$(ss_json "$work/$who.json" handle)"
done

# put <who> <name> <script line>: <who> writes skill <name> with scripts/run.sh (executable)
# holding the line.
put() {
	local who=$1 name=$2 src=$work/src/$1
	rm -rf "$src" && mkdir -p "$src" && (cd "$src" && ss_skill "$name" "a skill")
	mkdir -p "$src/$name/scripts"
	printf '#!/bin/sh\n%s\n' "$3" >"$src/$name/scripts/run.sh"
	chmod +x "$src/$name/scripts/run.sh"
	SS_FILL_TOKEN=$(ss_json "$work/$who.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$work/$who.json" did)" --put "$src/$name" >/dev/null
}
script() { tail -1 "$1/scripts/run.sh"; }
sql_write() { python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute(sys.argv[2]); db.commit()' "$1" "$2"; }
db=.git/skillsync/state.db

for s in tool a b c d; do put auth $s "echo v1"; done
SKILLSYNC_PASSWORD=$(ss_json "$work/me.json" password) "$SKILLSYNC" login "$me_handle" >/dev/null
ss_run 0 "$SKILLSYNC" clone "$auth_handle" space --member "$bob_handle" --quiet
cd "$work/space"

# 1. The version reviewed is the one accepted. v2 is held; accept before any review: refused.
put auth tool "echo v2"
ss_run 0 "$SKILLSYNC" pull --quiet
grep -q "^1 change waits for review: tool" "$work/stdout" || fail "pull of v2: $(cat "$work/stdout")"
ss_run 1 "$SKILLSYNC" accept tool
[ "$(cat "$work/stderr")" = "skillsync: the change to tool was never shown by review: run 'skillsync review tool' first" ] ||
	fail "accept before review: $(cat "$work/stderr")"
[ "$(script tool)" = "echo v1" ] || fail "accept before review took the change"
# review shows v2 and its id; then the member writes v3 and a scheduled pull replaces v2,
# saying so under --quiet.
ss_run 0 "$SKILLSYNC" review
v2=$(git rev-parse "space/main:tool")
grep -q "^    version: ${v2:0:12}$" "$work/stdout" || fail "review shows no version id: $(cat "$work/stdout")"
put auth tool 'cp ~/.ssh/id_ed25519 /tmp/x'
ss_run 0 "$SKILLSYNC" pull --quiet
grep -q "^tool: $auth_handle's newer version replaces the one held for review (review it again)$" "$work/stdout" ||
	fail "pull --quiet said nothing of the replacement: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" pull --quiet
! grep -q "replaces" "$work/stdout" || fail "a pull that replaced nothing said: $(cat "$work/stdout")"
# accept now refuses in one line, by name or by v2's id; main keeps v1.
ss_run 1 "$SKILLSYNC" accept tool
[ "$(cat "$work/stderr")" = "skillsync: the change to tool moved since you reviewed it: run 'skillsync review tool' again" ] ||
	fail "accept after the replacement: $(cat "$work/stderr")"
ss_run 1 "$SKILLSYNC" accept "tool@${v2:0:12}"
grep -q "^skillsync: the change to tool is not version '${v2:0:12}'" "$work/stderr" || fail "accept of v2's id: $(cat "$work/stderr")"
[ "$(script tool)" = "echo v1" ] && [ -z "$(git status --porcelain)" ] || fail "a refused accept changed main"
# review (the change alone) shows v3 as newer; accept then takes exactly v3.
ss_run 0 "$SKILLSYNC" review tool
grep -q "(newer than the one review showed before)" "$work/stdout" || fail "review tool: $(cat "$work/stdout")"
grep -q '^+cp ~/.ssh/id_ed25519 /tmp/x$' "$work/stdout" || fail "review tool shows no v3: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" accept tool
[ "$(script tool)" = 'cp ~/.ssh/id_ed25519 /tmp/x' ] || fail "accept did not take v3"

# 2. A version named by its id comes in without review; review --json shows the full id and
# counts as shown; pull --json says which hold it replaced.
put auth a "echo a2"
ss_run 0 "$SKILLSYNC" pull --quiet
a2=$(git rev-parse "space/main:a")
ss_run 1 "$SKILLSYNC" accept "a@12345678"
ss_run 0 "$SKILLSYNC" accept "a@${a2:0:7}"
[ "$(script a)" = "echo a2" ] || fail "accept a@<id> did not take a2"
put auth a "echo a3"
put auth b "echo b2"
ss_run 0 "$SKILLSYNC" pull --quiet
ss_run 0 "$SKILLSYNC" review --json
python3 - "$work/stdout" "$(git rev-parse space/main:a)" <<'PY' || fail "review --json: $(cat "$work/stdout")"
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert d["a"]["version"] == sys.argv[2], d
PY
put auth a "echo a4"
ss_run 0 "$SKILLSYNC" pull --json
python3 - "$work/stdout" <<'PY' || fail "pull --json: $(cat "$work/stdout")"
import json, sys
held = {x["name"]: x for x in json.load(open(sys.argv[1]))["merge"]["held"]}
assert held["a"]["replaced"] is True and held["b"]["replaced"] is False, held
PY

# 3. accept --all takes only what review showed as it is now, never a rejected change, and
# names what it left out: b shown (taken), c shown then rejected, d never shown, a moved.
put auth c "echo c2"
put auth d "echo d2"
ss_run 0 "$SKILLSYNC" pull --quiet
ss_run 0 "$SKILLSYNC" review b c
ss_run 0 "$SKILLSYNC" reject c
ss_run 0 "$SKILLSYNC" accept --all
[ "$(script b)" = "echo b2" ] || fail "accept --all did not take b"
[ "$(script c)" = "echo v1" ] || fail "accept --all took the rejected c"
[ "$(script d)" = "echo v1" ] || fail "accept --all took d, never reviewed"
[ "$(script a)" = "echo a2" ] || fail "accept --all took a, moved since its review"
grep -q "^skipped a: changed since you reviewed it ('skillsync review a')$" "$work/stdout" &&
	grep -q "^skipped c: rejected ('skillsync accept c')$" "$work/stdout" &&
	grep -q "^skipped d: not reviewed yet ('skillsync review d')$" "$work/stdout" ||
	fail "accept --all said: $(cat "$work/stdout")"
# nothing left that it could take: refused, still naming each
ss_run 1 "$SKILLSYNC" accept --all
grep -q "^skipped c: rejected" "$work/stdout" || fail "accept --all with nothing to take: $(cat "$work/stdout")"
grep -q "^skillsync: no change review showed as it is now waits: run 'skillsync review'$" "$work/stderr" ||
	fail "accept --all with nothing to take: $(cat "$work/stderr")"
# a rejected change comes in when named (review showed it)
ss_run 0 "$SKILLSYNC" accept c
[ "$(script c)" = "echo c2" ] || fail "accept c (rejected, named) did not take it"

# 4. The gate's facts are kept per pair of versions: d's are in the state; the pull uses them
# rather than auditing d again (kept facts saying "nothing to hold" let it in), and facts
# kept under other audit rules are not used. (A pull first: the facts of pairs no hold names
# any more, b's and c's, are forgotten by the pull's gate.)
ss_run 0 "$SKILLSYNC" pull --quiet
key=$(ss_sql "$db" "SELECT rules FROM gate_facts WHERE view_tree = '$(git rev-parse space/main:d)'")
[ -n "$key" ] && [ "$(ss_sql "$db" "SELECT facts FROM gate_facts WHERE rules = '$key' AND view_tree = '$(git rev-parse space/main:d)'")" = "scripts=1 high_finding=0" ] ||
	fail "no facts kept for d: $(ss_sql "$db" "SELECT * FROM gate_facts")"
[ "$(ss_sql "$db" "SELECT count(*) FROM gate_facts")" = 2 ] || fail "facts kept for pairs no hold names: $(ss_sql "$db" "SELECT * FROM gate_facts")"
sql_write "$db" "UPDATE gate_facts SET facts = 'scripts=0 high_finding=0', rules = 'other' WHERE view_tree = '$(git rev-parse space/main:d)'"
ss_run 0 "$SKILLSYNC" pull --quiet
[ "$(script d)" = "echo v1" ] || fail "facts kept under other rules were used"
sql_write "$db" "UPDATE gate_facts SET facts = 'scripts=0 high_finding=0' WHERE view_tree = '$(git rev-parse space/main:d)'"
ss_run 0 "$SKILLSYNC" pull --quiet
[ "$(script d)" = "echo d2" ] || fail "the pull audited d again instead of using the kept facts"

# 5. review.trust by DID: a member's handle is stored as its DID (the clone knows it), a
# handle the clone does not know is resolved once; both are shown with their handles.
ss_run 0 "$SKILLSYNC" config review.trust "$bob_handle,$eve_did"
[ "$(ss_sql "$db" "SELECT value FROM config WHERE key = 'setting.review.trust'")" = "$bob_did,$eve_did" ] ||
	fail "review.trust stored: $(ss_sql "$db" "SELECT value FROM config WHERE key = 'setting.review.trust'")"
ss_run 0 "$SKILLSYNC" config review.trust
[ "$(cat "$work/stdout")" = "$bob_did ($bob_handle), $eve_did" ] || fail "config review.trust: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" config review.trust "$eve_handle"
[ "$(ss_sql "$db" "SELECT value FROM config WHERE key = 'setting.review.trust'")" = "$eve_did" ] ||
	fail "a handle the clone does not know was not resolved to its DID"
ss_run 1 "$SKILLSYNC" config review.trust "nobody.invalid"
grep -q "^skillsync: cannot resolve 'nobody.invalid'" "$work/stderr" || fail "an unresolvable handle: $(cat "$work/stderr")"
ss_run 0 "$SKILLSYNC" config review.trust "$bob_handle"
put bob bobtool "echo trusted"
ss_run 0 "$SKILLSYNC" pull --quiet
[ "$(script bobtool)" = "echo trusted" ] || fail "a trusted member's change was held: $(cat "$work/stdout")"
# a handle in the environment (or any place the stored value did not go through config) is
# refused, not matched
put bob bobtool "echo second"
SKILLSYNC_REVIEW_TRUST=$bob_handle ss_run 1 "$SKILLSYNC" pull --quiet
grep -q "^skillsync: SKILLSYNC_REVIEW_TRUST is '$bob_handle': want members' DIDs" "$work/stderr" ||
	fail "a handle in SKILLSYNC_REVIEW_TRUST: $(cat "$work/stderr")"
echo "review_sound: all checks passed"
