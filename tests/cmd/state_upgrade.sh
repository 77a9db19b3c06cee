#!/usr/bin/env bash
# needs: pds
# A clone made by an earlier release opens with this one: testdata/state/fabd418.tar.gz is a
# clone in use made by the build of commit fabd418 (state schema version 2; how it was made:
# testdata/state/make-fixture.sh), which the open brings to version 3 (the kept notes of an
# interrupted push, core/state/state_journal.h), and on to the newest (up to 8: what review
# showed, the gate's facts, review.trust by DID, core/state/state_hold.h). Its accounts lived on a throwaway PDS, so the
# script points the state at fresh accounts on the test PDS holding the same records, then
# checks that ls, status, pull and push work on it and that the schema is brought up to date.
# A state made by a newer skillsync than this one is refused with one line.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_sandbox
ss_accounts "$work" "" auth me
tar -C "$work" -xzf "$SS_TESTDATA/state/fabd418.tar.gz"
db=$work/space/.git/skillsync/state.db
version() { ss_sql "$db" "PRAGMA user_version"; }
[ "$(version)" = 2 ] || fail "the fixture's schema version: $(version)"

# The fixture's accounts -> the fresh ones (same roles), with the records they had.
python3 - "$db" "$pds" "$work/auth.json" "$work/me.json" <<'PY'
import json, sqlite3, sys
db, pds = sqlite3.connect(sys.argv[1]), sys.argv[2]
for key, path in (("authority", sys.argv[3]), ("me", sys.argv[4])):
    acct = json.load(open(path))
    (old,) = db.execute("SELECT value FROM config WHERE key = ?", (key,)).fetchone()
    db.execute("UPDATE config SET value = ? WHERE key = ?", (acct["did"], key))
    db.execute("UPDATE members SET did = ?, handle = ?, pds = ? WHERE did = ?",
               (acct["did"], acct["handle"], pds, old))
    for table in ("records", "view"):
        db.execute(f"UPDATE {table} SET did = ? WHERE did = ?", (acct["did"], old))
# review.trust as an earlier release kept it: a member's handle (any case) and a DID
auth, me = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
db.execute("INSERT INTO config (key, value) VALUES ('setting.review.trust', ?)",
           (auth["handle"].upper() + "," + me["did"],))
db.commit()
PY
SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$fill" --pds "$pds" \
	--did "$(ss_json "$work/auth.json" did)" --put "$SS_TESTDATA"/skills/valid/basic/*/ >/dev/null
SS_FILL_TOKEN=$(ss_json "$work/me.json" accessJwt) "$fill" --pds "$pds" \
	--did "$(ss_json "$work/me.json" did)" --put "$work/space/mine-pushed" >/dev/null
SKILLSYNC_PASSWORD=$(ss_json "$work/me.json" password) "$SKILLSYNC" login \
	"$(ss_json "$work/me.json" handle)" >/dev/null
cd space

# Offline: the state opens, and says what it said under the release that made it.
"$SKILLSYNC" ls >"$work/out" 2>&1 || fail "ls: $(cat "$work/out")"
grep -q "^pdf-forms " "$work/out" && grep -q "^mine-pushed  *mine" "$work/out" || fail "ls: $(cat "$work/out")"
# Brought up to date: version 3 keeps the notes of an interrupted push's writes, version 4 each
# space writer's set hash, version 5 the identity cache (whose keys replace space_writers' key),
# version 6 each member's verified revision (none yet: seeded from the node caches at the first
# read, never from members.rev), version 7 the review gate's held changes and pins (none: an
# old clone holds nothing back until its next pull asks the gate), version 8 what review showed
# of each hold, the gate's facts per pair of versions, and review.trust by DID alone (the
# member's handle became its DID).
[ "$(version)" = 8 ] || fail "schema version after the open: $(version)"
[ "$(ss_sql "$db" "SELECT value FROM config WHERE key = 'setting.review.trust'")" = \
	"$(ss_json "$work/auth.json" did),$(ss_json "$work/me.json" did)" ] ||
	fail "review.trust after the open: $(ss_sql "$db" "SELECT value FROM config WHERE key = 'setting.review.trust'")"
[ "$(ss_sql "$db" "SELECT count(*) FROM gate_facts")" = 0 ] || fail "gate_facts after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM pragma_table_info('holds') WHERE name = 'seen'")" = 1 ] ||
	fail "holds has no seen column"
[ "$(ss_sql "$db" "SELECT count(*) FROM holds")" = 0 ] || fail "holds after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM pins")" = 0 ] || fail "pins after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM floors")" = 0 ] || fail "floors after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM config WHERE key = 'floor_seed'")" = 1 ] ||
	fail "no floor seeding pending after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM push_notes")" = 0 ] || fail "push_notes after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM space_writers")" = 0 ] || fail "space_writers after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM identities")" = 0 ] || fail "identities after the open"
[ "$(ss_sql "$db" "SELECT count(*) FROM pragma_table_info('space_writers') WHERE name = 'key'")" = 0 ] ||
	fail "space_writers kept its key column"
"$SKILLSYNC" status >"$work/st" 2>&1 || fail "status: $(cat "$work/st")"
grep -q "Your branch has 1 commit not yet pushed; push would send: create local-draft" "$work/st" ||
	fail "status: $(cat "$work/st")"

# Online: the authority changes pdf-forms; the pull merges it with the unpushed commit.
ss_auth_change "Changed after the upgrade."
"$SKILLSYNC" pull >"$work/out" 2>&1 || fail "pull: $(cat "$work/out")"
grep -q "Changed after the upgrade." pdf-forms/SKILL.md || fail "the pull did not bring the change"
case "$(ss_sql "$db" "SELECT key FROM identities WHERE did = '$(ss_json "$work/auth.json" did)'")" in
did:key:z*) ;; *) fail "the pull kept no signing key for the authority" ;; esac
[ "$(ss_sql "$db" "SELECT rev FROM floors WHERE did = '$(ss_json "$work/auth.json" did)'")" = \
	"$(ss_sql "$db" "SELECT rev FROM members WHERE did = '$(ss_json "$work/auth.json" did)'")" ] ||
	fail "the pull did not raise the authority's floor to the commit it verified"
[ "$(ss_sql "$db" "SELECT count(*) FROM config WHERE key = 'floor_seed'")" = 0 ] ||
	fail "the floor seeding was not done by the pull"
[ -f local-draft/SKILL.md ] && [ -f mine-pushed/SKILL.md ] && [ -f README.md ] ||
	fail "the pull lost files: $(ls)"
"$SKILLSYNC" push >"$work/out" 2>&1 || fail "push: $(cat "$work/out")"
grep -q "^create local-draft$" "$work/out" || fail "push sent: $(cat "$work/out")"
ss_records "$(ss_json "$work/me.json" did)" | grep -q "Committed, not pushed." || fail "local-draft not in the space"
[ "$(git status --porcelain)" = "" ] || fail "not clean: $(git status --short)"
"$SKILLSYNC" status | grep -q "Your branch is up to date with the space." || fail "status after the push"
# The review gate works in the upgraded clone: a pinned skill's change waits, in the state and
# in the mirror a rebuild reads.
"$SKILLSYNC" pin pdf-forms >"$work/out" 2>&1 || fail "pin: $(cat "$work/out")"
ss_auth_change "Changed after the pin."
"$SKILLSYNC" pull --quiet >"$work/out" 2>&1 || fail "pull after the pin: $(cat "$work/out")"
grep -q "^1 change waits for review: pdf-forms (.*, pinned)" "$work/out" || fail "pull after the pin: $(cat "$work/out")"
! grep -q "Changed after the pin." pdf-forms/SKILL.md || fail "a pinned skill changed"
[ "$(ss_sql "$db" "SELECT name, reason FROM holds")" = "pdf-forms|pinned" ] || fail "holds: $(ss_sql "$db" "SELECT * FROM holds")"
grep -q "^pin	pdf-forms$" .git/skillsync/members && grep -q "^hold	pdf-forms	" .git/skillsync/members ||
	fail "the mirror has no pin or hold: $(cat .git/skillsync/members)"

# A state from a newer skillsync: refused with one line, and left as it was.
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA user_version = 99"); db.commit()' "$db"
before=$(sha256sum "$db")
set +e
"$SKILLSYNC" status >"$work/out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "newer schema: exit $rc: $(cat "$work/out")"
[ "$(wc -l <"$work/out")" = 1 ] && grep -q "^skillsync: local state '.*state.db' was made by a newer skillsync (schema version 99, this one knows up to [0-9]*): upgrade skillsync$" "$work/out" ||
	fail "newer schema said: $(cat "$work/out")"
[ "$(sha256sum "$db")" = "$before" ] || fail "the newer state was changed"
echo "state_upgrade: all checks passed"
